//! The final `\boxed{}` answer (boxed grading modes).

use super::candidate::{by_label_or_text, leading_label, single_letter};
use super::{Choices, NoAnswer};

/// A closed `\boxed{…}` or `\fbox{…}`: byte offsets of the command and of its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BoxSpan {
    start: usize,
    inner_start: usize,
    inner_end: usize,
    end: usize,
}

const BOX_COMMANDS: [&str; 2] = ["\\boxed", "\\fbox"];

/// The letter of the final box (or of the side-by-side boxes that end the text, which
/// must agree). `lenient` also reads option texts inside the box.
pub(super) fn final_box(text: &str, choices: &Choices, lenient: bool) -> Result<char, NoAnswer> {
    let boxes = outer_boxes(text);
    let Some(last) = boxes.last() else {
        return Err(NoAnswer::NoBox);
    };
    let mut group = vec![*last];
    for pair in boxes.windows(2).rev() {
        if !is_connector(&text[pair[0].end..pair[1].start]) {
            break;
        }
        group.push(pair[0]);
    }
    let read: Vec<Option<char>> = group
        .iter()
        .map(|b| letter_in(&text[b.inner_start..b.inner_end], choices, lenient))
        .collect();
    let mut letters: Vec<char> = read.iter().flatten().copied().collect();
    letters.sort_unstable();
    letters.dedup();
    match (letters.as_slice(), read.contains(&None)) {
        ([letter], false) => Ok(*letter),
        ([] | [_], _) => Err(NoAnswer::NotAnOption),
        (many, _) => {
            let names: Vec<String> = many.iter().map(char::to_string).collect();
            Err(NoAnswer::Ambiguous(names.join(", ")))
        }
    }
}

/// Strict mode follows NeMo Gym 0.7.0: one letter, or a letter labelling the box's
/// text (`\boxed{B) Gold}`); lenient mode reads option texts too.
fn letter_in(inner: &str, choices: &Choices, lenient: bool) -> Option<char> {
    let letter = single_letter(inner, false, choices);
    if letter.is_some() {
        return letter;
    }
    if !lenient {
        return leading_label(inner, choices);
    }
    by_label_or_text(inner, choices, true)
}

/// Every closed box not inside another closed box, in text order, in one pass (an
/// unclosed box is skipped, and a closed box inside it still counts).
fn outer_boxes(text: &str) -> Vec<BoxSpan> {
    let bytes = text.as_bytes();
    // Open braces: for each, the start of the box command it opens, if any.
    let mut open: Vec<(usize, Option<usize>)> = Vec::new();
    let mut boxes: Vec<BoxSpan> = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        let escaped = i > 0 && bytes[i - 1] == b'\\';
        match b {
            b'{' if !escaped => open.push((i, box_command_before(text, i))),
            b'}' if !escaped => {
                let Some((brace, Some(start))) = open.pop() else {
                    continue;
                };
                // Boxes closed earlier that started after this one lie inside it.
                while boxes.last().is_some_and(|inner| inner.start > start) {
                    boxes.pop();
                }
                boxes.push(BoxSpan {
                    start,
                    inner_start: brace + 1,
                    inner_end: i,
                    end: i + 1,
                });
            }
            _ => {}
        }
    }
    boxes
}

fn box_command_before(text: &str, brace: usize) -> Option<usize> {
    let before = &text[..brace];
    BOX_COMMANDS
        .iter()
        .find(|cmd| before.ends_with(**cmd))
        .map(|cmd| brace - cmd.len())
}

/// Words that may join boxes written as one answer.
const CONNECTOR_WORDS: [&str; 6] = ["or", "and", "quad", "qquad", "text", "mathrm"];

/// The text between two boxes only joins them (`, `, ` or `, `$ $`, `\quad`, a line
/// break): they are one answer. Anything else (a sentence) separates a draft from the
/// final answer.
fn is_connector(gap: &str) -> bool {
    if gap.len() > 40 {
        return false;
    }
    let punctuation_ok = gap
        .chars()
        .all(|c| c.is_ascii_alphabetic() || c.is_whitespace() || "$,;/&|\\(){}~".contains(c));
    punctuation_ok
        && gap
            .split(|c: char| !c.is_ascii_alphabetic())
            .filter(|w| !w.is_empty())
            .all(|w| CONNECTOR_WORDS.contains(&w.to_ascii_lowercase().as_str()))
}
