//! Accuracy on Math-Verify's own test suite (`tests/data/math_verify_cases.jsonl`,
//! Apache-2.0, see `tests/data/MATH_VERIFY_LICENSE`): a held-out yardstick that guards
//! against regressions. The test fails if accuracy drops below [`MIN_CORRECT`] or if
//! any case Math-Verify rejects is accepted, except the documented divergences.

use cascade_verifiers::math::check;
use serde::Deserialize;

/// The suite, one JSON object a line.
const SUITE: &str = include_str!("data/math_verify_cases.jsonl");

/// Cases the verifier must get right (raise it when accuracy improves). It was 257
/// before issue 13's exact-decimal rule turned the three rounded-decimal cases below
/// (mv-0126, mv-0133, mv-0139) into deliberate rejections.
const MIN_CORRECT: usize = 254;

/// Deliberate divergences from Math-Verify's expectation, with why. These count as
/// misses in the accuracy figure but never fail the false-accept check.
const DIVERGENCES: &[(&str, &str)] = &[
    (
        "mv-0126",
        "rounded decimal: `0.0833333333333333` is not exactly 1/12; issue 13 makes \
         rounding the opt-in `approx` setting",
    ),
    (
        "mv-0133",
        "rounded decimal: `0.33` in a matrix is not exactly 1/3 (issue 13)",
    ),
    (
        "mv-0139",
        "rounded decimal: `2.6667` in an interval is not exactly 8/3 (issue 13)",
    ),
    (
        "mv-0187",
        "set vs relation: Math-Verify's expectation for gold `x \\in [-2,7]` against \
         `-2 \\le x \\le 7` follows its `allow_set_relation_comp` flag (accepted in mv-0186 \
         with the flag on, rejected here with it off); issue 3 asks for the same interval \
         either way round, so we always accept",
    ),
    (
        "mv-0261",
        "Math-Verify's test records its own false accept of `1 + \\frac{1}{e}` against \
         `1 - \\frac{1}{e}` (the `\\mathrm{e}` case); issue 3 asks us to reject it",
    ),
];

#[derive(Deserialize)]
struct Case {
    id: String,
    response: String,
    answer: String,
    label: bool,
    category: String,
}

fn cases() -> Vec<Case> {
    SUITE
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("suite line is a case"))
        .collect()
}

#[test]
fn math_verify_suite_accuracy_and_no_false_accepts() {
    let cases = cases();
    let mut correct = 0;
    let mut false_accepts = Vec::new();
    let mut misses: Vec<String> = Vec::new();
    for case in &cases {
        let verdict = check(&case.response, &case.answer);
        if verdict.correct == case.label {
            correct += 1;
            continue;
        }
        let divergence = DIVERGENCES.iter().any(|(id, _)| *id == case.id);
        if verdict.correct && !divergence {
            false_accepts.push(case.id.clone());
        }
        misses.push(format!(
            "{} [{}] expected {} gold={:?} extracted={:?}: {}",
            case.id, case.category, case.label, case.answer, verdict.extracted, verdict.reason
        ));
    }
    // Listed so a failing run shows what moved; grouped by category through the sort.
    misses.sort_by(|a, b| a.split('[').nth(1).cmp(&b.split('[').nth(1)));
    for miss in &misses {
        eprintln!("miss: {miss}");
    }
    eprintln!(
        "Math-Verify suite: {correct}/{} correct ({:.1}%)",
        cases.len(),
        100.0 * correct as f64 / cases.len() as f64
    );
    assert!(false_accepts.is_empty(), "false accepts: {false_accepts:?}");
    assert!(
        correct >= MIN_CORRECT,
        "accuracy fell: {correct} < {MIN_CORRECT}"
    );
}

#[test]
fn documented_divergences_still_diverge() {
    let cases = cases();
    for (id, why) in DIVERGENCES {
        let case = cases
            .iter()
            .find(|c| c.id == *id)
            .expect("divergence id exists");
        let verdict = check(&case.response, &case.answer);
        assert_ne!(
            verdict.correct, case.label,
            "{id} now agrees with Math-Verify ({why})"
        );
    }
}
