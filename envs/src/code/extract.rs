//! Finding the program in a model response: the last fenced block in the sample's
//! language (an untagged block if none is tagged), else the bare response when it looks
//! like code, else nothing (`no_code`).

use super::language::Language;

/// A fenced block: its info string's first word (lowercased) and its body.
struct Block<'a> {
    tag: String,
    body: &'a str,
}

/// The program to run, or `None` when the final answer holds no code. `text` is the
/// response's final answer (`Sample::final_answer`: thinking already dropped).
pub fn extract_code(text: &str, language: Language) -> Option<String> {
    let blocks = fenced_blocks(text);
    if !blocks.is_empty() {
        let tagged = blocks.iter().rev().find(|b| language.matches_tag(&b.tag));
        let untagged = || blocks.iter().rev().find(|b| b.tag.is_empty());
        return tagged
            .or_else(untagged)
            .map(|b| b.body.to_owned())
            .filter(|code| !code.trim().is_empty());
    }
    if looks_like_code(text, language) {
        Some(text.trim_matches('\n').to_owned())
    } else {
        None
    }
}

/// Every ``` or ~~~ fenced block; an unclosed last block runs to the end of the text
/// (responses cut at the length limit).
fn fenced_blocks(text: &str) -> Vec<Block<'_>> {
    let mut blocks = Vec::new();
    let mut open: Option<(char, usize, String, usize)> = None; // fence char, len, tag, body start
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line
            .trim_start_matches([' ', '\t'])
            .trim_end_matches(['\n', '\r']);
        let fence = fence_of(trimmed);
        match (&open, fence) {
            (None, Some((ch, len))) => {
                let info = trimmed[len..].trim();
                let tag = info.split_whitespace().next().unwrap_or("").to_lowercase();
                open = Some((ch, len, tag, offset));
            }
            (Some((ch, len, _, _)), Some((c, l)))
                if c == *ch && l >= *len && trimmed[l..].trim().is_empty() =>
            {
                if let Some((_, _, tag, body_start)) = open.take() {
                    blocks.push(Block {
                        tag,
                        body: &text[body_start..start],
                    });
                }
            }
            _ => {}
        }
    }
    if let Some((_, _, tag, body_start)) = open {
        blocks.push(Block {
            tag,
            body: &text[body_start..],
        });
    }
    blocks
}

/// `(fence char, fence length)` when the line opens or closes a fence.
fn fence_of(line: &str) -> Option<(char, usize)> {
    let ch = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = line.chars().take_while(|c| *c == ch).count();
    (len >= 3).then_some((ch, len))
}

/// Whether fence-less text is a program rather than prose.
fn looks_like_code(text: &str, language: Language) -> bool {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.is_empty() {
        return false;
    }
    match language {
        Language::Python => lines.iter().any(|l| {
            const STARTS: [&str; 10] = [
                "def ",
                "import ",
                "from ",
                "class ",
                "print(",
                "for ",
                "while ",
                "if __name__",
                "return ",
                "async def ",
            ];
            STARTS.iter().any(|s| l.starts_with(s))
                || (l.contains('=')
                    && !l.contains(" is ")
                    && l.split_whitespace().count() <= 12
                    && !l.ends_with('.'))
        }),
        Language::C | Language::Cpp => {
            text.contains("#include") || (text.contains("main(") && text.contains('{'))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_last_block_of_the_language() {
        let r = "Try:\n```python\nprint(1)\n```\nBetter:\n```py\nprint(2)\n```\nOutput:\n```text\n2\n```\n";
        assert_eq!(
            extract_code(r, Language::Python).as_deref(),
            Some("print(2)\n")
        );
        let r = "```cpp\nint main(){}\n```\n```python\nx=1\n```";
        assert_eq!(
            extract_code(r, Language::Cpp).as_deref(),
            Some("int main(){}\n")
        );
    }

    #[test]
    fn falls_back_to_untagged_then_bare_code() {
        let r = "```\nprint(3)\n```";
        assert_eq!(
            extract_code(r, Language::Python).as_deref(),
            Some("print(3)\n")
        );
        let r = "import sys\nprint(sys.stdin.read())\n";
        assert_eq!(
            extract_code(r, Language::Python).as_deref(),
            Some("import sys\nprint(sys.stdin.read())")
        );
        let r = "#include <cstdio>\nint main(){puts(\"hi\");}";
        assert!(extract_code(r, Language::Cpp).is_some());
    }

    #[test]
    fn prose_and_other_languages_are_no_code() {
        assert_eq!(extract_code("", Language::Python), None);
        assert_eq!(
            extract_code("The answer is simply to add them.", Language::Python),
            None
        );
        assert_eq!(extract_code("```bash\nls\n```", Language::Python), None);
        assert_eq!(extract_code("```python\n\n```", Language::Python), None);
        assert_eq!(extract_code("I would use a map here.", Language::Cpp), None);
    }

    #[test]
    fn unclosed_fence_runs_to_the_end_and_reasoning_is_skipped() {
        let r = "<think>```python\nprint(0)\n```</think>\n```python\nprint(1)\n";
        let r = cascade_verifiers::final_answer::final_answer(r)
            .text()
            .unwrap();
        assert_eq!(
            extract_code(r, Language::Python).as_deref(),
            Some("print(1)\n")
        );
        let r = "````python\nx = '```'\n````";
        assert_eq!(
            extract_code(r, Language::Python).as_deref(),
            Some("x = '```'\n")
        );
    }
}
