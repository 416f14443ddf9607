//! Guarded scoring: the one way every consumer (the `cascade` CLI, the trainer, the
//! reward server) turns samples into rewards.
//!
//! An [`Environment`] promises never to panic and to return a score in `[0, 1]`, but a
//! consumer cannot afford to trust that promise: one panicking plugin must cost one
//! sample, never a batch or a training step. So every reward passes through
//! [`score_guarded`], which
//! - contains a panic, turning it into a **scoring failure** (`Reward::failed`:
//!   reward 0, `details.failed: true`, `details.failure`, `details.error` naming it);
//! - turns a non-finite score into a scoring failure (its `details.error` kept when
//!   the environment already said what went wrong);
//! - clamps a finite score into `[0, 1]`.
//!
//! A scoring failure is not a verdict on the model: [`ResultLine`] writes it as
//! `"reward": null`, `score`'s summary and the server's `/metrics` count it apart from
//! zeros, and the trainer leaves it out of the advantages and the loss. NeMo Gym's and
//! OpenRLHF's routes, which need a float, send 0 with `details.failed: true`.
//!
//! Multi-turn drivers (the trainer's rollout) go through [`guard_start`],
//! [`guard_step`] and [`guard_finish`], the same guard around each call.
//!
//! [`ScoringPool::score_batch`] scores many samples on a bounded pool of worker threads
//! and returns the rewards in input order, whatever the parallelism.
//!
//! ```
//! use cascade_envs::scoring::{score_guarded, ScoringPool};
//! use cascade_envs::{EnvConfig, Registry, Sample};
//!
//! let env = Registry::discover().unwrap().create("exact_match", &EnvConfig::default()).unwrap();
//! let samples = vec![
//!     Sample::from_json_line(r#"{"id":"a","answer":"7","response":"7"}"#).unwrap(),
//!     Sample::from_json_line(r#"{"id":"b","answer":"7","response":"8"}"#).unwrap(),
//! ];
//! let pool = ScoringPool::new(2).unwrap();
//! let rewards = pool.score_batch(env.as_ref(), &samples, &|| ());
//! assert_eq!(rewards.iter().map(|r| r.score).collect::<Vec<_>>(), vec![1.0, 0.0]);
//! assert_eq!(score_guarded(env.as_ref(), &samples[0]), rewards[0]);
//! ```

use std::panic::{catch_unwind, AssertUnwindSafe};

use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Map, Value};
use thiserror::Error;

use crate::environment::Environment;
use crate::group::GroupEnvironment;
use crate::multi_turn::{MultiTurnEnvironment, Session, Turn};
use cascade_verifiers::{Reward, Sample, ScoringFailure};

/// Model programs recurse deeply (sandboxed interpreters, parsers), so scoring threads
/// get more stack than rayon's default.
const WORKER_STACK_BYTES: usize = 64 << 20;

/// The scoring pool could not be started.
#[derive(Debug, Error)]
#[error("cannot start {jobs} scoring threads: {source}")]
pub struct PoolError {
    jobs: usize,
    #[source]
    source: rayon::ThreadPoolBuildError,
}

/// What the guard had to correct: the environment broke its promise. Distinct from a
/// sample's own errors (an unparsable answer is an ordinary reward 0), so a consumer can
/// show these as bugs.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// `score` panicked, with this message.
    Panicked(String),
    /// `score` returned this non-finite value.
    NonFinite(f64),
    /// `score_group` returned `got` rewards for a group of `want`.
    WrongCount { got: usize, want: usize },
}

/// A reward after the guard, and the fault it corrected, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Guarded {
    pub reward: Reward,
    pub fault: Option<Fault>,
}

/// Scores `sample` with `env`, containing panics and checking the score (see the
/// module docs). Never panics itself.
pub fn score_guarded(env: &dyn Environment, sample: &Sample) -> Reward {
    guard(env, sample).reward
}

/// As [`score_guarded`], also saying what had to be corrected.
pub fn guard(env: &dyn Environment, sample: &Sample) -> Guarded {
    match catch_unwind(AssertUnwindSafe(|| env.score(sample))) {
        Ok(reward) => checked(reward),
        Err(panic) => panicked(panic.as_ref(), "scoring"),
    }
}

/// [`GroupEnvironment::score_group`], guarded: a panic, or a reward list of the wrong
/// length, costs the group (reward 0 each, with the reason and the fault); every
/// reward is checked as [`guard`] checks scores.
pub fn guard_group(env: &dyn GroupEnvironment, samples: &[Sample]) -> Vec<Guarded> {
    match catch_unwind(AssertUnwindSafe(|| env.score_group(samples))) {
        Ok(rewards) if rewards.len() == samples.len() => rewards.into_iter().map(checked).collect(),
        Ok(rewards) => {
            let (got, want) = (rewards.len(), samples.len());
            let reward = Reward::failed(
                ScoringFailure::Scorer,
                format!(
                    "internal error: the environment returned {got} rewards for a group of {want}"
                ),
            );
            let guarded = Guarded {
                reward,
                fault: Some(Fault::WrongCount { got, want }),
            };
            vec![guarded; want]
        }
        Err(panic) => {
            let guarded = panicked(panic.as_ref(), "scoring a group");
            vec![guarded; samples.len()]
        }
    }
}

/// The reward 0 of a contained panic while `doing` something.
fn panicked(panic: &(dyn std::any::Any + Send), doing: &str) -> Guarded {
    let message = panic_message(panic);
    Guarded {
        reward: Reward::failed(
            ScoringFailure::Scorer,
            format!("internal error while {doing}: {message}"),
        ),
        fault: Some(Fault::Panicked(message)),
    }
}

/// What a guarded multi-turn call answered, and the fault it corrected, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct GuardedTurn {
    pub turn: Turn,
    pub fault: Option<Fault>,
}

/// [`MultiTurnEnvironment::start`], guarded: a row the environment refuses, or a
/// panic, is the conversation's reward 0 with the reason (and the fault).
pub fn guard_start(env: &dyn MultiTurnEnvironment, row: &Sample) -> Result<Session, Guarded> {
    match catch_unwind(AssertUnwindSafe(|| env.start(row))) {
        Ok(Ok(session)) => Ok(session),
        Ok(Err(e)) => Err(Guarded {
            reward: Reward::error(e.to_string()),
            fault: None,
        }),
        Err(panic) => Err(panicked(panic.as_ref(), "starting a conversation")),
    }
}

/// [`MultiTurnEnvironment::step`], guarded: a panic ends the conversation with
/// reward 0 and the fault; a final reward is checked as [`guard`] checks scores.
pub fn guard_step(
    env: &dyn MultiTurnEnvironment,
    session: &mut Session,
    model_turn: &str,
) -> GuardedTurn {
    match catch_unwind(AssertUnwindSafe(|| env.step(session, model_turn))) {
        Ok(Turn::Done(reward)) => {
            let guarded = checked(reward);
            GuardedTurn {
                turn: Turn::Done(guarded.reward),
                fault: guarded.fault,
            }
        }
        Ok(results) => GuardedTurn {
            turn: results,
            fault: None,
        },
        Err(panic) => {
            let guarded = panicked(panic.as_ref(), "taking a turn");
            GuardedTurn {
                turn: Turn::Done(guarded.reward),
                fault: guarded.fault,
            }
        }
    }
}

/// [`MultiTurnEnvironment::finish`], guarded like [`guard`].
pub fn guard_finish(env: &dyn MultiTurnEnvironment, session: &mut Session) -> Guarded {
    match catch_unwind(AssertUnwindSafe(|| env.finish(session))) {
        Ok(reward) => checked(reward),
        Err(panic) => panicked(panic.as_ref(), "finishing a conversation"),
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// A score outside `[0, 1]` is clamped; a non-finite one is 0 and an error.
fn checked(mut reward: Reward) -> Guarded {
    if reward.score.is_finite() {
        reward.score = reward.score.clamp(0.0, 1.0);
        return Guarded {
            reward,
            fault: None,
        };
    }
    let bad = reward.score;
    reward = reward.with_failure(ScoringFailure::Scorer);
    if reward.error_message().is_none() {
        reward.set(
            "error",
            format!("the environment returned a non-finite reward ({bad})"),
        );
    }
    Guarded {
        reward,
        fault: Some(Fault::NonFinite(bad)),
    }
}

/// A bounded pool of scoring threads, made once and reused for every batch.
pub struct ScoringPool {
    pool: rayon::ThreadPool,
}

impl ScoringPool {
    /// A pool of `jobs` threads; 0 means one per core.
    pub fn new(jobs: usize) -> Result<Self, PoolError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .stack_size(WORKER_STACK_BYTES)
            .thread_name(|i| format!("cascade-score-{i}"))
            .build()
            .map_err(|source| PoolError { jobs, source })?;
        Ok(Self { pool })
    }

    /// The number of worker threads.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Scores every sample through [`score_guarded`]; the i-th reward is the i-th
    /// sample's. `on_done` is called once per finished sample (a progress bar).
    pub fn score_batch(
        &self,
        env: &dyn Environment,
        samples: &[Sample],
        on_done: &(dyn Fn() + Sync),
    ) -> Vec<Reward> {
        self.map(samples, |sample| {
            let reward = score_guarded(env, sample);
            on_done();
            reward
        })
    }

    /// Runs `f` on one of this pool's threads (work that is not per sample, e.g. the
    /// server's aggregate statistics), so it shares the pool's bound.
    pub fn run<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.pool.install(f)
    }

    /// Runs `f` on every item on this pool's threads, keeping input order. For callers
    /// whose items are not yet [`Sample`]s (the trainer scores token ids).
    pub fn map<T: Sync, R: Send>(&self, items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
        self.pool.install(|| items.par_iter().map(f).collect())
    }
}

/// One result line of `cascade score`, in the contract's field order (`id`, `reward`,
/// `details`). The server and the Python package print the same bytes.
///
/// A sample that could not be scored ([`Reward::failed`]: `details.failed` is true) is
/// written with `"reward": null`, so that no reader takes it for a 0; `reward` here
/// holds 0 for it, the float that NeMo Gym's and OpenRLHF's routes send.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultLine {
    pub id: Value,
    pub reward: f64,
    pub details: Map<String, Value>,
}

impl Serialize for ResultLine {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut line = serializer.serialize_struct("ResultLine", 3)?;
        line.serialize_field("id", &self.id)?;
        line.serialize_field("reward", &self.scored())?;
        line.serialize_field("details", &self.details)?;
        line.end()
    }
}

impl ResultLine {
    /// The line for `sample` scored as `reward`.
    pub fn new(sample: &Sample, reward: Reward) -> Self {
        Self {
            id: sample.id_value(),
            reward: reward.score,
            details: reward.details,
        }
    }

    /// Whether the sample could not be scored (`details.failed`).
    pub fn is_failed(&self) -> bool {
        self.details.get(cascade_verifiers::reward::FAILED_KEY) == Some(&Value::Bool(true))
    }

    /// The reward, `None` when the sample could not be scored.
    pub fn scored(&self) -> Option<f64> {
        (!self.is_failed()).then_some(self.reward)
    }

    /// The line as compact JSON, without a newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| {
            // Only non-finite floats can fail here, and score_guarded removes them;
            // keep the line all the same, and say why.
            format!(
                r#"{{"id":{},"reward":0.0,"details":{{"error":"unserialisable result: {e}"}}}}"#,
                self.id
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cascade_verifiers::FieldError;

    use crate::environment::ChatMessage;

    /// Scores `response` as a number; panics on "panic".
    struct Literal;
    impl Environment for Literal {
        fn name(&self) -> &str {
            "literal"
        }
        fn prompt(&self, _: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
            Ok(vec![])
        }
        fn score(&self, sample: &Sample) -> Reward {
            match sample.response() {
                Ok("panic") => panic!("boom"),
                Ok(text) => Reward::new(text.parse().unwrap_or(0.0)),
                Err(e) => Reward::error(e.to_string()),
            }
        }
    }

    fn sample(response: &str) -> Sample {
        Sample::new(serde_json::json!({"id": response, "response": response}))
    }

    #[test]
    fn a_panic_costs_one_sample_and_names_itself() {
        let guarded = guard(&Literal, &sample("panic"));
        assert_eq!(guarded.fault, Some(Fault::Panicked("boom".into())));
        let r = guarded.reward;
        assert_eq!(r.score, 0.0);
        assert_eq!(
            r.error_message(),
            Some("internal error while scoring: boom")
        );
    }

    #[test]
    fn scores_are_clamped_and_non_finite_scores_are_errors() {
        assert_eq!(score_guarded(&Literal, &sample("1.5")).score, 1.0);
        assert_eq!(score_guarded(&Literal, &sample("-2")).score, 0.0);
        assert_eq!(guard(&Literal, &sample("0.25")).fault, None);
        assert_eq!(score_guarded(&Literal, &sample("0.25")).score, 0.25);
        for bad in ["NaN", "inf", "-inf"] {
            let r = score_guarded(&Literal, &sample(bad));
            assert_eq!(r.score, 0.0, "{bad}");
            assert!(r.error_message().unwrap().contains("non-finite"), "{bad}");
            assert!(matches!(
                guard(&Literal, &sample(bad)).fault,
                Some(Fault::NonFinite(_))
            ));
        }
    }

    #[test]
    fn batches_keep_input_order_and_survive_panics() {
        let inputs: Vec<String> = (0..200)
            .map(|i| {
                if i % 7 == 3 {
                    "panic".into()
                } else {
                    format!("0.{i:03}")
                }
            })
            .collect();
        let samples: Vec<Sample> = inputs.iter().map(|s| sample(s)).collect();
        let done = std::sync::atomic::AtomicUsize::new(0);
        let pool = ScoringPool::new(4).unwrap();
        let rewards = pool.score_batch(&Literal, &samples, &|| {
            done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(done.into_inner(), samples.len());
        for (input, reward) in inputs.iter().zip(&rewards) {
            assert_eq!(*reward, score_guarded(&Literal, &sample(input)), "{input}");
        }
        assert_eq!(
            rewards
                .iter()
                .filter(|r| r.error_message().is_some())
                .count(),
            29
        );
    }

    #[test]
    fn result_lines_keep_the_contract_field_order() {
        let line = ResultLine::new(&sample("1"), Reward::new(1.0).with("k", "v"));
        assert_eq!(
            line.to_json(),
            r#"{"id":"1","reward":1.0,"details":{"k":"v"}}"#
        );
    }
}
