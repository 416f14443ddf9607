//! Test logs to per-test statuses: pytest (`-rA` summary lines and `-v` lines) and
//! unittest (`-v`), as SWE-bench's log parsers read them.
//!
//! ```
//! use cascade_verifiers::testlog::{parse_log, TestStatus};
//! let log = "tests/test_a.py::test_x PASSED [ 50%]\nFAILED tests/test_a.py::test_y - assert 1 == 2\n";
//! let map = parse_log(log);
//! assert_eq!(map["tests/test_a.py::test_x"], TestStatus::Passed);
//! assert_eq!(map["tests/test_a.py::test_y"], TestStatus::Failed);
//! ```
//!
//! A test reported twice keeps its worst status (a pytest test that passes but
//! errors in teardown is an error; a unittest test with a failing `subTest` is a
//! failure even though its line may read `ok`).

mod pytest;
mod status;
mod unittest;

pub use pytest::parse_pytest;
pub use status::{TestMap, TestStatus};
pub use unittest::parse_unittest;

/// Parses a log that may mix pytest and unittest output.
pub fn parse_log(log: &str) -> TestMap {
    let mut map = parse_pytest(log);
    for (id, status) in parse_unittest(log) {
        status::record(&mut map, id, status);
    }
    map
}
