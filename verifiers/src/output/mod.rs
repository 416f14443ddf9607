//! Program-output comparison for stdio tests: pure, linear-time, no I/O.
//!
//! Outputs are compared token by token, tokens being maximal runs of non-whitespace:
//! layout (how tokens are split across spaces and lines), trailing spaces, blank lines
//! and CRLF line ends never matter; the tokens themselves must match exactly, so `3.5`
//! is not `3.500000` and `Yes` is not `YES`. With a [`FloatTolerance`], two tokens that
//! both read as finite decimal numbers also match when they are within the tolerance
//! (absolute or relative, whichever is looser), as judges of floating-point problems do.
//! The tolerance is for real numbers only: when either token is an integer (`42`,
//! `-7`), the two must be equal in value (`2` matches `2.000`, `1249974001` does not
//! match `1249975000`), so a count cannot be off by a rounding error's worth.
//!
//! ```
//! use cascade_verifiers::output::{compare, Comparison};
//! assert_eq!(compare("1 2\r\n3  \n\n", "1\n2 3", None), Comparison::Match);
//! assert!(!compare("3.5", "3.500000", None).matches());
//! ```

mod tokens;

pub use tokens::{compare, Comparison, Difference, FloatTolerance};
