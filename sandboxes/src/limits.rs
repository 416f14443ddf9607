//! Per-execution limits, and the calibrated rate that turns a time limit into fuel.

use std::time::Duration;

/// Fuel a guest may burn per second of time limit.
///
/// wasmtime charges about one unit of fuel per wasm operator. Calibration (printed by
/// `envs/benches/sandbox_throughput.rs` as `calibration`): a CPU-bound CPython loop
/// under the sandbox, fuel used divided by wall time, on the development machine
/// (x86-64 cloud VM, 2 cores, measured while ~10 other compile jobs shared them, so the
/// figures understate an idle core): 2.6e9 fuel/s for CPython 3.12, 4.7e9 fuel/s for
/// the 3.15 snapshot. The rate is fixed at 4e9: one second of limit is about one second
/// of sandboxed execution on such a machine, and a time-limit verdict is a budget of
/// *work*, the same on a loaded or a fast machine. Interpreter start-up is charged too,
/// as it is for a native run (CPython 3.12: 0.25e9; 3.15 snapshot: 0.05e9).
pub const FUEL_PER_SECOND: u64 = 4_000_000_000;

/// The wall-clock backstop, as a multiple of the time limit, plus a constant. It only
/// catches a guest that somehow escapes fuel accounting (a host call that blocks);
/// on any sane machine the fuel budget runs out long before.
pub const WALL_BACKSTOP_FACTOR: u32 = 10;
/// Constant part of the wall-clock backstop.
pub const WALL_BACKSTOP_GRACE: Duration = Duration::from_secs(5);

/// The largest linear memory any guest may have (wasm32 cannot address more).
pub const MAX_MEMORY_BYTES: u64 = 4 << 30;

/// Files and directories a guest may hold open at once by default, besides stdio and
/// its mounts. Every open guest file is an open host file descriptor, so the cap keeps
/// one guest from exhausting the host process's descriptors and starving other runs.
pub const DEFAULT_OPEN_FILES: usize = 128;

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
    /// Files and directories the guest may hold open at once, besides stdio and its
    /// mounts; opening one more stops the program (`OpenFilesLimit`).
    pub open_files: usize,
}

impl Limits {
    /// Limits for a time limit in seconds and a memory limit in MiB, with 64 MiB of
    /// stdout, 1 MiB of stderr and [`DEFAULT_OPEN_FILES`] open files.
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
            memory_bytes: memory_limit_mb
                .saturating_mul(1 << 20)
                .min(MAX_MEMORY_BYTES),
            stdout_bytes: 64 << 20,
            stderr_bytes: 1 << 20,
            wall_backstop: wall,
            open_files: DEFAULT_OPEN_FILES,
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
        assert_eq!(l.time_limit_s(), 2.0);
        assert_eq!(l.memory_bytes, 256 << 20);
        assert_eq!(Limits::new(f64::NAN, 1).fuel, 0);
        assert_eq!(Limits::new(-1.0, 1).fuel, 0);
        assert_eq!(Limits::new(1.0, u64::MAX).memory_bytes, MAX_MEMORY_BYTES);
    }
}
