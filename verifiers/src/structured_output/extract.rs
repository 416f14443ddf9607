//! Finding the document in a text answer: the final answer ([`crate::final_answer`]:
//! thinking dropped), then the last fenced block or the bare text.

use crate::final_answer::final_answer;

/// The document to parse and where it came from (`fenced_block` or `bare`), or `None`
/// when there is nothing but whitespace.
pub fn document_text(text: &str) -> Option<(&str, &'static str)> {
    let answer = final_answer(text).text()?;
    let (body, source) = match last_fenced_block(answer) {
        Some(body) => (body, "fenced_block"),
        None => (answer, "bare"),
    };
    (!body.trim().is_empty()).then_some((without_leading_blank_lines(body), source))
}

/// Blank lines before the document are not part of it (an answer often starts with a
/// newline after `</think>`): dropped, so a CSV header or an XML declaration is the first
/// line. The first line's own indentation is kept (it matters in YAML).
fn without_leading_blank_lines(body: &str) -> &str {
    let first = body.len() - body.trim_start().len();
    match body[..first].rfind('\n') {
        Some(newline) => &body[newline + 1..],
        None => body,
    }
}

/// The body of the last fenced block. Fences are lines that start (at column 0, so an
/// indented YAML block scalar holding backticks is not one) with three or more
/// backticks; the closing fence is at least as long as the opening one and has no info
/// string. An unclosed block runs to the end of the text.
fn last_fenced_block(text: &str) -> Option<&str> {
    let mut last = None;
    let mut open: Option<(usize, usize)> = None; // (fence length, body start)
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let ticks = line.bytes().take_while(|&b| b == b'`').count();
        if ticks < 3 {
            continue;
        }
        match open {
            None => open = Some((ticks, offset)),
            Some((len, body)) if ticks >= len && line[ticks..].trim().is_empty() => {
                last = Some(&text[body..start]);
                open = None;
            }
            Some(_) => {}
        }
    }
    match open {
        Some((_, body)) => Some(&text[body..]),
        None => last,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_is_dropped_and_unclosed_thinking_is_no_answer() {
        let doc = |s| document_text(s).map(|d| d.0);
        assert_eq!(doc("<think>{\"a\":1}</think>{}"), Some("{}"));
        assert_eq!(doc("<think>a</think>x<think>b</think>y"), Some("y"));
        assert_eq!(doc("  <think>still going"), None);
        assert_eq!(doc("{\"a\": 1}\n<think>{\"a\": 2}"), None);
        assert_eq!(doc("{\"a\": 1}<|im_end|>junk"), Some("{\"a\": 1}"));
    }

    #[test]
    fn last_fenced_block_any_tag_wins() {
        let text = "draft:\n```json\n{\"a\": 1}\n```\nfinal:\n```\n{\"a\": 2}\n```\nbye";
        assert_eq!(document_text(text), Some(("{\"a\": 2}\n", "fenced_block")));
        let yaml = "```yaml\nname: x\n```";
        assert_eq!(document_text(yaml), Some(("name: x\n", "fenced_block")));
        let long = "````xml\n<a>```</a>\n```\n````\n";
        assert_eq!(
            document_text(long),
            Some(("<a>```</a>\n```\n", "fenced_block"))
        );
    }

    #[test]
    fn bare_text_unclosed_fences_and_indented_backticks() {
        assert_eq!(
            document_text("  {\"a\": 1}  "),
            Some(("  {\"a\": 1}  ", "bare"))
        );
        assert_eq!(
            document_text("```json\n{\"a\": 1"),
            Some(("{\"a\": 1", "fenced_block"))
        );
        let yaml = "code: |\n  ```py\n  x = 1\n  ```\n";
        assert_eq!(document_text(yaml), Some((yaml, "bare")));
        assert_eq!(document_text("<think>x</think>\n \n"), None);
        assert_eq!(document_text("```json\n```"), None);
        assert_eq!(document_text(""), None);
        assert_eq!(
            document_text("</think>\n\n  a: 1\n"),
            Some(("  a: 1\n", "bare"))
        );
        assert_eq!(
            document_text("\r\n<?xml version=\"1.0\"?><a/>").map(|d| d.0),
            Some("<?xml version=\"1.0\"?><a/>")
        );
    }
}
