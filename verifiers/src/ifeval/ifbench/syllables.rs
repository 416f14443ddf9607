//! `syllapy.count(word)` (PyPI `syllapy` 0.8.0, MIT, wheel sha256
//! eea0a65665ad6c980686785af3e588cfcc8d359d5975ba67b18dea9cef6b0425): the
//! package's table of known words (`syllables.csv`, its `data.csv` unchanged),
//! then its vowel-group rule for the rest.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::ifeval::pystr::strip;

fn table() -> &'static HashMap<&'static str, u32> {
    static TABLE: OnceLock<HashMap<&'static str, u32>> = OnceLock::new();
    TABLE.get_or_init(|| {
        include_str!("syllables.csv")
            .lines()
            .filter_map(|line| {
                let (word, n) = line.split_once(',')?;
                Some((word, n.trim().parse().ok()?))
            })
            .collect()
    })
}

/// The syllables of `word`: 0 when it is empty once stripped or holds a digit.
pub(super) fn count(word: &str) -> u32 {
    let word = strip(word).to_lowercase();
    let word = word.trim_matches(|c: char| c.is_ascii_punctuation());
    if word.is_empty() || word.chars().any(super::text::is_decimal) {
        return 0;
    }
    if let Some(&n) = table().get(word) {
        return n;
    }
    // Compound words: both halves must count, as `self-care`.
    if let Some((left, right)) = word
        .split_once('-')
        .filter(|(l, r)| !l.is_empty() && !r.is_empty())
    {
        let (l, r) = (count(left), count(right));
        return if l == 0 || r == 0 { 0 } else { l + r };
    }
    vowel_groups(word)
}

/// syllapy's rule: one per vowel group (`y` included), one less for a final
/// `e`, one more for a final consonant + `le`, at least one.
fn vowel_groups(word: &str) -> u32 {
    let chars: Vec<char> = word.chars().collect();
    let vowel = |c: char| "aeiouy".contains(c);
    let mut n: i64 = i64::from(vowel(chars[0]));
    n += chars
        .windows(2)
        .filter(|p| vowel(p[1]) && !vowel(p[0]))
        .count() as i64;
    if word.ends_with('e') {
        n -= 1;
    }
    if word.ends_with("le") && chars.len() > 2 && !vowel(chars[chars.len() - 3]) {
        n += 1;
    }
    if n == 0 {
        n = 1;
    }
    n as u32
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn table_then_rule() {
        assert_eq!(count("apple"), 2);
        assert_eq!(count("Cat!"), 1);
        assert_eq!(count("b4"), 0);
        assert_eq!(count("zzxq"), 1);
        assert_eq!(count("self-care"), count("self") + count("care"));
    }
}
