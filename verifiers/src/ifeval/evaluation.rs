//! Strict and loose grading, as in IFEval's `evaluation_lib.py`.
//!
//! Strict: the response is not blank and the check passes on it as is.
//! Loose: the check passes on any of eight variants: the response, without its
//! first line, without its last line, without both (the last three stripped), and
//! each of those four with every `*` removed.

use super::error::IfevalError;
use super::instruction::Instruction;
use super::pystr::strip;

/// Per-instruction verdicts, in the order of the instruction list.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Verdicts {
    pub strict: Vec<bool>,
    pub loose: Vec<bool>,
}

/// The eight loose variants of a response, in the reference's order.
pub fn loose_variants(response: &str) -> [String; 8] {
    let lines: Vec<&str> = response.split('\n').collect();
    let n = lines.len();
    let join = |from: usize, to: usize| {
        if from >= to {
            String::new()
        } else {
            strip(&lines[from..to].join("\n")).to_owned()
        }
    };
    let remove_first = join(1, n);
    let remove_last = join(0, n.saturating_sub(1));
    let remove_both = join(1, n.saturating_sub(1));
    let unstar = |s: &str| s.replace('*', "");
    [
        response.to_owned(),
        unstar(response),
        remove_first.clone(),
        remove_last.clone(),
        remove_both.clone(),
        unstar(&remove_first),
        unstar(&remove_last),
        unstar(&remove_both),
    ]
}

/// What a blank (whitespace-only) response or variant gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Blank {
    /// IFEval's rule (and IFBench's): a blank text follows no instruction.
    #[default]
    Fails,
    /// NeMo Gym's `instruction_following` server: the check runs on it as on any
    /// text (an empty answer has no comma, so it follows `no_comma`).
    Checked,
}

/// Whether one variant follows one instruction: the check passes, and under
/// [`Blank::Fails`] the variant is not blank.
fn follows(instruction: &Instruction, value: &str, blank: Blank) -> bool {
    (blank == Blank::Checked || !strip(value).is_empty()) && instruction.check(value)
}

/// Strict verdicts only (IFEval's blank rule).
pub fn strict(instructions: &[Instruction], response: &str) -> Vec<bool> {
    instructions
        .iter()
        .map(|i| follows(i, response, Blank::Fails))
        .collect()
}

/// Strict and loose verdicts for every instruction (IFEval's blank rule).
pub fn evaluate(instructions: &[Instruction], response: &str) -> Verdicts {
    let items: Vec<Option<&Instruction>> = instructions.iter().map(Some).collect();
    grade_items(&items, response, Blank::Fails)
}

/// Strict and loose verdicts for instructions parsed one by one: one that could
/// not be parsed (unknown id, bad argument) is false in both, the others are
/// graded as usual, as NeMo Gym does.
pub fn grade(
    parsed: &[Result<Instruction, IfevalError>],
    response: &str,
    blank: Blank,
) -> Verdicts {
    let items: Vec<Option<&Instruction>> = parsed.iter().map(|p| p.as_ref().ok()).collect();
    grade_items(&items, response, blank)
}

fn grade_items(items: &[Option<&Instruction>], response: &str, blank: Blank) -> Verdicts {
    let strict: Vec<bool> = items
        .iter()
        .map(|i| i.is_some_and(|i| follows(i, response, blank)))
        .collect();
    if strict.iter().all(|&s| s) {
        return Verdicts {
            loose: strict.clone(),
            strict,
        };
    }
    let variants = loose_variants(response);
    // Without `*` in the text, four variants repeat the other four: check each
    // distinct text once (a verdict depends on the text only).
    let distinct: Vec<&String> = variants[1..]
        .iter()
        .enumerate()
        .filter(|&(k, v)| *v != variants[0] && !variants[1..1 + k].contains(v))
        .map(|(_, v)| v)
        .collect();
    let loose = items
        .iter()
        .zip(&strict)
        .map(|(i, &s)| s || i.is_some_and(|i| distinct.iter().any(|v| follows(i, v, blank))))
        .collect();
    Verdicts { strict, loose }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ifeval::parse_list;
    use serde_json::json;

    #[test]
    fn loose_passes_when_only_a_preamble_or_stars_break_it() {
        let ins = parse_list(
            &[
                json!("punctuation:no_comma"),
                json!("detectable_format:title"),
                json!("startend:quotation"),
            ],
            &[json!({}), json!({}), json!({})],
        )
        .unwrap();
        let v = evaluate(&ins, "Sure, here it is:\n\"<<Ode>> to joy\"");
        assert_eq!(v.strict, [false, true, false]);
        assert_eq!(v.loose, [true, true, true]);
        let stars = parse_list(
            &[json!("detectable_format:number_bullet_lists")],
            &[json!({"num_bullets": 1})],
        )
        .unwrap();
        let v = evaluate(&stars, "**Plan**\n* one");
        assert_eq!((v.strict[0], v.loose[0]), (true, true));
    }

    #[test]
    fn variants_follow_the_reference_order() {
        let v = loose_variants("a*\nb\nc*");
        assert_eq!(v[0], "a*\nb\nc*");
        assert_eq!(v[1], "a\nb\nc");
        assert_eq!(v[2], "b\nc*");
        assert_eq!(v[3], "a*\nb");
        assert_eq!(v[4], "b");
        assert_eq!(v[7], "b");
    }

    #[test]
    fn kwarg_errors_name_id_and_argument() {
        let err = |id: &str, kw| parse_list(&[json!(id)], &[kw]).unwrap_err().to_string();
        assert_eq!(
            err("detectable_format:title", json!({"num": 1})),
            "instruction `detectable_format:title`: unexpected kwarg `num`"
        );
        assert_eq!(
            err(
                "keywords:frequency",
                json!({"keyword": "x", "relation": "at least"})
            ),
            "instruction `keywords:frequency`: missing kwarg `frequency`"
        );
        assert_eq!(err("language:response_language", json!({"language": "xx"})), "instruction `language:response_language`: kwarg `language` must be one of IFEval's 30 ISO 639-1 codes, found \"xx\"");
        assert!(
            err("keywords:existence", json!({"keywords": ["a(?=b)"]})).starts_with(
                "instruction `keywords:existence`: kwarg `keywords` is not a usable regex"
            )
        );
        assert_eq!(err("length_constraints:nth_paragraph_first_word", json!({"num_paragraphs": 2, "nth_paragraph": 3, "first_word": "a"})), "instruction `length_constraints:nth_paragraph_first_word`: kwarg `nth_paragraph` must be between 1 and num_paragraphs (2), found 3");
        assert_eq!(
            parse_list(&[json!("punctuation:no_comma")], &[])
                .unwrap_err()
                .to_string(),
            "1 instruction ids but 0 kwargs entries"
        );
    }

    #[test]
    fn pathological_inputs_are_graded_not_hung() {
        let ids: Vec<_> = crate::ifeval::IDS
            .iter()
            .filter(|id| !id.contains("repeat_prompt"))
            .map(|id| json!(id))
            .collect();
        let kwargs: Vec<_> = ids
            .iter()
            .map(|id| match id.as_str().unwrap_or_default() {
                "keywords:existence" => json!({"keywords": ["a"]}),
                "keywords:frequency" => {
                    json!({"keyword": "a", "frequency": 1, "relation": "at least"})
                }
                "keywords:forbidden_words" => json!({"forbidden_words": ["a"]}),
                "keywords:letter_frequency" => {
                    json!({"letter": "a", "let_frequency": 1, "let_relation": "at least"})
                }
                "language:response_language" => json!({"language": "en"}),
                "length_constraints:number_sentences" => {
                    json!({"num_sentences": 1, "relation": "at least"})
                }
                "length_constraints:number_paragraphs" => json!({"num_paragraphs": 1}),
                "length_constraints:number_words" => {
                    json!({"num_words": 1, "relation": "at least"})
                }
                "length_constraints:nth_paragraph_first_word" => {
                    json!({"num_paragraphs": 1, "nth_paragraph": 1, "first_word": "a"})
                }
                "detectable_content:number_placeholders" => json!({"num_placeholders": 1}),
                "detectable_content:postscript" => json!({"postscript_marker": "P.S."}),
                "detectable_format:number_bullet_lists" => json!({"num_bullets": 1}),
                "detectable_format:number_highlighted_sections" => json!({"num_highlights": 1}),
                "detectable_format:multiple_sections" => {
                    json!({"section_spliter": "Section", "num_sections": 1})
                }
                "startend:end_checker" => json!({"end_phrase": "a"}),
                "change_case:capital_word_frequency" => {
                    json!({"capital_frequency": 1, "capital_relation": "at least"})
                }
                _ => json!({}),
            })
            .collect();
        let instructions = parse_list(&ids, &kwargs).unwrap();
        for text in [
            "!".repeat(20_000),
            ". ".repeat(10_000),
            "[".repeat(20_000),
            "'".repeat(20_000),
            "*\n".repeat(10_000),
            "Mr. ".repeat(5_000),
            "[".repeat(5_000) + &"{".repeat(5_000),
        ] {
            let v = evaluate(&instructions, &text);
            assert_eq!(v.strict.len(), instructions.len());
        }
    }

    #[test]
    fn ifevals_own_unusual_rows_parse() {
        // Keys 1122, 1129, 3324 and 3367 of IFEval's input_data.jsonl.
        for (ids, kwargs) in [
            (
                json!(["change_case:english_lowercase", "keywords:letter_frequency"]),
                json!([{}, {"let_relation": "at least", "letter": "#", "let_frequency": 4}]),
            ),
            (
                json!(["keywords:letter_frequency"]),
                json!([{"let_relation": "at least", "letter": "!", "let_frequency": 6}]),
            ),
            (
                json!([
                    "combination:two_responses",
                    "detectable_format:multiple_sections"
                ]),
                json!([{}, {"section_spliter": "Day", "num_sections": 7}]),
            ),
            (
                json!(["startend:quotation", "detectable_format:multiple_sections"]),
                json!([{}, {"section_spliter": "Audience", "num_sections": 2}]),
            ),
        ] {
            let (ids, kwargs) = (
                ids.as_array().unwrap().clone(),
                kwargs.as_array().unwrap().clone(),
            );
            assert!(parse_list(&ids, &kwargs).is_ok(), "{ids:?}");
        }
        let tweet = parse_list(
            &[json!("keywords:letter_frequency")],
            &[json!({"let_relation": "at least", "letter": "!", "let_frequency": 6})],
        )
        .unwrap();
        assert_eq!(
            evaluate(&tweet, "Wow! Great! Yes! Now! Go! Fun!").strict,
            [true]
        );
    }
}
