//! SWE-bench's resolution rules, applied to the statuses parsed from the log.
//!
//! - A test passes when its status is PASSED, XFAIL or XPASS.
//! - A test missing from the log counts as failed (`missing`); so does every test
//!   when the run timed out before reporting it.
//! - A SKIPPED FAIL_TO_PASS test fails; a SKIPPED PASS_TO_PASS test is kept as
//!   passed (SWE-bench `main`). XFAIL, XPASS and SKIPPED reach these rules only when
//!   the trusted test source asks for them (`trusted.rs`); otherwise they arrive
//!   here as FAILED.
//! - Resolved (reward 1) only when every FAIL_TO_PASS and PASS_TO_PASS test passes.

use std::collections::BTreeMap;

use cascade_verifiers::testlog::{TestMap, TestStatus};

/// Which list a test came from: the two differ only for skipped tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    FailToPass,
    PassToPass,
}

/// The verdict word for one test, as reported in `details`.
pub fn verdict(status: Option<TestStatus>, role: Role) -> &'static str {
    match status {
        None => "missing",
        Some(s) if s.is_pass() => "passed",
        Some(TestStatus::Skipped) if role == Role::PassToPass => "passed",
        Some(TestStatus::Error) => "error",
        Some(_) => "failed",
    }
}

/// Test id to verdict word for every test of one list.
pub fn verdicts(tests: &[String], statuses: &TestMap, role: Role) -> BTreeMap<String, String> {
    tests
        .iter()
        .map(|t| {
            (
                t.clone(),
                verdict(statuses.get(t).copied(), role).to_owned(),
            )
        })
        .collect()
}

/// `full` when every test passed; `partial` when all PASS_TO_PASS and some
/// FAIL_TO_PASS passed; else `no`.
pub fn resolution(f2p: &BTreeMap<String, String>, p2p: &BTreeMap<String, String>) -> &'static str {
    let passed = |m: &BTreeMap<String, String>| m.values().filter(|v| *v == "passed").count();
    let p2p_ok = passed(p2p) == p2p.len();
    let f2p_passed = passed(f2p);
    if p2p_ok && f2p_passed == f2p.len() {
        "full"
    } else if p2p_ok && f2p_passed > 0 {
        "partial"
    } else {
        "no"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_counts_differently_per_role() {
        assert_eq!(
            verdict(Some(TestStatus::Skipped), Role::FailToPass),
            "failed"
        );
        assert_eq!(
            verdict(Some(TestStatus::Skipped), Role::PassToPass),
            "passed"
        );
        assert_eq!(verdict(Some(TestStatus::XFail), Role::FailToPass), "passed");
        assert_eq!(verdict(None, Role::PassToPass), "missing");
        assert_eq!(verdict(Some(TestStatus::Error), Role::PassToPass), "error");
    }
}
