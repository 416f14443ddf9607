//! Per-execution limits, and the calibrated rate that turns a time limit into fuel.

use std::time::Duration;

/// Fuel a guest burns per second of time limit.
///
/// wasmtime charges one unit of fuel per wasm operator (roughly). This rate was
/// calibrated on the development machine (x86-64, one core of a 2-core cloud VM) by
/// running CPU-bound CPython loops under the sandbox and dividing the fuel used by the
/// wall time taken (`cargo bench -p cascade-sandboxes` prints the measured rate as
/// `calibration`): about 1.0e9 fuel per second. A time limit is therefore a budget of
/// *work*, not of wall time, and a time-limit verdict is the same on a loaded or a fast
/// machine. Start-up of the interpreter is charged too, as it is for a native run.
pub const FUEL_PER_SECOND: u64 = 1_000_000_000;

/// The wall-clock backstop, as a multiple of the time limit, plus a constant. It only
/// catches a guest that somehow escapes fuel accounting (a host call that blocks);
/// on any sane machine the fuel budget runs out long before.
pub const WALL_BACKSTOP_FACTOR: u32 = 10;
/// Constant part of the wall-clock backstop.
pub const WALL_BACKSTOP_GRACE: Duration = Duration::from_secs(5);

/// The largest linear memory any guest may have (wasm32 cannot address more).
pub const MAX_MEMORY_BYTES: u64 = 4 << 30;

/// Limits on one execution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// CPU budget, in fuel (see [`FUEL_PER_SECOND`]).
    pub fuel: u64,
    /// Largest linear memory, in bytes.
    pub memory_bytes: u64,
    /// Captured stdout beyond this many bytes stops the program (`OutputLimit`).
    pub stdout_bytes: usize,
    /// Captured stderr beyond this many bytes stops the program (`OutputLimit`).
    pub stderr_bytes: usize,
    /// Wall-clock backstop; never the source of an ordinary time-limit verdict.
    pub wall_backstop: Duration,
}

impl Limits {
    /// Limits for a time limit in seconds and a memory limit in MiB, with 64 MiB of
    /// stdout and 1 MiB of stderr.
    pub fn new(time_limit_s: f64, memory_limit_mb: u64) -> Self {
        let seconds = if time_limit_s.is_finite() && time_limit_s > 0.0 {
            time_limit_s.min(3600.0)
        } else {
            0.0
        };
        let fuel = (seconds * FUEL_PER_SECOND as f64) as u64;
        let wall = Duration::from_secs_f64(seconds) * WALL_BACKSTOP_FACTOR + WALL_BACKSTOP_GRACE;
        Self {
            fuel,
            memory_bytes: memory_limit_mb.saturating_mul(1 << 20).min(MAX_MEMORY_BYTES),
            stdout_bytes: 64 << 20,
            stderr_bytes: 1 << 20,
            wall_backstop: wall,
        }
    }

    /// The time limit this fuel budget stands for, in seconds.
    pub fn time_limit_s(&self) -> f64 {
        self.fuel as f64 / FUEL_PER_SECOND as f64
    }
}

impl Default for Limits {
    /// 2 s and 256 MiB, the `code` environment's defaults.
    fn default() -> Self {
        Self::new(2.0, 256)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_time_to_fuel_and_clamps_bad_values() {
        let l = Limits::new(2.0, 256);
        assert_eq!(l.fuel, 2 * FUEL_PER_SECOND);
        assert_eq!(l.memory_bytes, 256 << 20);
        assert_eq!(Limits::new(f64::NAN, 1).fuel, 0);
        assert_eq!(Limits::new(-1.0, 1).fuel, 0);
        assert_eq!(Limits::new(1.0, u64::MAX).memory_bytes, MAX_MEMORY_BYTES);
    }
}
