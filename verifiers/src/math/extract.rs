//! Finds the final answer inside a full model response.
//!
//! Only the response's final answer is read ([`crate::final_answer`]: the text after
//! the last `</think>`, end tokens cut); a response cut off while thinking has no
//! answer ([`Extraction::Truncated`]), and nothing inside the thinking is ever a
//! candidate. Inside the final answer:
//! 0. the last answer statement wins. A box that is cut off (`\boxed{13` never closed)
//!    is no answer ([`Extraction::CutOffBox`]), and several boxes with different
//!    values, each stated under a condition ("\boxed{175} if …, \boxed{180} if …"),
//!    are a hedge ([`Extraction::Hedged`]): no answer either;
//! 1. the last `\boxed{…}` / `\fbox{…}` (nested braces; an empty last box means "no
//!    answer" rather than falling back to an earlier one).
//!    Boxes written side by side (`\boxed{1}, \boxed{2}`, `\boxed{1} and \boxed{2}`,
//!    `\boxed{a} \quad \text{and} \quad \boxed{b}`, `\boxed{1} papers and \boxed{2}`)
//!    form one answer `1, 2`; boxes labelled with different names (`y_1 = \boxed{a}`
//!    and `y_2 = \boxed{b}`) form `y_1 = a, y_2 = b`. Exception: an answer statement
//!    *after* the last box supersedes it: a "final answer" phrase ("… \boxed{200} …
//!    The final answer is $10,455$."), or another answer phrase whose value is
//!    mathematics (`Answer: 6`, `#### 6`, "The answer is $6$ hours.");
//! 2. the text after the last answer phrase: first "final answer" phrases
//!    ("final answer is", "final answer:"), then "the answer is", "answer:", "the
//!    correct option is" and GSM8K's
//!    `####` (also in `**Answer:**` form): the value after the sentence's last " is "
//!    ("Final Answer: The largest $n$ is 34."), else the first math segment after the
//!    phrase, else the rest of that sentence when it is short and not prose;
//! 3. a concluding sentence that ends the last line ("Therefore, there are 12
//!    sequences.", optionally followed by "I hope it is correct."), opens with
//!    therefore/thus/hence/so, is complete (ends with `.` or `!`), has no math, no
//!    negation and exactly one number, or ends by stating a value ("So it is 2/3.");
//! 4. the last non-empty line when it is an answer on its own: a bare value or
//!    expression, or one math segment (`$…$`, `\(…\)`, `\[…\]`, or a closing `$$…$$`
//!    block) with only punctuation around it. A line of reasoning is never read for
//!    a value, so a response cut off mid-sentence has no answer, and an equation
//!    chain (`3+4=7`, `x = 2+2 = 4`) is a step, not an answer; `name = value`
//!    (`x = 4`, `f(x) = 2x+1`) is one.
//!
//! Nothing else: a response without any of these has no answer. We never scan the
//! reasoning for numbers (step 3 reads only the closing sentence), so a failed match cannot pick up a stray value.
//! Work is linear in the response length (the scan looks at most at the last
//! [`MAX_RESPONSE_BYTES`] bytes and tries at most a few boxes).

use super::hedge;
use super::limits::MAX_RESPONSE_BYTES;
use crate::final_answer::{final_answer, Truncation};

/// Where the answer was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerSource {
    Boxed,
    Phrase,
    LastLine,
}

impl AnswerSource {
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerSource::Boxed => "boxed",
            AnswerSource::Phrase => "answer_phrase",
            AnswerSource::LastLine => "last_line",
        }
    }
}

/// The outcome of answer extraction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extraction {
    /// An answer (trimmed, math delimiters removed).
    Found { text: String, source: AnswerSource },
    /// The last box is empty: the model gave no answer.
    EmptyBox,
    /// No box, no answer phrase, no trailing expression.
    NotFound,
    /// The response was cut off while thinking: it has no final answer.
    Truncated(Truncation),
    /// The last box is cut off (`\boxed{13` never closed).
    CutOffBox,
    /// Several boxed values, each under a condition: a hedge, not an answer.
    Hedged(String),
}

impl Extraction {
    /// The answer text, when one was found.
    pub fn text(&self) -> Option<&str> {
        match self {
            Extraction::Found { text, .. } => Some(text),
            _ => None,
        }
    }
}

/// How many unclosed boxes we step over before giving up on boxes.
const MAX_BOX_ATTEMPTS: usize = 8;

/// Extracts the final answer from a model response (see the module docs for the order).
pub fn extract_answer(response: &str) -> Extraction {
    let text = match final_answer(response).answer() {
        Ok(text) => tail(text, MAX_RESPONSE_BYTES),
        Err(why) => return Extraction::Truncated(why),
    };
    if last_box_cut_off(text) {
        return Extraction::CutOffBox;
    }
    if let Some(values) = hedge::conditional_values(text, &closed_boxes(text)) {
        return Extraction::Hedged(values);
    }
    // "… \boxed{200} … Final Answer: The final answer is $10,455$." — an answer
    // statement after the last box supersedes it.
    if let Some(found) = text_after_last_box(text).and_then(statement_after_box) {
        return Extraction::Found {
            text: found,
            source: AnswerSource::Phrase,
        };
    }
    if let Some(found) = last_box(text) {
        let cleaned = clean(&found);
        return if cleaned.is_empty() {
            Extraction::EmptyBox
        } else {
            Extraction::Found {
                text: cleaned,
                source: AnswerSource::Boxed,
            }
        };
    }
    if let Some(found) = after_phrase(text) {
        return Extraction::Found {
            text: found,
            source: AnswerSource::Phrase,
        };
    }
    if let Some(found) = concluding_number(text).or_else(|| last_line_expression(text)) {
        return Extraction::Found {
            text: found,
            source: AnswerSource::LastLine,
        };
    }
    Extraction::NotFound
}

/// An answer stated after the last box: a "final answer" phrase, or any answer phrase
/// whose value is mathematics (not "The answer is correct.").
fn statement_after_box(after: &str) -> Option<String> {
    final_phrase(after).or_else(|| after_phrase(after).filter(|a| is_bare_expression(a)))
}

/// Whether the last box command opens a group that never closes (a cut-off answer).
fn last_box_cut_off(text: &str) -> bool {
    let Some(at) = text.rfind("\\boxed").max(text.rfind("\\fbox")) else {
        return false;
    };
    let rest = &text[at..];
    let rest = rest
        .strip_prefix("\\boxed")
        .or_else(|| rest.strip_prefix("\\fbox"))
        .unwrap_or(rest)
        .trim_start_matches([' ', '\t']);
    rest.strip_prefix('{')
        .is_some_and(|body| braced_prefix(body).is_none())
}

/// The closed `\boxed{…}` groups of `text`, as (start, end, content), in order; the last
/// [`MAX_JOINED_BOXES`] at most.
fn closed_boxes(text: &str) -> Vec<(usize, usize, &str)> {
    let mut out = Vec::new();
    let mut end = text.len();
    while out.len() < MAX_JOINED_BOXES {
        let Some(at) = text[..end].rfind("\\boxed") else {
            break;
        };
        let after = &text[at + 6..];
        let open = after.len() - after.trim_start_matches([' ', '\t']).len();
        if let Some(inner) = after[open..].strip_prefix('{').and_then(braced_prefix) {
            out.push((at, at + 6 + open + inner.len() + 2, inner));
        }
        end = at;
    }
    out.reverse();
    out
}

/// Reads a gold answer: a boxed gold is unboxed (a solution without a box gives its
/// "final answer is" statement), math delimiters are removed.
pub fn clean_gold(gold: &str) -> String {
    let text = tail(gold, MAX_RESPONSE_BYTES);
    match last_box(text) {
        Some(inner) => clean(&inner),
        // A worked solution as gold: its "final answer is …" statement.
        None => final_phrase(text).unwrap_or_else(|| clean(text)),
    }
}

/// The last `max` bytes of `s`, cut at a character boundary.
fn tail(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// The content of the last closed `\boxed{…}` or `\fbox{…}` (or `\boxed x`).
fn last_box(text: &str) -> Option<String> {
    let mut end = text.len();
    for _ in 0..MAX_BOX_ATTEMPTS {
        let boxed = text[..end].rfind("\\boxed");
        let fbox = text[..end].rfind("\\fbox");
        let (pos, len) = match (boxed, fbox) {
            (Some(b), Some(f)) if f > b => (f, 5),
            (Some(b), _) => (b, 6),
            (None, Some(f)) => (f, 5),
            (None, None) => return None,
        };
        if let Some(inner) = box_argument(&text[pos + len..]) {
            if inner.trim().is_empty() {
                return Some(String::new());
            }
            return Some(with_adjacent_boxes(text, pos, inner));
        }
        end = pos;
    }
    None
}

/// Boxes written side by side (`\\boxed{1}, \\boxed{2}`, `\\boxed{1} and \\boxed{2}`) are
/// one answer: their contents joined by commas, in order. Boxes labelled with
/// different names (`y_1 = \\boxed{a}` and `y_2 = \\boxed{b}`) join as `y_1 = a, y_2 = b`;
/// the same name twice (`x = \\boxed{1}` … `x = \\boxed{2}`) is a correction, not a list.
fn with_adjacent_boxes(text: &str, last_start: usize, last: &str) -> String {
    let mut parts = vec![last.to_owned()];
    let mut start = last_start;
    // Whether the part at `start` already carries its `name =` label.
    let mut labelled = false;
    while parts.len() < MAX_JOINED_BOXES {
        let Some(prev) = text[..start].rfind("\\boxed") else {
            break;
        };
        let after = &text[prev + 6..];
        let open = after.len() - after.trim_start_matches([' ', '\t']).len();
        if !after[open..].starts_with('{') {
            break;
        }
        let Some(inner) = braced_prefix(&after[open + 1..]) else {
            break;
        };
        // `\boxed` + spaces + `{` + inner + `}`
        let prev_end = prev + 6 + open + 1 + inner.len() + 1;
        if prev_end > start || inner.trim().is_empty() {
            break;
        }
        let between = &text[prev_end..start];
        if only_separators(between) {
            parts.push(inner.to_owned());
        } else {
            // `y_1 = \boxed{a} and y_2 = \boxed{b}`: different names, one answer each.
            let (Some((rest, name)), Some((_, prev_name))) =
                (trailing_label(between), trailing_label(&text[..prev]))
            else {
                break;
            };
            if name == prev_name || !only_separators(rest) {
                break;
            }
            if let Some(current) = parts.last_mut() {
                if !labelled {
                    *current = format!("{name} = {current}");
                }
            }
            parts.push(format!("{prev_name} = {inner}"));
            labelled = true;
            start = prev;
            continue;
        }
        labelled = false;
        start = prev;
    }
    parts.reverse();
    parts.join(", ")
}

/// The name that `text` ends by defining (`… and \\( y_2 =` → `y_2`) and the text
/// before it; `None` unless it ends with a short name and `=`.
fn trailing_label(text: &str) -> Option<(&str, &str)> {
    let body = text.trim_end().strip_suffix('=')?.trim_end();
    let start = body
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || matches!(c, '_' | '{' | '}'))
        // One past the longest name, so a long run of letters is rejected cheaply.
        .take(13)
        .last()?
        .0;
    let name = &body[start..];
    let named = name.len() <= 12 && name.starts_with(|c: char| c.is_ascii_alphabetic());
    named.then_some((&body[..start], name))
}

/// Most boxes joined into one answer.
const MAX_JOINED_BOXES: usize = 16;

/// Whether the text between two boxes only separates them.
fn only_separators(between: &str) -> bool {
    if between.len() > 64 {
        return false;
    }
    // `\boxed{1} papers and \boxed{2} bins`: what the first value counts, then "and".
    if let [noun, "and"] = between.split_whitespace().collect::<Vec<_>>().as_slice() {
        if (2..=15).contains(&noun.len()) && noun.bytes().all(|b| b.is_ascii_lowercase()) {
            return true;
        }
    }
    // `\\boxed{5} for part (a) and \\boxed{7}`: only connective words between.
    if between.split_whitespace().all(connective_word) {
        return true;
    }
    let Some(mut rest) = without_connective_text(between) else {
        return false;
    };
    for word in ["\\quad", "\\,", "\\(", "\\)", "\\[", "\\]", "and", "or"] {
        rest = rest.replace(word, " ");
    }
    rest.chars()
        .all(|c| c.is_whitespace() || matches!(c, ',' | ';' | '$'))
}

/// `between` with its `\text{…}` groups removed, when each only joins answers
/// (`\text{and}`, `\text{ or }`, `\text{ for part (a) and }`); `None` when one says more.
fn without_connective_text(between: &str) -> Option<String> {
    let mut out = String::with_capacity(between.len());
    let mut rest = between;
    while let Some(at) = rest.find("\\text{") {
        out.push_str(&rest[..at]);
        let body = &rest[at + 6..];
        let close = body.find('}')?;
        let connective = body[..close].split_whitespace().all(connective_word);
        if !connective {
            return None;
        }
        out.push(' ');
        rest = &body[close + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// A word that only joins answers (`and`, `for`, `part`, `(a)`).
fn connective_word(w: &str) -> bool {
    let w = w.trim_end_matches(',');
    matches!(w, "and" | "or" | "for" | "part" | "")
        || (w.len() == 3 && w.starts_with('(') && w.ends_with(')'))
}

/// The argument of a box command: a braced group, or a bare token (`\boxed 5`).
fn box_argument(rest: &str) -> Option<&str> {
    let trimmed = rest.trim_start_matches([' ', '\t']);
    if let Some(body) = trimmed.strip_prefix('{') {
        return braced_prefix(body);
    }
    if trimmed.starts_with(|c: char| c.is_alphabetic()) {
        // `\boxedx` is another command, not a box.
        return None;
    }
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let end = trimmed
        .find(|c: char| c.is_whitespace() || c == '$')
        .unwrap_or(trimmed.len());
    Some(&trimmed[..end])
}

/// Given the text just after an opening `{`, the text up to its matching `}`.
/// Escaped braces `\{`, `\}` do not count. `None` when unclosed.
fn braced_prefix(body: &str) -> Option<&str> {
    let bytes = body.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'{' => depth += 1,
            b'}' => {
                if depth == 0 {
                    return Some(&body[..i]);
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Answer phrases, strongest first; each group is searched for its last occurrence.
const PHRASE_GROUPS: [&[&str]; 2] = [
    &["final answer is", "final answer:", "final answer"],
    &[
        "the answer is",
        "answer is",
        "answer:",
        "####",
        "correct option is",
        "correct choice is",
    ],
];

/// The text after the last `\boxed`/`\fbox` command, when there is one.
fn text_after_last_box(text: &str) -> Option<&str> {
    let at = text.rfind("\\boxed").max(text.rfind("\\fbox"))?;
    let rest = &text[at..];
    let open = rest.find('{')?;
    let inner = braced_prefix(&rest[open + 1..])?;
    Some(&rest[open + 1 + inner.len() + 1..])
}

/// An answer given by a "final answer" phrase (the strongest group only).
fn final_phrase(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let (at, len) = PHRASE_GROUPS[0]
        .iter()
        .filter_map(|p| lower.rfind(p).map(|at| (at, p.len())))
        .max_by_key(|&(at, len)| (at, len))?;
    answer_after(&text[at + len..])
}

fn after_phrase(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    for group in PHRASE_GROUPS {
        let hit = group
            .iter()
            .filter_map(|p| lower.rfind(p).map(|at| (at, p.len())))
            .max_by_key(|&(at, len)| (at, len));
        let Some((at, len)) = hit else { continue };
        if let Some(answer) = answer_after(&text[at + len..]) {
            return Some(answer);
        }
    }
    None
}

/// The answer in the text that follows an answer phrase.
fn answer_after(rest: &str) -> Option<String> {
    let rest = rest.trim_start_matches(|c: char| {
        c == ':' || c == '*' || c == '_' || c.is_whitespace() && c != '\n'
    });
    let rest = rest.strip_prefix("is ").unwrap_or(rest);
    // The phrase may end its line ("Answer:\n$$42$$"): use the next non-empty line.
    let mut lines = rest.lines();
    let first = lines.next().unwrap_or("");
    let line = if first.trim().trim_matches('*').is_empty() {
        let next = lines.find(|l| !l.trim().is_empty())?;
        // A display block opened on its own line: take up to its closing line.
        match next.trim() {
            "$$" | "\\[" => return math_segments(rest).into_iter().next().map(clean),
            _ => next,
        }
    } else {
        first
    };
    let sentence = sentence_end(line);
    // "Final Answer: The largest $n$ is 34." — the value follows the last " is ".
    if let Some(at) = sentence.rfind(" is ") {
        if let Some(found) = first_answer_in(&sentence[at + 4..]) {
            return Some(found);
        }
    }
    if let Some(segment) = math_segments(line).into_iter().next() {
        let cleaned = clean(segment);
        return (!cleaned.is_empty()).then_some(cleaned);
    }
    let cleaned = clean(sentence);
    if looks_like_answer(&cleaned) {
        return Some(cleaned);
    }
    // "Final Answer: Jane started growing Sphere 3 hours ago." — the one number in it.
    lone_number(&cleaned)
}

/// The only number in a short sentence of prose, if it has exactly one.
fn lone_number(sentence: &str) -> Option<String> {
    if sentence.len() > 160 {
        return None;
    }
    let mut numbers = sentence
        .split_whitespace()
        .map(|w| w.trim_end_matches(['.', ',', ';', '!', '?']))
        .map(|w| w.trim_start_matches(['$', '(']))
        .filter(|w| w.bytes().any(|b| b.is_ascii_digit()));
    let only = numbers.next()?;
    let numeric = only.strip_prefix('-').unwrap_or(only);
    let plain = numeric
        .bytes()
        .all(|b| b.is_ascii_digit() || b == b'.' || b == b',' || b == b'%')
        && numeric.starts_with(|c: char| c.is_ascii_digit());
    (plain && numbers.next().is_none()).then(|| only.to_owned())
}

/// The first math segment of `text`, else `text` itself when it looks like an answer.
fn first_answer_in(text: &str) -> Option<String> {
    if let Some(segment) = math_segments(text).into_iter().next() {
        let cleaned = clean(segment);
        return (!cleaned.is_empty()).then_some(cleaned);
    }
    let cleaned = clean(text);
    looks_like_answer(&cleaned).then_some(cleaned)
}

/// Words that begin prose rather than an answer ("the answer is not obvious").
const PROSE_STARTS: [&str; 24] = [
    "not",
    "to",
    "that",
    "this",
    "we",
    "is",
    "be",
    "a",
    "an",
    "the",
    "of",
    "in",
    "which",
    "because",
    "clearly",
    "obviously",
    "simply",
    "given",
    "as",
    "and",
    "so",
    "then",
    "if",
    "when",
];

/// An expression, or a short phrase that does not start like a sentence.
fn looks_like_answer(s: &str) -> bool {
    if s.is_empty() || s.len() > 200 {
        return false;
    }
    if is_bare_expression(s) {
        return true;
    }
    let mut words = s.split_whitespace();
    let first = words.next().unwrap_or("").to_ascii_lowercase();
    words.count() < 4 && !PROSE_STARTS.contains(&first.as_str())
}

/// The line up to the end of its first sentence (". " followed by a capital or end).
fn sentence_end(line: &str) -> &str {
    let bytes = line.as_bytes();
    for i in 0..bytes.len() {
        if bytes[i] == b'.' && i + 1 < bytes.len() && bytes[i + 1] == b' ' {
            return &line[..i];
        }
    }
    line
}

/// The last non-empty line, when it is an answer on its own: a bare value or
/// expression, or a line that ends with a math segment and is complete (only that
/// segment, perhaps after "so" or "answer"; a sentence closed by `.` or `!`; or a
/// label ending in `:`). A line cut off mid-sentence (`First, $3+4=7$. Then we need
/// …, so`) has no answer, and a computation (`3+4=7`) is a step, not an answer.
fn last_line_expression(text: &str) -> Option<String> {
    let trimmed = text.trim_end();
    // A display block that closes the response may span several lines.
    let unpunctuated = trimmed.trim_end_matches(['.', ',', ';']).trim_end();
    let candidate = if unpunctuated.ends_with("$$") || unpunctuated.ends_with("\\]") {
        let start = block_start(unpunctuated)?;
        clean(math_segments(&unpunctuated[start..]).pop()?)
    } else {
        let line = trimmed.lines().last()?.trim();
        // `So $x \\in [2, 5)$`: a conclusion word may open a lone math segment.
        let math = without_conclusion_word(line);
        match math_segments(math).as_slice() {
            // `$28$ percent`: the percent sign written as a word after the segment.
            [segment] if math.ends_with(" percent") && only_math(&math[..math.len() - 8]) => {
                format!("{}\\%", clean(segment))
            }
            [segment] if only_math(math) => clean(segment),
            [] if is_bare_expression(&clean(line)) => clean(line),
            [.., before, last] if joined_by_connective(line, before, last) => {
                let answer = clean(closing_segment(line, last)?);
                format!("{}, {answer}", clean(before))
            }
            // `The value of \\( n^5 \\bmod 120 \\) is 0.`: a closing statement of a number.
            [.., last] => match closing_segment(line, last) {
                Some(segment) => clean(segment),
                None => stated_plain_number(line)?,
            },
            [] => stated_number(line)?,
        }
    };
    (!candidate.is_empty() && standalone_answer(&candidate)).then_some(candidate)
}

/// The segment `last` (the line's last math segment) when it is the line's stated
/// answer and the line is complete:
/// - it ends the line, and the sentence is closed by `.` or `!` (`We find that
///   $x \\neq 3$.`), or is a label (`Special matrix: $…$`), or a short statement
///   (`The solution is $x \\neq 5$`);
/// - or it is followed only by a claim that it is the answer (`Therefore $x \\ge 5$
///   is the solution.`).
fn closing_segment<'a>(line: &str, last: &'a str) -> Option<&'a str> {
    let at = line.rfind(last)?;
    let before = line[..at]
        .trim_end_matches(['$', '(', '[', '\\'])
        .trim_end();
    let after = line[at + last.len()..].trim_start_matches(['$', ')', ']', '\\']);
    let closed = after.trim().ends_with(['.', '!']);
    let after = after.trim().trim_end_matches(['.', '!']).trim();
    if !after.is_empty() {
        // `… is $24$ cm.`, `There are $12$ ways.`: a closing unit or noun is fine.
        let noun = after.split_whitespace().count() <= 2
            && after.chars().all(|c| c.is_alphabetic() || c == ' ');
        return (closed && (claims_answer(after) || noun)).then_some(last);
    }
    let sentence = before.rsplit(". ").next().unwrap_or(before);
    let statement = sentence.split_whitespace().count() <= 8
        && [" is", " are", " equals", "=", ":"]
            .iter()
            .any(|w| sentence.ends_with(w));
    (closed || before.ends_with(':') || statement).then_some(last)
}

/// A line of prose without math that ends by stating a number (`… which is
/// 1,000.99€`): the number, with its unit or currency.
fn stated_number(line: &str) -> Option<String> {
    let at = [" is ", " it's "]
        .iter()
        .filter_map(|w| line.rfind(w).map(|at| at + w.len()))
        .max()?;
    let value = clean(&line[at..]);
    let number = value.trim_end_matches(|c: char| c.is_alphabetic() || "€£$²³%".contains(c));
    let plain = lone_number(number).is_some_and(|n| n == number.trim());
    let suffix = value[number.len()..].trim();
    let unit = suffix.chars().all(|c| "€£$%²³".contains(c))
        || super::units::split_trailing(&value).is_some();
    (plain && unit).then_some(value)
}

/// A complete sentence whose last words state a plain number outside math (`… for
/// integer \\( n \\) is 0.`): the number.
fn stated_plain_number(line: &str) -> Option<String> {
    let body = line.strip_suffix('.')?;
    let at = body.rfind(" is ")?;
    let value = body[at + 4..].trim();
    (lone_number(value).as_deref() == Some(value)).then(|| value.to_owned())
}

/// Whether the line's last two math segments are joined only by "or", "and" or a
/// comma (`$x \\le -2$ or $x \\ge 3$`): one answer of two parts.
fn joined_by_connective(line: &str, before: &str, last: &str) -> bool {
    let (Some(b), Some(l)) = (line.find(before), line.rfind(last)) else {
        return false;
    };
    let start = b + before.len();
    if start > l {
        return false;
    }
    let between = line[start..l].trim_matches(|c: char| c == '$' || c.is_whitespace());
    matches!(between, "or" | "and" | "," | ", or" | ", and")
}

/// Whether text after a value says that it is the answer (`is the solution`).
fn claims_answer(after: &str) -> bool {
    let lower = after.to_ascii_lowercase();
    let mut words = lower.split_whitespace();
    matches!(words.next(), Some("is" | "are"))
        && words
            .filter(|w| !matches!(*w, "the" | "our" | "my" | "final"))
            .take(1)
            .all(|w| matches!(w, "solution" | "solutions" | "answer" | "result"))
}

/// `line` without an opening "so", "thus", "therefore", … (`So $x \\in [2, 5)$`).
fn without_conclusion_word(line: &str) -> &str {
    let lower = line.to_ascii_lowercase();
    ANSWER_OPENERS
        .iter()
        .find_map(|w| {
            let rest = lower.strip_prefix(w)?;
            rest.starts_with([',', ' '])
                .then(|| line[w.len()..].trim_start_matches([',', ' ']))
        })
        .unwrap_or(line)
}

/// Whether `line` is one math segment with nothing but emphasis and end punctuation
/// around it (`$x = 4$.`, `**\\(12\\)**`).
fn only_math(line: &str) -> bool {
    let body = line
        .trim()
        .trim_end_matches(['.', ',', ';', '!', '%'])
        .trim_matches('*')
        .trim();
    [("$", "$"), ("\\(", "\\)"), ("\\[", "\\]")]
        .iter()
        .any(|(open, close)| body.starts_with(open) && body.ends_with(close))
}

/// Whether an expression stands as an answer rather than a step of computation: an
/// equation must not open with a side without any name (`3+4=7`, `2 \\cdot 6 = 12`).
/// `x = 4`, `-34x-45y+20z-100=0` and `x = 2 + 2 = 4` stand as answers.
fn standalone_answer(s: &str) -> bool {
    let first_eq = s
        .char_indices()
        .find(|&(k, c)| c == '=' && !s[..k].ends_with(['<', '>', '!', ':', '\\']))
        .map(|(k, _)| k);
    match first_eq {
        None => true,
        Some(at) => names_something(&s[..at]),
    }
}

/// Whether a side mentions a name (a letter outside LaTeX command names).
fn names_something(side: &str) -> bool {
    let mut chars = side.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            while chars.peek().is_some_and(|d| d.is_ascii_alphabetic()) {
                chars.next();
            }
        } else if c.is_alphabetic() {
            return true;
        }
    }
    false
}

/// Words that open a concluding sentence.
const CONCLUSIONS: [&str; 5] = ["therefore", "thus", "hence", "so", "in conclusion"];

/// Words that may open a line holding only its answer (`Answer $9$`).
const ANSWER_OPENERS: [&str; 7] = [
    "therefore",
    "thus",
    "hence",
    "so",
    "in conclusion",
    "answer",
    "final answer",
];

/// The one number of the response's concluding sentence ("Therefore, there are 12
/// sequences."): the last sentence of the last line, or the one before a closing
/// "I hope it is correct.", when it opens with a conclusion word, holds exactly one
/// number and no negation. Nothing earlier in the reasoning is looked at.
fn concluding_number(text: &str) -> Option<String> {
    // The closing sentences live in the last few hundred bytes of the line; a line
    // cut off mid-sentence (no closing `.` or `!`) has no concluding sentence.
    let line = tail(text.trim_end().lines().last()?.trim(), 2048);
    if !line.ends_with(['.', '!']) {
        return None;
    }
    let mut sentences: Vec<&str> = line
        .split(". ")
        .map(|s| s.trim().trim_end_matches('.'))
        .filter(|s| !s.is_empty())
        .collect();
    if sentences
        .last()
        .is_some_and(|s| s.to_ascii_lowercase().starts_with("i hope"))
    {
        sentences.pop();
    }
    let last = *sentences.last()?;
    // A display block may end the previous sentence: `… \geq 2.$$ Therefore, …`.
    let sentence = last.rsplit("$$").next().unwrap_or(last).trim();
    let lower = sentence.to_ascii_lowercase();
    let opens = CONCLUSIONS.iter().any(|w| {
        lower
            .strip_prefix(w)
            .is_some_and(|rest| rest.starts_with([',', ' ']))
    });
    let negated = lower.contains(" not ") || lower.contains("n't ");
    if !opens || negated || sentence.contains('$') || sentence.contains('\\') {
        return None;
    }
    // "So it is 2/3.": a complete sentence that ends by stating a value.
    let stated = sentence.rfind(" is ").map(|at| clean(&sentence[at + 4..]));
    lone_number(sentence).or_else(|| {
        stated.filter(|v| !v.contains(' ') && is_bare_expression(v) && standalone_answer(v))
    })
}

/// Where the display block that ends `text` opens.
fn block_start(text: &str) -> Option<usize> {
    if let Some(body) = text.strip_suffix("$$") {
        return body.rfind("$$");
    }
    text.rfind("\\[")
}

/// The contents of the math segments of `text`, in order: `$$…$$`, `$…$`, `\(…\)`,
/// `\[…\]`. An escaped `\$` is a dollar sign, not a delimiter.
fn math_segments(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        // Byte-wise: every delimiter is ASCII, so matches fall on character boundaries.
        let rest = &bytes[i..];
        let (open, close): (&str, &str) = if rest.starts_with(b"$$") {
            ("$$", "$$")
        } else if bytes[i] == b'$' {
            ("$", "$")
        } else if rest.starts_with(b"\\(") {
            ("\\(", "\\)")
        } else if rest.starts_with(b"\\[") {
            ("\\[", "\\]")
        } else {
            if bytes[i] == b'\\' {
                i += 1; // skip the escaped character (`\$`)
            }
            i += 1;
            continue;
        };
        let body_start = i + open.len();
        match find_unescaped(&text[body_start..], close) {
            Some(len) => {
                out.push(&text[body_start..body_start + len]);
                i = body_start + len + close.len();
            }
            None => break,
        }
    }
    out
}

/// The offset of the first `needle` not preceded by a backslash escape.
fn find_unescaped(hay: &str, needle: &str) -> Option<usize> {
    let bytes = hay.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(needle.as_bytes()) {
            // `\]` and `\)` are themselves escapes: only `$` needs the check.
            return Some(i);
        }
        if bytes[i] == b'\\' && needle.starts_with('$') {
            i += 1;
        }
        i += 1;
    }
    None
}

/// Removes delimiters, markdown emphasis, trailing punctuation and spacing commands.
fn clean(raw: &str) -> String {
    let mut s = raw.trim();
    loop {
        let before = s;
        for spacing in ["\\,", "\\;", "\\:", "\\!", "\\quad", "\\qquad", "\\ "] {
            s = s.strip_suffix(spacing).unwrap_or(s).trim_end();
        }
        s = s.trim_matches('*').trim();
        s = trim_end_punctuation(s);
        for (open, close) in [("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]")] {
            if let Some(inner) = s.strip_prefix(open).and_then(|x| x.strip_suffix(close)) {
                s = inner.trim();
            }
        }
        if s == before {
            break;
        }
    }
    s.to_owned()
}

/// Drops trailing `.`, `,`, `;` unless escaped (`\,` is a LaTeX space, handled above).
fn trim_end_punctuation(mut s: &str) -> &str {
    while let Some(rest) = s.strip_suffix(['.', ',', ';']) {
        if rest.ends_with('\\') {
            break;
        }
        s = rest.trim_end();
    }
    s
}

/// A line that is an expression rather than prose: no word of three or more letters
/// except LaTeX commands and a few mathematical words.
fn is_bare_expression(s: &str) -> bool {
    if s.is_empty() || s.len() > 200 {
        return false;
    }
    let mut has_math = false;
    let mut word = String::new();
    let mut after_backslash = false;
    for c in s.chars().chain(std::iter::once(' ')) {
        if c.is_alphabetic() {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            let short = word.chars().count() < 3 && !SHORT_PROSE.contains(&word.as_str());
            let ok = after_backslash || short || ALLOWED_WORDS.contains(&word.as_str());
            if !ok {
                return false;
            }
            has_math = true;
            word.clear();
        }
        after_backslash = c == '\\';
        if c.is_ascii_digit() {
            has_math = true;
        }
    }
    has_math
}

/// Two-letter English words that mark prose, not a product of variables.
const SHORT_PROSE: [&str; 16] = [
    "is", "so", "it", "be", "of", "to", "in", "at", "as", "an", "if", "we", "by", "on", "no", "So",
];

const ALLOWED_WORDS: [&str; 11] = [
    "sqrt", "frac", "pi", "sin", "cos", "tan", "log", "ln", "percent", "pct", "degrees",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn ext(s: &str) -> Option<String> {
        extract_answer(s).text().map(str::to_owned)
    }

    #[test]
    fn last_box_wins_with_nested_braces() {
        assert_eq!(
            ext("first \\boxed{1} then \\boxed{\\frac{1}{2}}."),
            Some("\\frac{1}{2}".into())
        );
        assert_eq!(ext("$\\boxed{\\{1,2\\}}$"), Some("\\{1,2\\}".into()));
        assert_eq!(ext("\\fbox{7}"), Some("7".into()));
        assert_eq!(ext("so \\boxed 5 done"), Some("5".into()));
    }

    #[test]
    fn template_tokens() {
        assert_eq!(
            ext("<|im_start|>assistant\nso \\boxed{5}<|im_end|>"),
            Some("5".into())
        );
        assert_eq!(
            ext("\\boxed{5}<|im_end|><|im_start|>user \\boxed{6}"),
            Some("5".into())
        );
    }

    #[test]
    fn adjacent_boxes_are_one_answer() {
        assert_eq!(
            ext("\\(\\boxed{1}\\) and \\(\\boxed{-2}\\)."),
            Some("1, -2".into())
        );
        assert_eq!(
            ext("so \\boxed{200} then. Final Answer: The final answer is $10,455$. I hope"),
            Some("10,455".into())
        );
        assert_eq!(ext("$\\boxed{1}\\boxed{2}$"), Some("1, 2".into()));
        assert_eq!(
            ext("\\(y_1 = \\boxed{a} \\) and \\( y_2 = \\boxed{b}\\)"),
            Some("y_1 = a, y_2 = b".into())
        );
        assert_eq!(
            ext("$\\boxed{(2, 2)} \\quad \\text{and} \\quad \\boxed{(6, 2)}$"),
            Some("(2, 2), (6, 2)".into())
        );
        assert_eq!(
            ext("\\boxed{3} \\text{is wrong; so} \\boxed{4}"),
            Some("4".into())
        );
        assert_eq!(
            ext("\\boxed{1} papers and \\boxed{2} bins"),
            Some("1, 2".into())
        );
        assert_eq!(ext("\\boxed{1} no no no \\boxed{2}"), Some("2".into()));
        assert_eq!(ext("\\boxed{1} is wrong and \\boxed{2}"), Some("2".into()));
        assert_eq!(ext("x = \\boxed{1} and x = \\boxed{2}"), Some("2".into()));
        assert_eq!(ext("\\boxed{1}, \\boxed{-2}."), Some("1, -2".into()));
        assert_eq!(
            ext("\\boxed{3} so on reflection \\boxed{4}"),
            Some("4".into())
        );
    }

    #[test]
    fn a_cut_off_last_box_is_no_answer() {
        assert_eq!(
            extract_answer("\\boxed{3} and \\boxed{4"),
            Extraction::CutOffBox
        );
        assert_eq!(
            extract_answer("<think>\\boxed{130}</think>So \\boxed{13"),
            Extraction::CutOffBox
        );
        assert_eq!(ext("\\boxed 5 and \\boxedx{"), Some("5".into()));
    }

    #[test]
    fn only_the_final_answer_is_read_and_its_last_statement_wins() {
        assert_eq!(
            ext("<think>so \\boxed{8}</think>Answer: 6"),
            Some("6".into())
        );
        assert_eq!(
            ext("<think>so \\boxed{8}</think>\n#### 6"),
            Some("6".into())
        );
        assert_eq!(
            ext("<think>\\boxed{8}</think>The answer is $6$ hours."),
            Some("6".into())
        );
        assert_eq!(
            ext("<think>So the answer is 40.</think>The total is\n\\[ 42 \\]"),
            Some("42".into())
        );
        assert_eq!(
            extract_answer("<think>so \\boxed{8}"),
            Extraction::Truncated(Truncation::UnclosedThink)
        );
        assert_eq!(ext("\\boxed{8}. Rechecking, Answer: 6"), Some("6".into()));
        assert_eq!(
            ext("\\boxed{12}\n\nThe answer is correct."),
            Some("12".into())
        );
        assert_eq!(
            ext("Check each.\nThe correct option is **(C) 12**."),
            Some("(C) 12".into())
        );
        assert_eq!(
            ext("Answer: 16 days<\u{ff5c}end\u{2581}of\u{2581}sentence\u{ff5c}>"),
            Some("16 days".into())
        );
    }

    #[test]
    fn empty_box_is_no_answer() {
        assert_eq!(
            extract_answer("\\boxed{3} \\boxed{ }"),
            Extraction::EmptyBox
        );
    }

    #[test]
    fn answer_phrases() {
        assert_eq!(
            ext("blah 7 blah. The final answer is $12$."),
            Some("12".into())
        );
        assert_eq!(ext("**Answer:** 42"), Some("42".into()));
        assert_eq!(ext("Answer: (1, 2)"), Some("(1, 2)".into()));
        assert_eq!(ext("Answer:\n$$x=3$$"), Some("x=3".into()));
        assert_eq!(
            ext("The answer is 5. Next we check it with 6."),
            Some("5".into())
        );
        assert_eq!(ext("work\n#### 1,234"), Some("1,234".into()));
        assert_eq!(
            ext("Final Answer: The largest $n$ is 34. I hope it is correct."),
            Some("34".into())
        );
        assert_eq!(
            ext("so it is 2/3. <|im_start|>user\nWhat is 7?\n\\boxed{7}"),
            Some("2/3".into())
        );
        assert_eq!(ext("The answer is Tuesday."), Some("Tuesday".into()));
        assert_eq!(
            ext("The answer is not obvious at first.\nWe find $x = 7$."),
            Some("x = 7".into())
        );
        assert_eq!(
            ext("The answer is not obvious at first.\n$x = 7$."),
            Some("x = 7".into())
        );
    }

    #[test]
    fn last_line_expression_only() {
        assert_eq!(ext("We compute.\n\n$x = 4$"), Some("x = 4".into()));
        assert_eq!(ext("work 17 and 23\n42"), Some("42".into()));
        assert_eq!(ext("so\n$$\n\\frac{3}{4}\n$$"), Some("\\frac{3}{4}".into()));
        assert_eq!(ext("Hence x = 9."), Some("9".into()));
        assert_eq!(ext("The total is 12 apples."), None);
        let paragraph = format!(
            "{} Then $t = 8$ hours. Jane started 3 hours ago. I hope it is correct.",
            "We reason at length about the problem. ".repeat(12)
        );
        assert_eq!(ext(&paragraph), None);
        assert_eq!(ext("I think about 17 and then I stop"), None);
        assert_eq!(
            ext("So on. Therefore, there are 12 sequences. I hope it is correct."),
            Some("12".into())
        );
        assert_eq!(
            ext("Thus the error increases by 100%."),
            Some("100%".into())
        );
        assert_eq!(ext("Therefore, it is not 12."), None);
        assert_eq!(ext("Therefore, 12 or 13."), None);
        assert_eq!(ext("Therefore, 12. Then we check 13."), None);
        assert_eq!(ext("Therefore, there are 12 ways to place the"), None);
        assert_eq!(
            ext("First, $3+4=7$. Then we need to account for the constraint, so"),
            None
        );
        assert_eq!(ext("So far:\n$3+4=7$"), None);
        assert_eq!(ext("So far:\n3 + 4 = 7"), None);
        assert_eq!(ext("We check:\n$$2 \\cdot 6 = 12$$"), None);
        assert_eq!(ext("We check, then $y = 8.8 - 0.4x$ and"), None);
        assert_eq!(ext("We check, then $y = 8.8 - 0.4x$"), None);
        assert_eq!(ext("We find that $x \\neq 3$."), Some("x \\neq 3".into()));
        assert_eq!(ext("Special matrix: $[1]$"), Some("[1]".into()));
        assert_eq!(ext("Thus $x <= 2$ is our answer."), Some("x <= 2".into()));
        assert_eq!(ext("Thus $x <= 2$ is where we"), None);
        assert_eq!(ext("The perimeter is $24$ cm."), Some("24".into()));
        assert_eq!(
            ext("The solution set is $x \\le -2$ or $x \\ge 3$."),
            Some("x \\le -2, x \\ge 3".into())
        );
        assert_eq!(ext("There are $24$ ways to pick the first, and"), None);
        assert_eq!(ext("The solution is $x = 5$"), Some("x = 5".into()));
        assert_eq!(
            ext("so the number is 10 which is 1,000.99"),
            Some("1,000.99".into())
        );
        assert_eq!(ext("so the number is 10 which is 1,000 and"), None);
        assert_eq!(
            ext("Collecting terms,\n$f(x) = 2x+1$"),
            Some("f(x) = 2x+1".into())
        );
        assert_eq!(
            ext("Collecting terms,\n$a_{1} = 5$."),
            Some("a_{1} = 5".into())
        );
        assert_eq!(
            ext("Collecting terms,\n$x \\ge 3$"),
            Some("x \\ge 3".into())
        );
        assert_eq!(ext("The side is $5$ and then we"), None);
        assert_eq!(
            ext("Work.\nThe value of \\( n^5 \\bmod 120 \\) for integer \\( n \\) is 0."),
            Some("0".into())
        );
        assert_eq!(ext("The value of \\( n \\) is 0 when"), None);
        assert_eq!(ext(""), None);
    }

    #[test]
    fn escaped_dollars_are_not_delimiters() {
        assert_eq!(ext("It costs \\$5 and \\$6\n$11$"), Some("11".into()));
    }

    #[test]
    fn gold_is_unboxed_and_undelimited() {
        assert_eq!(clean_gold("$\\boxed{3}$"), "3");
        assert_eq!(clean_gold(" $\\frac12$ "), "\\frac12");
    }
}
