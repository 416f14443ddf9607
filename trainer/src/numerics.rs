//! Which floating-point path libtorch takes on this CPU: libtorch's own choice
//! ([`Numerics::Native`]), or one path that is the same on every x86-64 CPU from AVX2
//! up ([`Numerics::Portable`]).
//!
//! A training trajectory is a chaotic function of every rounding in it: hundreds of
//! steps turn a last-bit difference in one matmul into a different model. libtorch's
//! CPU build (the torch 2.11.0 wheel: MKL 2024.2 for float32 BLAS, oneDNN 3.10.2 for
//! bf16 matmuls, OpenMP threads) picks its kernels per CPU in three independent places,
//! so the same seed trains a different model on an AMD EPYC than on an Intel Xeon with
//! AMX. `Portable` fixes each of them before libtorch starts (measured on the torch
//! 2.11.0 wheel; `scripts/numerics_matrix.sh` repeats the check on the training tests):
//!
//! | knob | portable value | why |
//! | --- | --- | --- |
//! | `ATEN_CPU_CAPABILITY` | `avx2` | ATen's own kernels (softmax, norms, attention, reductions, AdamW's elementwise math) are compiled once per level and dispatched to the CPU's highest: AVX-512 and AVX2 round differently. Every CPU from AVX2 up can run the AVX2 kernels. |
//! | `MKL_CBWR` | `COMPATIBLE,STRICT` | MKL's sgemm (every float32 matmul) dispatches on its own, ignoring ATen's level. Its conditional numerical reproducibility fixes the code branch; `COMPATIBLE` is the only branch MKL also honours on non-Intel CPUs (on an AMD EPYC, `AVX2` and `AVX512` fall back to `AUTO`), and `STRICT` makes gemm bitwise reproducible for any thread count. |
//! | `ONEDNN_MAX_CPU_ISA` (and `DNNL_MAX_CPU_ISA`) | `AVX2` | oneDNN runs the bf16 matmuls of `precision = "bf16"` on the CPU (float32 runs none through it), with AMX or AVX-512-bf16 where the CPU has them; capped at AVX2, every CPU runs the same kernels. |
//! | intra-op threads (`at::set_num_threads`, OpenMP, MKL) | 1 | a parallel reduction's order depends on the thread count, which is the core count by default. |
//! | inter-op threads | 1 | the same for work libtorch forks between ops. |
//!
//! The environment variables are read once, when each library first runs a kernel, so
//! [`pin`] must come before the process's first tensor operation; the threads are set
//! through libtorch, since OpenMP read its own variables when the library loaded. bf16
//! autocast is not pinned here: `precision = "bf16"` is a different path by design, and
//! the tests use it only where bf16 is what they test.
//!
//! `CASCADE_NUMERICS=native|portable` overrides whatever a recipe or test asks, for
//! comparing the two paths (`scripts/numerics_matrix.sh`).

use std::sync::OnceLock;

use serde::Deserialize;
use thiserror::Error;

/// A recipe's `[run] numerics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Numerics {
    /// libtorch's choice for this CPU and core count: fastest, and a trajectory that is
    /// reproducible on this machine only.
    Native,
    /// The same kernels and one thread everywhere: a trajectory that is bit-identical on
    /// every x86-64 CPU from AVX2 up.
    Portable,
}

#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum NumericsError {
    #[error("numerics are already {in_force:?} in this process; {requested:?} was asked for (libtorch reads its settings once)")]
    AlreadyPinned {
        in_force: Numerics,
        requested: Numerics,
    },
    #[error("portable numerics need a CPU with AVX2 and FMA, which this one lacks (set CASCADE_NUMERICS=native)")]
    NoAvx2,
    #[error("CASCADE_NUMERICS is {0:?}; expected \"native\" or \"portable\"")]
    BadOverride(String),
}

/// The environment variable that overrides every request in the process.
pub const OVERRIDE_VAR: &str = "CASCADE_NUMERICS";

/// The variables `Portable` sets, with their values (the table above).
pub const PORTABLE_ENV: [(&str, &str); 6] = [
    ("ATEN_CPU_CAPABILITY", "avx2"),
    ("MKL_CBWR", "COMPATIBLE,STRICT"),
    ("ONEDNN_MAX_CPU_ISA", "AVX2"),
    ("DNNL_MAX_CPU_ISA", "AVX2"),
    ("OMP_NUM_THREADS", "1"),
    ("MKL_NUM_THREADS", "1"),
];

static IN_FORCE: OnceLock<Result<Numerics, NumericsError>> = OnceLock::new();

/// Puts `requested` (or `CASCADE_NUMERICS`) in force for this process, once: call it
/// before any tensor operation. A later call that asks for the mode already in force is
/// a no-op; one that asks for the other mode is an error, since libtorch has started.
pub fn pin(requested: Numerics) -> Result<Numerics, NumericsError> {
    let wanted = overridden(requested)?;
    let in_force = IN_FORCE.get_or_init(|| apply(wanted)).clone()?;
    if in_force == wanted {
        Ok(in_force)
    } else {
        Err(NumericsError::AlreadyPinned {
            in_force,
            requested: wanted,
        })
    }
}

/// What every test that trains calls first: portable numerics (or `CASCADE_NUMERICS`),
/// so that its trajectory, and so its assertion, is the same on every CPU. Rust runs a
/// binary's tests on threads of one process, so each such test calls it, not only the
/// first.
pub fn pin_for_tests() {
    if let Err(e) = pin(Numerics::Portable) {
        panic!("{e}");
    }
}

/// The mode in force, if [`pin`] was called.
pub fn in_force() -> Option<Numerics> {
    IN_FORCE.get().and_then(|r| r.clone().ok())
}

fn overridden(requested: Numerics) -> Result<Numerics, NumericsError> {
    match std::env::var(OVERRIDE_VAR) {
        Err(_) => Ok(requested),
        Ok(v) if v == "native" => Ok(Numerics::Native),
        Ok(v) if v == "portable" => Ok(Numerics::Portable),
        Ok(v) => Err(NumericsError::BadOverride(v)),
    }
}

fn apply(numerics: Numerics) -> Result<Numerics, NumericsError> {
    if numerics == Numerics::Native {
        return Ok(numerics);
    }
    if !has_avx2() {
        return Err(NumericsError::NoAvx2);
    }
    // Before any kernel runs: MKL and oneDNN read theirs at their first call, ATen at
    // its first dispatch. `set_num_threads` calls into MKL, so it comes after.
    for (key, value) in PORTABLE_ENV {
        std::env::set_var(key, value);
    }
    tch::set_num_threads(1);
    tch::set_num_interop_threads(1);
    Ok(numerics)
}

/// Whether ATen can run its AVX2 kernels here (it asks for AVX2 and FMA).
#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
}

/// Off x86-64 there is no AVX2 level: only the threads and MKL/oneDNN settings apply.
#[cfg(not(target_arch = "x86_64"))]
fn has_avx2() -> bool {
    true
}

/// Appends `name` and a hash of `trajectory` (a test's metrics and final weights) to
/// the file named by `CASCADE_TRAJECTORY_HASH_FILE`, if set: how
/// `scripts/numerics_matrix.sh` compares one test's trajectories across settings.
pub fn record_trajectory(name: &str, trajectory: &[u8]) {
    let Ok(path) = std::env::var("CASCADE_TRAJECTORY_HASH_FILE") else {
        return;
    };
    use std::io::Write;
    let line = format!("{name} {:016x}\n", fnv1a(trajectory));
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = appended {
        panic!("cannot append to CASCADE_TRAJECTORY_HASH_FILE {path}: {e}");
    }
}

/// FNV-1a, 64 bits: stable across builds and platforms (std's hasher is not promised to
/// be), and enough to tell trajectories apart.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The bytes of every tensor in `params` (a model's [`parameters`]), in name order: the
/// final weights for [`record_trajectory`].
///
/// [`parameters`]: crate::model::Transformer::parameters
pub fn weight_bytes(params: &std::collections::BTreeMap<String, tch::Tensor>) -> Vec<u8> {
    let mut bytes = Vec::new();
    for (name, tensor) in params {
        bytes.extend_from_slice(name.as_bytes());
        let flat = tensor
            .detach()
            .to_kind(tch::Kind::Float)
            .to_device(tch::Device::Cpu)
            .flatten(0, -1);
        let values: Vec<f32> = Vec::try_from(&flat).unwrap_or_default();
        bytes.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_pin_of_the_other_mode_is_refused() {
        pin_for_tests();
        if std::env::var(OVERRIDE_VAR).is_err() {
            assert_eq!(in_force(), Some(Numerics::Portable));
            assert_eq!(
                std::env::var("MKL_CBWR").as_deref(),
                Ok("COMPATIBLE,STRICT")
            );
            assert_eq!(tch::get_num_threads(), 1);
            assert_eq!(
                pin(Numerics::Native),
                Err(NumericsError::AlreadyPinned {
                    in_force: Numerics::Portable,
                    requested: Numerics::Native
                })
            );
        }
    }

    #[test]
    fn the_hash_is_fnv1a() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
