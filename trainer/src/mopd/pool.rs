//! The teachers of a MOPD stage: a checkpoint folder per domain, loaded on demand in
//! the run's training precision, and kept across steps either all
//! (`keep_teachers_loaded`) or, otherwise, as many as fit a memory budget, the least
//! recently used dropped first, so a stage does not re-read every teacher from disk
//! every step.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tch::{Device, Kind, Tensor};

use super::tempered::tempered_logprobs;
use crate::device::Precision;
use crate::logprobs::{frozen_pass, MicroBatching, SequenceBatch};
use crate::model::{ModelError, Transformer};

/// The teachers of a stage.
pub struct TeacherPool {
    by_domain: BTreeMap<String, PathBuf>,
    loaded: BTreeMap<PathBuf, Transformer>,
    /// Paths in `loaded`, least recently used first.
    recency: Vec<PathBuf>,
    keep_loaded: bool,
    /// Bytes of teacher weights kept between steps when not `keep_loaded`.
    cache_bytes: u64,
    device: Device,
    precision: Precision,
}

impl TeacherPool {
    pub fn new(by_domain: BTreeMap<String, PathBuf>, keep_loaded: bool, device: Device) -> Self {
        Self {
            by_domain,
            loaded: BTreeMap::new(),
            recency: Vec::new(),
            keep_loaded,
            cache_bytes: 0,
            device,
            precision: Precision::default(),
        }
    }

    /// Teachers loaded from now on compute at `precision`, their weights stored in
    /// its compute dtype (bf16 under bf16 autocast: half the memory of float32, and
    /// the rounding the policy's own passes see).
    pub fn at_precision(mut self, precision: Precision) -> Self {
        self.precision = precision;
        self
    }

    /// Without `keep_loaded`, keeps up to `bytes` of teacher weights resident
    /// between steps (0: every teacher is dropped after its pass).
    pub fn with_cache_bytes(mut self, bytes: u64) -> Self {
        self.cache_bytes = bytes;
        self
    }

    /// Adds an already loaded model for `path` (it stays resident).
    pub fn insert_loaded(&mut self, path: &Path, model: Transformer) {
        self.loaded.insert(path.to_owned(), model);
        self.touch(path);
    }

    /// How many teachers are resident now.
    pub fn resident(&self) -> usize {
        self.loaded.len()
    }

    /// The dtype teacher weights are stored in.
    fn weight_kind(&self) -> Kind {
        if self.precision.autocasts_on(self.device) {
            Kind::BFloat16
        } else {
            Kind::Float
        }
    }

    /// Log-probabilities `[n, C]` of the sampled tokens of `rows` under `domain`'s
    /// teacher, at the sampling `temperature`.
    pub(super) fn logprobs(
        &mut self,
        domain: &str,
        batch: &SequenceBatch,
        rows: &Tensor,
        micro: MicroBatching,
        temperature: f64,
    ) -> Result<Tensor, ModelError> {
        let path = self
            .by_domain
            .get(domain)
            .cloned()
            .ok_or_else(|| ModelError::Config {
                path: domain.to_owned(),
                message: "no teacher for this domain".into(),
            })?;
        if !self.loaded.contains_key(&path) {
            let mut t = Transformer::load(&path, self.device, self.weight_kind())?;
            t.set_precision(self.precision);
            self.loaded.insert(path.clone(), t);
        }
        self.touch(&path);
        let teacher = &self.loaded[&path];
        let sub = SequenceBatch {
            prompt_ids: &batch.prompt_ids.index_select(0, rows),
            prompt_valid: &batch.prompt_valid.index_select(0, rows),
            completion_ids: &batch.completion_ids.index_select(0, rows),
            completion_valid: &batch.completion_valid.index_select(0, rows),
        };
        let logp = frozen_pass(&sub, micro, teacher, |part| {
            tempered_logprobs(teacher, part, temperature).0
        });
        if !self.keep_loaded {
            self.evict_to(self.cache_bytes);
        }
        Ok(logp)
    }

    /// Marks `path` as the most recently used.
    fn touch(&mut self, path: &Path) {
        self.recency.retain(|p| p != path);
        self.recency.push(path.to_owned());
    }

    /// Drops the least recently used teachers until the rest fit `budget` bytes.
    fn evict_to(&mut self, budget: u64) {
        let bytes = |m: &Transformer| m.parameter_bytes();
        while self.loaded.values().map(bytes).sum::<u64>() > budget {
            let Some(oldest) = (!self.recency.is_empty()).then(|| self.recency.remove(0)) else {
                break;
            };
            self.loaded.remove(&oldest);
        }
    }
}

/// The default budget for teachers kept between steps when not all are kept: on
/// the CPU, a quarter of the memory the kernel reports available when the stage
/// starts; on a GPU none (its memory is the scarce one, and sized by the recipe).
pub fn default_cache_bytes(device: Device) -> u64 {
    if device.is_cuda() {
        return 0;
    }
    let available_kib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("MemAvailable:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse::<u64>().ok())
        })
        .unwrap_or(0);
    available_kib * 1024 / 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toy::bench::ToyTask;

    /// A pool of two teachers (the warm toy model and a saved copy of it, `b`), and
    /// the float32 bytes of one.
    fn pool(cache_bytes: u64, precision: Precision) -> (TeacherPool, u64, tempfile::TempDir) {
        let warm = crate::toy::assets_dir().with_file_name("toy-qwen2-warm");
        let model = Transformer::load(&warm, Device::Cpu, Kind::Float).expect("model");
        let copy = tempfile::tempdir().expect("temp dir");
        model.save(copy.path(), usize::MAX).expect("save");
        let domains = BTreeMap::from([
            ("a".to_owned(), warm.clone()),
            ("b".to_owned(), copy.path().to_owned()),
        ]);
        let pool = TeacherPool::new(domains, false, Device::Cpu)
            .at_precision(precision)
            .with_cache_bytes(cache_bytes);
        (pool, model.parameter_bytes(), copy)
    }

    fn score(pool: &mut TeacherPool, domain: &str) -> Tensor {
        let task = ToyTask::new().expect("toy task");
        let prompt = Tensor::from_slice(&task.tokenizer.encode("1+2=").expect("ids")).view([1, -1]);
        let completion = Tensor::from_slice(&[5i64, 6]).view([1, 2]);
        let batch = SequenceBatch {
            prompt_ids: &prompt,
            prompt_valid: &prompt.ones_like().to_kind(Kind::Bool),
            completion_ids: &completion,
            completion_valid: &completion.ones_like().to_kind(Kind::Bool),
        };
        let rows = Tensor::from_slice(&[0i64]);
        pool.logprobs(domain, &batch, &rows, MicroBatching::Rows(1), 1.0)
            .expect("teacher pass")
    }

    /// With room for one teacher, the last used stays resident across steps and the
    /// other is dropped; with none, nothing stays; a kept teacher scores the same.
    #[test]
    fn teachers_are_cached_within_the_budget() {
        let (mut none, one, _d) = pool(0, Precision::F32);
        let _ = score(&mut none, "a");
        assert_eq!(none.resident(), 0);
        let (mut room_for_one, _, copy) = pool(one, Precision::F32);
        let first = score(&mut room_for_one, "a");
        assert_eq!(room_for_one.resident(), 1);
        let again = score(&mut room_for_one, "a");
        assert_eq!(
            f64::try_from((first - again).abs().max()).expect("scalar"),
            0.0
        );
        let _ = score(&mut room_for_one, "b");
        assert_eq!(room_for_one.resident(), 1);
        assert!(room_for_one.loaded.contains_key(copy.path()));
    }

    /// Under bf16 the teacher's weights are stored in bf16.
    #[test]
    fn teachers_load_in_the_training_precision() {
        let (mut bf16, one, _d) = pool(u64::MAX, Precision::Bf16);
        let _ = score(&mut bf16, "a");
        let teacher = bf16.loaded.values().next().expect("resident");
        assert_eq!(teacher.kind(), Kind::BFloat16);
        assert_eq!(teacher.parameter_bytes() * 2, one);
    }
}
