//! The math answer verifier: extracts the final answer from a model response and
//! decides whether it equals the gold answer, exactly and within fixed work limits.
//!
//! ```
//! use cascade_verifiers::math::check;
//! assert!(check("so the answer is $\\boxed{\\frac{1}{\\sqrt{2}}}$", "\\frac{\\sqrt2}{2}").correct);
//! assert!(!check("\\boxed{1+1/e}", "1-\\frac{1}{e}").correct);
//! ```
//!
//! Pipeline: [`extract_answer`] (module `extract`) → [`parse`] (modules `lexer`,
//! `parser`, tree in `expr`) → normal forms (`normal`, exact arithmetic in `exact`) →
//! [`equivalent`] (`equivalence`, with a numeric backstop in `numeric`). Around them:
//! `unicode` (Unicode to LaTeX), `units` (unit phrases), `set_difference`, `power`
//! (big powers by prime exponents) and `approx` (the opt-in rounding). All limits
//! live in `limits`: exceeding one gives the verdict `undecidable` (reward 0); there
//! are no timeouts, threads or signals, and the functions are safe to call from any
//! number of threads.
//!
//! ## Conventions
//! - **Decimals and fractions.** Values are compared exactly: a decimal equals a value
//!   only when it is exactly equal. A terminating decimal is the fraction it writes
//!   (`0.5` = `\frac12`, `0.625` = `\frac58`, `0.1+0.2` = `0.3`) and repeating notation
//!   is exact too (`0.\overline{3}` = `\frac13`, `0.1\overline{6}` = `\frac16`), but a
//!   rounded decimal is not the value it rounds: `0.63` ≠ `\frac58`, `0.33` ≠ `\frac13`,
//!   `3.14` ≠ `\pi`, `1.41421356` ≠ `\sqrt2`, and the same inside tuples, intervals and
//!   matrices (`[0, 6.28)` ≠ `[0, 2\pi)`). The rule does not run backwards: a decimal
//!   gold `0.45` does not accept `\frac{5}{11}` or `0.\overline{45}`. Against a value
//!   that only the numeric check can evaluate (`\sin 1`, `\ln 2`) a decimal must agree
//!   to double precision and have at most 10 significant digits, so a rounded decimal
//!   is never taken for it.
//! - **`approx` (opt-in rounding).** For datasets whose golds are themselves rounded,
//!   [`MathOptions::approx`] (the math environment's `--config approx=…`) accepts two
//!   constant values that agree to a number of significant digits (`approx=3`, or
//!   `sig:3`: both round, halves away from zero, to the same 3 digits, so `3.14` = `π`
//!   and gold `0.45` accepts `\frac{5}{11}` with `approx=2`) or within a relative
//!   tolerance of the gold (`approx=1e-3`, or `rel:1e-3`: `|a − g| ≤ 10⁻³·|g|`). It
//!   applies to every constant leaf (inside tuples, intervals and matrices too), never
//!   to expressions with variables. [`check`] and [`equivalent`] are exact;
//!   [`check_with`] and [`equivalent_with`] take options.
//! - **Decimal commas.** A comma is a thousands separator before exactly three digits
//!   (`1,000`), and otherwise separates list items (`1,22` is the list 1, 22). One
//!   exception, decided by context: when one side is a single number with one comma
//!   (`1,22`, `1000,99`, `0,111`) and the other side is a number written with a
//!   decimal point or a decimal comma, the comma is read as a decimal point, so `1,22`
//!   = `1.22` but `1,22` ≠ `122` and `1,22` is still the list {1, 22} against `1, 22`.
//! - **Percentages.** `x\%` means `x/100`. An answer with a percent sign also matches
//!   the bare number on the other side (`25\%` = `25`), and either side may write the
//!   fraction (`25\%` = `0.25` = `\frac14`).
//! - **Units and degrees.** Unit words are stripped: in `\text{…}` (`\text{ cm}`,
//!   `\text{ square feet}`), and in plain text after a value (`5 cm`, `12 ft`,
//!   `3 hrs`, `10 mph`, `8 sq ft`, `60 km/h`), read from the list in `units` with its
//!   synonyms (`h` = `hr` = `hrs` = `hours`; `sq ft` = `square feet` = `ft^2` = `ft²`).
//!   Values are never converted between units; when both sides carry units they must
//!   be the same unit. A one-letter unit (`m s g h L N J W K V`) after a plain number
//!   counts as a unit only when a space separates it (`5 m`) or it carries a power
//!   (`3m²`); `5m` stays the product of 5 and `m`, and `\pi r^2 h` keeps its `h`.
//!   Currency `\$` and `^\circ` are stripped. A bare value in degrees is its number,
//!   and degrees never equal radians (`30^\circ` ≠ `\frac{\pi}{6}`, as in Math-Verify),
//!   but inside a trigonometric function degrees are converted: `\sin 30^\circ` =
//!   `\frac12`, `\tan(45°)` = 1 (`\sin 30` is 30 radians).
//! - **Trigonometric values** at multiples of `π/12` (also `15^\circ`, `30^\circ`, …)
//!   are exact: `\cos\frac{\pi}{6}` = `\frac{\sqrt3}{2}`.
//! - **Complex numbers** are exact in `i`, also in polar forms: `e^{i\pi}` = −1,
//!   `2e^{i\pi/6}` = `2(\cos\frac{\pi}{6} + i\sin\frac{\pi}{6})` =
//!   `2\operatorname{cis}\frac{\pi}{6}` = `\sqrt3 + i` (angles that are multiples of
//!   `π/12`), and `|a+bi|` = `\sqrt{a^2+b^2}` (`|3+4i|` = 5).
//! - **Unicode** mathematics is read as the LaTeX it stands for: `π √ ∛ − × · ÷ ≤ ≥ ≠
//!   ∞ ∪ ∩ ∈ ± ∓ ℝ ∖`, vulgar fractions (`½`, `3½` = `\frac72`), superscripts and
//!   subscripts (`x²`, `10⁻³`, `a₁`) and Greek letters (`θ` = `\theta`).
//! - **Ratios.** `a:b` is `a/b` (`7:32` = `\frac{7}{32}`, `A:B = 2:3` against `2:3`), so
//!   proportional ratios are equal (`2:4` = `1:2`); inside `\{…\}` the colon reads
//!   "such that" and is not a ratio; three-part ratios are compared only as text.
//! - **Equations.** `x = v` compares by `v` against a value when its left side only
//!   names something (`x`, `f(x)`, `(p, q)`, `AB`); `7 = 11a + c` is not the value
//!   `11a + c`. A chain `x = 2 + 2 = 4` is its last side; with `\approx`, the side before
//!   it (`x = 1/3 \approx 0.33` is `1/3`). Two equations compare as equations
//!   (proportional `lhs − rhs`, so `2x+4y-3=0` = `y=-x/2+3/4`). `n = 1, 2, 3` is
//!   `n = {1, 2, 3}`.
//! - **Inequalities** in one variable are intervals (`1<x\le2` = `(1,2]`, `x \in [a,b]`
//!   = `[a,b]`, `x \ne 0` = `(-∞,0) ∪ (0,∞)`); other inequalities are equal when
//!   `lhs − rhs` are positive multiples (or negative multiples with the operator
//!   flipped: `x<1` = `-x>-1`). Inequalities in one variable joined by "or", "and" or
//!   `,` are a union of intervals (`x \le -2 \text{ or } x \ge 3` =
//!   `(-∞,-2] ∪ [3,∞)`, either side), except two overlapping half-lines, which are
//!   their intersection (`x > -2 \text{ and } x < 3` = `(-2,3)`).
//! - **Set difference** of an interval and points or an interval is a union of
//!   intervals: `\mathbb{R}\setminus\{0\}` = `(-∞,0) ∪ (0,∞)`,
//!   `\mathbb{R}\setminus[-2,2]` = `(-∞,-2) ∪ (2,∞)` (also `\backslash`, `ℝ∖`).
//! - **Numbers** may use thousands separators (`1,000`, `1{,}000`, `10,\!000`),
//!   scientific notation (`1.5e3`, `1.5\times10^3`), mixed numbers (`3\frac12`) and
//!   other bases (`204_5` = 54).
//! - **Sets** and bare lists are unordered; **tuples, intervals, matrices** ordered.
//!   Bare braces only group (`{1,3}` is the list `1, 3`, as LaTeX renders it). A set
//!   written with `\{…\}` has no repeats: `\{-2,3,3\}` = `\{-2,3\}`. A bare list keeps
//!   them, as a root may be listed with its multiplicity (`-2, 3, 3` ≠ `-2, 3`); a
//!   tuple listed twice in a bare list still counts once.
//!   Semicolon-separated solutions naming the same unknowns (`p=5,q=2;p=7,q=2`) are a
//!   set of tuples (`(5,2),(7,2)`). Inequalities on `|x|` are unions of intervals
//!   (`1 \le |z| \le 2` = `[-2,-1] ∪ [1,2]`).
//! - **Matrix arithmetic** written in an answer (`A + B`, `2A`, `AB` with explicit
//!   matrices up to 8×8) is carried out before comparing.
//! - `\pm` yields both values, so `\pm 2` ≠ `2`.
//! - **Multiple choice**: a single capital letter (optionally in parentheses); an
//!   answer that opens with a letter before its value (`(B) 42`, `\text{(C) } 12`,
//!   `\textbf{(C) } 12`, `**(C)** 12`) is that letter against a letter gold.
//! - **Big integers** written as powers are compared by their prime exponents, never
//!   built: `4^{5000}` = `2^{10000}`, towers by exponent arithmetic (`4^{2^{99}}` =
//!   `2^{2^{100}}`), exponents computed exactly up to 4,096 bits. A base too large to
//!   factor (a literal of up to 4,096 digits, such as `2^{10000}` written out) is
//!   compared by building both sides, up to 65,536 bits. Beyond these limits
//!   (`10^{10^{10^{10}}}`) the verdict is `undecidable`. Worst cases are in the bench's
//!   adversarial section (`cargo bench -p cascade-verifiers --bench math`).
//! - Text answers compare lower-cased without spaces.

mod approx;
mod decimal_comma;
mod equivalence;
mod exact;
mod expr;
mod extract;
mod hedge;
mod lexer;
pub mod limits;
mod matrix;
mod named;
mod normal;
mod numeric;
mod parser;
mod plus_minus;
mod power;
mod set_difference;
mod unicode;
mod units;
mod verifier;

pub use approx::{Approx, ApproxError, MathOptions};
pub use equivalence::Outcome;
pub use expr::{Constant, Expr, Func, Numeral, RelOp};
pub use extract::{clean_gold, extract_answer, AnswerSource, Extraction};
pub use limits::{Budget, LimitHit};
pub use parser::{parse, ParseError, Parsed};
pub use verifier::MathVerifier;

/// Work units one check spent (see `limits`), for calibration and benchmarks.
pub fn work_spent(answer: &str, gold: &str) -> u64 {
    let gold = clean_gold(gold);
    let mut budget = Budget::default();
    let mut scratch = no_answer("");
    decide(
        answer,
        &gold,
        &MathOptions::default(),
        &mut budget,
        &mut scratch,
    );
    limits::WORK_BUDGET - budget.left()
}

use normal::normalize;

/// The full verdict on one (response, gold) pair.
#[derive(Debug, Clone, PartialEq)]
pub struct MathVerdict {
    /// Whether the extracted answer equals the gold answer.
    pub correct: bool,
    /// The extracted answer; `None` when the response has none.
    pub extracted: Option<String>,
    /// Where the answer was found.
    pub source: Option<AnswerSource>,
    /// The answer's normal form, when it has one (a value, not a structure).
    pub normal_form: Option<String>,
    /// The gold answer's normal form, when it has one.
    pub gold_normal_form: Option<String>,
    /// `correct`, `wrong`, `no_answer` or `undecidable`.
    pub verdict: &'static str,
    /// Why, in a few stable words.
    pub reason: String,
}

/// Extracts the answer from `response` and compares it with `gold`, exactly.
pub fn check(response: &str, gold: &str) -> MathVerdict {
    check_with(response, gold, &MathOptions::default())
}

/// [`check`] under explicit options (the opt-in `approx` rounding).
pub fn check_with(response: &str, gold: &str, options: &MathOptions) -> MathVerdict {
    let extraction = extract_answer(response);
    let (text, source) = match extraction {
        Extraction::Found { text, source } => (text, source),
        Extraction::EmptyBox => return no_answer("the last \\boxed{} is empty"),
        Extraction::NotFound => {
            return no_answer("no boxed answer, answer phrase or final expression")
        }
        Extraction::Truncated(why) => return no_answer(&why.to_string()),
        Extraction::CutOffBox => return no_answer("the last \\boxed{ is cut off (never closed)"),
        Extraction::Hedged(values) => {
            return no_answer(&format!(
                "hedged: several boxed values under conditions ({values}), not one answer"
            ))
        }
    };
    let mut verdict = equivalent_with(&text, gold, options);
    verdict.extracted = Some(text);
    verdict.source = Some(source);
    verdict
}

fn no_answer(reason: &str) -> MathVerdict {
    MathVerdict {
        correct: false,
        extracted: None,
        source: None,
        normal_form: None,
        gold_normal_form: None,
        verdict: "no_answer",
        reason: reason.to_owned(),
    }
}

/// Compares an already-extracted answer with a gold answer (LaTeX or plain), exactly.
pub fn equivalent(answer: &str, gold: &str) -> MathVerdict {
    equivalent_with(answer, gold, &MathOptions::default())
}

/// [`equivalent`] under explicit options.
pub fn equivalent_with(answer: &str, gold: &str, options: &MathOptions) -> MathVerdict {
    let gold = clean_gold(gold);
    let mut budget = Budget::default();
    let mut out = MathVerdict {
        correct: false,
        extracted: Some(answer.to_owned()),
        source: None,
        normal_form: None,
        gold_normal_form: None,
        verdict: "wrong",
        reason: String::new(),
    };
    let mut outcome = decide(answer, &gold, options, &mut budget, &mut out);
    if let Outcome::NotEqual(_) = outcome {
        // A lone `1,22` is a list unless the other side is a decimal: then a decimal comma.
        if let Some((a, g)) = decimal_comma::reading(answer, &gold) {
            let mut retry = out.clone();
            let again = decide(&a, &g, options, &mut budget, &mut retry);
            if again.is_equal() {
                outcome = Outcome::Equal("same value with a decimal comma");
                out = retry;
            }
        }
    }
    match outcome {
        Outcome::Equal(why) => {
            out.correct = true;
            out.verdict = "correct";
            out.reason = why.to_owned();
        }
        Outcome::NotEqual(why) => out.reason = why.to_owned(),
        Outcome::Undecidable(limit) => {
            out.verdict = "undecidable";
            out.reason = format!("undecidable within limits: {}", limit.describe());
        }
    }
    out
}

fn decide(
    answer: &str,
    gold: &str,
    options: &MathOptions,
    budget: &mut Budget,
    out: &mut MathVerdict,
) -> Outcome {
    if answer.len() > limits::MAX_ANSWER_BYTES || gold.len() > limits::MAX_ANSWER_BYTES {
        return Outcome::Undecidable(LimitHit::AnswerTooLong);
    }
    let squashed = squash(gold);
    if !squashed.is_empty()
        && (squash(answer) == squashed || unwrapped_text(answer) == unwrapped_text(gold))
    {
        return Outcome::Equal("same text");
    }
    // A gold that names its choice and value (`\textbf{(C) } 12`): the letter against
    // a letter, else the value against the answer.
    if let Some((letter, value, true)) = parser::split_choice(gold) {
        let answer_letter = parser::leading_choice(answer).or_else(|| lone_letter(answer));
        if let Some(chosen) = answer_letter {
            return if chosen == letter {
                Outcome::Equal("same choice")
            } else {
                Outcome::NotEqual("different choice")
            };
        }
        if !value.trim().is_empty() && value.len() < gold.len() {
            return decide(answer, value, options, budget, out);
        }
    }
    let g = match parse(gold) {
        Ok(p) => p,
        Err(ParseError::Limit(l)) => return Outcome::Undecidable(l),
        Err(ParseError::Syntax(_)) => {
            return if parser::normalize_text(answer) == parser::normalize_text(gold) {
                Outcome::Equal("same text")
            } else {
                Outcome::NotEqual("gold is not math and the texts differ")
            };
        }
    };
    // A choice answered as `(B) 42` or `B. 42`: the letter is the answer.
    if let (Expr::Text(letter), Some(chosen)) = (&g.expr, parser::leading_choice(answer)) {
        if letter.len() == 1 {
            return if letter.starts_with(chosen) {
                Outcome::Equal("same choice")
            } else {
                Outcome::NotEqual("different choice")
            };
        }
    }
    // `(C) 12` ("The correct option is **(C) 12**") against a value: the value.
    if !matches!(&g.expr, Expr::Text(t) if t.len() == 1) {
        if let Some((_, value, true)) = parser::split_choice(answer) {
            if !value.trim().is_empty() {
                return decide(value, gold, options, budget, out);
            }
        }
    }
    let a = match parse(answer) {
        Ok(p) => p,
        Err(ParseError::Limit(l)) => return Outcome::Undecidable(l),
        Err(ParseError::Syntax(_)) => return Outcome::NotEqual("answer is not parseable"),
    };
    if !g.units.is_empty() && !a.units.is_empty() && units::keys(&g.units) != units::keys(&a.units)
    {
        return Outcome::NotEqual("units differ");
    }
    let mut known = Vec::new();
    for (e, slot) in [
        (&a.expr, &mut out.normal_form),
        (&g.expr, &mut out.gold_normal_form),
    ] {
        if e.is_scalar() && !power::is_large(e) {
            if let Ok(v) = normalize(e, budget) {
                *slot = Some(v.to_string());
                known.push((e, v));
            }
        }
    }
    equivalence::compare_with_known(&g.expr, &a.expr, known, options.approx, budget)
}

/// The letter of an answer that is only a choice letter (`C`, `(C)`, `\text{C}`).
fn lone_letter(answer: &str) -> Option<char> {
    match parse(answer).ok()?.expr {
        Expr::Text(t) if t.len() == 1 => t.chars().next().filter(char::is_ascii_uppercase),
        _ => None,
    }
}

/// The answer text with spacing and presentation commands removed, for the
/// identical-text shortcut (which also decides huge expressions written identically).
fn squash(s: &str) -> String {
    let mut t = s.to_owned();
    for cmd in [
        "\\left",
        "\\right",
        "\\displaystyle",
        "\\!",
        "\\,",
        "\\;",
        "\\:",
        "\\ ",
    ] {
        t = t.replace(cmd, "");
    }
    t = t.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac");
    t.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Lower-cased text with `\text{…}`-style wrappers (and their braces), spaces and `$`
/// removed: `\text{A, C}` and `A, C` agree.
fn unwrapped_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let mut closers = 0usize;
    while let Some(c) = rest.chars().next() {
        let wrapper = ["\\text{", "\\textbf{", "\\mathrm{", "\\mathbf{", "\\mbox{"]
            .iter()
            .find(|w| rest.starts_with(**w));
        if let Some(w) = wrapper {
            rest = &rest[w.len()..];
            closers += 1;
            continue;
        }
        rest = &rest[c.len_utf8()..];
        match c {
            '}' if closers > 0 => closers -= 1,
            '$' => {}
            c if c.is_whitespace() => {}
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}
