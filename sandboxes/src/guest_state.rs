//! The state a guest's `Store` carries: its WASI context, its memory limiter and the
//! fuel budget it started with (the virtual clock is derived from fuel spent).

use wasmtime::ResourceLimiter;
use wasmtime_wasi::p1::WasiP1Ctx;

pub(crate) struct GuestState {
    pub wasi: WasiP1Ctx,
    pub limiter: MemoryLimiter,
    /// Fuel given at the start; `budget - remaining` is the work done so far.
    pub fuel_budget: u64,
    /// Set when a sleep asked for more time than the budget had left.
    pub slept_past_limit: bool,
    /// The state of the guest's random source (`random_get`), seeded by the invocation.
    pub random_state: u64,
    /// What answers `host::call`; `None` refuses every call (see [`crate::door`]).
    pub door: Option<crate::door::Door>,
    /// Host wall time spent answering this unit of work's door calls.
    pub host_time: std::time::Duration,
}

/// Refuses linear memory beyond the limit and remembers that it did, so that a program
/// dying of the refusal gets a memory-limit verdict rather than a runtime error.
pub(crate) struct MemoryLimiter {
    pub max_bytes: u64,
    pub refused: bool,
    /// The largest linear memory granted so far (wasm memory never shrinks).
    pub peak_bytes: u64,
}

/// Table growth is allowed up to this many elements (CPython grows its table a little).
const MAX_TABLE_ELEMENTS: usize = 200_000;

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let ok = desired as u64 <= self.max_bytes;
        if ok {
            self.peak_bytes = self.peak_bytes.max(desired as u64);
        } else {
            self.refused = true;
        }
        Ok(ok)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }
}
