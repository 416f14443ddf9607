//! The one `wasmtime::Engine` of the process: its settings, and the epoch ticker that
//! drives the wall-clock backstop.
//!
//! Settings that matter for safety and verdicts: fuel is on (the CPU limit), epochs are
//! on (a backstop only), guests get a large wasm stack (deep recursion is normal in
//! competitive programming), and instances come from a pooling allocator whose slots
//! stay resident, so a fresh instance per run is cheap (see [`KEEP_RESIDENT_BYTES`]).

use std::sync::OnceLock;
use std::time::Duration;

use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use crate::error::SandboxError;
use crate::limits::MAX_MEMORY_BYTES;

/// The wasm (native) stack a guest may use. Run guests only on threads whose native
/// stack is larger than this (see [`crate::pool`]).
pub const MAX_WASM_STACK: usize = 512 << 20;

/// How often the epoch advances; the wall-clock backstop is counted in these ticks.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Instances that may be alive at once (the pool's slots). Runs beyond this many at a
/// time wait in the worker pool, which never has more threads than this.
pub const MAX_CONCURRENT_INSTANCES: u32 = 128;

/// Linear memory a reused pool slot keeps resident; a new instance gets it zeroed
/// with `memset` and its data segments copied in, instead of copy-on-write images.
///
/// Why not copy-on-write: each first write to an image page is a copy-on-write fault,
/// and the kernel flushes that page from every other core running a thread of this
/// process with an inter-processor interrupt. With runs on all cores, `perf` put 21%
/// of the HumanEval bench's cycles in those flushes, and two workers scored fewer
/// samples per second than one. Resident slots cost a `memset` and a copy of the
/// 16 MB CPython image per run instead: on 2 cores HumanEval went from 60 to 79
/// samples/s and small stdio programs from 241 to 296/s (one core alone: equal on
/// HumanEval, 255 to 180/s on stdio). The price is resident memory: up to this many
/// bytes per slot in use (two per worker), e.g. 1 GB on 8 cores. 64 MB covers the
/// 3.15 interpreter's 41 MB baseline and a typical program.
pub const KEEP_RESIDENT_BYTES: usize = 64 << 20;

static ENGINE: OnceLock<Result<Engine, String>> = OnceLock::new();

/// The process-wide engine, created on first use, with its epoch ticker started.
pub fn engine() -> Result<&'static Engine, SandboxError> {
    ENGINE
        .get_or_init(|| {
            let engine = Engine::new(&config()).map_err(|e| format!("{e:#}"))?;
            start_epoch_ticker(engine.clone());
            Ok(engine)
        })
        .as_ref()
        .map_err(|e| SandboxError::Setup(e.clone()))
}

fn config() -> Config {
    let mut pool = PoolingAllocationConfig::new();
    pool.total_core_instances(MAX_CONCURRENT_INSTANCES)
        .total_memories(MAX_CONCURRENT_INSTANCES)
        .total_tables(MAX_CONCURRENT_INSTANCES)
        .total_stacks(0)
        .total_gc_heaps(MAX_CONCURRENT_INSTANCES)
        .max_memories_per_module(1)
        .max_tables_per_module(4)
        // CPython's function table has ~47k entries; leave room.
        .table_elements(200_000)
        .max_core_instance_size(8 << 20)
        .max_memory_size(MAX_MEMORY_BYTES as usize)
        .linear_memory_keep_resident(KEEP_RESIDENT_BYTES)
        .table_keep_resident(1 << 20);
    let mut config = Config::new();
    config
        .consume_fuel(true)
        .epoch_interruption(true)
        .max_wasm_stack(MAX_WASM_STACK)
        .async_stack_size(MAX_WASM_STACK + (1 << 20))
        .wasm_exceptions(true)
        .memory_init_cow(false) // see KEEP_RESIDENT_BYTES
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    config
}

fn start_epoch_ticker(engine: Engine) {
    let spawned = std::thread::Builder::new()
        .name("cascade-epoch".into())
        .spawn(move || loop {
            std::thread::sleep(EPOCH_TICK);
            engine.increment_epoch();
        });
    // Without the ticker the backstop never fires, but fuel still limits every run.
    drop(spawned);
}

/// Epoch ticks in a wall-clock duration (at least one).
pub fn ticks(duration: Duration) -> u64 {
    (duration.as_millis() / EPOCH_TICK.as_millis()).max(1) as u64
}
