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

use wasmtime::{AsContextMut, Caller, Extern, Linker};

use crate::engine::ticks;
use crate::guest_state::GuestState;
use crate::host_calls::{charge, IO_FUEL_PER_BYTE};

/// The largest request or answer one door call may carry.
pub const MAX_DOOR_BYTES: usize = 16 << 20;

/// Fuel charged for every door call, on top of the bytes it moves: the host's own
/// work (a verifier call) is not metered by wasm fuel, so each call costs about 1 ms
/// of the guest's time limit whatever it asks.
pub const DOOR_CALL_FUEL: u64 = 4_000_000;

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
    charge(caller, DOOR_CALL_FUEL + len as u64 * IO_FUEL_PER_BYTE)?;
    let Some(Extern::Memory(memory)) = caller.get_export("memory") else {
        return Ok(HOST_FAULT);
    };
    let mut request = vec![0; len];
    if memory.read(&*caller, ptr, &mut request).is_err() {
        return Ok(HOST_FAULT);
    }
    let Some(answer) = door.host.answer(&request) else {
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
    // A refusal in an earlier call (a MemoryError the guest caught) is not this
    // call's: only a refusal during this call makes its failure a memory limit.
    state.limiter.refused = false;
    caller.set_fuel(door.call_fuel)?;
    caller
        .as_context_mut()
        .set_epoch_deadline(ticks(door.call_wall));
    Ok(())
}
