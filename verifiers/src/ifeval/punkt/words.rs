//! Punkt's word splitter (`PunktLanguageVars.word_tokenize`), written out by hand:
//! the NLTK pattern uses look-ahead, which the `regex` crate does not offer.
//!
//! ```text
//! MultiChar | (?=WordStart)\S+?(?=\s|$|NonWord|MultiChar|,(?=$|\s|NonWord|MultiChar)) | \S
//! ```

/// `\s` as NLTK's `regex`-module patterns see it: Unicode White_Space.
pub fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// `_re_non_word_chars`: characters that cannot appear within words.
pub fn is_non_word(c: char) -> bool {
    matches!(
        c,
        ')' | '"'
            | ';'
            | '}'
            | ']'
            | '*'
            | ':'
            | '@'
            | '\''
            | '('
            | '{'
            | '['
            | '\u{2018}'
            | '\u{2019}'
            | '\u{201c}'
            | '\u{201d}'
            | '\u{ab}'
            | '\u{bb}'
            | '?'
            | '!'
    )
}

/// `_re_word_start`: characters that may start a word token.
fn is_word_start(c: char) -> bool {
    !matches!(
        c,
        '(' | '"'
            | '`'
            | '{'
            | '['
            | ':'
            | ';'
            | '&'
            | '#'
            | '*'
            | '@'
            | ')'
            | '}'
            | ']'
            | '-'
            | ','
    )
}

/// Length in bytes of `_re_multi_char_punct` (`-{2,}`, `\.{2,}`, `(?:\.\s){2,}\.`)
/// matched at the start of `s`.
fn multi_char_at(s: &str) -> Option<usize> {
    let run = |ch: char| s.chars().take_while(|&c| c == ch).count();
    let dashes = run('-');
    if dashes >= 2 {
        return Some(dashes);
    }
    let dots = run('.');
    if dots >= 2 {
        return Some(dots);
    }
    // (?:\.\s){2,}\. with backtracking: the most pairs that still leave a dot.
    let mut ends = Vec::new(); // byte offset after each ". " pair
    let mut chars = s.char_indices().peekable();
    while let Some((_, '.')) = chars.peek().copied() {
        chars.next();
        match chars.next() {
            Some((i, c)) if is_space(c) => ends.push(i + c.len_utf8()),
            _ => break,
        }
    }
    for (k, &end) in ends.iter().enumerate().rev() {
        if k + 1 >= 2 && s[end..].starts_with('.') {
            return Some(end + 1);
        }
    }
    None
}

/// Splits one line (no `\n`) into Punkt word tokens.
pub fn tokenize(line: &str) -> Vec<&str> {
    let mut tokens = Vec::new();
    let mut pos = 0;
    while let Some(c) = line[pos..].chars().next() {
        if is_space(c) {
            pos += c.len_utf8();
            continue;
        }
        if let Some(len) = multi_char_at(&line[pos..]) {
            tokens.push(&line[pos..pos + len]);
            pos += len;
            continue;
        }
        let mut end = pos + c.len_utf8();
        if is_word_start(c) {
            while let Some(n) = line[end..].chars().next() {
                if is_space(n) || is_non_word(n) || multi_char_at(&line[end..]).is_some() {
                    break;
                }
                if n == ',' && comma_ends_word(&line[end + 1..]) {
                    break;
                }
                end += n.len_utf8();
            }
        }
        tokens.push(&line[pos..end]);
        pos = end;
    }
    tokens
}

/// `,(?=$|\s|NonWord|MultiChar)`: the text after the comma.
fn comma_ends_word(rest: &str) -> bool {
    match rest.chars().next() {
        None => true,
        Some(c) => is_space(c) || is_non_word(c) || multi_char_at(rest).is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_nltk() {
        assert_eq!(
            tokenize("Hello, (world)... It's e.g. 3.5 -- ok. . . done!"),
            [
                "Hello", ",", "(", "world", ")", "...", "It", "'s", "e.g.", "3.5", "--", "ok",
                ". . .", "done", "!"
            ]
        );
        assert_eq!(tokenize("a,b, c"), ["a,b", ",", "c"]);
    }
}
