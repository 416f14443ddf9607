//! Resident guests: one instance kept alive across many calls, so a plugin's module is
//! loaded once per worker rather than once per sample.
//!
//! A resident runs on a big-stack thread of its own and talks to the host only through
//! the door ([`crate::door`]). Each door request starts with a tag byte:
//! - [`NEXT`]: the guest's answer to the call it was given (its first one: its report
//!   after loading), and a request for the next call. The host blocks the guest until
//!   the next call comes, then hands it over with the fuel and wall-clock backstop of
//!   [`ResidentLimits::call`] restarted: a call's limit is that call's alone.
//! - [`HOST`]: a request to the host's API ([`HostApi`]), answered at once.
//!
//! A call the guest does not answer within its limits ends the resident (time, memory,
//! a trap or an exit): the caller gets [`ResidentError::Ended`] with the execution's
//! status, and [`ResidentPool`] starts a fresh resident for later calls.
//!
//! A resident keeps what its guest keeps between calls (module globals): its calls are
//! deterministic when the guest's answer depends on the request only.

use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use thiserror::Error;

use crate::door::{Door, DoorAnswer, DoorHost};
use crate::error::SandboxError;
use crate::execution::Execution;
use crate::limits::Limits;
use crate::pool::WORKER_STACK;
use crate::wasm_program::{Invocation, WasmProgram};

/// Tag of a door request that answers the current call and asks for the next.
pub const NEXT: u8 = b'N';
/// Tag of a door request to the host's API.
pub const HOST: u8 = b'H';

/// Answers a resident guest's [`HOST`] requests (without the tag); `None` refuses.
pub type HostApi = Arc<dyn Fn(&[u8]) -> Option<Vec<u8>> + Send + Sync>;

/// The limits of a resident: loading (start-up until its first [`NEXT`]) and each
/// call. Memory is one cap for the resident's whole life (wasm memory never shrinks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResidentLimits {
    pub load: Limits,
    pub call: Limits,
}

#[derive(Debug, Error)]
pub enum ResidentError {
    /// The guest ended (a limit, a trap, an exit) before answering.
    #[error("the guest ended: {:?}", .0.status)]
    Ended(Box<Execution>),
    /// The guest started but its load report was refused (the starter's reason).
    #[error("{0}")]
    Refused(String),
    /// The resident ended earlier and takes no more calls.
    #[error("the resident has ended")]
    Gone,
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
}

enum Event {
    Answer(Vec<u8>),
    Ended(Result<Execution, SandboxError>),
}

/// One live guest.
pub struct Resident {
    requests: SyncSender<Vec<u8>>,
    events: Receiver<Event>,
    alive: bool,
}

struct ResidentDoor {
    events: Sender<Event>,
    requests: Receiver<Vec<u8>>,
    host_api: HostApi,
}

impl DoorHost for ResidentDoor {
    fn answer(&mut self, request: &[u8]) -> Option<DoorAnswer> {
        let (&tag, body) = request.split_first()?;
        match tag {
            NEXT => {
                self.events.send(Event::Answer(body.to_vec())).ok()?;
                // The host dropped the resident: the refused call ends the guest.
                let next = self.requests.recv().ok()?;
                Some(DoorAnswer {
                    bytes: next,
                    restart_budget: true,
                })
            }
            HOST => (self.host_api)(body).map(|bytes| DoorAnswer {
                bytes,
                restart_budget: false,
            }),
            _ => None,
        }
    }
}

impl Resident {
    /// Starts `program` with `invocation` and waits for its first [`NEXT`]: the guest's
    /// load report, returned with the resident.
    pub fn start(
        program: &WasmProgram,
        invocation: Invocation,
        limits: &ResidentLimits,
        host_api: HostApi,
    ) -> Result<(Resident, Vec<u8>), ResidentError> {
        let (request_tx, request_rx) = mpsc::sync_channel(1);
        let (event_tx, event_rx) = mpsc::channel();
        let door = Door {
            host: Box::new(ResidentDoor {
                events: event_tx.clone(),
                requests: request_rx,
                host_api,
            }),
            call_fuel: limits.call.fuel,
            call_wall: limits.call.wall_backstop,
        };
        let program = program.clone();
        let load = limits.load.clone();
        std::thread::Builder::new()
            .name("cascade-resident".into())
            .stack_size(WORKER_STACK)
            .spawn(move || {
                let run = program.execute_with_door(&invocation, &load, door);
                let _ = event_tx.send(Event::Ended(run));
            })
            .map_err(SandboxError::setup)?;
        let mut resident = Resident {
            requests: request_tx,
            events: event_rx,
            alive: true,
        };
        let report = resident.wait()?;
        Ok((resident, report))
    }

    /// Hands `request` to the guest and waits for its answer.
    pub fn call(&mut self, request: &[u8]) -> Result<Vec<u8>, ResidentError> {
        if !self.alive || self.requests.send(request.to_vec()).is_err() {
            self.alive = false;
            return Err(ResidentError::Gone);
        }
        self.wait()
    }

    /// False once the guest has ended.
    pub fn alive(&self) -> bool {
        self.alive
    }

    fn wait(&mut self) -> Result<Vec<u8>, ResidentError> {
        let event = self.events.recv();
        match event {
            Ok(Event::Answer(bytes)) => Ok(bytes),
            Ok(Event::Ended(run)) => {
                self.alive = false;
                Err(ResidentError::Ended(Box::new(run?)))
            }
            Err(_) => {
                self.alive = false;
                Err(ResidentError::Gone)
            }
        }
    }
}

/// Starts a resident and checks its load report.
pub type StartResident = Box<dyn Fn() -> Result<Resident, ResidentError> + Send + Sync>;

/// Up to `max` residents of one program, started on demand; a call takes an idle one
/// (or starts one, or waits for one), and a resident that ended is replaced.
pub struct ResidentPool {
    start: StartResident,
    max: usize,
    state: Mutex<PoolState>,
    freed: Condvar,
}

struct PoolState {
    idle: Vec<Resident>,
    live: usize,
}

impl ResidentPool {
    /// A pool of at most `max` (at least one) residents made by `start`.
    pub fn new(max: usize, start: StartResident) -> Self {
        Self {
            start,
            max: max.max(1),
            state: Mutex::new(PoolState {
                idle: Vec::new(),
                live: 0,
            }),
            freed: Condvar::new(),
        }
    }

    /// Adds an already started resident (the one a loader checked) to the idle set.
    pub fn adopt(&self, resident: Resident) {
        let mut state = self.lock();
        state.live += 1;
        state.idle.push(resident);
        self.freed.notify_one();
    }

    /// Runs one call on some resident.
    pub fn call(&self, request: &[u8]) -> Result<Vec<u8>, ResidentError> {
        let mut resident = self.checkout()?;
        let answer = resident.call(request);
        self.checkin(resident);
        answer
    }

    fn lock(&self) -> MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn checkout(&self) -> Result<Resident, ResidentError> {
        let mut state = self.lock();
        loop {
            if let Some(resident) = state.idle.pop() {
                return Ok(resident);
            }
            if state.live < self.max {
                state.live += 1;
                drop(state);
                let started = (self.start)();
                if started.is_err() {
                    self.lock().live -= 1;
                    self.freed.notify_one();
                }
                return started;
            }
            state = self.freed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn checkin(&self, resident: Resident) {
        let mut state = self.lock();
        if resident.alive() {
            state.idle.push(resident);
        } else {
            state.live -= 1;
        }
        self.freed.notify_one();
    }
}
