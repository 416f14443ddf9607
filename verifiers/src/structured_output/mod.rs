//! Structured output: is the model's answer a JSON, YAML, XML, TOML or CSV document (or
//! a function call's arguments) that a JSON Schema accepts? The checks behind the
//! `structured_output` environment, following NeMo Gym's `structured_outputs` server
//! except where noted in the README.
//!
//! ## Where the answer is
//! - **Text mode** (`response_mode: text`, the default): a closed `<think>…</think>`
//!   block is dropped (thinking is not the answer); then the body of the *last* fenced
//!   block (a line starting with three or more backticks, any or no language tag; an
//!   unclosed last block runs to the end) is the document, else the whole remaining text.
//!   Gym parses the whole text, so prose around a fence fails there and passes here.
//! - **Tool-call mode** (`response_mode: tool_call`): the answer is the one function
//!   call of the response: an OpenAI Responses `function_call` output item when the
//!   sample's `response` is a Responses object, else a Hermes
//!   `<tool_call>{"name": …, "arguments": …}</tool_call>` block in the text. Exactly one
//!   call is accepted; its name must be `tool_name` when set; its `arguments` (an object
//!   or a JSON string) are the document, unwrapped from `tool_payload_key` when set.
//!
//! ## From each format to a JSON value
//! - **JSON**: as written (`serde_json`; duplicate keys: the last wins).
//! - **YAML** (1.2 core schema, `serde_yaml_ng`): `yes`/`no`/`on`/`off` and unquoted dates
//!   stay strings; scalar mapping keys become their text (`1: a` → `{"1": "a"}`); merge
//!   keys (`<<`) are applied; one document only; tags and non-finite numbers (`.inf`,
//!   `.nan`) have no JSON value and are a parse error. Alias expansion is capped by the
//!   parser (a "billion laughs" document is a parse error, not a blow-up).
//! - **TOML**: tables → objects, arrays → arrays, date-times → their RFC 3339 text;
//!   `inf`/`nan` are a parse error.
//! - **XML**, as Gym's `xmltodict.parse`: the root element is the single key of the
//!   top-level object; an element with only text is that text (whitespace-trimmed), an
//!   empty element is `null`; attributes are `@name` keys and text beside children or
//!   attributes is `#text`; repeated child names make an array; comments and processing
//!   instructions are ignored; a `<!DOCTYPE>` is refused (no entity expansion). Then,
//!   unless `xml_coerce_types` is off, the leaves are coerced by the schema
//!   ([`coerce`], as Gym's `coerce_xml_types`).
//! - **CSV**, as Gym's `csv.DictReader`: the first row is the header; every later
//!   non-blank row becomes an object keyed by the header (a missing trailing field is
//!   `null`; a row longer than the header is a parse error); the document is the array of
//!   rows. Cells are then coerced by the schema ([`coerce`], as Gym's `coerce_csv_types`).
//!
//! ## The schema
//! Unless the row turns strictness off, the schema is made strict as Gym does: every
//! schema object with `properties` gets `required` = all its property names and
//! `additionalProperties: false`, recursively through every subschema ([`strict`]).
//! Validation uses `jsonschema` with no remote or file `$ref` resolution (an external
//! `$ref` is an `invalid_schema`), `format` as an annotation only (as Gym), and the
//! linear-time `regex` engine for `pattern` (a hostile pattern cannot hang).
//!
//! ## Limits
//! The response, the schema and the nesting depth of any document are capped
//! ([`MAX_RESPONSE_BYTES`], [`MAX_SCHEMA_BYTES`], [`MAX_DEPTH`]); a capped input gets
//! reward 0 with the cap named in `message`.

mod coerce;
mod extract;
mod formats;
mod strict;
mod tabular;
mod tool_call;
mod validate;
mod xml;
pub mod yaml;

use serde_json::Value;

pub use extract::document_text;
pub use strict::strictify;
pub use tool_call::FunctionCall;
pub use validate::{prepare_schema, validate, Prepared};

use crate::Reward;

/// The largest response checked, in bytes.
pub const MAX_RESPONSE_BYTES: usize = 2 * 1024 * 1024;
/// The largest schema accepted, in bytes of JSON.
pub const MAX_SCHEMA_BYTES: usize = 512 * 1024;
/// The deepest nesting of arrays/objects (or XML elements) a document may have.
pub const MAX_DEPTH: usize = 128;

/// The format the answer must be written in (Gym's `schema_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaType {
    Json,
    Yaml,
    Xml,
    Toml,
    Csv,
}

impl SchemaType {
    /// Parses Gym's name (case-insensitive, as Gym lowercases it).
    pub fn parse(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "json" => Some(Self::Json),
            "yaml" => Some(Self::Yaml),
            "xml" => Some(Self::Xml),
            "toml" => Some(Self::Toml),
            "csv" => Some(Self::Csv),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Yaml => "yaml",
            Self::Xml => "xml",
            Self::Toml => "toml",
            Self::Csv => "csv",
        }
    }
}

/// Where the answer is: the text, or one function call (Gym's `response_mode`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResponseMode {
    Text,
    ToolCall {
        /// The function that must be called (Gym's `tool_name`); any name when `None`.
        tool_name: Option<String>,
        /// The argument that holds the document (Gym's `tool_payload_key`).
        payload_key: Option<String>,
    },
}

/// One structured-output task: the schema and how to read the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct StructuredTask {
    /// The JSON Schema, as given by the row (before strictification).
    pub schema: Value,
    pub schema_type: SchemaType,
    /// Make the schema strict (Gym always does).
    pub strict: bool,
    pub mode: ResponseMode,
    /// Coerce XML leaves by the schema (Gym's server setting `xml_coerce_types`).
    pub xml_coerce_types: bool,
}

/// The model's answer: its text and, when the response came as a Responses API
/// object, its `function_call` items.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    pub text: String,
    /// `Some` only when the response was a Responses object (even with no calls).
    pub function_calls: Option<Vec<FunctionCall>>,
    /// The Responses object's `error`, when set.
    pub api_error: Option<String>,
}

impl Answer {
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }
}

/// Why an answer failed (`details.error_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorType {
    /// Nothing to parse: empty, whitespace, or only thinking (Gym: `empty_response`).
    NoOutput,
    /// The document is not valid in its format, or too deep.
    ParseError,
    /// The document parsed but the schema rejects it (Gym: `validation_error`).
    SchemaViolation,
    /// The row's schema is not JSON, not a valid schema, too big, or refers outside.
    InvalidSchema,
    /// The response is over [`MAX_RESPONSE_BYTES`].
    TooLarge,
    /// The Responses object carries an `error`.
    ApiError,
    MissingToolCall,
    MultipleToolCalls,
    WrongToolName,
    ToolArgumentsParseError,
    MissingToolPayloadKey,
}

impl ErrorType {
    pub fn name(self) -> &'static str {
        match self {
            Self::NoOutput => "no_output",
            Self::ParseError => "parse_error",
            Self::SchemaViolation => "schema_violation",
            Self::InvalidSchema => "invalid_schema",
            Self::TooLarge => "too_large",
            Self::ApiError => "api_error",
            Self::MissingToolCall => "missing_tool_call",
            Self::MultipleToolCalls => "multiple_tool_calls",
            Self::WrongToolName => "wrong_tool_name",
            Self::ToolArgumentsParseError => "tool_arguments_parse_error",
            Self::MissingToolPayloadKey => "missing_tool_payload_key",
        }
    }
}

/// A failed check: its type, a message, and for a schema violation where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub error_type: ErrorType,
    pub message: String,
    /// The first violation's JSON pointer into the document and into the schema.
    pub instance_path: Option<String>,
    pub schema_path: Option<String>,
}

impl Failure {
    pub(crate) fn new(error_type: ErrorType, message: impl Into<String>) -> Self {
        Self {
            error_type,
            message: message.into(),
            instance_path: None,
            schema_path: None,
        }
    }
}

/// Checks one answer. Reward 1 when the document parses and the (strict) schema accepts
/// it, else 0 with `details.error_type` and `details.message`; an unusable schema also
/// sets `details.error` (the row, not the model, is at fault).
pub fn check(task: &StructuredTask, answer: &Answer) -> Reward {
    let (outcome, source) = run(task, answer);
    let mut reward = match &outcome {
        Ok(()) => Reward::new(1.0)
            .with("error_type", Value::Null)
            .with("verdict", "valid"),
        Err(f) => {
            let mut r = Reward::new(0.0)
                .with("error_type", f.error_type.name())
                .with("verdict", f.error_type.name())
                .with("message", f.message.clone());
            if let Some(p) = &f.instance_path {
                r.set("instance_path", p.clone());
            }
            if let Some(p) = &f.schema_path {
                r.set("schema_path", p.clone());
            }
            if f.error_type == ErrorType::InvalidSchema {
                r.set("error", format!("invalid schema: {}", f.message));
            }
            r
        }
    };
    reward.set("schema_type", task.schema_type.name());
    reward.set("strict", task.strict);
    reward.set("extracted_from", source.map_or(Value::Null, Value::from));
    reward
}

/// The check itself, and where the document was found (`fenced_block`, `bare`,
/// `function_call` or `tool_call_tag`).
fn run(task: &StructuredTask, answer: &Answer) -> (Result<(), Failure>, Option<&'static str>) {
    let prepared = match validate::prepare_schema(&task.schema, task.strict) {
        Ok(p) => p,
        Err(f) => return (Err(f), None),
    };
    if answer.text.len() > MAX_RESPONSE_BYTES {
        let message = format!(
            "the response is {} bytes, over the {MAX_RESPONSE_BYTES}-byte cap",
            answer.text.len()
        );
        return (Err(Failure::new(ErrorType::TooLarge, message)), None);
    }
    let (document, source) = match &task.mode {
        ResponseMode::Text => match text_document(task, &prepared.schema, &answer.text) {
            Ok(found) => found,
            Err(f) => return (Err(f), None),
        },
        ResponseMode::ToolCall {
            tool_name,
            payload_key,
        } => match tool_call::payload(answer, tool_name.as_deref(), payload_key.as_deref()) {
            Ok(found) => found,
            Err(f) => return (Err(f), None),
        },
    };
    (validate::validate(&prepared, &document), Some(source))
}

/// The text-mode document, parsed and coerced.
fn text_document(
    task: &StructuredTask,
    schema: &Value,
    text: &str,
) -> Result<(Value, &'static str), Failure> {
    if let Err(why) = crate::final_answer::final_answer(text).answer() {
        return Err(Failure::new(ErrorType::NoOutput, why.to_string()));
    }
    let (body, source) = document_text(text).ok_or_else(|| {
        Failure::new(
            ErrorType::NoOutput,
            "no answer text (empty after the thinking)",
        )
    })?;
    let parsed = formats::parse(task.schema_type, body)
        .map_err(|message| Failure::new(ErrorType::ParseError, message))?;
    let document = match task.schema_type {
        SchemaType::Xml if task.xml_coerce_types => coerce::xml(parsed, schema),
        SchemaType::Csv => coerce::csv(parsed, schema),
        _ => parsed,
    };
    Ok((document, source))
}

#[cfg(test)]
mod tests;
