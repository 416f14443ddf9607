//! Haystack text: filler sentences and the names, keys and values hidden in them, all
//! drawn from the row's seed. Filler never holds a digit, a capitalised word other
//! than a sentence's first, `=` or `->`, so nothing in it can be mistaken for an
//! answer.

use cascade_verifiers::seeded::SplitMix64;

const ADJECTIVES: &[&str] = &[
    "quiet", "golden", "narrow", "ancient", "bright", "hollow", "gentle", "restless", "silver",
    "distant", "humble", "crooked", "patient", "frozen", "curious", "tidy",
];
const NOUNS: &[&str] = &[
    "river", "lantern", "orchard", "harbor", "meadow", "bridge", "garden", "valley", "tower",
    "market", "forest", "island", "window", "kettle", "compass", "ladder",
];
const VERBS: &[&str] = &[
    "rests", "waits", "shines", "drifts", "leans", "turns", "hums", "sleeps",
];
const PLACES: &[&str] = &["beside", "under", "near", "behind", "above", "past"];

/// One filler sentence, with its trailing space: `The quiet river rests beside the
/// old tower. ` (terse: `river rests. `, for small models where each byte is a token).
pub(super) fn sentence(rng: &mut SplitMix64, terse: bool) -> String {
    let noun = rng.pick(NOUNS);
    let verb = rng.pick(VERBS);
    if terse {
        return format!("{noun} {verb}. ");
    }
    let adjective = rng.pick(ADJECTIVES);
    let place = rng.pick(PLACES);
    let other = rng.pick(NOUNS);
    format!("The {adjective} {noun} {verb} {place} the {other}. ")
}

/// `count` filler sentences.
pub(super) fn sentences(rng: &mut SplitMix64, count: usize, terse: bool) -> Vec<String> {
    (0..count).map(|_| sentence(rng, terse)).collect()
}

/// A needle key such as `golden-harbor`, distinct from those in `taken`.
pub(super) fn key(rng: &mut SplitMix64, taken: &[String]) -> String {
    loop {
        let key = format!("{}-{}", rng.pick(ADJECTIVES), rng.pick(NOUNS));
        if !taken.contains(&key) {
            return key;
        }
    }
}

/// A string of `len` characters from `alphabet`, distinct from those in `taken`.
pub(super) fn distinct(
    rng: &mut SplitMix64,
    alphabet: &[u8],
    len: usize,
    taken: &[String],
) -> String {
    loop {
        let text: String = (0..len).map(|_| *rng.pick(alphabet) as char).collect();
        if !taken.contains(&text) {
            return text;
        }
    }
}

pub const CAPITALS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
pub const LOWERCASE: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
pub const HEX: &[u8] = b"0123456789abcdef";
pub const ALPHANUMERIC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A number with `lo..=hi` digits (no leading zero except the number 0), distinct
/// from those in `taken`.
pub(super) fn number(rng: &mut SplitMix64, lo: u32, hi: u32, taken: &[String]) -> String {
    loop {
        let digits = rng.range(u64::from(lo), u64::from(hi)) as u32;
        let min = if digits == 1 {
            0
        } else {
            10u64.pow(digits - 1)
        };
        let text = rng.range(min, 10u64.pow(digits) - 1).to_string();
        if !taken.contains(&text) {
            return text;
        }
    }
}

/// Inserts each `(position, text)` before filler sentence `position` (0..=len), in
/// order of position, ties in the order given, and joins everything.
pub(super) fn weave(filler: &[String], mut inserts: Vec<(usize, String)>) -> String {
    inserts.sort_by_key(|(at, _)| *at);
    let mut text = String::new();
    let mut next = inserts.into_iter().peekable();
    for (i, sentence) in filler.iter().enumerate() {
        while let Some((_, insert)) = next.next_if(|(at, _)| *at <= i) {
            text.push_str(&insert);
        }
        text.push_str(sentence);
    }
    for (_, insert) in next {
        text.push_str(&insert);
    }
    text.trim_end().to_owned()
}

/// `1st`, `2nd`, `3rd`, `4th`, … `11th`, `21st`.
pub(super) fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}
