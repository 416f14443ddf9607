//! WASI calls whose host-side work or answers the sandbox meters or pins.
//!
//! Fuel counts wasm operators, so a host call is nearly free to the guest however much
//! work it makes the host do: asking `random_get` for 64 MiB at a time, a 2 s program
//! kept the host busy until the wall-clock backstop (~28 s), and the verdict then
//! depended on the machine's speed. These wrappers charge fuel in proportion to the
//! bytes a call produces or copies, so time limits stay a budget of work:
//! - `random_get`: [`RANDOM_FUEL_PER_BYTE`] per byte asked for, charged before the
//!   host generates anything (an out-of-bounds buffer is refused first); the bytes
//!   come from the run's seeded generator, written straight into guest memory
//!   (wasmtime-wasi's own makes one generator call per byte into a host buffer:
//!   ~350 ns per byte in a test build, 26 s for 64 MiB);
//! - `fd_read`, `fd_pread`, `fd_write`, `fd_pwrite`: [`IO_FUEL_PER_BYTE`] per byte
//!   moved, charged after the call from the count it returns.
//!
//! Rates: [`FUEL_PER_SECOND`] is 4e9. Filling guest memory with random bytes took
//! ~11 ns per byte in an unoptimised test build (64 MiB in 0.73 s, malloc and page
//! faults included) and far less optimised; at 8 fuel per byte a 2 s limit buys at
//! most 1 GB of randomness, which even the unoptimised build produces well inside the
//! wall-clock backstop. Copying file and pipe data runs at GB/s: 1 fuel per byte. An
//! honest program pays little: CPython seeding `random` asks for 2.5 KB (20 k fuel),
//! printing 10 MB costs 10 M fuel (2.5 ms of a limit).
//!
//! Times: `fd_filestat_get` and `path_filestat_get` report every file's access,
//! modification and change times as [`FILE_TIME_NS`], so a program cannot read when
//! the host's files were made (the mounted standard library's install time) and two
//! runs on two machines see the same stat results.
//!
//! The other wrappers call wasmtime-wasi's own implementation, as its linker does.

use wasmtime::{AsContextMut, Caller, Extern, Linker, Trap};
use wasmtime_wasi::p1::wasi_snapshot_preview1::{self as p1, WasiSnapshotPreview1};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::runtime::in_tokio;
use wiggle::GuestMemory;

use crate::guest_state::GuestState;
#[cfg(doc)]
use crate::limits::FUEL_PER_SECOND;

/// Fuel per byte of `random_get` (see the module docs for the measurement).
pub const RANDOM_FUEL_PER_BYTE: u64 = 8;
/// Fuel per byte read or written through a file descriptor.
pub const IO_FUEL_PER_BYTE: u64 = 1;
/// The time every file reports for its access, modification and change times:
/// 2024-01-01T00:00:00Z, the guest clock's origin.
pub const FILE_TIME_NS: u64 = 1_704_067_200_000_000_000;

const WASI: &str = "wasi_snapshot_preview1";
const ERRNO_SUCCESS: i32 = 0;
const ERRNO_FAULT: i32 = 21;
/// `filestat`: `atim`, `mtim`, `ctim` are three u64 at byte 40.
const FILESTAT_TIMES_AT: u32 = 40;

/// Links the WASI p1 I/O call `name`, whose last argument `out` receives the byte
/// count: the call runs as wasmtime-wasi's own, then that count is charged as fuel.
macro_rules! link_metered_io {
    ($linker:expr, $name:ident ( $($arg:ident : $ty:ty),* )) => {
        $linker.func_wrap(
            WASI,
            stringify!($name),
            |mut caller: Caller<'_, GuestState>, $($arg: $ty,)* out: i32| {
                let errno = with_p1(&mut caller, |cx, mem| {
                    in_tokio(p1::$name(cx, mem, $($arg,)* out))
                })?;
                charge_count(&mut caller, errno, out)?;
                Ok(errno)
            },
        )?
    };
}

/// Shadows the metered and pinned calls in `linker` (which must allow shadowing).
pub(crate) fn add_to_linker(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    linker.func_wrap(WASI, "random_get", random_get)?;
    link_metered_io!(linker, fd_read(fd: i32, iovs: i32, n: i32));
    link_metered_io!(linker, fd_pread(fd: i32, iovs: i32, n: i32, at: i64));
    link_metered_io!(linker, fd_write(fd: i32, iovs: i32, n: i32));
    link_metered_io!(linker, fd_pwrite(fd: i32, iovs: i32, n: i32, at: i64));
    add_filestat_to_linker(linker)
}

fn add_filestat_to_linker(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    linker.func_wrap(
        WASI,
        "fd_filestat_get",
        |mut caller: Caller<'_, GuestState>, fd: i32, out: i32| {
            let errno = with_p1(&mut caller, |cx, mem| {
                in_tokio(p1::fd_filestat_get(cx, mem, fd, out))
            })?;
            Ok(pin_times(&mut caller, errno, out))
        },
    )?;
    linker.func_wrap(
        WASI,
        "path_filestat_get",
        |mut caller: Caller<'_, GuestState>, fd: i32, flags: i32, path: i32, len: i32, out: i32| {
            let errno = with_p1(&mut caller, |cx, mem| {
                in_tokio(p1::path_filestat_get(cx, mem, fd, flags, path, len, out))
            })?;
            Ok(pin_times(&mut caller, errno, out))
        },
    )?;
    Ok(())
}

/// Runs a wasmtime-wasi p1 function on the guest's memory and WASI state, as
/// wasmtime-wasi's own linker does (including its per-call allocation allowance).
fn with_p1<R>(
    caller: &mut Caller<'_, GuestState>,
    call: impl FnOnce(&mut WasiP1Ctx, &mut GuestMemory<'_>) -> wasmtime::Result<R>,
) -> wasmtime::Result<R> {
    let allowance = caller.as_context_mut().hostcall_fuel();
    let Some(Extern::Memory(memory)) = caller.get_export("memory") else {
        wasmtime::bail!("missing required memory export");
    };
    let (bytes, state) = memory.data_and_store_mut(caller);
    state.wasi.set_hostcall_fuel(allowance);
    call(&mut state.wasi, &mut GuestMemory::Unshared(bytes))
}

/// Takes `fuel` from the guest's budget; running out is a time-limit trap.
pub(crate) fn charge(caller: &mut Caller<'_, GuestState>, fuel: u64) -> wasmtime::Result<()> {
    let remaining = caller.get_fuel()?;
    if fuel > remaining {
        caller.set_fuel(0)?;
        return Err(Trap::OutOfFuel.into());
    }
    caller.set_fuel(remaining - fuel)?;
    Ok(())
}

/// After a successful read or write, charges for the byte count it stored at `out`.
fn charge_count(caller: &mut Caller<'_, GuestState>, errno: i32, out: i32) -> wasmtime::Result<()> {
    if errno != ERRNO_SUCCESS {
        return Ok(());
    }
    let mut count = [0u8; 4];
    if let Some(Extern::Memory(memory)) = caller.get_export("memory") {
        // The call just wrote there, so the read succeeds; a failure charges nothing.
        let _ = memory.read(&*caller, out as u32 as usize, &mut count);
    }
    charge(
        caller,
        u64::from(u32::from_le_bytes(count)) * IO_FUEL_PER_BYTE,
    )
}

/// Fills the guest's buffer straight from the run's seeded generator.
fn random_get(mut caller: Caller<'_, GuestState>, buf: i32, len: i32) -> wasmtime::Result<i32> {
    let Some(Extern::Memory(memory)) = caller.get_export("memory") else {
        wasmtime::bail!("missing required memory export");
    };
    let (start, len) = (buf as u32 as usize, len as u32 as usize);
    let end = start.saturating_add(len);
    if end > memory.data_size(&caller) {
        return Ok(ERRNO_FAULT);
    }
    charge(&mut caller, len as u64 * RANDOM_FUEL_PER_BYTE)?;
    let (bytes, state) = memory.data_and_store_mut(&mut caller);
    fill_random(&mut state.random_state, &mut bytes[start..end]);
    Ok(ERRNO_SUCCESS)
}

/// SplitMix64 over `state`: a few integer operations per 8 bytes, fast even in an
/// unoptimised build (a ChaCha generator inlined into this crate ran at ~100 ns per
/// byte in tests). The guest's randomness only has to be seeded and reproducible.
fn fill_random(state: &mut u64, out: &mut [u8]) {
    let mut next = || {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut chunks = out.chunks_exact_mut(8);
    for chunk in &mut chunks {
        chunk.copy_from_slice(&next().to_le_bytes());
    }
    let rest = chunks.into_remainder();
    let last = next().to_le_bytes();
    rest.copy_from_slice(&last[..rest.len()]);
}

/// After a successful stat, overwrites the times it stored at `out`.
fn pin_times(caller: &mut Caller<'_, GuestState>, errno: i32, out: i32) -> i32 {
    if errno != ERRNO_SUCCESS {
        return errno;
    }
    let times: Vec<u8> = std::iter::repeat_n(FILE_TIME_NS.to_le_bytes(), 3)
        .flatten()
        .collect();
    let at = (out as u32).wrapping_add(FILESTAT_TIMES_AT) as usize;
    match caller.get_export("memory") {
        Some(Extern::Memory(m)) if m.write(&mut *caller, at, &times).is_ok() => errno,
        _ => ERRNO_FAULT,
    }
}
