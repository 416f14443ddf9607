//! Loaders for public math datasets, producing `math` environment rows:
//! `{"id", "problem", "answer"}`.
//!
//! Layouts (one JSON object per line):
//! - **MATH** (Hendrycks): `problem`, `solution` with the answer in the last `\boxed{}`;
//! - **GSM8K**: `question`, `answer` ending in `#### 42`;
//! - **AIME-style**: `problem` (or `question`, `Problem`) and `answer` (or `Answer`),
//!   a string or a number.
//!
//! [`MathFormat::Auto`] picks the layout per row. The id is the row's `id`,
//! `unique_id` or `ID` when present, else `<file stem>-<line number>`.

use std::path::Path;

use cascade_verifiers::math::{extract_answer, AnswerSource, Extraction};
use serde_json::{json, Map, Value};

use cascade_verifiers::FieldError;

use crate::{LoadError, RowError};

/// Which public layout a file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MathFormat {
    Math,
    Gsm8k,
    Aime,
    /// Decide per row from its fields.
    Auto,
}

impl MathFormat {
    /// Parses a format name: `math`, `gsm8k`, `aime` or `auto`.
    pub fn from_name(name: &str) -> Result<Self, LoadError> {
        Ok(match name.to_ascii_lowercase().as_str() {
            "math" | "hendrycks" => MathFormat::Math,
            "gsm8k" => MathFormat::Gsm8k,
            "aime" | "jsonl" => MathFormat::Aime,
            "auto" => MathFormat::Auto,
            _ => return Err(LoadError::UnknownFormat(name.to_owned())),
        })
    }
}

/// Reads a JSONL file and converts every row; the first bad row is an error naming
/// the file and line. Blank lines are skipped.
pub fn load(path: &Path, format: MathFormat) -> Result<Vec<Value>, LoadError> {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "row".to_owned());
    crate::jsonl::convert_file(path, |row, line| {
        convert_row(row, format, &format!("{stem}-{line}"))
    })
}

/// Converts one public row into a `math` row.
pub fn convert_row(row: &Value, format: MathFormat, fallback_id: &str) -> Result<Value, RowError> {
    let obj = row.as_object().ok_or(RowError::NotObject)?;
    let format = match format {
        MathFormat::Auto => detect(obj),
        f => f,
    };
    let (problem, answer) = match format {
        MathFormat::Math => {
            let problem = str_field(obj, &["problem"])?;
            let solution = str_field(obj, &["solution"])?;
            (problem, boxed_answer(&solution)?)
        }
        MathFormat::Gsm8k => {
            let problem = str_field(obj, &["question", "problem"])?;
            let answer = str_field(obj, &["answer"])?;
            (problem, gsm8k_answer(&answer)?)
        }
        MathFormat::Aime | MathFormat::Auto => {
            let problem = str_field(obj, &["problem", "question", "Problem", "Question"])?;
            let answer = answer_field(obj)?;
            (problem, answer)
        }
    };
    let id = ["id", "unique_id", "ID"]
        .iter()
        .find_map(|k| match obj.get(*k) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        })
        .unwrap_or_else(|| fallback_id.to_owned());
    Ok(json!({ "id": id, "problem": problem, "answer": answer }))
}

fn detect(obj: &Map<String, Value>) -> MathFormat {
    if obj.contains_key("solution") && obj.contains_key("problem") && !obj.contains_key("answer") {
        return MathFormat::Math;
    }
    if let Some(Value::String(a)) = obj.get("answer") {
        if a.contains("####") {
            return MathFormat::Gsm8k;
        }
    }
    MathFormat::Aime
}

fn str_field(obj: &Map<String, Value>, names: &[&str]) -> Result<String, RowError> {
    for name in names {
        match obj.get(*name) {
            Some(Value::String(s)) => return Ok(s.clone()),
            Some(other) => return Err(wrong_type(name, "a string", other)),
            None => {}
        }
    }
    Err(FieldError::Missing(names[0].to_owned()).into())
}

fn answer_field(obj: &Map<String, Value>) -> Result<String, RowError> {
    for name in ["answer", "Answer"] {
        match obj.get(name) {
            Some(Value::String(s)) => return Ok(s.trim().to_owned()),
            Some(Value::Number(n)) => return Ok(n.to_string()),
            Some(other) => return Err(wrong_type(name, "a string or a number", other)),
            None => {}
        }
    }
    Err(FieldError::Missing("answer".to_owned()).into())
}

fn wrong_type(field: &str, expected: &'static str, found: &Value) -> RowError {
    FieldError::wrong_type(field, expected, found).into()
}

/// The last `\boxed{}` of a MATH solution.
fn boxed_answer(solution: &str) -> Result<String, RowError> {
    match extract_answer(solution) {
        Extraction::Found {
            text,
            source: AnswerSource::Boxed,
        } => Ok(text),
        _ => Err(RowError::invalid("solution", "has no \\boxed{} answer")),
    }
}

/// The text after GSM8K's `####` marker.
fn gsm8k_answer(answer: &str) -> Result<String, RowError> {
    let (_, after) = answer
        .rsplit_once("####")
        .ok_or_else(|| RowError::invalid("answer", "has no `####` marker"))?;
    let cleaned = after.trim().replace(',', "");
    if cleaned.is_empty() {
        return Err(RowError::invalid("answer", "is empty after `####`"));
    }
    Ok(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(json: &str, f: MathFormat) -> Result<Value, String> {
        convert_row(&serde_json::from_str(json).unwrap(), f, "f-1").map_err(|e| e.to_string())
    }

    #[test]
    fn math_rows_take_the_last_box() {
        let row = conv(
            r#"{"problem":"p","solution":"so \\boxed{1} no \\boxed{\\frac{1}{2}}.","level":"Level 2"}"#,
            MathFormat::Auto,
        )
        .unwrap();
        assert_eq!(
            row,
            json!({"id":"f-1","problem":"p","answer":"\\frac{1}{2}"})
        );
        assert!(conv(r#"{"problem":"p","solution":"none"}"#, MathFormat::Math).is_err());
    }

    #[test]
    fn gsm8k_rows_take_the_marker() {
        let row = conv(
            r#"{"question":"q","answer":"work <<2*3=6>> 6\n#### 1,234"}"#,
            MathFormat::Auto,
        )
        .unwrap();
        assert_eq!(row["answer"], "1234");
        assert_eq!(row["problem"], "q");
        assert!(conv(r#"{"question":"q","answer":"7"}"#, MathFormat::Gsm8k).is_err());
    }

    #[test]
    fn aime_rows_accept_numbers_and_ids() {
        let row = conv(
            r#"{"ID":"2024-I-1","Problem":"p","Answer":204}"#,
            MathFormat::Auto,
        )
        .unwrap();
        assert_eq!(row, json!({"id":"2024-I-1","problem":"p","answer":"204"}));
        let err = conv(r#"{"problem":"p","answer":[1]}"#, MathFormat::Aime).unwrap_err();
        assert_eq!(
            err,
            "field `answer` must be a string or a number, found an array"
        );
        assert!(conv("[1]", MathFormat::Auto).is_err());
    }

    #[test]
    fn load_names_file_and_line() {
        let dir = std::env::temp_dir().join(format!("cascade-math-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("aime.jsonl");
        std::fs::write(
            &path,
            "{\"problem\":\"p\",\"answer\":\"1\"}\n\n{\"problem\":\"q\"}\n",
        )
        .unwrap();
        let err = load(&path, MathFormat::Aime).unwrap_err().to_string();
        assert!(
            err.ends_with("aime.jsonl:3: missing field `answer`"),
            "{err}"
        );
        std::fs::write(&path, "{\"problem\":\"p\",\"answer\":\"1\"}\n").unwrap();
        let rows = load(&path, MathFormat::Auto).unwrap();
        assert_eq!(rows[0]["id"], "aime-1");
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(MathFormat::from_name("csv").is_err());
    }
}
