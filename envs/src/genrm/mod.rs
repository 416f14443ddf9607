//! The `genrm` environment: a generative judge compares a group's responses in pairs,
//! as Cascade 2's RLHF stage does with its GenRM (Qwen3-235B-A22B-Thinking-2507
//! judging pairs of a group). The judge is any OpenAI-compatible chat endpoint
//! (vLLM, SGLang, NIM…); its request and answer formats and the aggregation are NeMo
//! Gym's `genrm_compare` ([`verdict`]), so a judge served for NeMo Gym serves here.
//!
//! A response's reward depends on the others of its group, so this environment
//! scores groups ([`GroupEnvironment`]); a single sample gets reward 0 and the reason.
//! The raw aggregate (the mean tie-broken 1–5 score, in [−1.5, 7.5]) is in
//! `details.genrm_score`; the reward is that range mapped linearly onto [0, 1], so
//! order is kept and nothing is clipped.
//!
//! Faults of the judge never fail a step: a request that times out, a refused one, or
//! an answer with no verdict (after `retries` more tries) leaves that comparison out,
//! counted in `details.judge_failures` with the last reason in `details.judge_error`.
//! A response left with no judged comparison because every judge call for it failed
//! could not be scored: a scoring failure (`judge_unavailable`, see
//! `Reward::failed`), which the trainer leaves out; one left uncompared for another
//! reason (a group of one) gets `default_score`.

mod client;
pub mod verdict;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use cascade_verifiers::{AnswerError, FieldError, Reward, Sample, ScoringFailure};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::environment::{ChatMessage, Environment};
use crate::group::GroupEnvironment;
use crate::registry::EnvPlugin;
use crate::ConfigError;
use client::{preview, request_body, ChatClient};
use verdict::{aggregate, parse_verdict};
pub use verdict::{Comparison, Verdict};

/// The lowest and highest tie-broken aggregate: scores 1–5, moved by at most
/// `|3.5 − ranking| = 2.5` on a tie.
const SCORE_RANGE: (f64, f64) = (1.0 - 2.5, 5.0 + 2.5);

/// How the pair is put to the judge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JudgeMessages {
    /// The conversation, then the two responses as messages of roles `response_1`
    /// and `response_2`: what GenRM models' chat templates read (NeMo Gym's format,
    /// e.g. nvidia/Qwen3-Nemotron-235B-A22B-GenRM).
    #[default]
    GenrmRoles,
    /// One user message that shows the conversation and both responses and asks for
    /// the verdict JSON: for general chat models, whose templates know no such roles.
    UserPrompt,
}

/// Settings of the `genrm` environment.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenRmConfig {
    /// The API base, e.g. `http://127.0.0.1:8000/v1`.
    pub endpoint: String,
    /// The `model` field of each request.
    pub model: String,
    /// The environment variable holding the API key, sent as a bearer token.
    #[serde(default)]
    pub api_key_env: Option<String>,
    #[serde(default)]
    pub comparison: Comparison,
    /// Judge passes per pair; their verdicts all count.
    #[serde(default = "one")]
    pub judges_per_comparison: usize,
    #[serde(default)]
    pub messages: JudgeMessages,
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u64,
    /// 0 by default, so a deterministic server judges reproducibly.
    #[serde(default)]
    pub temperature: f64,
    #[serde(default = "one_f64")]
    pub top_p: f64,
    #[serde(default)]
    pub seed: Option<u64>,
    /// The deadline of one request, in seconds.
    #[serde(default = "default_timeout_s")]
    pub timeout_s: f64,
    /// More tries after a failed request or an answer without a verdict.
    #[serde(default = "default_retries")]
    pub retries: usize,
    /// Requests in flight at once, per group.
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    /// The 1–5 score of a response no comparison judged (NeMo Gym's default).
    #[serde(default = "default_score")]
    pub default_score: f64,
    /// More request keys, on top of the standard ones (e.g. vLLM's
    /// `structured_outputs`, `chat_template_kwargs`).
    #[serde(default)]
    pub extra_body: Map<String, Value>,
    /// As an eval set: the checkpoint whose greedy responses are the opponent.
    #[serde(default = "default_baseline")]
    pub baseline: String,
}

fn one() -> usize {
    1
}
fn one_f64() -> f64 {
    1.0
}
fn default_max_tokens() -> u64 {
    8192
}
fn default_timeout_s() -> f64 {
    300.0
}
fn default_retries() -> usize {
    3
}
fn default_concurrency() -> usize {
    16
}
fn default_score() -> f64 {
    3.0
}
fn default_baseline() -> String {
    "base".into()
}

impl GenRmConfig {
    fn check(&self) -> Result<(), String> {
        if !self.endpoint.starts_with("http://") {
            return Err(format!(
                "`endpoint` must be an http:// URL (this build speaks no TLS: put a TLS proxy in front of a remote judge), got `{}`",
                self.endpoint
            ));
        }
        if self.model.trim().is_empty() {
            return Err("`model` is empty".into());
        }
        if self.judges_per_comparison == 0 || self.concurrency == 0 {
            return Err("`judges_per_comparison` and `concurrency` must be at least 1".into());
        }
        if !(self.timeout_s > 0.0 && self.timeout_s.is_finite()) {
            return Err(format!(
                "`timeout_s` must be positive, got {}",
                self.timeout_s
            ));
        }
        if !(1.0..=5.0).contains(&self.default_score) {
            return Err(format!(
                "`default_score` must be within 1–5, got {}",
                self.default_score
            ));
        }
        Ok(())
    }

    /// The standard sampling fields of every request.
    fn sampling(&self) -> Map<String, Value> {
        let mut fields = Map::new();
        fields.insert("max_tokens".into(), json!(self.max_tokens));
        fields.insert("temperature".into(), json!(self.temperature));
        fields.insert("top_p".into(), json!(self.top_p));
        if let Some(seed) = self.seed {
            fields.insert("seed".into(), json!(seed));
        }
        fields
    }
}

/// The `genrm` environment.
#[derive(Debug, Clone)]
pub struct GenRmEnv {
    config: GenRmConfig,
    client: ChatClient,
}

impl GenRmEnv {
    pub fn new(config: GenRmConfig) -> Result<Self, ConfigError> {
        let bad = |message: String| ConfigError::Invalid {
            env: "genrm".into(),
            message,
        };
        config.check().map_err(bad)?;
        let api_key = match &config.api_key_env {
            Some(var) => Some(std::env::var(var).map_err(|_| {
                bad(format!(
                    "`api_key_env`: the environment variable `{var}` is not set"
                ))
            })?),
            None => None,
        };
        let timeout = Duration::from_secs_f64(config.timeout_s);
        let client = ChatClient::new(&config.endpoint, api_key, timeout);
        Ok(Self { config, client })
    }

    /// The messages that put `(first, second)` to the judge after `history`.
    fn judge_messages(&self, history: &[ChatMessage], first: &str, second: &str) -> Vec<Value> {
        let message = |role: &str, content: &str| json!({"role": role, "content": content});
        match self.config.messages {
            JudgeMessages::GenrmRoles => history
                .iter()
                .map(|m| message(&m.role, &m.content))
                .chain([message("response_1", first), message("response_2", second)])
                .collect(),
            JudgeMessages::UserPrompt => {
                vec![message("user", &comparison_prompt(history, first, second))]
            }
        }
    }

    /// One judged comparison, with the configured retries.
    fn judge(&self, history: &[ChatMessage], first: &str, second: &str) -> Result<Verdict, String> {
        let messages = self.judge_messages(history, first, second);
        let body = request_body(
            &self.config.model,
            messages,
            &self.config.sampling(),
            &self.config.extra_body,
        );
        let mut last = String::new();
        for attempt in 0..=self.config.retries {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(200 * attempt as u64));
            }
            match self.client.complete(&body) {
                Ok(answer) => match parse_verdict(&answer, self.config.default_score) {
                    Some(verdict) => return Ok(verdict),
                    None => {
                        last = format!(
                            "no verdict in the judge's answer: {}",
                            preview(&answer, 120)
                        )
                    }
                },
                Err(e) if e.retryable => last = e.message,
                Err(e) => return Err(e.message),
            }
        }
        Err(format!("{last} (after {} tries)", self.config.retries + 1))
    }

    /// Judges every `(i, j)` of `pairs` (`texts[i]` as response 1), at most
    /// `concurrency` at once; results in the order of `pairs`.
    fn judge_all(
        &self,
        history: &[ChatMessage],
        texts: &[&str],
        pairs: &[(usize, usize)],
    ) -> Vec<Result<Verdict, String>> {
        let results: Vec<Mutex<Option<Result<Verdict, String>>>> =
            pairs.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let workers = self.config.concurrency.min(pairs.len());
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(i, j)) = pairs.get(k) else { break };
                    let result = self.judge(history, texts[i], texts[j]);
                    *results[k].lock().unwrap_or_else(|p| p.into_inner()) = Some(result);
                });
            }
        });
        results
            .into_iter()
            .map(|slot| {
                let slot = slot.into_inner().unwrap_or_else(|p| p.into_inner());
                slot.unwrap_or_else(|| Err("the comparison was not run".into()))
            })
            .collect()
    }
}

/// The answer the judge sees: the final answer (`Sample::final_answer`: the reasoning
/// is not judged), or `None` when empty, as NeMo Gym shows an empty answer.
fn judged_text(answer: &str) -> &str {
    let answer = answer.trim();
    if answer.is_empty() {
        "None"
    } else {
        answer
    }
}

/// The single user message of [`JudgeMessages::UserPrompt`].
fn comparison_prompt(history: &[ChatMessage], first: &str, second: &str) -> String {
    let conversation: String = history
        .iter()
        .map(|m| format!("[{}]\n{}\n\n", m.role, m.content))
        .collect();
    format!(
        "Compare two responses to the last turn of this conversation.\n\n\
         {conversation}[Response 1]\n{first}\n\n[Response 2]\n{second}\n\n\
         Rate the helpfulness of each response from 1 to 5, and rank them from 1 to 6 \
         (1: Response 1 is much better, 2: better, 3: slightly better; 4: Response 2 is \
         slightly better, 5: better, 6: much better). End with the JSON object \
         {{\"score_1\": <1-5>, \"score_2\": <1-5>, \"ranking\": <1-6>}}."
    )
}

/// A raw aggregate mapped onto [0, 1].
fn unit_reward(score: f64) -> f64 {
    let (low, high) = SCORE_RANGE;
    ((score - low) / (high - low)).clamp(0.0, 1.0)
}

impl Environment for GenRmEnv {
    fn name(&self) -> &str {
        "genrm"
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        ChatMessage::chat_prompt(row)
    }

    fn score(&self, sample: &Sample) -> Reward {
        if let Err(e) = self.prompt(sample) {
            return Reward::error(e.to_string());
        }
        Reward::error(
            "`genrm` judges a group's responses against each other; a single sample has nothing to be compared with",
        )
    }

    fn group(&self) -> Option<&dyn GroupEnvironment> {
        Some(self)
    }
}

impl GroupEnvironment for GenRmEnv {
    fn score_group(&self, samples: &[Sample]) -> Vec<Reward> {
        let Some(first) = samples.first() else {
            return Vec::new();
        };
        let history = match self.prompt(first) {
            Ok(history) => history,
            Err(e) => {
                return samples
                    .iter()
                    .map(|_| Reward::error(e.to_string()))
                    .collect()
            }
        };
        // Samples without a final answer (no response, or one cut off while thinking)
        // are scored 0 and left out of the comparisons.
        let responses: Vec<Result<&str, AnswerError>> =
            samples.iter().map(Sample::final_answer).collect();
        let compared: Vec<usize> = (0..samples.len())
            .filter(|&i| responses[i].is_ok())
            .collect();
        let texts: Vec<&str> = compared
            .iter()
            .map(|&i| judged_text(responses[i].as_ref().map_or("", |r| r)))
            .collect();
        let pairs: Vec<(usize, usize)> = self
            .config
            .comparison
            .pairs(compared.len())
            .into_iter()
            .flat_map(|pair| std::iter::repeat_n(pair, self.config.judges_per_comparison))
            .collect();
        let results = self.judge_all(&history, &texts, &pairs);
        let group = group_rewards(compared.len(), &pairs, &results, self.config.default_score);
        let mut group = group.into_iter();
        responses
            .iter()
            .map(|r| match r {
                Err(e) => Reward::error(e.to_string()),
                Ok(_) => group
                    .next()
                    .unwrap_or_else(|| Reward::error("not compared")),
            })
            .collect()
    }

    fn baseline(&self) -> &str {
        &self.config.baseline
    }
}

/// The rewards of `n` compared responses from the judged `pairs`' `results`.
fn group_rewards(
    n: usize,
    pairs: &[(usize, usize)],
    results: &[Result<Verdict, String>],
    default_score: f64,
) -> Vec<Reward> {
    let judged: Vec<(usize, usize, Verdict)> = pairs
        .iter()
        .zip(results)
        .filter_map(|(&(i, j), r)| r.as_ref().ok().map(|v| (i, j, *v)))
        .collect();
    let mut failures = vec![0usize; n];
    let mut last_error: Vec<Option<&str>> = vec![None; n];
    for (&(i, j), result) in pairs.iter().zip(results) {
        if let Err(e) = result {
            for k in [i, j] {
                failures[k] += 1;
                last_error[k] = Some(e);
            }
        }
    }
    aggregate(n, &judged)
        .into_iter()
        .enumerate()
        .map(|(k, a)| {
            if a.score.is_none() && failures[k] > 0 {
                // No judge answered for this response: no verdict on the model.
                let why = last_error[k].unwrap_or("no judge answered");
                return Reward::failed(
                    ScoringFailure::JudgeUnavailable,
                    format!("every judge call for this response failed: {why}"),
                )
                .with("comparisons", a.comparisons)
                .with("judge_failures", failures[k]);
            }
            let score = a.score.unwrap_or(default_score);
            let mut reward = Reward::new(unit_reward(score))
                .with("genrm_score", score)
                .with("comparisons", a.comparisons)
                .with("judge_failures", failures[k]);
            if let Some(e) = last_error[k] {
                reward.set("judge_error", e);
            }
            reward
        })
        .collect()
}

inventory::submit! {
    EnvPlugin {
        name: "genrm",
        origin: env!("CARGO_PKG_NAME"),
        description: "chat prompts whose responses a generative judge compares in pairs within their group (NeMo Gym's genrm_compare format) over an OpenAI-compatible endpoint (config: endpoint, model, comparison = circular|all_pairs, messages = genrm_roles|user_prompt, extra_body, …)",
        make: |config| Ok(Box::new(GenRmEnv::new(config.parse("genrm")?)?)),
    }
}

#[cfg(test)]
mod tests;
