//! Hedged answers: several boxed values, each stated under a condition ("\boxed{175}
//! if the order matters, \boxed{180} if not"). Whichever is last, the response did not
//! commit to one answer, so it has none; reading the last box would pay a hedge.
//!
//! A box is conditional when the words right after it open a condition (`if`, `when`,
//! `unless`, `assuming`, `provided`, `depending`, `otherwise`, `in case`), or when its
//! own clause (back to the previous box or sentence end) opens with `if`, `otherwise`,
//! `alternatively` or `when`. Two conditional boxes with different values are a hedge;
//! a correction ("\boxed{3} … If we re-check, we get \boxed{4}": one conditional box)
//! and answers to labelled parts ("\boxed{1} for part (a)") are not.

/// Words that open a condition after a value.
const AFTER: [&str; 9] = [
    "if ",
    "when ",
    "unless ",
    "assuming ",
    "provided ",
    "depending ",
    "otherwise",
    "in case ",
    "or if ",
];

/// Words that open a conditional clause before a value.
const BEFORE: [&str; 5] = ["if ", "otherwise", "alternatively", "when ", "or if "];

/// The longest clause looked at before a box, in bytes.
const CLAUSE_BYTES: usize = 160;

/// The hedged values, joined for `details`, when `boxes` (start, end, content, in
/// order) hold at least two different conditional values.
pub(super) fn conditional_values(text: &str, boxes: &[(usize, usize, &str)]) -> Option<String> {
    let mut values: Vec<&str> = Vec::new();
    let mut previous_end = 0;
    for &(start, end, inner) in boxes {
        // A box nested in the previous one is part of that one's value.
        if start < previous_end {
            continue;
        }
        let clause = clause_before(&text[previous_end..start]);
        let conditional =
            opens_with(clause, &BEFORE) || opens_with(words_after(&text[end..]), &AFTER);
        let value = inner.trim();
        if conditional && !values.contains(&value) {
            values.push(value);
        }
        previous_end = end;
    }
    (values.len() >= 2).then(|| values.join(" | "))
}

/// The clause of `before` that leads to a box: after the last sentence end, newline or
/// semicolon, at most [`CLAUSE_BYTES`].
fn clause_before(before: &str) -> &str {
    let mut start = before.len().saturating_sub(CLAUSE_BYTES);
    while !before.is_char_boundary(start) {
        start += 1;
    }
    let window = &before[start..];
    let cut = [". ", "\n", ";", ":"]
        .iter()
        .filter_map(|s| window.rfind(s).map(|at| at + s.len()))
        .max()
        .unwrap_or(0);
    &window[cut..]
}

/// The text after a box with its closing delimiters, spacing and `\text{` removed.
fn words_after(after: &str) -> &str {
    let mut rest = after;
    loop {
        let before = rest;
        rest = rest.trim_start_matches([' ', '\t', '$', ',', '(', '}', '*']);
        for skip in ["\\)", "\\]", "\\quad", "\\qquad", "\\text{", "\\,", "\\;"] {
            rest = rest.strip_prefix(skip).unwrap_or(rest);
        }
        if rest == before {
            return rest;
        }
    }
}

fn opens_with(text: &str, words: &[&str]) -> bool {
    let head: String = text
        .trim_start_matches([' ', '\t', ',', '$', '*', '('])
        .chars()
        .take(16)
        .collect::<String>()
        .to_lowercase();
    words.iter().any(|w| head.starts_with(w))
}

#[cfg(test)]
mod tests {
    use super::super::extract::{extract_answer, Extraction};

    fn hedged(s: &str) -> bool {
        matches!(extract_answer(s), Extraction::Hedged(_))
    }

    #[test]
    fn conditional_boxes_are_a_hedge() {
        assert!(hedged(
            "The count is \\boxed{175} if rotations are distinct, and \\boxed{180} if they are not."
        ));
        assert!(hedged(
            "If $x$ is even, the sum is $\\boxed{4}$. Otherwise it is $\\boxed{5}$."
        ));
        assert!(hedged(
            "\\(\\boxed{2}\\) (when $a>0$) or \\(\\boxed{3}\\) when $a<0$."
        ));
    }

    #[test]
    fn nested_boxes_are_read_without_slicing_backwards() {
        // Found by `latex_soup_never_panics` in CI: the inner box starts before the
        // outer one ends.
        let soup =
            "\\boxed{\\boxed{\\begin{pmatrix}\\ln}\\pi\\le<+2},^,]\\right)\\{ix\\infty&[\\cup<\\}";
        let _ = extract_answer(soup);
        assert!(!hedged("\\boxed{\\boxed{3} if x} if y"));
        assert!(hedged("\\boxed{3 \\boxed{1}} if x, \\boxed{4} if y"));
    }

    #[test]
    fn corrections_lists_and_parts_are_not() {
        assert!(!hedged(
            "We get \\boxed{3}. If we re-check the sum, we get \\boxed{4}."
        ));
        assert!(!hedged(
            "\\boxed{1} for part (a) and \\boxed{2} for part (b)"
        ));
        assert!(!hedged("\\boxed{1}, \\boxed{2}"));
        assert!(!hedged("\\boxed{5} if you round, \\boxed{5} if you do not"));
        assert_eq!(
            extract_answer("\\boxed{5} if you round, \\boxed{5} if you do not").text(),
            Some("5")
        );
    }
}
