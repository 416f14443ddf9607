//! WASM plugins, in any language that targets wasm32-wasi: a WASI preview-1 command
//! that reads one sample as JSON on stdin and writes its answer as JSON on stdout (a
//! number, a bool or `{"reward", "details", "reward_components"}`), then exits 0.
//!
//! The module may import `wasi_snapshot_preview1` functions only; anything else is
//! refused when it loads. Each call is a fresh instance (copy-on-write memory, so
//! microseconds to start) with the plugin's fuel and memory limits, no files, no
//! environment, a virtual clock and seeded randomness: the same module and sample give
//! the same bytes.

use std::sync::Arc;

use cascade_sandboxes::engine::engine;
use cascade_sandboxes::module_cache::load_file;
use cascade_sandboxes::{Entry, Invocation, Limits, Status, WasmProgram, WorkerPool};
use cascade_verifiers::{FieldError, Reward, Sample, ScoringFailure};
use serde_json::Value;

use super::{answer, ended, PluginError, PluginSource};
use crate::environment::{ChatMessage, Environment};

/// The one import module a plugin may use.
const GRANTED: &str = "wasi_snapshot_preview1";

/// A loaded WASM plugin.
pub struct WasmPlugin {
    name: String,
    program: WasmProgram,
    limits: Limits,
}

impl WasmPlugin {
    /// Compiles (or finds in the module cache) and links the module.
    pub fn load(source: &PluginSource) -> Result<Arc<WasmPlugin>, PluginError> {
        let fail = |message: String| PluginError::new(&source.path, message);
        let engine = engine().map_err(|e| fail(e.to_string()))?;
        let module = load_file(engine, &source.path).map_err(|e| fail(e.to_string()))?;
        if let Some(import) = module.imports().find(|i| i.module() != GRANTED) {
            return Err(fail(format!(
                "imports `{}::{}`; a plugin may import {GRANTED} only",
                import.module(),
                import.name()
            )));
        }
        if module.get_export("_start").is_none() {
            return Err(fail(
                "exports no `_start`: a plugin is a WASI command (a `main` that reads stdin)"
                    .into(),
            ));
        }
        let program = WasmProgram::new(&module, Entry::Command).map_err(|e| fail(e.to_string()))?;
        let l = &source.manifest.limits;
        Ok(Arc::new(WasmPlugin {
            name: source.name.clone(),
            program,
            limits: Limits::new(l.time_s, l.memory_mb),
        }))
    }

    fn call(&self, sample: &Sample) -> Reward {
        let invocation = Invocation {
            args: vec![self.name.clone()],
            stdin: super::plugin_request(sample).into_bytes(),
            ..Invocation::default()
        };
        let run =
            WorkerPool::global().and_then(|p| p.run(&self.program, &invocation, &self.limits));
        match run {
            Ok(run) if run.status == Status::Exited(0) => {
                match serde_json::from_slice::<Value>(&run.stdout) {
                    Ok(value) => answer::reward_of(&value),
                    Err(e) => Reward::failed(
                        ScoringFailure::PluginCrash,
                        format!("the plugin's stdout is not JSON: {e}"),
                    ),
                }
            }
            Ok(run) => ended(&run, &self.limits),
            Err(e) => Reward::failed(
                ScoringFailure::PluginCrash,
                format!("the sandbox failed: {e}"),
            ),
        }
    }
}

impl Environment for WasmPlugin {
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
