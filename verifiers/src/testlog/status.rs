//! The status vocabulary shared by every log parser.

use std::collections::BTreeMap;

use serde::Serialize;

/// One test's outcome, as the harness logs report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TestStatus {
    Passed,
    XFail,
    /// An `xfail` test that passed (non-strict): the code under test works.
    XPass,
    Skipped,
    Failed,
    Error,
}

impl TestStatus {
    /// SWE-bench's notion of success: PASSED or XFAIL (XPASS too: the test ran and
    /// passed).
    pub fn is_pass(self) -> bool {
        matches!(self, Self::Passed | Self::XFail | Self::XPass)
    }

    pub fn from_word(word: &str) -> Option<Self> {
        Some(match word {
            "PASSED" => Self::Passed,
            "FAILED" => Self::Failed,
            "ERROR" => Self::Error,
            "SKIPPED" => Self::Skipped,
            "XFAIL" => Self::XFail,
            "XPASS" => Self::XPass,
            _ => return None,
        })
    }
}

/// Test id to status, sorted by id.
pub type TestMap = BTreeMap<String, TestStatus>;

/// Records a status, keeping the worse one when the test was already seen.
pub fn record(map: &mut TestMap, id: String, status: TestStatus) {
    map.entry(id)
        .and_modify(|old| *old = (*old).max(status))
        .or_insert(status);
}
