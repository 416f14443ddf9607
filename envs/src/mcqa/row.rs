//! An `mcqa` row's task fields, read and checked: NeMo Gym's `options`,
//! `expected_answer` and `grading_mode`, or cascade's `prompt`/`question` with
//! `options` and `answer`.

use cascade_verifiers::mcqa::{ChoiceError, Choices, GradingMode};
use cascade_verifiers::{FieldError, Sample};
use serde_json::{Map, Value};
use thiserror::Error;

/// Why a row cannot be graded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RowError {
    #[error(transparent)]
    Field(#[from] FieldError),
    #[error("field `{field}` must be a single letter A-Z, found {found:?}")]
    NotALetter { field: String, found: String },
    #[error("field `options`: {0}")]
    Options(#[from] ChoiceError),
    #[error("expected answer {expected} is not one of the options ({letters})")]
    ExpectedNotAnOption { expected: char, letters: String },
    #[error("field `grading_mode` must be strict_single_letter_boxed, lenient_boxed or lenient_answer_colon, found {0:?}")]
    UnknownMode(String),
}

impl RowError {
    /// The error as a [`FieldError`] (what `Environment::prompt` reports).
    pub fn into_field_error(self) -> FieldError {
        match self {
            RowError::Field(e) => e,
            _ => FieldError::WrongType {
                field: "options".into(),
                expected: "distinct option letters A-Z with string texts",
                found: "something else",
            },
        }
    }
}

/// Everything needed to grade one response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McqaRow {
    pub choices: Choices,
    /// The gold letter (Gym's `expected_answer`, trimmed and uppercased as Gym does).
    pub expected: char,
    /// The row's own mode; the env's config, when set, overrides it (as in Gym).
    pub grading_mode: Option<GradingMode>,
    /// Gym's `template_metadata.output_regex`: the row's own answer patterns.
    pub output_regex: Vec<String>,
    /// Gym's `template_metadata.answer_prefix`, read by `lenient_answer_colon_md`.
    pub answer_prefix: Option<String>,
}

impl TryFrom<&Sample> for McqaRow {
    type Error = RowError;

    fn try_from(sample: &Sample) -> Result<Self, RowError> {
        let choices = choices(sample)?;
        // Gym's `expected_answer`, else cascade's `answer`.
        let field = match (sample.get("expected_answer"), sample.get("answer")) {
            (None, Some(_)) => "answer",
            _ => "expected_answer",
        };
        let gold = sample.str_field(field)?;
        let expected = letter(gold.trim(), field)?;
        if !choices.contains(expected) {
            return Err(RowError::ExpectedNotAnOption {
                expected,
                letters: choices.letters(),
            });
        }
        Ok(Self {
            choices,
            expected,
            grading_mode: grading_mode(sample)?,
            output_regex: output_regex(sample)?,
            answer_prefix: answer_prefix(sample)?,
        })
    }
}

/// The row's `options`: a list of one-key objects (`[{"A": "…"}, {"B": "…"}]`, Gym's
/// layout; several keys in one object are read too) or one object (`{"A": "…"}`).
/// Letters are uppercased; an option whose text is null is left out, as Gym does.
pub fn choices(sample: &Sample) -> Result<Choices, RowError> {
    let mut entries = Vec::new();
    match sample.require("options")? {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let field = format!("options[{i}]");
                let object = item.as_object().ok_or_else(|| {
                    FieldError::wrong_type(&field, "an object such as {\"A\": \"text\"}", item)
                })?;
                read_entries(object, &field, &mut entries)?;
            }
        }
        Value::Object(object) => read_entries(object, "options", &mut entries)?,
        other => {
            return Err(FieldError::wrong_type(
                "options",
                "an array of one-key objects or an object",
                other,
            )
            .into())
        }
    }
    Ok(Choices::new(entries)?)
}

fn read_entries(
    object: &Map<String, Value>,
    field: &str,
    entries: &mut Vec<(char, String)>,
) -> Result<(), RowError> {
    for (key, text) in object {
        let at = format!("{field}.{}", short(key));
        let letter = letter(key, &at)?;
        match text {
            Value::Null => {}
            Value::String(text) => entries.push((letter, text.clone())),
            other => return Err(FieldError::wrong_type(&at, "a string", other).into()),
        }
    }
    Ok(())
}

/// The row's `grading_mode`, if set.
pub fn grading_mode(sample: &Sample) -> Result<Option<GradingMode>, RowError> {
    match sample.get("grading_mode") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(name)) => GradingMode::parse(name)
            .map(Some)
            .ok_or_else(|| RowError::UnknownMode(short(name).to_owned())),
        Some(other) => Err(FieldError::wrong_type("grading_mode", "a string", other).into()),
    }
}

/// The row's `template_metadata` object, if any.
fn template_metadata(sample: &Sample) -> Result<Option<&Map<String, Value>>, RowError> {
    let Some(metadata) = sample.get("template_metadata").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let object = metadata
        .as_object()
        .ok_or_else(|| FieldError::wrong_type("template_metadata", "an object", metadata))?;
    Ok(Some(object))
}

/// `template_metadata.answer_prefix`: a string, or absent.
fn answer_prefix(sample: &Sample) -> Result<Option<String>, RowError> {
    let Some(metadata) = template_metadata(sample)? else {
        return Ok(None);
    };
    match metadata.get("answer_prefix") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(prefix)) => Ok(Some(prefix.clone())),
        Some(other) => {
            Err(FieldError::wrong_type("template_metadata.answer_prefix", "a string", other).into())
        }
    }
}

/// `template_metadata.output_regex`: one pattern or a list (Gym's layout); other
/// `template_metadata` keys (`template_id`, `template_prompt`, …) are not for grading.
fn output_regex(sample: &Sample) -> Result<Vec<String>, RowError> {
    let Some(metadata) = template_metadata(sample)? else {
        return Ok(Vec::new());
    };
    const FIELD: &str = "template_metadata.output_regex";
    const EXPECTED: &str = "a string or an array of strings";
    match metadata.get("output_regex") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(pattern)) => Ok(vec![pattern.clone()]),
        Some(Value::Array(patterns)) => patterns
            .iter()
            .map(|p| {
                p.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| FieldError::wrong_type(FIELD, EXPECTED, p).into())
            })
            .collect(),
        Some(other) => Err(FieldError::wrong_type(FIELD, EXPECTED, other).into()),
    }
}

/// One ASCII letter, uppercased.
fn letter(text: &str, field: &str) -> Result<char, RowError> {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_alphabetic() => Ok(c.to_ascii_uppercase()),
        _ => Err(RowError::NotALetter {
            field: field.to_owned(),
            found: short(text).to_owned(),
        }),
    }
}

/// At most 40 bytes of a string from the row, for error messages.
fn short(text: &str) -> &str {
    let mut end = text.len().min(40);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
