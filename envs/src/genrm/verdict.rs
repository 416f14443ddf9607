//! The pure half of GenRM: which pairs of a group are compared, how a judge's answer
//! is read, and how pairwise verdicts become one reward per response. No I/O.
//!
//! The format and the arithmetic are NeMo Gym's `genrm_compare` (the resources
//! server NVIDIA trains Nemotron with), so a group scores here as it scores there:
//! the judge answers `{"score_1": 1–5, "score_2": 1–5, "ranking": 1–6}` (ranking 1:
//! response 1 much better … 6: response 2 much better); equal scores are broken by
//! the ranking (`score_1 += 3.5 − ranking`, `score_2 −= 3.5 − ranking`); a response's
//! reward is the mean of its (tie-broken) scores over its comparisons.

use serde::Deserialize;
use serde_json::Value;

/// The ranking that prefers neither response.
pub const RANKING_MIDPOINT: f64 = 3.5;

/// Which pairs of a group's responses the judge compares.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Comparison {
    /// Each response against the next, the last against the first: N comparisons
    /// (one for a group of two).
    #[default]
    Circular,
    /// Every pair once: N·(N−1)/2 comparisons.
    AllPairs,
}

impl Comparison {
    /// The `(response_1, response_2)` index pairs for a group of `n`, in order.
    pub fn pairs(self, n: usize) -> Vec<(usize, usize)> {
        match (self, n) {
            (_, 0 | 1) => Vec::new(),
            (Self::Circular, 2) => vec![(0, 1)],
            (Self::Circular, _) => (0..n).map(|i| (i, (i + 1) % n)).collect(),
            (Self::AllPairs, _) => (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .collect(),
        }
    }
}

/// One judge's reading of one pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    pub score_1: f64,
    pub score_2: f64,
    pub ranking: f64,
}

/// Reads the judge's answer: the first valid verdict in a ```json fence, else the last
/// valid `{...}` object in the text. An object is a verdict when it (or its
/// `overall` member) has at least one of `score_1`, `score_2`, `ranking`, and every
/// one it has is a finite number; a missing one takes `default_score` (scores) or
/// the midpoint (ranking).
pub fn parse_verdict(text: &str, default_score: f64) -> Option<Verdict> {
    let fenced = fenced_json_blocks(text).into_iter().find_map(|block| {
        json_objects(block)
            .into_iter()
            .find_map(|o| read(o, default_score))
    });
    fenced.or_else(|| {
        json_objects(text)
            .into_iter()
            .filter_map(|o| read(o, default_score))
            .next_back()
    })
}

fn read(object: &str, default_score: f64) -> Option<Verdict> {
    let mut value: Value = serde_json::from_str(object).ok()?;
    if value.get("overall").is_some_and(Value::is_object) {
        value = value["overall"].take();
    }
    let map = value.as_object()?;
    if !["score_1", "score_2", "ranking"]
        .iter()
        .any(|k| map.contains_key(*k))
    {
        return None;
    }
    let number = |key: &str, default: f64| match map.get(key) {
        None => Some(default),
        Some(v) => number_of(v).filter(|x| x.is_finite()),
    };
    Some(Verdict {
        score_1: number("score_1", default_score)?,
        score_2: number("score_2", default_score)?,
        ranking: number("ranking", RANKING_MIDPOINT)?,
    })
}

/// A number, or a string holding one (judges write `"4"` as often as `4`).
fn number_of(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The bodies of ```json … ``` fences (the tag in any case).
fn fenced_json_blocks(text: &str) -> Vec<&str> {
    let lower = text.to_ascii_lowercase();
    let mut blocks = Vec::new();
    let mut from = 0;
    while let Some(start) = lower[from..].find("```json").map(|i| from + i + 7) {
        let Some(len) = lower[start..].find("```") else {
            break;
        };
        blocks.push(&text[start..start + len]);
        from = start + len + 3;
    }
    blocks
}

/// The top-level `{...}` spans of `text`, braces inside JSON strings ignored. Linear
/// in the text's length.
fn json_objects(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut objects = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' if depth > 0 => in_string = true,
            b'{' => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            b'}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    objects.push(&text[start..=i]);
                }
            }
            _ => {}
        }
    }
    objects
}

/// A response's aggregate: the mean of its tie-broken scores, over `comparisons`
/// judged comparisons (`None` when none was judged).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aggregate {
    pub score: Option<f64>,
    pub comparisons: usize,
}

/// Per-response aggregates of a group of `n` from `(i, j, verdict)` results, where
/// `i` was shown as response 1 and `j` as response 2.
pub fn aggregate(n: usize, judged: &[(usize, usize, Verdict)]) -> Vec<Aggregate> {
    let mut sums = vec![0.0; n];
    let mut counts = vec![0usize; n];
    for &(i, j, v) in judged {
        let (mut s1, mut s2) = (v.score_1, v.score_2);
        if s1 == s2 {
            let adjustment = RANKING_MIDPOINT - v.ranking;
            s1 += adjustment;
            s2 -= adjustment;
        }
        sums[i] += s1;
        sums[j] += s2;
        counts[i] += 1;
        counts[j] += 1;
    }
    sums.iter()
        .zip(&counts)
        .map(|(&sum, &comparisons)| Aggregate {
            score: (comparisons > 0).then(|| sum / comparisons as f64),
            comparisons,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(score_1: f64, score_2: f64, ranking: f64) -> Verdict {
        Verdict {
            score_1,
            score_2,
            ranking,
        }
    }

    #[test]
    fn pairs_are_circular_or_all() {
        assert_eq!(Comparison::Circular.pairs(1), vec![]);
        assert_eq!(Comparison::Circular.pairs(2), vec![(0, 1)]);
        assert_eq!(
            Comparison::Circular.pairs(4),
            vec![(0, 1), (1, 2), (2, 3), (3, 0)]
        );
        assert_eq!(
            Comparison::AllPairs.pairs(4),
            vec![(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
        );
    }

    #[test]
    fn verdicts_are_read_from_fences_then_the_last_object() {
        let text = "Analysis {not json} ... {\"score_1\": 2, \"score_2\": 5, \"ranking\": 6}\n\
                    on second thought {\"score_1\": 4, \"score_2\": \"3\", \"ranking\": 2}";
        assert_eq!(parse_verdict(text, 3.0), Some(v(4.0, 3.0, 2.0)));
        let fenced = "```JSON\n{\"score_1\": 1, \"score_2\": 5, \"ranking\": 6}\n```\n\
                      {\"score_1\": 5, \"score_2\": 1, \"ranking\": 1}";
        assert_eq!(parse_verdict(fenced, 3.0), Some(v(1.0, 5.0, 6.0)));
        let nested = r#"{"rubric_evaluations": [], "overall": {"score_1": 3, "score_2": 4}}"#;
        assert_eq!(parse_verdict(nested, 3.0), Some(v(3.0, 4.0, 3.5)));
        let braces_in_strings = r#"{"note": "a } and a {", "ranking": 1}"#;
        assert_eq!(
            parse_verdict(braces_in_strings, 3.0),
            Some(v(3.0, 3.0, 1.0))
        );
    }

    #[test]
    fn answers_without_a_verdict_are_none() {
        for text in [
            "",
            "Response 1 is better.",
            "{\"winner\": 1}",
            "{\"score_1\": \"high\", \"score_2\": 2}",
            "{\"score_1\": 4, \"score_2\": 2",
            "[1, 2, 3]",
        ] {
            assert_eq!(parse_verdict(text, 3.0), None, "{text}");
        }
    }

    #[test]
    fn equal_scores_are_broken_by_the_ranking_and_averaged() {
        // Group of 3, circular: (0,1), (1,2), (2,0).
        let judged = [
            (0, 1, v(4.0, 2.0, 2.0)),
            (1, 2, v(3.0, 3.0, 5.0)), // tie → response 2 better by 1.5
            (2, 0, v(5.0, 1.0, 1.0)),
        ];
        let got = aggregate(3, &judged);
        assert_eq!(got[0].score, Some((4.0 + 1.0) / 2.0));
        assert_eq!(got[1].score, Some((2.0 + 1.5) / 2.0));
        assert_eq!(got[2].score, Some((4.5 + 5.0) / 2.0));
        assert!(got.iter().all(|a| a.comparisons == 2));
        let lonely = aggregate(3, &judged[..1]);
        assert_eq!(
            lonely[2],
            Aggregate {
                score: None,
                comparisons: 0
            }
        );
    }
}
