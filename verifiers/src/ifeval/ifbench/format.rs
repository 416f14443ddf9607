//! `format:*` checks on characters and tokens: nesting depth of brackets and
//! quotes, one of given options, a word per line, list markers, title case,
//! a template's labels and no whitespace. Line-layout checks are in
//! [`super::layout`].

use std::sync::OnceLock;

use regex::Regex;

use super::text::{drop_punct, strip_punct};
use crate::ifeval::kwargs::Args;
use crate::ifeval::pyregex::{self, Flags};
use crate::ifeval::pystr::{is_lower, is_space, is_upper, split_whitespace, strip};
use crate::ifeval::treebank::word_tokenize;
use crate::ifeval::IfevalError;

#[derive(Debug, Clone)]
pub enum Format {
    Parentheses,
    Quotes,
    /// The options, stripped; `exact` for lettered choices (`a), b), c)`).
    Options {
        options: Vec<String>,
        exact: bool,
    },
    Newline,
    List {
        marker: String,
    },
    TitleCase,
    OutputTemplate,
    NoWhitespace,
}

/// Parses the `format:*` ids checked here; `None` for the layout ones.
pub(super) fn parse(id: &str, a: &mut Args) -> Option<Result<Format, IfevalError>> {
    let f = match id {
        "format:parentheses" => Format::Parentheses,
        "format:quotes" => Format::Quotes,
        "format:options" => return Some(a.text("options").map(options)),
        "format:newline" => Format::Newline,
        "format:list" => return Some(a.text("sep").map(|marker| Format::List { marker })),
        "format:title_case" => Format::TitleCase,
        "format:output_template" => Format::OutputTemplate,
        "format:no_whitespace" => Format::NoWhitespace,
        _ => return None,
    };
    Some(Ok(f))
}

/// The reference's option parsing: split on `/`, else on `or` (anywhere, even
/// inside a word), else on `,`; lettered choices must be matched exactly.
fn options(text: String) -> Format {
    static LETTERED: OnceLock<Regex> = OnceLock::new();
    let lettered = LETTERED.get_or_init(|| {
        pyregex::compile(r"^\W*[aA]\W*[bB]\W*[cC]\W*", Flags::default()).expect("static pattern")
    });
    let separator = if text.contains('/') {
        "/"
    } else if text.contains("or") {
        "or"
    } else {
        ","
    };
    Format::Options {
        options: text.split(separator).map(|o| strip(o).to_owned()).collect(),
        exact: lettered.is_match(&text),
    }
}

impl Format {
    pub fn check(&self, value: &str) -> bool {
        match self {
            Format::Parentheses => parentheses(value),
            Format::Quotes => quotes(value),
            Format::Options { options, exact } => {
                if *exact {
                    return options.iter().any(|o| o == value);
                }
                let answer = strip_punct(value).to_lowercase();
                options
                    .iter()
                    .any(|o| strip_punct(o).to_lowercase() == answer)
            }
            Format::Newline => newline(value),
            Format::List { marker } => value.matches(marker.as_str()).count() >= 2,
            Format::TitleCase => title_case(value),
            Format::OutputTemplate => ["My Answer:", "My Conclusion:", "Future Outlook:"]
                .iter()
                .all(|label| value.contains(label)),
            Format::NoWhitespace => !value.chars().any(is_space),
        }
    }
}

/// A group of brackets (any of `()[]{}`) that reached depth 5 is closed; a
/// mismatched closer starts the count over.
fn parentheses(value: &str) -> bool {
    let mut stack: Vec<char> = Vec::new();
    let mut max_depth = 0;
    for c in value.chars() {
        match c {
            '(' | '[' | '{' => {
                stack.push(c);
                max_depth = max_depth.max(stack.len());
            }
            ')' | ']' | '}' => {
                let opener = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if stack.last() == Some(&opener) {
                    stack.pop();
                    if max_depth >= 5 {
                        return true;
                    }
                } else {
                    stack.clear();
                    max_depth = 0;
                }
            }
            _ => {}
        }
    }
    false
}

/// Quotes (`"` or `'`) nested three deep and closed back out: a quote closes
/// the innermost open one when it is the same mark, else opens a new level.
fn quotes(value: &str) -> bool {
    let mut stack: Vec<char> = Vec::new();
    let mut reached = 0;
    for c in value.chars() {
        if stack.last() == Some(&c) {
            stack.pop();
            if reached - stack.len() >= 3 {
                return true;
            }
        } else if c == '"' || c == '\'' {
            stack.push(c);
            reached = reached.max(stack.len());
        }
    }
    false
}

/// As many non-empty lines as words, punctuation removed.
fn newline(value: &str) -> bool {
    let text = drop_punct(value);
    let text = strip(&text);
    let lines = text.split('\n').filter(|l| !l.is_empty()).count();
    lines == split_whitespace(text).count()
}

/// No `word_tokenize` token is lowercase-initial with a cased rest in one case
/// (`iPHONE`, `word`); one-letter and uncased tokens pass.
fn title_case(value: &str) -> bool {
    word_tokenize(value).iter().all(|word| {
        let mut chars = word.chars();
        let Some(first) = chars.next() else {
            return true;
        };
        let rest = chars.as_str();
        let mut buf = [0; 4];
        let first = &*first.encode_utf8(&mut buf);
        if is_upper(first) && is_lower(rest) {
            return true;
        }
        !(is_lower(first) && (is_upper(rest) || is_lower(rest)))
    })
}

#[cfg(test)]
mod tests {
    use super::super::pair;
    use serde_json::json;

    #[test]
    fn nesting() {
        pair(
            "format:parentheses",
            json!({}),
            "(a [b {c (d [e] d) c} b] a)",
            "(a [b {c (d) c} b] a)",
        );
        pair(
            "format:quotes",
            json!({}),
            "\"a 'b \"c\" b' a\"",
            "\"a 'b' a\"",
        );
    }

    #[test]
    fn options_and_lists() {
        let yn = json!({"options": "yes/no/maybe"});
        pair("format:options", yn, "Maybe.", "Yes, maybe");
        let abc = json!({"options": "a), b), c), d)"});
        pair("format:options", abc, "b)", "b");
        pair(
            "format:list",
            json!({"sep": "..."}),
            "... one\n... two",
            "... one",
        );
        pair(
            "format:newline",
            json!({}),
            "one\ntwo,\nthree",
            "one two\nthree",
        );
    }

    #[test]
    fn case_template_whitespace() {
        pair(
            "format:title_case",
            json!({}),
            "The Big Dog, a Cat",
            "The big Dog",
        );
        let t = "My Answer: x My Conclusion: y Future Outlook: z";
        pair("format:output_template", json!({}), t, "My Answer: x");
        pair("format:no_whitespace", json!({}), "no_space-here", "a b");
    }
}
