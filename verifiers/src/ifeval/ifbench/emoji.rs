//! `emoji.is_emoji(ch)` for one character: whether it is one of the `emoji`
//! package's single-character emoji (see [`super::emoji_table`]).

use super::emoji_table::RANGES;

pub(super) fn is_emoji(c: char) -> bool {
    let c = u32::from(c);
    RANGES
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::is_emoji;

    #[test]
    fn single_characters() {
        assert!(is_emoji('😀') && is_emoji('©'));
        // A regional indicator is an emoji only in a flag pair.
        assert!(!is_emoji('a') && !is_emoji('\u{fe0f}') && !is_emoji('#') && !is_emoji('🇦'));
    }
}
