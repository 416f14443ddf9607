//! The checks a declarative component can run, compiled once when the plugin loads.

use cascade_verifiers::structured_output::{prepare_schema, validate, Prepared};
use cascade_verifiers::{math, Sample};
use regex::{Regex, RegexBuilder};
use serde_json::Value;

use super::{CheckKind, ComponentSpec, Lookup, Normalize};
use crate::environment::Environment;
use crate::scoring::score_guarded;

/// Compiled regexes are capped (the `regex` crate runs in linear time; this bounds its
/// memory).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

pub(super) enum Check {
    Regex(Regex),
    Exact {
        field: String,
        normalize: Normalize,
    },
    Numeric {
        field: String,
        tolerance: f64,
        relative: f64,
    },
    Math {
        field: String,
        extracted: bool,
    },
    JsonSchema(Schema),
    Length(LengthBounds),
    Verifier(Box<dyn Environment>),
}

pub(super) enum Schema {
    Inline(Box<Prepared>),
    Field(String),
}

#[derive(Default)]
pub(super) struct LengthBounds {
    min_chars: Option<usize>,
    max_chars: Option<usize>,
    min_words: Option<usize>,
    max_words: Option<usize>,
}

/// A score in [0, 1] and, below 1, why.
type Scored = (f64, Option<String>);

pub(super) fn compile_regex(pattern: &str, key: &str) -> Result<Regex, String> {
    RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| format!("`{key}` is not a valid pattern: {e}"))
}

impl Check {
    pub(super) fn compile(spec: &ComponentSpec, lookup: &Lookup<'_>) -> Result<Check, String> {
        refuse_other_keys(spec)?;
        let field = || {
            spec.field
                .clone()
                .ok_or_else(|| format!("a `{}` check needs `field`", kind_name(spec.check)))
        };
        Ok(match spec.check {
            CheckKind::Regex => {
                let pattern = spec
                    .pattern
                    .as_deref()
                    .ok_or("a `regex` check needs `pattern`")?;
                Check::Regex(compile_regex(pattern, "pattern")?)
            }
            CheckKind::Exact => Check::Exact {
                field: field()?,
                normalize: spec.normalize.unwrap_or_default(),
            },
            CheckKind::Numeric => numeric(spec, field()?)?,
            CheckKind::Math => Check::Math {
                field: field()?,
                extracted: spec.extract.is_some(),
            },
            CheckKind::JsonSchema => Check::JsonSchema(schema(spec)?),
            CheckKind::Length => Check::Length(LengthBounds {
                min_chars: spec.min_chars,
                max_chars: spec.max_chars,
                min_words: spec.min_words,
                max_words: spec.max_words,
            }),
            CheckKind::Verifier => {
                let name = spec
                    .verifier
                    .as_deref()
                    .ok_or("a `verifier` check needs `verifier`")?;
                Check::Verifier(lookup(name).ok_or_else(|| format!("unknown verifier `{name}`"))?)
            }
        })
    }

    pub(super) fn score(&self, sample: &Sample, text: &str) -> Scored {
        match self {
            Check::Regex(re) => pass(re.is_match(text), "the pattern does not match"),
            Check::Exact { field, normalize } => exact(sample, field, *normalize, text),
            Check::Numeric {
                field,
                tolerance,
                relative,
            } => numeric_score(sample, field, *tolerance, *relative, text),
            Check::Math { field, extracted } => math_score(sample, field, *extracted, text),
            Check::JsonSchema(schema) => schema_score(sample, schema, text),
            Check::Length(bounds) => bounds.score(text),
            Check::Verifier(env) => {
                let reward = score_guarded(env.as_ref(), sample);
                let why = reward
                    .details
                    .get("error")
                    .map(|e| format!("{}: {e}", env.name()));
                (reward.score, why)
            }
        }
    }
}

fn kind_name(kind: CheckKind) -> &'static str {
    match kind {
        CheckKind::Regex => "regex",
        CheckKind::Exact => "exact",
        CheckKind::Numeric => "numeric",
        CheckKind::Math => "math",
        CheckKind::JsonSchema => "json_schema",
        CheckKind::Length => "length",
        CheckKind::Verifier => "verifier",
    }
}

/// A key that the component's check does not read is refused, naming it.
fn refuse_other_keys(spec: &ComponentSpec) -> Result<(), String> {
    let set = [
        ("pattern", spec.pattern.is_some()),
        ("field", spec.field.is_some()),
        ("normalize", spec.normalize.is_some()),
        ("tolerance", spec.tolerance.is_some()),
        ("relative", spec.relative.is_some()),
        ("schema", spec.schema.is_some()),
        ("schema_field", spec.schema_field.is_some()),
        ("min_chars", spec.min_chars.is_some()),
        ("max_chars", spec.max_chars.is_some()),
        ("min_words", spec.min_words.is_some()),
        ("max_words", spec.max_words.is_some()),
        ("verifier", spec.verifier.is_some()),
    ];
    let allowed: &[&str] = match spec.check {
        CheckKind::Regex => &["pattern"],
        CheckKind::Exact => &["field", "normalize"],
        CheckKind::Numeric => &["field", "tolerance", "relative"],
        CheckKind::Math => &["field"],
        CheckKind::JsonSchema => &["schema", "schema_field"],
        CheckKind::Length => &["min_chars", "max_chars", "min_words", "max_words"],
        CheckKind::Verifier => &["verifier"],
    };
    match set.iter().find(|(key, on)| *on && !allowed.contains(key)) {
        Some((key, _)) => Err(format!(
            "`{key}` does not apply to a `{}` check (its keys: {})",
            kind_name(spec.check),
            allowed.join(", ")
        )),
        None => Ok(()),
    }
}

fn pass(ok: bool, why: &str) -> Scored {
    if ok {
        (1.0, None)
    } else {
        (0.0, Some(why.to_owned()))
    }
}

/// The row's `field` as text: a string, or a number or bool written out.
fn gold_text(sample: &Sample, field: &str) -> Result<String, String> {
    match sample.get(field) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v @ (Value::Number(_) | Value::Bool(_))) => Ok(v.to_string()),
        Some(_) => Err(format!("the row's `{field}` is not a string or a number")),
        None => Err(format!("the row has no `{field}`")),
    }
}

fn normalized(text: &str, how: Normalize) -> String {
    match how {
        Normalize::None => text.to_owned(),
        Normalize::Strip => text.trim().to_owned(),
        Normalize::Whitespace => text.split_whitespace().collect::<Vec<_>>().join(" "),
        Normalize::Casefold => normalized(text, Normalize::Whitespace).to_lowercase(),
    }
}

fn exact(sample: &Sample, field: &str, how: Normalize, text: &str) -> Scored {
    let golds: Vec<String> = match sample.get(field) {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .collect(),
        _ => match gold_text(sample, field) {
            Ok(gold) => vec![gold],
            Err(why) => return (0.0, Some(why)),
        },
    };
    let got = normalized(text, how);
    pass(
        golds.iter().any(|g| normalized(g, how) == got),
        "the text differs from the row's answer",
    )
}

fn numeric(spec: &ComponentSpec, field: String) -> Result<Check, String> {
    let tolerance = spec.tolerance.unwrap_or(1e-9);
    let relative = spec.relative.unwrap_or(0.0);
    let ok = |v: f64| v.is_finite() && v >= 0.0;
    if !ok(tolerance) || !ok(relative) {
        return Err("`tolerance` and `relative` must be finite numbers >= 0".into());
    }
    Ok(Check::Numeric {
        field,
        tolerance,
        relative,
    })
}

fn parse_number(text: &str) -> Option<f64> {
    let cleaned: String = text.trim().trim_start_matches('$').replace(',', "");
    cleaned.parse::<f64>().ok().filter(|v| v.is_finite())
}

fn numeric_score(
    sample: &Sample,
    field: &str,
    tolerance: f64,
    relative: f64,
    text: &str,
) -> Scored {
    let gold = match gold_text(sample, field).map(|g| parse_number(&g)) {
        Ok(Some(gold)) => gold,
        Ok(None) => return (0.0, Some(format!("the row's `{field}` is not a number"))),
        Err(why) => return (0.0, Some(why)),
    };
    let Some(got) = parse_number(text) else {
        return (0.0, Some("the text is not a number".into()));
    };
    let gap = (got - gold).abs();
    pass(
        gap <= tolerance || gap <= relative * gold.abs(),
        "the number is outside the tolerance",
    )
}

fn math_score(sample: &Sample, field: &str, extracted: bool, text: &str) -> Scored {
    let gold = match gold_text(sample, field) {
        Ok(gold) => gold,
        Err(why) => return (0.0, Some(why)),
    };
    let verdict = if extracted {
        math::equivalent(text, &gold)
    } else {
        math::check(text, &gold)
    };
    pass(
        verdict.correct,
        &format!("{}: {}", verdict.verdict, verdict.reason),
    )
}

fn schema(spec: &ComponentSpec) -> Result<Schema, String> {
    match (&spec.schema, &spec.schema_field) {
        (Some(inline), None) => {
            let json = serde_json::to_value(inline).map_err(|e| e.to_string())?;
            let prepared =
                prepare_schema(&json, false).map_err(|f| format!("`schema`: {}", f.message))?;
            Ok(Schema::Inline(Box::new(prepared)))
        }
        (None, Some(field)) => Ok(Schema::Field(field.clone())),
        _ => Err("a `json_schema` check needs one of `schema` or `schema_field`".into()),
    }
}

fn schema_score(sample: &Sample, schema: &Schema, text: &str) -> Scored {
    let document: Value = match serde_json::from_str(text.trim()) {
        Ok(document) => document,
        Err(e) => return (0.0, Some(format!("the text is not JSON: {e}"))),
    };
    let from_row;
    let prepared = match schema {
        Schema::Inline(prepared) => prepared.as_ref(),
        Schema::Field(field) => {
            let value = match sample.get(field) {
                Some(Value::String(s)) => serde_json::from_str(s).unwrap_or(Value::Null),
                Some(v) => v.clone(),
                None => return (0.0, Some(format!("the row has no `{field}`"))),
            };
            from_row = match prepare_schema(&value, false) {
                Ok(p) => p,
                Err(f) => return (0.0, Some(format!("the row's schema: {}", f.message))),
            };
            &from_row
        }
    };
    match validate(prepared, &document) {
        Ok(()) => (1.0, None),
        Err(f) => (0.0, Some(f.message)),
    }
}

impl LengthBounds {
    fn score(&self, text: &str) -> Scored {
        let chars = text.chars().count();
        let words = text.split_whitespace().count();
        let within = |n: usize, min: Option<usize>, max: Option<usize>| {
            min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m)
        };
        let ok = within(chars, self.min_chars, self.max_chars)
            && within(words, self.min_words, self.max_words);
        pass(
            ok,
            &format!("{chars} characters, {words} words: outside the bounds"),
        )
    }
}
