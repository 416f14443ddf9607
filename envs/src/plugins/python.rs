//! Python plugins: `verify(sample) -> float | bool | dict`, run in the sandbox's WASI
//! CPython 3.15 (numpy importable), never in the host process.
//!
//! Each worker is a resident interpreter ([`cascade_sandboxes::resident`]) that loaded
//! the plugin once; a call is one door exchange, well under the cost of starting
//! Python. The guest sees the plugin's own folder read-only at `/plugin` and nothing
//! else of the host: no network, no environment, a virtual clock, seeded randomness
//! (`random` and `numpy.random` are reseeded with 0 before every call). Each call has
//! the plugin's time limit; memory is capped per interpreter. A call that raises,
//! returns the wrong type or NaN is reward 0 with `details.error`; one that runs past
//! its limits also ends its interpreter, and a fresh one serves the next call.

use std::sync::Arc;

use cascade_sandboxes::{
    Limits, Mount, Python, PythonRuntime, Resident, ResidentError, ResidentLimits, ResidentPool,
};
use cascade_verifiers::{FieldError, Reward, Sample, ScoringFailure};
use serde_json::Value;

use super::{answer, ended, ended_reason, host_api, PluginError, PluginSource};
use crate::environment::{ChatMessage, Environment};

/// The guest's serving loop.
const GUEST: &str = include_str!("python_guest.py");

/// A loaded Python plugin.
pub struct PythonPlugin {
    name: String,
    /// The module docstring's first paragraph.
    doc: String,
    limits: ResidentLimits,
    pool: ResidentPool,
}

impl PythonPlugin {
    /// Starts one interpreter and loads the plugin in it: a syntax error, an exception
    /// while importing or a missing `verify` is an error naming the file and line.
    pub fn load(source: &PluginSource) -> Result<Arc<PythonPlugin>, PluginError> {
        let starter = Starter::new(source)?;
        let (first, doc) = starter
            .start_reporting()
            .map_err(|e| starter.load_error(e))?;
        let limits = starter.limits.clone();
        let workers = source.manifest.limits.worker_count();
        let pool = ResidentPool::new(workers, Box::new(move || starter.start()));
        pool.adopt(first);
        Ok(Arc::new(PythonPlugin {
            name: source.name.clone(),
            doc,
            limits,
            pool,
        }))
    }

    /// The module docstring's first paragraph, for `cascade envs`.
    pub fn doc(&self) -> &str {
        &self.doc
    }

    fn call(&self, sample: &Sample) -> Reward {
        let request = super::plugin_request(sample);
        match self.pool.call(request.as_bytes()) {
            Ok(reply) => reply_reward(&reply),
            Err(ResidentError::Ended(run)) => ended(&run, &self.limits.call),
            Err(e) => Reward::failed(
                ScoringFailure::PluginCrash,
                format!("the plugin's interpreter failed: {e}"),
            ),
        }
    }
}

impl Environment for PythonPlugin {
    fn name(&self) -> &str {
        &self.name
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        super::prompt_of(row)
    }

    fn score(&self, sample: &Sample) -> Reward {
        self.call(sample)
    }
}

/// Everything needed to start one more interpreter of a plugin.
struct Starter {
    python: &'static Python,
    invocation: cascade_sandboxes::Invocation,
    limits: ResidentLimits,
    source: PluginSource,
}

impl Starter {
    fn new(source: &PluginSource) -> Result<Self, PluginError> {
        let python = Python::load(PythonRuntime::Cpython315Snapshot)
            .map_err(|e| PluginError::new(&source.path, format!("no Python runtime: {e}")))?;
        let folder = source.path.parent().unwrap_or(std::path::Path::new("."));
        let file = source
            .path
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or("");
        let guest_file = format!("/plugin/{file}");
        let mut invocation = python.invocation(&["-c", GUEST, &guest_file, &source.name]);
        invocation.mounts.push(Mount::read_only(folder, "/plugin"));
        let l = &source.manifest.limits;
        let limits = ResidentLimits {
            load: Limits::new(l.load_time_s, l.memory_mb),
            call: Limits::new(l.time_s, l.memory_mb),
        };
        Ok(Self {
            python,
            invocation,
            limits,
            source: source.clone(),
        })
    }

    /// A fresh interpreter with the plugin loaded, or why not.
    fn start(&self) -> Result<Resident, ResidentError> {
        self.start_reporting().map(|(resident, _)| resident)
    }

    /// [`Starter::start`], with the module's docstring.
    fn start_reporting(&self) -> Result<(Resident, String), ResidentError> {
        let api: cascade_sandboxes::HostApi = Arc::new(|body| Some(host_api::answer(body)));
        let (resident, report) = Resident::start(
            self.python.program(),
            self.invocation.clone(),
            &self.limits,
            api,
        )?;
        let report: Value = serde_json::from_slice(&report).unwrap_or(Value::Null);
        if report.get("ok") == Some(&Value::Bool(true)) {
            let doc = report["doc"].as_str().unwrap_or("").to_owned();
            return Ok((resident, doc));
        }
        Err(ResidentError::Refused(report.to_string()))
    }

    fn load_error(&self, error: ResidentError) -> PluginError {
        let path = &self.source.path;
        match error {
            ResidentError::Refused(report) => {
                let report: Value = serde_json::from_str(&report).unwrap_or(Value::Null);
                let message = report["error"].as_str().unwrap_or("failed to load");
                let line = report["line"].as_u64().map(|l| l as usize);
                PluginError::new(path, message).at_line(line)
            }
            ResidentError::Ended(run) => PluginError::new(
                path,
                format!("loading: {}", ended_reason(&run, &self.limits.load)),
            ),
            other => PluginError::new(path, other.to_string()),
        }
    }
}

/// The reward in the guest's reply to one call.
fn reply_reward(reply: &[u8]) -> Reward {
    let reply: Value = serde_json::from_slice(reply).unwrap_or(Value::Null);
    if let Some(value) = reply.get("value") {
        return answer::reward_of(value);
    }
    if let Some(raised) = reply.get("raised").and_then(Value::as_str) {
        let at = reply["line"]
            .as_u64()
            .map(|l| format!(" (line {l})"))
            .unwrap_or_default();
        return Reward::failed(
            ScoringFailure::PluginCrash,
            format!("verify raised {raised}{at}"),
        );
    }
    if let Some(message) = reply.get("unserialisable").and_then(Value::as_str) {
        return Reward::failed(ScoringFailure::PluginCrash, message.to_owned());
    }
    Reward::failed(
        ScoringFailure::PluginCrash,
        "the plugin's interpreter sent a malformed answer",
    )
}
