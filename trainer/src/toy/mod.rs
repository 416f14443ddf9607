//! The GRPO toy task used for the TRL comparison and the learning test: single-digit
//! addition (`"3+4="` → `"7"`), reward 1 for the exact sum, on a tiny random Qwen2
//! (hidden 128, 4 layers, 4 heads, 2 KV heads, intermediate 512, tied embeddings)
//! with a 61-symbol character tokenizer. The model's config and tokenizer files are
//! bundled in `trainer/assets/toy-qwen2/`.

pub mod addition;
pub mod bench;
pub mod warmup;

use std::path::{Path, PathBuf};

/// The bundled config and tokenizer of the toy model.
pub fn assets_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/toy-qwen2")
}
