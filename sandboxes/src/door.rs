//! The host door of the CPython 3.15 snapshot: `host::call(ptr, len, out_ptr_ptr,
//! out_len_ptr) -> i32`, which the guest reaches as `import _host; _host.call(bytes)`.
//!
//! A run without a door (every model program) is refused: the call returns -1, which
//! the guest sees as `ConnectionRefusedError`. A run given a [`DoorHost`] (a resident
//! plugin, see [`crate::resident`]) has each request handed to it; its answer is copied
//! into memory the guest allocates through its `host_alloc(len) -> ptr` export, and a
//! refused or malformed exchange returns -2 (`OSError` in the guest).
//!
//! The door is the only thing a resident guest can ask of the host, and the host
//! decides what it answers: bytes, never handles, files or code.

use std::time::{Duration, Instant};

use wasmtime::{AsContextMut, Caller, Extern, Linker, Trap};

use crate::engine::ticks;
use crate::guest_state::GuestState;
use crate::host_calls::{charge, IO_FUEL_PER_BYTE};
use crate::limits::FUEL_PER_SECOND;

/// The largest request or answer one door call may carry.
pub const MAX_DOOR_BYTES: usize = 16 << 20;

/// Fuel charged for every door call, on top of the bytes it moves: the host's own
/// work (a verifier call) is not metered by wasm fuel, so each call costs about 1 ms
/// of the guest's time limit whatever it asks.
pub const DOOR_CALL_FUEL: u64 = 4_000_000;

/// Fuel charged per byte of a request, for the host's work on it. Every host check is
/// bounded linearly in its input (the parsers' expansion caps), at worst about 0.5 µs
/// per byte on the development machine (a YAML answer at its expansion cap), so a
/// plugin pays for the host's work in its own time limit, deterministically.
pub const HOST_WORK_FUEL_PER_BYTE: u64 = 2_000;

const NO_HOST: i32 = -1;
const HOST_FAULT: i32 = -2;

/// What answers a guest's door calls.
pub trait DoorHost: Send {
    /// The answer to `request`, or `None` to refuse it (the guest's call fails).
    fn answer(&mut self, request: &[u8]) -> Option<DoorAnswer>;
}

/// One answer through the door.
pub struct DoorAnswer {
    pub bytes: Vec<u8>,
    /// The answer starts a new unit of work (the next sample of a resident plugin):
    /// the guest's fuel and wall-clock backstop start again from its per-call limits.
    pub restart_budget: bool,
}

/// A run's door, with the budget each unit of work gets.
pub(crate) struct Door {
    pub host: Box<dyn DoorHost>,
    pub call_fuel: u64,
    pub call_wall: std::time::Duration,
}

pub(crate) fn add_to_linker(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    linker.func_wrap("host", "call", host_call)?;
    Ok(())
}

fn host_call(
    mut caller: Caller<'_, GuestState>,
    ptr: i32,
    len: i32,
    out_ptr_ptr: i32,
    out_len_ptr: i32,
) -> wasmtime::Result<i32> {
    let Some(mut door) = caller.data_mut().door.take() else {
        return Ok(NO_HOST);
    };
    let result = exchange(&mut caller, &mut door, [ptr, len, out_ptr_ptr, out_len_ptr]);
    caller.data_mut().door = Some(door);
    result
}

fn exchange(
    caller: &mut Caller<'_, GuestState>,
    door: &mut Door,
    [ptr, len, out_ptr_ptr, out_len_ptr]: [i32; 4],
) -> wasmtime::Result<i32> {
    let (ptr, len) = (ptr as u32 as usize, len as u32 as usize);
    if len > MAX_DOOR_BYTES {
        return Ok(HOST_FAULT);
    }
    charge(
        caller,
        DOOR_CALL_FUEL + len as u64 * (IO_FUEL_PER_BYTE + HOST_WORK_FUEL_PER_BYTE),
    )?;
    let Some(Extern::Memory(memory)) = caller.get_export("memory") else {
        return Ok(HOST_FAULT);
    };
    let mut request = vec![0; len];
    if memory.read(&*caller, ptr, &mut request).is_err() {
        return Ok(HOST_FAULT);
    }
    let started = Instant::now();
    let answer = door.host.answer(&request);
    // An answer that starts a new unit may have waited for the next sample: that wait
    // is not host work, and the new unit starts from a clean count.
    if !answer.as_ref().is_some_and(|a| a.restart_budget) {
        host_time_backstop(caller, door, started.elapsed())?;
    }
    let Some(answer) = answer else {
        return Ok(HOST_FAULT);
    };
    if answer.bytes.len() > MAX_DOOR_BYTES {
        return Ok(HOST_FAULT);
    }
    if answer.restart_budget {
        restart_budget(caller, door)?;
    } else {
        charge(caller, answer.bytes.len() as u64 * IO_FUEL_PER_BYTE)?;
    }
    deliver(caller, &answer.bytes, out_ptr_ptr, out_len_ptr)
}

/// The host's wall time on this unit of work's calls may not pass the unit's time
/// limit: the per-byte fuel charge is the deterministic price, and this backstop stops
/// a plugin whose calls cost the host more than it paid for (a slow or loaded machine)
/// at its limit rather than at the wall-clock backstop, ten times later.
fn host_time_backstop(
    caller: &mut Caller<'_, GuestState>,
    door: &Door,
    spent: Duration,
) -> wasmtime::Result<()> {
    let state = caller.data_mut();
    state.host_time += spent;
    let limit = Duration::from_secs_f64(door.call_fuel as f64 / FUEL_PER_SECOND as f64);
    if state.host_time > limit {
        caller.set_fuel(0)?;
        return Err(Trap::OutOfFuel.into());
    }
    Ok(())
}

/// Copies `bytes` into guest memory from `host_alloc` and stores where they are.
fn deliver(
    caller: &mut Caller<'_, GuestState>,
    bytes: &[u8],
    out_ptr_ptr: i32,
    out_len_ptr: i32,
) -> wasmtime::Result<i32> {
    let (Some(Extern::Func(alloc)), Some(Extern::Memory(memory))) =
        (caller.get_export("host_alloc"), caller.get_export("memory"))
    else {
        return Ok(HOST_FAULT);
    };
    let alloc = alloc.typed::<i32, i32>(&*caller)?;
    let at = alloc.call(&mut *caller, bytes.len() as i32)? as u32 as usize;
    let written = at != 0
        && memory.write(&mut *caller, at, bytes).is_ok()
        && memory
            .write(
                &mut *caller,
                out_ptr_ptr as u32 as usize,
                &(at as u32).to_le_bytes(),
            )
            .is_ok()
        && memory
            .write(
                &mut *caller,
                out_len_ptr as u32 as usize,
                &(bytes.len() as u32).to_le_bytes(),
            )
            .is_ok();
    Ok(if written { 0 } else { HOST_FAULT })
}

/// A new unit of work: fresh fuel and backstop. The fuel already spent stays counted
/// in `fuel_budget`, so the guest's virtual clock keeps running forward.
fn restart_budget(caller: &mut Caller<'_, GuestState>, door: &Door) -> wasmtime::Result<()> {
    let remaining = caller.get_fuel()?;
    let state = caller.data_mut();
    let spent = state.fuel_budget.saturating_sub(remaining);
    state.fuel_budget = spent.saturating_add(door.call_fuel);
    state.slept_past_limit = false;
    state.host_time = Duration::ZERO;
    // A refusal in an earlier call (a MemoryError the guest caught) is not this
    // call's: only a refusal during this call makes its failure a memory limit.
    state.limiter.refused = false;
    caller.set_fuel(door.call_fuel)?;
    caller
        .as_context_mut()
        .set_epoch_deadline(ticks(door.call_wall));
    Ok(())
}
