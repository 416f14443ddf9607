//! `punctuation:no_comma`.

/// No ASCII comma anywhere.
pub fn no_comma(value: &str) -> bool {
    !value.contains(',')
}
