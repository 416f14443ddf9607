//! Atomic checkpoints: a stage's model is written to `checkpoints/.tmp-STAGE/` and
//! renamed to `checkpoints/STAGE/` only once complete, so a crash never leaves a
//! half-written checkpoint under a stage's name.

use std::path::{Path, PathBuf};

use super::RunError;
use crate::model::Transformer;

/// Shards above this size, as transformers does by default.
pub const MAX_SHARD_BYTES: usize = 5 * 1024 * 1024 * 1024;

pub fn checkpoint_dir(output: &Path, stage: &str) -> PathBuf {
    output.join("checkpoints").join(stage)
}

/// Saves `model` (with the tokenizer files of `tokenizer_dir`) as stage `stage`.
pub fn save_atomic(
    model: &Transformer,
    output: &Path,
    stage: &str,
    tokenizer_dir: &Path,
) -> Result<PathBuf, RunError> {
    let final_dir = checkpoint_dir(output, stage);
    let tmp = output.join("checkpoints").join(format!(".tmp-{stage}"));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(|e| RunError::io(&tmp, e))?;
    }
    model.save(&tmp, MAX_SHARD_BYTES)?;
    crate::model::copy_tokenizer_files(tokenizer_dir, &tmp)?;
    if final_dir.exists() {
        std::fs::remove_dir_all(&final_dir).map_err(|e| RunError::io(&final_dir, e))?;
    }
    std::fs::rename(&tmp, &final_dir).map_err(|e| RunError::io(&final_dir, e))?;
    Ok(final_dir)
}
