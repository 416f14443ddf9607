//! NLTK's Punkt sentence splitter with the pretrained English model, as
//! `nltk.sent_tokenize` runs it (`PunktSentenceTokenizer.span_tokenize` with
//! boundary realignment). IFEval counts sentences with it, and NLTK's
//! `word_tokenize` splits sentences with it before the Treebank rules run.
//!
//! Offsets are byte offsets; Python uses code-point offsets, but every decision
//! here compares characters, so the spans cover the same text.

mod params;
mod token;
mod words;

use crate::ifeval::pystr::rstrip;
use params::Params;
use token::{annotate_first_pass, annotate_second_pass, Token};
use words::{is_non_word, is_space};

/// A candidate sentence end: a `.`, `?` or `!` followed by punctuation or by
/// whitespace and another token.
struct EndContext {
    start: usize,
    /// End of the `after_tok` group.
    after_end: usize,
    /// Where the next token starts, when whitespace follows.
    next_tok: Option<usize>,
}

impl EndContext {
    fn end(&self) -> usize {
        self.start + 1
    }
}

/// `period_context_re().finditer(text)`.
fn end_contexts(text: &str) -> Vec<EndContext> {
    let mut out = Vec::new();
    for (i, c) in text.char_indices() {
        if !matches!(c, '.' | '?' | '!') {
            continue;
        }
        let rest = &text[i + 1..];
        let Some(n) = rest.chars().next() else {
            continue;
        };
        if is_non_word(n) {
            out.push(EndContext {
                start: i,
                after_end: i + 1 + n.len_utf8(),
                next_tok: None,
            });
        } else if is_space(n) {
            let ws = rest.len() - rest.trim_start_matches(is_space).len();
            let after_ws = &rest[ws..];
            let tok = after_ws.len() - after_ws.trim_start_matches(|c| !is_space(c)).len();
            if tok > 0 {
                out.push(EndContext {
                    start: i,
                    after_end: i + 1 + ws + tok,
                    next_tok: Some(i + 1 + ws),
                });
            }
        }
    }
    out
}

/// `_get_last_whitespace_index`: index of the last ASCII whitespace, or 0 when
/// there is none (NLTK also returns 0 when it is at index 0; kept as is).
fn last_whitespace_index(text: &str) -> usize {
    text.bytes()
        .rposition(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'))
        .unwrap_or(0)
}

/// `_match_potential_end_contexts`: each candidate with the word before it, with
/// candidates whose preceding word overlaps the next one's dropped.
fn potential_ends(text: &str) -> Vec<(EndContext, String)> {
    let mut out = Vec::new();
    let mut previous: Option<(EndContext, (usize, usize))> = None;
    let mut prev_slice = (0usize, 0usize);
    for m in end_contexts(text) {
        let before = &text[prev_slice.1..m.start];
        let idx = last_whitespace_index(before);
        let start = if idx != 0 {
            idx + prev_slice.1 + 1
        } else {
            prev_slice.0
        };
        let word_slice = (start, m.start);
        if let Some((pm, ps)) = previous.take() {
            if ps.1 <= word_slice.0 {
                let context = format!("{}{}", &text[ps.0..ps.1], &text[pm.start..pm.after_end]);
                out.push((pm, context));
            }
        }
        previous = Some((m, word_slice));
        prev_slice = word_slice;
    }
    if let Some((pm, ps)) = previous {
        let context = format!("{}{}", &text[ps.0..ps.1], &text[pm.start..pm.after_end]);
        out.push((pm, context));
    }
    out
}

/// `text_contains_sentbreak`: a sentence break followed by at least one token.
fn contains_sentbreak(context: &str, params: &Params) -> bool {
    let mut tokens: Vec<Token> = Vec::new();
    for line in context.split('\n') {
        if crate::ifeval::pystr::strip(line).is_empty() {
            continue;
        }
        tokens.extend(words::tokenize(line).into_iter().map(Token::new));
    }
    for t in tokens.iter_mut() {
        annotate_first_pass(t, params);
    }
    for i in 0..tokens.len() {
        if let [first, next, ..] = &mut tokens[i..] {
            annotate_second_pass(first, next, params);
        }
        if tokens[i].sentbreak {
            return i + 1 < tokens.len();
        }
    }
    false
}

/// `_slices_from_text`.
fn raw_slices(text: &str, params: &Params) -> Vec<(usize, usize)> {
    let mut slices = Vec::new();
    let mut last_break = 0;
    for (m, context) in potential_ends(text) {
        if contains_sentbreak(&context, params) {
            slices.push((last_break, m.end()));
            last_break = m.next_tok.unwrap_or(m.end());
        }
    }
    slices.push((last_break, rstrip(text).len()));
    slices
}

/// `re_boundary_realignment.match(s)`: closing quotes or brackets (as few as
/// possible) followed by whitespace, `--` or the end. Returns (match length,
/// length without trailing whitespace).
fn realignment(s: &str) -> Option<(usize, usize)> {
    let is_closer = |c: char| {
        matches!(
            c,
            '"' | '\''
                | ')'
                | ']'
                | '}'
                | '\u{2018}'
                | '\u{2019}'
                | '\u{201c}'
                | '\u{201d}'
                | '\u{ab}'
                | '\u{bb}'
        )
    };
    let mut pos = 0;
    for c in s.chars() {
        if !is_closer(c) {
            break;
        }
        pos += c.len_utf8();
        let rest = &s[pos..];
        let ws = rest.len() - rest.trim_start_matches(is_space).len();
        if ws > 0 {
            return Some((pos + ws, pos));
        }
        if rest.starts_with("--") || rest.is_empty() || rest.starts_with('\n') {
            return Some((pos, pos));
        }
    }
    None
}

/// Python's `text[a:b]` on byte offsets: empty when the range is reversed.
fn slice(text: &str, (a, b): (usize, usize)) -> &str {
    if a >= b {
        ""
    } else {
        &text[a..b]
    }
}

/// Sentence spans (byte offsets), as `PunktTokenizer("english").span_tokenize`.
pub fn sentence_spans(text: &str) -> Vec<(usize, usize)> {
    let params = params::english();
    let slices = raw_slices(text, params);
    let mut out = Vec::with_capacity(slices.len());
    let mut realign = 0;
    for (i, &(start, stop)) in slices.iter().enumerate() {
        let first = (start + realign, stop);
        let Some(&second) = slices.get(i + 1) else {
            if !slice(text, first).is_empty() {
                out.push(first);
            }
            continue;
        };
        match realignment(slice(text, second)) {
            Some((len, kept)) => {
                out.push((first.0, second.0 + kept));
                realign = len;
            }
            None => {
                realign = 0;
                if !slice(text, first).is_empty() {
                    out.push(first);
                }
            }
        }
    }
    out
}

/// The sentences of `text`.
pub fn sentences(text: &str) -> Vec<&str> {
    sentence_spans(text)
        .into_iter()
        .map(|span| slice(text, span))
        .collect()
}

/// `len(sent_tokenize(text))`, IFEval's sentence count.
pub fn count_sentences(text: &str) -> usize {
    sentence_spans(text).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_nltk_english() {
        assert_eq!(
            sentences("Mr. Smith went to Washington. He arrived at 5 p.m. on Monday! Really?"),
            [
                "Mr. Smith went to Washington.",
                "He arrived at 5 p.m. on Monday!",
                "Really?"
            ]
        );
        assert_eq!(
            sentences("(Sent one.) Sent two."),
            ["(Sent one.)", "Sent two."]
        );
        assert_eq!(
            sentences("Very bad acting!!! I promise."),
            ["Very bad acting!!!", "I promise."]
        );
        assert_eq!(count_sentences(""), 0);
        assert_eq!(count_sentences("   "), 0);
        assert_eq!(count_sentences("no end"), 1);
    }
}
