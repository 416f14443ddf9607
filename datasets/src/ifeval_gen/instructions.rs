//! Random arguments and IFEval's own description text for each instruction id,
//! plus IFEval's table of instruction pairs that cannot be asked together.

use serde_json::{json, Value};

use super::tasks::WORDS;
use cascade_verifiers::seeded::SplitMix64;

/// Ids the generator draws from: all 25 IFEval ids.
pub use cascade_verifiers::ifeval::IDS;

/// Languages drawn for `language:response_language`, with their names.
const LANGUAGES: [(&str, &str); 10] = [
    ("es", "Spanish"),
    ("fr", "French"),
    ("de", "German"),
    ("it", "Italian"),
    ("pt", "Portuguese"),
    ("ru", "Russian"),
    ("hi", "Hindi"),
    ("ja", "Japanese"),
    ("ko", "Korean"),
    ("fi", "Finnish"),
];

/// Ids that conflict with every other id except the listed ones.
const CONFLICT_ALL_EXCEPT: [(&str, &[&str]); 4] = [
    ("detectable_format:constrained_response", &[]),
    (
        "detectable_format:json_format",
        &["keywords:forbidden_words", "keywords:existence"],
    ),
    (
        "combination:two_responses",
        &[
            "keywords:forbidden_words",
            "keywords:existence",
            "language:response_language",
            "detectable_format:title",
            "punctuation:no_comma",
        ],
    ),
    (
        "combination:repeat_prompt",
        &[
            "keywords:existence",
            "detectable_format:title",
            "punctuation:no_comma",
        ],
    ),
];

/// IFEval's `INSTRUCTION_CONFLICTS` pairs (made symmetric by [`conflicts`]).
const CONFLICT_PAIRS: [(&str, &str); 15] = [
    (
        "language:response_language",
        "detectable_format:multiple_sections",
    ),
    ("language:response_language", "keywords:existence"),
    ("language:response_language", "keywords:frequency"),
    ("language:response_language", "keywords:forbidden_words"),
    ("language:response_language", "startend:end_checker"),
    ("language:response_language", "change_case:english_capital"),
    (
        "language:response_language",
        "change_case:english_lowercase",
    ),
    (
        "length_constraints:number_paragraphs",
        "length_constraints:nth_paragraph_first_word",
    ),
    (
        "length_constraints:number_paragraphs",
        "length_constraints:number_sentences",
    ),
    (
        "detectable_format:multiple_sections",
        "detectable_format:number_highlighted_sections",
    ),
    (
        "change_case:capital_word_frequency",
        "change_case:english_lowercase",
    ),
    (
        "change_case:capital_word_frequency",
        "change_case:english_capital",
    ),
    (
        "change_case:english_lowercase",
        "change_case:english_capital",
    ),
    ("startend:quotation", "detectable_format:title"),
    // Not in IFEval's table, but unsatisfiable together: every word capitalised
    // while the language must be other than English.
    (
        "language:response_language",
        "change_case:capital_word_frequency",
    ),
];

/// Whether two ids may not appear in the same prompt (an id conflicts with itself).
pub fn conflicts(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let all_except = |x: &str, y: &str| {
        CONFLICT_ALL_EXCEPT
            .iter()
            .any(|(id, except)| *id == x && !except.contains(&y))
    };
    all_except(a, b)
        || all_except(b, a)
        || CONFLICT_PAIRS
            .iter()
            .any(|&(x, y)| (x == a && y == b) || (x == b && y == a))
}

fn relation(rng: &mut SplitMix64) -> &'static str {
    const RELATIONS: [&str; 2] = ["less than", "at least"];
    RELATIONS[rng.below(2)]
}

/// A threshold for `relation`: "less than" never gets the bare minimum, which
/// would ask for nothing at all.
fn threshold(rng: &mut SplitMix64, relation: &str, lo: u64, hi: u64) -> u64 {
    if relation == "less than" {
        rng.range(lo + 1, hi + 1)
    } else {
        rng.range(lo, hi)
    }
}

/// Python's `repr` of a list of strings, as IFEval's descriptions print them.
fn py_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|w| format!("'{w}'")).collect();
    format!("[{}]", quoted.join(", "))
}

/// Draws arguments for `id` and renders its description. `task` is the base
/// request (the text `combination:repeat_prompt` asks to repeat).
pub fn draw(id: &str, rng: &mut SplitMix64, task: &str) -> (Value, String) {
    match id {
        "keywords:existence" => {
            let mut words = vec![*rng.pick(WORDS), *rng.pick(WORDS)];
            words.sort_unstable();
            words.dedup();
            let text = format!("Include keywords {} in the response.", py_list(&words));
            (json!({ "keywords": words }), text)
        }
        "keywords:frequency" => {
            let keyword = *rng.pick(WORDS);
            let rel = relation(rng);
            let n = threshold(rng, rel, 1, 3);
            let text = format!("In your response, the word {keyword} should appear {rel} {n} times.");
            (json!({ "keyword": keyword, "frequency": n, "relation": rel }), text)
        }
        "keywords:forbidden_words" => {
            let mut words = vec![*rng.pick(WORDS), *rng.pick(WORDS)];
            words.sort_unstable();
            words.dedup();
            let text = format!("Do not include keywords {} in the response.", py_list(&words));
            (json!({ "forbidden_words": words }), text)
        }
        "keywords:letter_frequency" => {
            let letter = (b'a' + rng.below(26) as u8) as char;
            let rel = relation(rng);
            let n = threshold(rng, rel, 1, 10);
            let text = format!("In your response, the letter {letter} should appear {rel} {n} times.");
            (json!({ "letter": letter.to_string(), "let_frequency": n, "let_relation": rel }), text)
        }
        "language:response_language" => {
            let (code, name) = *rng.pick(&LANGUAGES);
            let text = format!("Your ENTIRE response should be in {name} language, no other language is allowed.");
            (json!({ "language": code }), text)
        }
        "length_constraints:number_sentences" => {
            let rel = relation(rng);
            let n = threshold(rng, rel, 1, 20);
            let text = format!("Your response should contain {rel} {n} sentences.");
            (json!({ "num_sentences": n, "relation": rel }), text)
        }
        "length_constraints:number_paragraphs" => {
            let n = rng.range(2, 5);
            let text = format!("There should be {n} paragraphs. Paragraphs are separated with the markdown divider: ***");
            (json!({ "num_paragraphs": n }), text)
        }
        "length_constraints:number_words" => {
            let rel = relation(rng);
            let n = threshold(rng, rel, 100, 500);
            let text = format!("Answer with {rel} {n} words.");
            (json!({ "num_words": n, "relation": rel }), text)
        }
        "length_constraints:nth_paragraph_first_word" => {
            let n = rng.range(2, 5);
            let nth = rng.range(1, n);
            let word = *rng.pick(WORDS);
            let text = format!(
                "There should be {n} paragraphs. Paragraphs and only paragraphs are separated with each other by two new lines as if it was '\\n\\n' in python. Paragraph {nth} must start with word {word}."
            );
            (json!({ "num_paragraphs": n, "nth_paragraph": nth, "first_word": word }), text)
        }
        "detectable_content:number_placeholders" => {
            let n = rng.range(1, 4);
            let text = format!("The response must contain at least {n} placeholders represented by square brackets, such as [address].");
            (json!({ "num_placeholders": n }), text)
        }
        "detectable_content:postscript" => {
            let marker = *rng.pick(&["P.S.", "P.P.S"]);
            let text = format!("At the end of your response, please explicitly add a postscript starting with {marker}");
            (json!({ "postscript_marker": marker }), text)
        }
        "detectable_format:number_bullet_lists" => {
            let n = rng.range(1, 5);
            let text = format!("Your answer must contain exactly {n} bullet points. Use the markdown bullet points such as:\n* This is point 1. \n* This is point 2");
            (json!({ "num_bullets": n }), text)
        }
        "detectable_format:constrained_response" => (
            json!({}),
            "Answer with one of the following options: ('My answer is yes.', 'My answer is no.', 'My answer is maybe.')".to_owned(),
        ),
        "detectable_format:number_highlighted_sections" => {
            let n = rng.range(1, 4);
            let text = format!("Highlight at least {n} sections in your answer with markdown, i.e. *highlighted section*.");
            (json!({ "num_highlights": n }), text)
        }
        "detectable_format:multiple_sections" => {
            let splitter = *rng.pick(&["Section", "SECTION"]);
            let n = rng.range(2, 5);
            let text = format!(
                "Your response must have {n} sections. Mark the beginning of each section with {splitter} X, such as:\n{splitter} 1\n[content of section 1]\n{splitter} 2\n[content of section 2]"
            );
            (json!({ "section_spliter": splitter, "num_sections": n }), text)
        }
        "detectable_format:json_format" => (
            json!({}),
            "Entire output should be wrapped in JSON format. You can use markdown ticks such as ```.".to_owned(),
        ),
        "detectable_format:title" => (
            json!({}),
            "Your answer must contain a title, wrapped in double angular brackets, such as <<poem of joy>>.".to_owned(),
        ),
        "combination:two_responses" => (
            json!({}),
            "Give two different responses. Responses and only responses should be separated by 6 asterisk symbols: ******.".to_owned(),
        ),
        "combination:repeat_prompt" => (
            json!({ "prompt_to_repeat": task }),
            "First repeat the request word for word without change, then give your answer (1. do not say any words or characters before repeating the request; 2. the request you need to repeat does not include this sentence)".to_owned(),
        ),
        "startend:end_checker" => {
            let phrase = *rng.pick(&["Any other questions?", "Is there anything else I can help with?"]);
            let text = format!("Finish your response with this exact phrase {phrase}. No other words should follow this phrase.");
            (json!({ "end_phrase": phrase }), text)
        }
        "change_case:capital_word_frequency" => {
            let rel = relation(rng);
            let n = threshold(rng, rel, 1, 20);
            let text = format!("In your response, words with all capital letters should appear {rel} {n} times.");
            (json!({ "capital_frequency": n, "capital_relation": rel }), text)
        }
        "change_case:english_capital" => (
            json!({}),
            "Your entire response should be in English, and in all capital letters.".to_owned(),
        ),
        "change_case:english_lowercase" => (
            json!({}),
            "Your entire response should be in English, and in all lowercase letters. No capital letters are allowed.".to_owned(),
        ),
        "punctuation:no_comma" => (
            json!({}),
            "In your entire response, refrain from the use of any commas.".to_owned(),
        ),
        _ => (
            json!({}),
            "Wrap your entire response with double quotation marks.".to_owned(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflicts_are_symmetric_and_cover_the_case_pairs() {
        for a in IDS {
            assert!(conflicts(a, a));
            for b in IDS {
                assert_eq!(conflicts(a, b), conflicts(b, a), "{a} {b}");
            }
        }
        assert!(conflicts(
            "change_case:english_lowercase",
            "change_case:capital_word_frequency"
        ));
        assert!(conflicts(
            "detectable_format:json_format",
            "detectable_format:title"
        ));
        assert!(!conflicts(
            "detectable_format:json_format",
            "keywords:existence"
        ));
        assert!(!conflicts(
            "punctuation:no_comma",
            "detectable_format:title"
        ));
    }
}
