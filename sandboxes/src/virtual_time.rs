//! A virtual clock for guests: time is work.
//!
//! The guest's clocks (`clock_time_get`) read the fuel it has spent divided by
//! [`FUEL_PER_SECOND`], from a fixed origin, so a program sees time pass as it computes
//! and two runs of the same program see the same times. Sleeping (`poll_oneoff` on a
//! clock, which is how `time.sleep` and `nanosleep` reach the host) spends fuel instead
//! of blocking a host thread: `time.sleep(60)` under a 2 s limit is a time-limit verdict
//! at once. Waiting on a file descriptor returns immediately (stdin is in memory and
//! never blocks).
//!
//! These replace wasmtime-wasi's own `clock_time_get` and `poll_oneoff`, which read the
//! host clocks and really sleep.

use wasmtime::{Caller, Extern, Linker};

use crate::guest_state::GuestState;
use crate::limits::FUEL_PER_SECOND;

/// The wall-clock time a guest sees at fuel 0: 2024-01-01T00:00:00Z.
const REALTIME_ORIGIN_NS: u64 = 1_704_067_200_000_000_000;

const ERRNO_SUCCESS: i32 = 0;
const ERRNO_FAULT: i32 = 21;
const ERRNO_INVAL: i32 = 28;
const ERRNO_NOTSUP: i32 = 58;

const WASI: &str = "wasi_snapshot_preview1";

/// Error a sleep raises when it would overrun the time limit; mapped to a time limit.
#[derive(Debug)]
pub(crate) struct SleptPastLimit;

impl std::fmt::Display for SleptPastLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("slept past the time limit")
    }
}

impl std::error::Error for SleptPastLimit {}

/// Replaces the WASI clock and poll functions in `linker` (which must allow shadowing).
pub(crate) fn add_to_linker(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    linker.func_wrap(WASI, "clock_time_get", clock_time_get)?;
    linker.func_wrap(WASI, "clock_res_get", clock_res_get)?;
    linker.func_wrap(WASI, "poll_oneoff", poll_oneoff)?;
    Ok(())
}

/// Nanoseconds of virtual time spent so far.
fn elapsed_ns(caller: &Caller<'_, GuestState>) -> u64 {
    let remaining = caller.get_fuel().unwrap_or(0);
    let spent = caller.data().fuel_budget.saturating_sub(remaining);
    (spent as u128 * 1_000_000_000 / FUEL_PER_SECOND as u128) as u64
}

fn now_ns(caller: &Caller<'_, GuestState>, clock_id: i32) -> Option<u64> {
    let elapsed = elapsed_ns(caller);
    match clock_id {
        0 => Some(REALTIME_ORIGIN_NS + elapsed),
        1..=3 => Some(elapsed),
        _ => None,
    }
}

fn write_bytes(caller: &mut Caller<'_, GuestState>, ptr: i32, bytes: &[u8]) -> bool {
    match caller.get_export("memory") {
        Some(Extern::Memory(m)) => m.write(caller, ptr as u32 as usize, bytes).is_ok(),
        _ => false,
    }
}

fn read_bytes(caller: &mut Caller<'_, GuestState>, ptr: i32, buf: &mut [u8]) -> bool {
    match caller.get_export("memory") {
        Some(Extern::Memory(m)) => m.read(caller, ptr as u32 as usize, buf).is_ok(),
        _ => false,
    }
}

fn clock_time_get(mut caller: Caller<'_, GuestState>, id: i32, _precision: i64, out: i32) -> i32 {
    let Some(now) = now_ns(&caller, id) else {
        return ERRNO_INVAL;
    };
    if write_bytes(&mut caller, out, &now.to_le_bytes()) {
        ERRNO_SUCCESS
    } else {
        ERRNO_FAULT
    }
}

fn clock_res_get(mut caller: Caller<'_, GuestState>, id: i32, out: i32) -> i32 {
    if !(0..=3).contains(&id) {
        return ERRNO_INVAL;
    }
    if write_bytes(&mut caller, out, &1u64.to_le_bytes()) {
        ERRNO_SUCCESS
    } else {
        ERRNO_FAULT
    }
}

const SUBSCRIPTION_SIZE: usize = 48;
const EVENT_SIZE: usize = 32;
const TAG_CLOCK: u8 = 0;
const SUBCLOCK_ABSTIME: u16 = 1;

/// At most this many subscriptions per call: guards the host against a huge count.
const MAX_SUBSCRIPTIONS: u32 = 4096;

fn poll_oneoff(
    mut caller: Caller<'_, GuestState>,
    subs_ptr: i32,
    events_ptr: i32,
    count: i32,
    nevents_ptr: i32,
) -> wasmtime::Result<i32> {
    let count = count as u32;
    if count == 0 || count > MAX_SUBSCRIPTIONS {
        return Ok(ERRNO_INVAL);
    }
    let mut subs = vec![0u8; count as usize * SUBSCRIPTION_SIZE];
    if !read_bytes(&mut caller, subs_ptr, &mut subs) {
        return Ok(ERRNO_FAULT);
    }
    let now = elapsed_ns(&caller);
    // Descriptors are always ready (stdin is in memory); clocks fire in order.
    let mut ready = Vec::new();
    let mut earliest_clock: Option<u64> = None;
    for sub in subs.chunks_exact(SUBSCRIPTION_SIZE) {
        let tag = sub[8];
        if tag == TAG_CLOCK {
            let clock_id = u32_at(sub, 16);
            if clock_id > 3 {
                return Ok(ERRNO_INVAL);
            }
            let timeout = u64_at(sub, 24);
            let flags = u16::from_le_bytes([sub[40], sub[41]]);
            let wait = if flags & SUBCLOCK_ABSTIME != 0 {
                let origin = if clock_id == 0 { REALTIME_ORIGIN_NS } else { 0 };
                timeout.saturating_sub(origin + now)
            } else {
                timeout
            };
            earliest_clock = Some(earliest_clock.map_or(wait, |e| e.min(wait)));
        } else if tag <= 2 {
            ready.push(event(sub, tag, 0));
        } else {
            return Ok(ERRNO_NOTSUP);
        }
    }
    if ready.is_empty() {
        let wait = earliest_clock.unwrap_or(0);
        sleep(&mut caller, wait)?;
        for sub in subs.chunks_exact(SUBSCRIPTION_SIZE) {
            if sub[8] == TAG_CLOCK {
                ready.push(event(sub, TAG_CLOCK, 0));
            }
        }
        // Only the clocks due by now fire; with equal waits that is all of them, and a
        // guest that passed several different clocks is rare enough to wake early.
    }
    let mut out = Vec::with_capacity(ready.len() * EVENT_SIZE);
    for e in &ready {
        out.extend_from_slice(e);
    }
    if !write_bytes(&mut caller, events_ptr, &out)
        || !write_bytes(&mut caller, nevents_ptr, &(ready.len() as u32).to_le_bytes())
    {
        return Ok(ERRNO_FAULT);
    }
    Ok(ERRNO_SUCCESS)
}

/// Spends the fuel that `ns` of time stands for; traps when it would overrun.
fn sleep(caller: &mut Caller<'_, GuestState>, ns: u64) -> wasmtime::Result<()> {
    let cost = (ns as u128 * FUEL_PER_SECOND as u128 / 1_000_000_000).min(u64::MAX as u128) as u64;
    let remaining = caller.get_fuel()?;
    if cost > remaining {
        caller.set_fuel(0)?;
        caller.data_mut().slept_past_limit = true;
        return Err(SleptPastLimit.into());
    }
    caller.set_fuel(remaining - cost)?;
    Ok(())
}

fn event(sub: &[u8], tag: u8, errno: u16) -> [u8; EVENT_SIZE] {
    let mut e = [0u8; EVENT_SIZE];
    e[0..8].copy_from_slice(&sub[0..8]);
    e[8..10].copy_from_slice(&errno.to_le_bytes());
    e[10] = tag;
    e
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}
