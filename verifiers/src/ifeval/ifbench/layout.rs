//! `format:*` checks on the layout of lines and sentences: an emoji ending
//! every sentence, indentation stairs, quotes followed by explanations, an
//! italic thesis, sub-bullets, and sentences before bullets.

use std::collections::{BTreeSet, HashMap};

use super::emoji::is_emoji;
use super::text::drop_punct;
use crate::ifeval::pystr::{split_whitespace, strip};
use crate::ifeval::sentences::split_into_sentences;
use crate::ifeval::IfevalError;

#[derive(Debug, Clone, Copy)]
pub enum Layout {
    Emoji,
    LineIndent,
    QuoteUnquote,
    Thesis,
    SubBullets,
    NoBulletsBullets,
}

pub(super) fn parse(id: &str) -> Result<Layout, IfevalError> {
    Ok(match id {
        "format:emoji" => Layout::Emoji,
        "format:line_indent" => Layout::LineIndent,
        "format:quote_unquote" => Layout::QuoteUnquote,
        "format:thesis" => Layout::Thesis,
        "format:sub-bullets" => Layout::SubBullets,
        "format:no_bullets_bullets" => Layout::NoBulletsBullets,
        _ => return Err(IfevalError::UnknownId(id.to_owned())),
    })
}

impl Layout {
    pub fn check(self, value: &str) -> bool {
        match self {
            Layout::Emoji => emoji_sentences(value),
            Layout::LineIndent => line_indent(value),
            Layout::QuoteUnquote => quote_unquote(value),
            Layout::Thesis => thesis(value).unwrap_or(false),
            // Every piece after a `*` holds a `-`.
            Layout::SubBullets => value.split('*').skip(1).all(|b| b.contains('-')),
            Layout::NoBulletsBullets => no_bullets_bullets(value),
        }
    }
}

/// A sentence's text without punctuation, stripped: the reference looks for an
/// emoji in its last two characters (a variation selector may close it).
fn bare(sentence: &str) -> Vec<char> {
    strip(&drop_punct(sentence)).chars().collect()
}

/// Every sentence ends with an emoji, or (all but the last) the next sentence
/// starts with one; a sentence of punctuation alone fails.
fn emoji_sentences(value: &str) -> bool {
    let sentences = split_into_sentences(value);
    for (i, sentence) in sentences.iter().enumerate() {
        let chars = bare(sentence);
        let Some(&last) = chars.last() else {
            return false;
        };
        let second_last = chars.len().checked_sub(2).map_or(last, |k| chars[k]);
        if is_emoji(last) || is_emoji(second_last) {
            continue;
        }
        let Some(next) = sentences.get(i + 1) else {
            return false;
        };
        match bare(next).first() {
            Some(&first) if is_emoji(first) => {}
            _ => return false,
        }
    }
    true
}

/// The lines the reference keeps after `for line in lines: if not
/// line.strip(): lines.remove(line)`: removing while iterating skips the line
/// after each removed one, and `remove` takes the *first* equal line, so a
/// blank line can survive. Replayed in O(n log n): a Fenwick tree over the
/// lines still present finds the iterator's k-th line, and a set per distinct
/// blank text finds its first occurrence.
fn py_remove_blank_lines(lines: &[&str]) -> Vec<usize> {
    let n = lines.len();
    let mut tree = Fenwick::full(n);
    let mut blanks: HashMap<&str, BTreeSet<usize>> = HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        if strip(line).is_empty() {
            blanks.entry(line).or_default().insert(i);
        }
    }
    let mut index = 0;
    while index < tree.total {
        let pos = tree.kth(index);
        index += 1;
        if let Some(set) = blanks.get_mut(lines[pos]) {
            if let Some(first) = set.pop_first() {
                tree.remove(first);
            }
        }
    }
    (0..n).filter(|&i| tree.present[i]).collect()
}

/// Counts of the lines still present, with k-th lookup.
struct Fenwick {
    tree: Vec<usize>,
    present: Vec<bool>,
    total: usize,
}

impl Fenwick {
    fn full(n: usize) -> Self {
        let mut tree = vec![0; n + 1];
        for i in 1..=n {
            tree[i] += 1;
            let parent = i + (i & i.wrapping_neg());
            if parent <= n {
                tree[parent] += tree[i];
            }
        }
        Self {
            tree,
            present: vec![true; n],
            total: n,
        }
    }

    fn remove(&mut self, pos: usize) {
        self.present[pos] = false;
        self.total -= 1;
        let mut i = pos + 1;
        while i < self.tree.len() {
            self.tree[i] -= 1;
            i += i & i.wrapping_neg();
        }
    }

    /// The 0-based position of the (k+1)-th present line.
    fn kth(&self, k: usize) -> usize {
        let n = self.tree.len() - 1;
        let (mut pos, mut rest) = (0, k + 1);
        let mut step = n.checked_ilog2().map_or(0, |b| 1 << b);
        while step > 0 {
            if pos + step <= n && self.tree[pos + step] < rest {
                pos += step;
                rest -= self.tree[pos];
            }
            step >>= 1;
        }
        pos
    }
}

/// Each kept line is indented (leading spaces) more than the one before.
fn line_indent(value: &str) -> bool {
    let lines: Vec<&str> = value.split('\n').collect();
    let indents: Vec<usize> = py_remove_blank_lines(&lines)
        .into_iter()
        .map(|i| lines[i].len() - lines[i].trim_start_matches(' ').len())
        .collect();
    indents.windows(2).all(|p| p[1] > p[0])
}

/// No two quotes meet once whitespace is gone, and the text does not end with
/// a quote (digits and other punctuation aside).
fn quote_unquote(value: &str) -> bool {
    let text = value.replace(['\u{201c}', '\u{201d}'], "\"");
    let text = text.replace("'\"'", "");
    let text: String = split_whitespace(&text).collect();
    if text.contains("\"\"") {
        return false;
    }
    let tail = text
        .trim_end_matches(|c: char| c.is_ascii_digit() || (c.is_ascii_punctuation() && c != '"'));
    // Nothing left is where the reference raises.
    !tail.is_empty() && !tail.ends_with('"')
}

/// An `<i>` (else `<em>`) thesis with text, then more text after its closing
/// tag; the reference's fixed offsets (3 and 4) are kept for both tags.
fn thesis(value: &str) -> Option<bool> {
    let start = value.find("<i>").or_else(|| value.find("<em>"))?;
    let value = &value[start..];
    let end = value.find("</i>").or_else(|| value.find("</em>"))?;
    let thesis = value.get(3..end).unwrap_or("");
    if strip(thesis).is_empty() {
        return Some(false);
    }
    Some(!strip(&value[end + 4..]).is_empty())
}

/// Two or more sentences before the first bullet, then only bullets (two or
/// more). A blank line before the bullets makes the next text line fail, as
/// the reference's reuse of one variable for a flag and a list does.
fn no_bullets_bullets(value: &str) -> bool {
    let mut in_sentences = true;
    let (mut sentences, mut bullets) = (0, 0);
    for line in value.split('\n') {
        if strip(line).starts_with('*') {
            in_sentences = false;
            if sentences < 2 {
                return false;
            }
            bullets += 1;
        } else if in_sentences {
            let found = split_into_sentences(strip(line)).len();
            sentences += found;
            in_sentences = found > 0;
        } else {
            return false;
        }
    }
    bullets >= 2
}

#[cfg(test)]
mod tests {
    use super::py_remove_blank_lines;
    use serde_json::json;

    fn pair(id: &str, yes: &str, no: &str) {
        super::super::pair(id, json!({}), yes, no);
    }

    #[test]
    fn emoji_and_quotes() {
        pair("format:emoji", "Hi 😀. Bye 🎉!", "Hi 😀. Bye!");
        pair("format:quote_unquote", "\"a\" means b.", "She said \"a\"");
    }

    #[test]
    fn indentation_replays_python_removal() {
        pair("format:line_indent", "a\n b\n\n  c", "a\n b\nc");
        // Python keeps the second of two consecutive blank lines.
        let lines = ["a", "", "", "b"];
        assert_eq!(py_remove_blank_lines(&lines), [0, 2, 3]);
        let lines = ["", "x", "", "", "y", " "];
        assert_eq!(py_remove_blank_lines(&lines), [1, 3, 4]);
    }

    #[test]
    fn thesis_and_bullets() {
        pair("format:thesis", "<i>Claim</i> and more", "<i>Claim</i>");
        pair(
            "format:sub-bullets",
            "* a\n - b\n* c\n - d",
            "* a\n - b\n* c",
        );
        let ok = "One. Two.\n* a\n* b";
        pair("format:no_bullets_bullets", ok, "One.\n* a\n* b");
    }
}
