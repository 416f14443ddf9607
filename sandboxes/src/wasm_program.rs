//! A compiled wasm program ready to instantiate, and one execution of it in a fresh
//! `Store` with its own limits.
//!
//! The guest imports WASI preview 1 only, plus `host::call` for the CPython snapshot
//! (the door of [`crate::door`], refused unless the run has a door host). It sees the arguments and environment the invocation names, stdin from
//! memory, stdout/stderr into capped buffers, the directories the invocation mounts
//! and nothing else; clocks are virtual ([`crate::virtual_time`]) and random bytes come
//! from a generator seeded by the invocation.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use rand::SeedableRng;
use wasmtime::component::ResourceTableError;
use wasmtime::{InstancePre, Linker, Module, Store, Trap};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::p2::pipe::{MemoryInputPipe, MemoryOutputPipe};
use wasmtime_wasi::{FsPerms, I32Exit, WasiCtxBuilder, WasiView};

use crate::door::{self, Door};
use crate::engine::{engine, ticks};
use crate::error::SandboxError;
use crate::execution::{Execution, Status};
use crate::guest_state::{GuestState, MemoryLimiter};
use crate::host_calls;
use crate::limits::{Limits, MAX_MEMORY_BYTES};
use crate::link::{Link, Side};
use crate::virtual_time::{self, SleptPastLimit};

/// Resource-table entries WASI itself needs besides open files and mounts: the three
/// stdio streams. A directory listing in progress holds an entry too, so it counts as
/// an open file.
const TABLE_RESERVED_ENTRIES: usize = 3;

/// How a module is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// A WASI command: call `_start`; the exit code comes from `proc_exit`.
    Command,
    /// A reactor with a `run() -> i32` export returning the exit code (the CPython
    /// snapshot).
    RunExport,
}

/// A host directory made visible to the guest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub host: PathBuf,
    /// Absolute path in the guest, e.g. `/work`.
    pub guest: String,
    pub writable: bool,
}

impl Mount {
    pub fn read_only(host: impl Into<PathBuf>, guest: impl Into<String>) -> Self {
        Self {
            host: host.into(),
            guest: guest.into(),
            writable: false,
        }
    }

    pub fn read_write(host: impl Into<PathBuf>, guest: impl Into<String>) -> Self {
        Self {
            host: host.into(),
            guest: guest.into(),
            writable: true,
        }
    }
}

/// Everything one execution gets besides its limits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Invocation {
    /// `argv`, including `argv[0]`.
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub stdin: Vec<u8>,
    pub mounts: Vec<Mount>,
    /// Seed of the guest's random source (reruns with one seed see the same bytes).
    pub seed: u64,
    /// Give the guest a fresh, empty, writable temporary directory at `/tmp`, deleted
    /// after the run.
    pub temp_dir: bool,
}

/// A module linked against the sandbox's imports, ready to instantiate many times.
#[derive(Clone)]
pub struct WasmProgram {
    pre: Arc<InstancePre<GuestState>>,
    entry: Entry,
    /// Linear memory that does not count against [`Limits::memory_bytes`].
    memory_allowance: u64,
}

fn linker() -> Result<&'static Linker<GuestState>, SandboxError> {
    static LINKER: OnceLock<Result<Linker<GuestState>, String>> = OnceLock::new();
    LINKER
        .get_or_init(|| build_linker().map_err(|e| format!("{e:#}")))
        .as_ref()
        .map_err(|e| SandboxError::Setup(e.clone()))
}

fn build_linker() -> wasmtime::Result<Linker<GuestState>> {
    let engine = engine().map_err(|e| wasmtime::Error::msg(e.to_string()))?;
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p1::add_to_linker_sync(&mut linker, |s: &mut GuestState| &mut s.wasi)?;
    linker.allow_shadowing(true);
    virtual_time::add_to_linker(&mut linker)?;
    host_calls::add_to_linker(&mut linker)?;
    // The CPython snapshot's host door: refused unless the run has a door host.
    door::add_to_linker(&mut linker)?;
    Ok(linker)
}

impl WasmProgram {
    /// Links a compiled module. Fails when it imports anything the sandbox does not
    /// offer.
    pub fn new(module: &Module, entry: Entry) -> Result<Self, SandboxError> {
        let pre = linker()?
            .instantiate_pre(module)
            .map_err(|e| SandboxError::Link(format!("{e:#}")))?;
        Ok(Self {
            pre: Arc::new(pre),
            entry,
            memory_allowance: 0,
        })
    }

    /// Lets every run use `bytes` of linear memory beyond its limit: the part of the
    /// memory that is the runtime's rather than the program's (a C program's reserved
    /// stack, the interpreter's own heap), which the native judge a limit imitates
    /// would not count either.
    pub fn with_memory_allowance(mut self, bytes: u64) -> Self {
        self.memory_allowance = bytes;
        self
    }

    /// The linear memory a run may have under `limits`.
    pub fn memory_cap(&self, limits: &Limits) -> u64 {
        limits
            .memory_bytes
            .saturating_add(self.memory_allowance)
            .min(MAX_MEMORY_BYTES)
    }

    /// Runs once on the current thread. The thread's native stack must exceed
    /// [`crate::engine::MAX_WASM_STACK`]; use [`crate::pool`] unless you know it does.
    pub fn execute_here(
        &self,
        invocation: &Invocation,
        limits: &Limits,
    ) -> Result<Execution, SandboxError> {
        self.execute_with(invocation, limits, None, None)
    }

    /// Runs once on the current thread as one `side` of `link`: stdin is what the link
    /// holds for it (`invocation.stdin` is put there by [`Link::new`]) then what the
    /// other side writes; stdout goes to the other side (the returned `stdout` is
    /// empty). The side is closed when the run ends.
    pub(crate) fn execute_linked(
        &self,
        invocation: &Invocation,
        limits: &Limits,
        link: &Link,
        side: Side,
    ) -> Result<Execution, SandboxError> {
        // Closed even if the run panics, so the other side never waits for it.
        struct CloseOnDrop<'a>(&'a Link, Side);
        impl Drop for CloseOnDrop<'_> {
            fn drop(&mut self) {
                self.0.close(self.1);
            }
        }
        let _close = CloseOnDrop(link, side);
        self.execute_with(invocation, limits, Some((link, side)), None)
    }

    /// Runs once on the current thread with `door` answering the guest's `host::call`
    /// (see [`crate::door`]); the run lasts until the guest returns or a limit stops it.
    pub(crate) fn execute_with_door(
        &self,
        invocation: &Invocation,
        limits: &Limits,
        door: Door,
    ) -> Result<Execution, SandboxError> {
        self.execute_with(invocation, limits, None, Some(door))
    }

    fn execute_with(
        &self,
        invocation: &Invocation,
        limits: &Limits,
        link: Option<(&Link, Side)>,
        door: Option<Door>,
    ) -> Result<Execution, SandboxError> {
        let stdout = MemoryOutputPipe::new(limits.stdout_bytes);
        let stderr = MemoryOutputPipe::new(limits.stderr_bytes);
        let (wasi, temp) = build_wasi(invocation, limits, link, &stdout, &stderr)?;
        let state = GuestState {
            wasi,
            limiter: MemoryLimiter {
                max_bytes: self.memory_cap(limits),
                refused: false,
                peak_bytes: 0,
            },
            fuel_budget: limits.fuel,
            slept_past_limit: false,
            random_state: invocation.seed,
            door,
            host_time: std::time::Duration::ZERO,
        };
        let mut store = Store::new(engine()?, state);
        store.limiter(|s| &mut s.limiter);
        store.set_fuel(limits.fuel).map_err(SandboxError::setup)?;
        store.set_epoch_deadline(ticks(limits.wall_backstop));
        store.epoch_deadline_trap();
        let outcome = self.start(&mut store);
        // Fuel spent over the whole run: a door that restarted the budget keeps the
        // fuel of earlier units of work counted in `fuel_budget`.
        let remaining = store.get_fuel().unwrap_or(0);
        let state = store.into_data();
        let fuel_used = state.fuel_budget.saturating_sub(remaining);
        let unit_fuel = limits.fuel.saturating_sub(remaining);
        let memory_refused = state.limiter.refused;
        let memory_peak_bytes = state.limiter.peak_bytes;
        drop(state);
        drop(temp);
        let mut status = classify(outcome, limits, unit_fuel);
        // A program that died after being refused memory ran out of memory, whatever
        // way it died (MemoryError, a failed malloc, a trap on a null pointer).
        let failed =
            matches!(status, Status::Exited(c) if c != 0) || matches!(status, Status::Crashed(_));
        if memory_refused && failed {
            status = Status::MemoryLimit;
        }
        Ok(Execution {
            truncated: status == Status::OutputLimit,
            status,
            stdout: stdout.contents().to_vec(),
            stderr: stderr.contents().to_vec(),
            fuel_used,
            memory_peak_bytes,
        })
    }

    /// Instantiates the module in `store` and calls its entry point.
    fn start(&self, store: &mut Store<GuestState>) -> wasmtime::Result<i32> {
        let fuel = store.get_fuel()?;
        let instance = self.pre.instantiate(&mut *store)?;
        // With resident slots, instantiating runs the module's data initialisation as
        // wasm: the host's setup, not the guest's work, so it is free (and the fuel is
        // the same with either kind of instance memory, see `engine::InstanceMemory`).
        store.set_fuel(fuel)?;
        match self.entry {
            Entry::Command => instance
                .get_typed_func::<(), ()>(&mut *store, "_start")
                .and_then(|f| f.call(&mut *store, ()))
                .map(|()| 0),
            Entry::RunExport => instance
                .get_typed_func::<(), i32>(&mut *store, "run")
                .and_then(|f| f.call(&mut *store, ())),
        }
    }
}

/// The guest's WASI context: arguments, environment, stdio, seeded randomness, its
/// mounts and temp dir (returned, so it lives as long as the run), and the resource
/// table capped so that open files are capped.
fn build_wasi(
    invocation: &Invocation,
    limits: &Limits,
    link: Option<(&Link, Side)>,
    stdout: &MemoryOutputPipe,
    stderr: &MemoryOutputPipe,
) -> Result<(WasiP1Ctx, Option<tempfile::TempDir>), SandboxError> {
    let mut wasi = WasiCtxBuilder::new();
    wasi.args(&invocation.args).envs(&invocation.env);
    match link {
        Some((link, side)) => wasi
            .stdin(link.reader(side))
            .stdout(link.writer(side, limits.stdout_bytes)),
        None => wasi
            .stdin(MemoryInputPipe::new(invocation.stdin.clone()))
            .stdout(stdout.clone()),
    };
    wasi.stderr(stderr.clone())
        .allow_blocking_current_thread(true)
        .secure_random(rand::rngs::StdRng::seed_from_u64(invocation.seed))
        .insecure_random(rand::rngs::StdRng::seed_from_u64(invocation.seed ^ 0x5eed))
        .insecure_random_seed(u128::from(invocation.seed));
    let temp = if invocation.temp_dir {
        let dir = tempfile::Builder::new()
            .prefix("cascade-run-")
            .tempdir()
            .map_err(SandboxError::setup)?;
        wasi.preopened_dir(dir.path(), "/tmp", FsPerms::ReadWrite)
            .map_err(SandboxError::setup)?;
        Some(dir)
    } else {
        None
    };
    for m in &invocation.mounts {
        let perms = if m.writable {
            FsPerms::ReadWrite
        } else {
            FsPerms::ReadOnly
        };
        wasi.preopened_dir(&m.host, &m.guest, perms)
            .map_err(|e| SandboxError::Setup(format!("mount {}: {e:#}", m.host.display())))?;
    }
    let mut wasi = wasi.build_p1();
    // Every open guest file or directory, and each stdio stream and mount, is one
    // entry of the WASI resource table; capping the table caps open files.
    let preopens = invocation.mounts.len() + usize::from(invocation.temp_dir);
    wasi.ctx()
        .table
        .set_max_capacity(limits.open_files + preopens + TABLE_RESERVED_ENTRIES);
    Ok((wasi, temp))
}

fn classify(outcome: wasmtime::Result<i32>, limits: &Limits, fuel_used: u64) -> Status {
    match outcome {
        Ok(code) => Status::Exited(code),
        Err(e) => {
            if let Some(exit) = e.downcast_ref::<I32Exit>() {
                return Status::Exited(exit.0);
            }
            if let Some(ResourceTableError::Full) = e.downcast_ref::<ResourceTableError>() {
                return Status::Crashed(format!(
                    "open-files limit: more than {} files open at once",
                    limits.open_files
                ));
            }
            if e.downcast_ref::<SleptPastLimit>().is_some() {
                return Status::TimeLimit;
            }
            match e.downcast_ref::<Trap>() {
                Some(Trap::OutOfFuel) | Some(Trap::Interrupt) => return Status::TimeLimit,
                Some(trap) => return Status::Crashed(trap.to_string()),
                None => {}
            }
            let message = format!("{e:#}");
            if message.contains("write beyond capacity") {
                return Status::OutputLimit;
            }
            if fuel_used >= limits.fuel {
                return Status::TimeLimit;
            }
            Status::Crashed(first_line(&message))
        }
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").chars().take(200).collect()
}
