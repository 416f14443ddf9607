//! Multi-round coreference (OpenAI's MRCR): a conversation of writing requests and
//! their answers in which the same request (a form about a topic, "a poem about
//! owls") comes back 2, 4 or 8 times among others; the last turn asks for the Nth
//! answer to it behind a random prefix. The expected answer is the prefix followed by
//! that answer, exactly.
//!
//! The needles' answers and the distractor exchanges come from two streams of their
//! own, and the needles sit at fixed fractions of the conversation, so one more
//! distractor adds one exchange and changes nothing else: the length grows steadily
//! with the size, which the generator's search relies on.

use serde_json::{json, Value};

use cascade_verifiers::seeded::SplitMix64;

use super::text::{self, ALPHANUMERIC};
use super::Built;

const FORMS: &[&str] = &[
    "poem",
    "short story",
    "riddle",
    "blog post",
    "letter",
    "song",
];
const TOPICS: &[&str] = &[
    "tapirs",
    "rocks",
    "lighthouses",
    "glaciers",
    "violins",
    "bakeries",
    "comets",
    "owls",
];

/// The answer to one request: a title and 1–3 filler sentences about the topic.
fn piece(form: &str, topic: &str, rng: &mut SplitMix64) -> String {
    let mut lines = vec![format!("A {form} about {topic}")];
    for _ in 0..rng.range(1, 3) {
        let sentence = text::sentence(rng, false);
        lines.push(
            sentence
                .trim_end()
                .replacen("The ", &format!("Like {topic}, the "), 1),
        );
    }
    lines.join("\n")
}

fn exchange(messages: &mut Vec<Value>, (form, topic): (&str, &str), reply: String) {
    messages.push(json!({"role": "user", "content": format!("Write a {form} about {topic}.")}));
    messages.push(json!({"role": "assistant", "content": reply}));
}

/// A conversation with `distractors` other requests and 2, 4 or 8 needles (at most
/// `most_needles`), then the question.
pub(super) fn conversation(distractors: usize, most_needles: usize, rng: &mut SplitMix64) -> Built {
    let needle = (*rng.pick(FORMS), *rng.pick(TOPICS));
    let needles = (*rng.pick(&[2usize, 4, 8])).min(most_needles);
    let asked = rng.range(1, needles as u64) as usize;
    let prefix = text::distinct(rng, ALPHANUMERIC, 10, &[]);
    let mut spots: Vec<f64> = (0..needles).map(|_| rng.unit()).collect();
    spots.sort_by(f64::total_cmp);
    let (mut needle_rng, mut other_rng) = (
        SplitMix64::new(rng.next_u64()),
        SplitMix64::new(rng.next_u64()),
    );
    // Needle k goes before distractor `slot_k` (after all of them at `distractors`).
    let slots: Vec<usize> = spots
        .iter()
        .map(|u| ((u * (distractors + 1) as f64) as usize).min(distractors))
        .collect();
    let (mut messages, mut placed, mut answer) = (Vec::new(), 0, String::new());
    for t in 0..=distractors {
        while placed < needles && slots[placed] == t {
            let reply = piece(needle.0, needle.1, &mut needle_rng);
            placed += 1;
            if placed == asked {
                answer = reply.clone();
            }
            exchange(&mut messages, needle, reply);
        }
        if t < distractors {
            let pair = distractor(needle, &mut other_rng);
            let reply = piece(pair.0, pair.1, &mut other_rng);
            exchange(&mut messages, pair, reply);
        }
    }
    let (form, topic) = needle;
    let question = format!(
        "Prepend {prefix} to the {} (1 indexed) {form} about {topic}. Do not include any other text in your response.",
        text::ordinal(asked)
    );
    messages.push(json!({"role": "user", "content": question}));
    Built {
        messages,
        fields: Vec::new(),
    }
    .with("expected_answer", Value::from(format!("{prefix}{answer}")))
    .with("random_string_to_prepend", Value::from(prefix))
    .with("n_needles", Value::from(needles))
}

/// A request other than the needle's, often sharing its form or its topic.
fn distractor(
    needle: (&'static str, &'static str),
    rng: &mut SplitMix64,
) -> (&'static str, &'static str) {
    loop {
        let pair = match rng.below(3) {
            0 => (needle.0, *rng.pick(TOPICS)),
            1 => (*rng.pick(FORMS), needle.1),
            _ => (*rng.pick(FORMS), *rng.pick(TOPICS)),
        };
        if pair != needle {
            return pair;
        }
    }
}
