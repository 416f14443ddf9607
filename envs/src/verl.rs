//! verl's RL rows, read as they are: what verl's `examples/data_preprocess` scripts
//! write to `train.parquet` (`gsm8k.py`, `math_dataset.py`), so users point cascade at
//! those files without converting them.
//!
//! ```text
//! {"data_source": "openai/gsm8k",
//!  "prompt": [{"role": "user", "content": "…"}],          chat messages
//!  "ability": "math",
//!  "reward_model": {"style": "rule", "ground_truth": "72"},
//!  "extra_info": {"split": "train", "index": 0, …}}
//! ```
//!
//! - The prompt is `prompt` when it is a list of messages ([`verl_prompt`]); a text
//!   `prompt` is cascade's own layout and stays the environment's to render.
//! - `reward_model.ground_truth` is the gold ([`verl_fields`]): a string or number
//!   fills the environment's answer field (`math`: `answer`, `mcqa`:
//!   `expected_answer`); an object gives sample fields by name (`ifeval`:
//!   `{"instruction_id_list": […], "kwargs": […]}`), as `cascade_rewards.verl` does.
//!   The ground truth wins over a field of the same name beside it: verl scores
//!   against it alone, and a column left over from the source dataset (gsm8k's
//!   `answer` is the whole worked solution) is not the gold.
//! - The id is `extra_info.index` when the row has no `id` or `uuid`
//!   ([`Sample::id_value`]), else the row's position.
//!
//! `data_source` is not read: the environment is the one the user names (`cascade
//! score --env`, a recipe stage), not a guess from the source's name.

use cascade_verifiers::{FieldError, Sample};
use serde_json::Value;

use crate::environment::ChatMessage;

/// The field that holds verl's `{style, ground_truth}`.
pub const REWARD_MODEL: &str = "reward_model";

/// The chat prompt of a verl row: `prompt` as a list of `{role, content}` messages
/// (string contents). `None` when `prompt` is absent or not a list.
pub fn verl_prompt(row: &Sample) -> Result<Option<Vec<ChatMessage>>, FieldError> {
    let Some(Value::Array(items)) = row.get("prompt") else {
        return Ok(None);
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| message(item, &format!("prompt[{i}]")))
        .collect::<Result<_, _>>()
        .map(Some)
}

fn message(item: &Value, field: &str) -> Result<ChatMessage, FieldError> {
    let text = |key: &str| -> Result<String, FieldError> {
        let at = format!("{field}.{key}");
        let value = item
            .get(key)
            .ok_or_else(|| FieldError::Missing(at.clone()))?;
        value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| FieldError::wrong_type(at, "a string", value))
    };
    if !item.is_object() {
        return Err(FieldError::wrong_type(field, "an object", item));
    }
    Ok(ChatMessage {
        role: text("role")?,
        content: text("content")?,
    })
}

/// The row with `reward_model.ground_truth` in the fields its environment reads: a
/// string or number becomes `answer_field` (when the environment has one), an object's
/// entries become fields of their names. `None` when the row has no ground truth
/// (not a verl row), so the caller scores the row as it is.
pub fn verl_fields(row: &Sample, answer_field: Option<&str>) -> Option<Sample> {
    let truth = row.get(REWARD_MODEL)?.get("ground_truth")?;
    match (truth, answer_field) {
        (Value::Object(fields), _) => Some(fields.iter().fold(row.clone(), |derived, (k, v)| {
            derived.with_field(k, v.clone())
        })),
        (Value::String(_) | Value::Number(_), Some(field)) => {
            Some(row.with_field(field, truth.clone()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn verl_row(truth: Value) -> Sample {
        Sample::at_line(
            json!({
                "data_source": "openai/gsm8k",
                "prompt": [{"role": "system", "content": "S"}, {"role": "user", "content": "2+2?"}],
                "reward_model": {"style": "rule", "ground_truth": truth},
                "extra_info": {"split": "train", "index": 12},
                "answer": "2 + 2 = 4\n#### 4",
                "response": "\\boxed{4}",
            }),
            3,
        )
    }

    #[test]
    fn reads_the_chat_prompt() {
        let row = verl_row(json!("4"));
        assert_eq!(
            verl_prompt(&row).unwrap().unwrap(),
            [ChatMessage::system("S"), ChatMessage::user("2+2?")]
        );
        assert_eq!(
            verl_prompt(&Sample::new(json!({"prompt": "text"}))).unwrap(),
            None
        );
        let bad = Sample::new(json!({"prompt": [{"role": "user"}]}));
        assert_eq!(
            verl_prompt(&bad).unwrap_err().to_string(),
            "missing field `prompt[0].content`"
        );
        let bad = Sample::new(json!({"prompt": ["hi"]}));
        assert!(verl_prompt(&bad).is_err());
    }

    #[test]
    fn the_ground_truth_becomes_the_gold_and_wins() {
        let derived = verl_fields(&verl_row(json!("4")), Some("answer")).unwrap();
        assert_eq!(derived.get("answer").unwrap(), "4");
        assert_eq!(
            derived.id_value(),
            json!(12),
            "extra_info.index names the row"
        );
        assert_eq!(derived.line(), Some(3));
        let derived = verl_fields(&verl_row(json!(4)), Some("expected_answer")).unwrap();
        assert_eq!(derived.get("expected_answer").unwrap(), 4);

        let fields = json!({"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]});
        let derived = verl_fields(&verl_row(fields.clone()), None).unwrap();
        assert_eq!(
            derived.get("instruction_id_list").unwrap(),
            &fields["instruction_id_list"]
        );
        assert_eq!(derived.get("kwargs").unwrap(), &fields["kwargs"]);

        assert!(verl_fields(&verl_row(json!("4")), None).is_none());
        assert!(verl_fields(&Sample::new(json!({"answer": "4"})), Some("answer")).is_none());
    }
}
