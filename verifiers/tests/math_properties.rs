//! Property tests for the math verifier: equal values written differently are
//! accepted, perturbed values are rejected, and no input (arbitrary text, huge or
//! deeply nested answers, huge powers) panics or runs unbounded.

use cascade_verifiers::math::{check, equivalent};
use proptest::prelude::*;

fn accepts(answer: &str, gold: &str) -> bool {
    equivalent(answer, gold).correct
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn reordered_sums_are_equal(a in -1000i64..1000, b in -1000i64..1000, c in 1i64..50) {
        let gold = format!("{a} + {b}x + {c}x^2");
        let answer = format!("{c}x^2 + ({a}) + {b}\\cdot x");
        prop_assert!(accepts(&answer, &gold), "{answer} vs {gold}");
        let wrong = format!("{c}x^2 + ({}) + {b}\\cdot x", a + 1);
        prop_assert!(!accepts(&wrong, &gold), "{wrong} vs {gold}");
    }

    #[test]
    fn equivalent_fractions_are_equal(p in -500i64..500, q in 1i64..500, k in 1i64..50) {
        let gold = format!("\\frac{{{p}}}{{{q}}}");
        let answer = format!("\\frac{{{}}}{{{}}}", p * k, q * k);
        prop_assert!(accepts(&answer, &gold));
        let answer = format!("{}/{}", p * k, q * k);
        prop_assert!(accepts(&answer, &gold));
        let wrong = format!("\\frac{{{}}}{{{}}}", p * k + 1, q * k);
        prop_assert!(!accepts(&wrong, &gold));
    }

    #[test]
    fn expanded_and_factored_polynomials_are_equal(a in -30i64..30, b in -30i64..30) {
        let gold = format!("(x + {a})(x - ({b}))");
        let answer = format!("x^2 + ({})x + ({})", a - b, -a * b);
        prop_assert!(accepts(&answer, &gold), "{answer} vs {gold}");
        let wrong = format!("x^2 + ({})x + ({})", a - b, -a * b + 1);
        prop_assert!(!accepts(&wrong, &gold));
    }

    #[test]
    fn radicals_pull_out_squares(k in 1u64..40, m in prop::sample::select(vec![2u64, 3, 5, 6, 7, 10, 11])) {
        let gold = format!("{k}\\sqrt{{{m}}}");
        let answer = format!("\\sqrt{{{}}}", k * k * m);
        prop_assert!(accepts(&answer, &gold));
        let wrong = format!("\\sqrt{{{}}}", k * k * m + 1);
        prop_assert!(!accepts(&wrong, &gold));
    }

    #[test]
    fn sets_are_unordered(mut v in prop::collection::vec(-100i64..100, 1..8)) {
        v.sort();
        v.dedup();
        let gold = format!("\\{{{}\\}}", v.iter().map(i64::to_string).collect::<Vec<_>>().join(","));
        let rev: Vec<String> = v.iter().rev().map(i64::to_string).collect();
        prop_assert!(accepts(&rev.join(", "), &gold));
        let mut changed = v.clone();
        changed[0] = 1000;
        let wrong: Vec<String> = changed.iter().map(i64::to_string).collect();
        prop_assert!(!accepts(&wrong.join(", "), &gold));
    }

    #[test]
    fn decimals_equal_their_fractions(n in -100_000i64..100_000) {
        let gold = format!("\\frac{{{n}}}{{1000}}");
        let sign = if n < 0 { "-" } else { "" };
        let answer = format!("{sign}{}.{:03}", n.abs() / 1000, n.abs() % 1000);
        prop_assert!(accepts(&answer, &gold), "{answer} vs {gold}");
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,400}") {
        let v = check(&s, "1");
        prop_assert!(v.verdict.len() > 1);
        let _ = equivalent(&s, &s);
    }

    #[test]
    fn latex_soup_never_panics(parts in prop::collection::vec(prop::sample::select(vec![
        "\\frac", "{", "}", "\\sqrt", "[", "]", "(", ")", "^", "_", "x", "2", "10", "\\pi",
        "e", "i", ",", "=", "<", "\\le", "\\pm", "!", "\\%", "\\left(", "\\right)", "\\{",
        "\\}", "\\cup", "&", "\\\\", "\\begin{pmatrix}", "\\end{pmatrix}", "\\text{", "|",
        "\\infty", "-", "+", "\\cdot", "/", "0.5", "\\ln", "\\sin", "^{", "\\boxed{",
        " if ", "otherwise", ". ", "$", "\\(", "\\)", "</think>", "<think>", "\n",
        "The final answer is ", "\\boxed ", "é", "\\dfrac",
    ]), 0..60)) {
        let s: String = parts.concat();
        let _ = check(&s, "x^2");
        let _ = equivalent(&s, &s);
        let _ = equivalent("1", &s);
    }
}

#[test]
fn megabyte_inputs_finish() {
    let big = "7 + ".repeat(250_000);
    assert_eq!(check(&big, "1").verdict, "no_answer");
    let boxed = format!("\\boxed{{{}1}}", "1+".repeat(400_000));
    assert_eq!(check(&boxed, "1").verdict, "undecidable");
    let braces = "{".repeat(1 << 20);
    assert!(!check(&braces, "1").correct);
    let boxes = "\\boxed{".repeat(100_000);
    assert!(!check(&boxes, "1").correct);
    let dollars = "$".repeat(1 << 20);
    assert!(!check(&dollars, "1").correct);
    let lines = "x = 1\n".repeat(150_000);
    assert!(check(&lines, "1").correct);
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    for (open, close) in [
        ("{", "}"),
        ("(", ")"),
        ("\\frac{1}{", "}"),
        ("\\sqrt{", "}"),
        ("2^{", "}"),
    ] {
        let deep = format!("{}1{}", open.repeat(1000), close.repeat(1000));
        let v = equivalent(&deep, "1");
        assert!(!v.correct, "{open}");
        assert_eq!(v.verdict, "undecidable", "{open}: {}", v.reason);
    }
    let text = format!("{}1{}", "\\text{".repeat(600), "}".repeat(600));
    assert!(!equivalent(&text, "2").correct);
}

#[test]
fn huge_powers_are_never_accepted() {
    for answer in [
        "10^{10^{10^{10}}}",
        "2^{2^{2^{2^{2^{2}}}}}",
        "(10^{100})!",
        "99999!",
        "(1+x)^{100000}",
        "\\sqrt{2}^{10^{30}}",
    ] {
        let v = equivalent(answer, "5");
        assert_eq!(v.verdict, "undecidable", "{answer}: {}", v.reason);
    }
    // Towers whose exponents fit the exponent limit are decided by prime exponents.
    for answer in ["9^{9^{9}}", "10^{-10^{10}}", "2^{2^{4000}}"] {
        let v = equivalent(answer, "5");
        assert_eq!(v.verdict, "wrong", "{answer}: {}", v.reason);
    }
    assert!(equivalent("9^{9^{9}}", "3^{2 \\cdot 9^{9}}").correct);
    let v = check("so \\boxed{10^{10^{10^{10}}}}", "10^{10^{10^{10}}}");
    assert!(v.correct);
}
