//! The one `wasmtime::Engine` of the process: its settings, and the epoch ticker that
//! drives the wall-clock backstop.
//!
//! Settings that matter for safety and verdicts: fuel is on (the CPU limit), epochs are
//! on (a backstop only), guests get a large wasm stack (deep recursion is normal in
//! competitive programming), and instances come from a pooling allocator whose slots
//! are made fresh cheaply for the next run (see [`InstanceMemory`]).

use std::sync::OnceLock;
use std::time::Duration;

use wasmtime::{Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

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

/// Linear memory a reused pool slot keeps resident between instances, up to its
/// instance's size: 64 MB covers the 3.15 interpreter's 40 MB snapshot heap and a
/// typical program. Beyond it, pages are given back to the kernel. The price is
/// resident memory: up to this many bytes per slot in use (two per worker), e.g. 1 GB
/// on 8 cores.
pub const KEEP_RESIDENT_BYTES: usize = 64 << 20;

/// The environment variable that forces [`InstanceMemory::ResidentSlots`] (`resident`)
/// or asks for [`InstanceMemory::DirtyPages`] (`dirty-pages`), for comparisons.
pub const INSTANCE_MEMORY_VAR: &str = "CASCADE_SANDBOX_INSTANCE_MEMORY";

/// How a reused pool slot's linear memory is made fresh for the next instance. Both
/// give every instance exactly the module's initial memory, and the same fuel (data
/// initialisation is the host's work, never charged), so verdicts and figures do not
/// depend on which is used; only the speed does. `sandboxes/README.md`, "Instance
/// memory", has the measurements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstanceMemory {
    /// The module's memory image is mapped copy-on-write. When a slot is reused, the
    /// pages the last instance wrote, found with Linux's `PAGEMAP_SCAN` (6.7 or later),
    /// are copied back from the image and stay resident, so the next instance neither
    /// faults on them nor pays for pages it never touched. The default where the
    /// kernel has the scan.
    DirtyPages,
    /// The first [`KEEP_RESIDENT_BYTES`] of a slot are zeroed with `memset` and the data
    /// segments copied in for every instance (16 MB of data in a 40 MB image for the
    /// CPython snapshot). The fallback elsewhere.
    ResidentSlots,
}

impl InstanceMemory {
    /// What this process uses: [`INSTANCE_MEMORY_VAR`] if set, else dirty pages where
    /// the kernel can scan for them ([`instance_memory`] says what the engine took).
    fn from_env() -> Result<Self, String> {
        Self::chosen(
            std::env::var(INSTANCE_MEMORY_VAR).ok().as_deref(),
            PoolingAllocationConfig::is_pagemap_scan_available(),
        )
    }

    /// The choice for a setting of [`INSTANCE_MEMORY_VAR`] on a kernel that has (or
    /// lacks) the page scan.
    fn chosen(setting: Option<&str>, available: bool) -> Result<Self, String> {
        match setting {
            None | Some("") if available => Ok(InstanceMemory::DirtyPages),
            None | Some("") | Some("resident") => Ok(InstanceMemory::ResidentSlots),
            Some("dirty-pages") if available => Ok(InstanceMemory::DirtyPages),
            Some("dirty-pages") => Err(format!(
                "{INSTANCE_MEMORY_VAR}=dirty-pages: this kernel has no PAGEMAP_SCAN (Linux 6.7 or later)"
            )),
            Some(other) => Err(format!(
                "{INSTANCE_MEMORY_VAR}={other}: expected `resident` or `dirty-pages`"
            )),
        }
    }
}

static ENGINE: OnceLock<Result<(Engine, InstanceMemory), String>> = OnceLock::new();

/// The process-wide engine, created on first use, with its epoch ticker started.
pub fn engine() -> Result<&'static Engine, SandboxError> {
    created().map(|(engine, _)| engine)
}

/// How the engine's pool makes instance memory fresh (see [`InstanceMemory`]).
pub fn instance_memory() -> Result<InstanceMemory, SandboxError> {
    created().map(|(_, memory)| *memory)
}

fn created() -> Result<&'static (Engine, InstanceMemory), SandboxError> {
    ENGINE
        .get_or_init(|| {
            let memory = InstanceMemory::from_env()?;
            let engine = Engine::new(&config(memory)).map_err(|e| format!("{e:#}"))?;
            start_epoch_ticker(engine.clone());
            Ok((engine, memory))
        })
        .as_ref()
        .map_err(|e| SandboxError::Setup(e.clone()))
}

fn config(memory: InstanceMemory) -> Config {
    let dirty_pages = memory == InstanceMemory::DirtyPages;
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
        .table_keep_resident(1 << 20)
        .pagemap_scan(if dirty_pages {
            Enabled::Yes
        } else {
            Enabled::No
        });
    let mut config = Config::new();
    config
        .consume_fuel(true)
        .epoch_interruption(true)
        .max_wasm_stack(MAX_WASM_STACK)
        .async_stack_size(MAX_WASM_STACK + (1 << 20))
        .wasm_exceptions(true)
        .memory_init_cow(dirty_pages)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirty_pages_where_the_kernel_can_scan_them_unless_told_otherwise() {
        use InstanceMemory::*;
        assert_eq!(InstanceMemory::chosen(None, true), Ok(DirtyPages));
        assert_eq!(InstanceMemory::chosen(Some(""), true), Ok(DirtyPages));
        assert_eq!(InstanceMemory::chosen(None, false), Ok(ResidentSlots));
        assert_eq!(
            InstanceMemory::chosen(Some("resident"), true),
            Ok(ResidentSlots)
        );
        assert_eq!(
            InstanceMemory::chosen(Some("dirty-pages"), true),
            Ok(DirtyPages)
        );
        let refused = InstanceMemory::chosen(Some("dirty-pages"), false).unwrap_err();
        assert!(refused.contains("PAGEMAP_SCAN"), "{refused}");
        let unknown = InstanceMemory::chosen(Some("cow"), true).unwrap_err();
        assert!(
            unknown.contains("CASCADE_SANDBOX_INSTANCE_MEMORY=cow"),
            "{unknown}"
        );
        assert!(unknown.contains("`resident` or `dirty-pages`"), "{unknown}");
    }
}
