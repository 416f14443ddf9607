//! Preference rows as token sequences: each pair's prompt rendered with the policy's
//! chat template, followed by the chosen (or rejected) response and the end-of-turn
//! token, the same ids the policy's sampled responses have when the reward model
//! scores them. Rows that are not preference pairs are reported and skipped.

use std::path::Path;

use cascade_datasets::jsonl;
use cascade_datasets::preference::preference_pair;
use cascade_envs::ChatMessage;

use crate::runner::RunError;
use crate::tokenizer::TextTokenizer;

/// One preference pair as token ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenPair {
    /// The row's 1-based line in its file.
    pub line: usize,
    pub chosen: Vec<i64>,
    pub rejected: Vec<i64>,
}

/// A preference file's usable pairs and the rows it skipped, `(line, reason)`.
#[derive(Debug, Clone, Default)]
pub struct PreferenceRows {
    pub pairs: Vec<TokenPair>,
    pub skipped: Vec<(usize, String)>,
}

/// Reads and tokenizes the preference rows of `path`; a row that is not a usable
/// pair (a field missing, chosen = rejected, a tie) is skipped with its reason.
pub fn read_pairs(
    path: &Path,
    tokenizer: &TextTokenizer,
    enable_thinking: Option<bool>,
) -> Result<PreferenceRows, RunError> {
    let file = path.display().to_string();
    let mut out = PreferenceRows::default();
    for row in jsonl::lines(jsonl::open(path)?, &file) {
        let row = row?;
        match preference_pair(&row.value) {
            Ok(pair) => {
                let prompt: Vec<ChatMessage> = pair
                    .prompt
                    .into_iter()
                    .map(|m| ChatMessage {
                        role: m.role,
                        content: m.content,
                    })
                    .collect();
                let prompt = tokenizer.encode(&tokenizer.render_chat(&prompt, enable_thinking)?)?;
                out.pairs.push(TokenPair {
                    line: row.line,
                    chosen: response_sequence(&prompt, &pair.chosen, tokenizer)?,
                    rejected: response_sequence(&prompt, &pair.rejected, tokenizer)?,
                });
            }
            Err(reason) => out.skipped.push((row.line, reason.to_string())),
        }
    }
    Ok(out)
}

/// `prompt`, then `response`'s ids and the end-of-turn token.
pub fn response_sequence(
    prompt: &[i64],
    response: &str,
    tokenizer: &TextTokenizer,
) -> Result<Vec<i64>, RunError> {
    let mut ids = prompt.to_vec();
    ids.extend(tokenizer.encode(response)?);
    ids.extend(tokenizer.stop_ids.first().copied());
    Ok(ids)
}

/// Splits `pairs` into (train, held out): each pair is held out with probability
/// `fraction`, by a draw seeded with `seed` and its line, so the split does not
/// depend on the order or the number of rows around it.
pub fn split(pairs: Vec<TokenPair>, fraction: f64, seed: u64) -> (Vec<TokenPair>, Vec<TokenPair>) {
    pairs.into_iter().partition(|p| {
        let mut rng = cascade_verifiers::seeded::SplitMix64::new(seed ^ ((p.line as u64) << 20));
        rng.unit() >= fraction
    })
}
