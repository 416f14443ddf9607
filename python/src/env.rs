//! `NativeEnv`: one environment, built once, that scores batches of samples into
//! `cascade score`'s result lines.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::exceptions::{PyKeyError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde_json::{json, Value};

use cascade_envs::plugins::PluginLimits;
use cascade_envs::{EnvConfig, Environment, Registry, RegistryError, ResultLine, ScoringPool};
use cascade_verifiers::{Reward, Sample};

use crate::convert::{to_json, to_object};

/// The registry of every environment linked into the module and every run-time plugin
/// in `CASCADE_PLUGINS` (a path list, as for the `cascade` command), under the limits
/// ceilings in `CASCADE_PLUGIN_LIMITS`, made once.
pub fn registry() -> PyResult<&'static Registry> {
    static REGISTRY: OnceLock<Result<Registry, String>> = OnceLock::new();
    REGISTRY
        .get_or_init(|| {
            let paths: Vec<PathBuf> = std::env::var_os("CASCADE_PLUGINS")
                .map(|list| std::env::split_paths(&list).collect())
                .unwrap_or_default();
            let ceiling = PluginLimits::operator_ceiling(None)?;
            Registry::discover_with_plugins(&paths, &ceiling).map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| PyRuntimeError::new_err(e.clone()))
}

/// One sample as handed over by Python, converted while the GIL is held.
enum Input {
    /// A JSON line and its 1-based position, parsed on a scoring thread.
    Line(String, usize),
    /// A dict (or any JSON-compatible value) already converted.
    Sample(Sample),
    /// Something that is not JSON; scored as reward 0 with this reason.
    Invalid { id: Value, reason: String },
}

impl Input {
    /// The sample at 1-based `position` of its batch (which names a row without an id).
    fn from_py(obj: &Bound<'_, PyAny>, position: usize) -> Self {
        if let Ok(s) = obj.cast::<PyString>() {
            return match s.to_str() {
                Ok(line) => Input::Line(line.to_owned(), position),
                Err(e) => Input::Invalid {
                    id: Value::Null,
                    reason: format!("sample is not valid UTF-8: {e}"),
                },
            };
        }
        match to_json(obj) {
            Ok(value) => Input::Sample(Sample::at_line(value, position)),
            Err(reason) => Input::Invalid {
                id: id_of(obj),
                reason: format!("sample is not JSON: {reason}"),
            },
        }
    }

    /// The result line `cascade score` would print for this sample.
    fn score(&self, env: &dyn Environment) -> ResultLine {
        let parsed;
        let sample = match self {
            Input::Line(line, position) => match serde_json::from_str(line) {
                Ok(value) => {
                    parsed = Sample::at_line(value, *position);
                    &parsed
                }
                Err(e) => return error_line(Value::Null, format!("sample is not valid JSON: {e}")),
            },
            Input::Sample(sample) => sample,
            Input::Invalid { id, reason } => return error_line(id.clone(), reason.clone()),
        };
        ResultLine::new(sample, cascade_envs::score_guarded(env, sample))
    }
}

/// The `id` of a dict sample that could not be converted, so its line stays traceable.
fn id_of(obj: &Bound<'_, PyAny>) -> Value {
    obj.cast::<PyDict>()
        .ok()
        .and_then(|d| d.get_item("id").ok().flatten())
        .and_then(|id| to_json(&id).ok())
        .unwrap_or(Value::Null)
}

fn error_line(id: Value, reason: String) -> ResultLine {
    ResultLine::new(&Sample::new(json!({ "id": id })), Reward::error(reason))
}

/// A registry error as the Python exception a caller expects: an unknown name is a
/// `KeyError`, a bad setting a `ValueError`; both name the environment.
fn creation_error(e: RegistryError) -> PyErr {
    match e {
        RegistryError::Unknown { .. } => PyKeyError::new_err(e.to_string()),
        RegistryError::Config(_) => PyValueError::new_err(e.to_string()),
        RegistryError::Duplicate { .. } | RegistryError::Plugin(_) => {
            PyRuntimeError::new_err(e.to_string())
        }
    }
}

/// An environment built once with its config; `score_lines` reuses it (and its
/// sandboxes and compiled modules) for every batch.
#[pyclass(frozen, module = "cascade_rewards._native")]
pub struct NativeEnv {
    name: String,
    env: Box<dyn Environment>,
    /// The last scoring pool made, with its thread count, reused while `jobs` is the same.
    pool: Mutex<Option<(usize, Arc<ScoringPool>)>>,
}

#[pymethods]
impl NativeEnv {
    /// `config` is the environment's settings (as `--config KEY=VALUE`); `base_dir` is
    /// the folder relative paths inside samples resolve against (the input file's
    /// folder for `cascade score`; the current directory when absent).
    #[new]
    #[pyo3(signature = (name, config=None, base_dir=None))]
    fn new(
        name: &str,
        config: Option<&Bound<'_, PyDict>>,
        base_dir: Option<PathBuf>,
    ) -> PyResult<Self> {
        let table = match config {
            None => serde_json::Map::new(),
            Some(d) => to_object(d).map_err(|e| {
                PyValueError::new_err(format!("invalid config for environment `{name}`: {e}"))
            })?,
        };
        let mut config = EnvConfig::new(table);
        if let Some(dir) = base_dir {
            config = config.with_base_dir(dir);
        }
        let env = registry()?.create(name, &config).map_err(creation_error)?;
        Ok(Self {
            name: name.to_owned(),
            env,
            pool: Mutex::new(None),
        })
    }

    /// The environment's registry name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// Scores every sample (a dict or a JSON line) and returns one result line per
    /// sample, in order: the bytes `cascade score` prints, without the newline. A bad
    /// sample gets reward 0 and `details.error`; it never raises. `jobs` threads score
    /// (0 or None: one per core) while the GIL is released.
    #[pyo3(signature = (samples, jobs=None))]
    fn score_lines(
        &self,
        py: Python<'_>,
        samples: Vec<Bound<'_, PyAny>>,
        jobs: Option<usize>,
    ) -> PyResult<Vec<String>> {
        let inputs: Vec<Input> = (samples.iter().enumerate())
            .map(|(i, obj)| Input::from_py(obj, i + 1))
            .collect();
        let pool = self.pool(jobs.unwrap_or(0))?;
        let env = self.env.as_ref();
        Ok(py.detach(|| pool.map(&inputs, |input| input.score(env).to_json())))
    }

    fn __repr__(&self) -> String {
        format!("cascade_rewards.Env({:?})", self.name)
    }
}

impl NativeEnv {
    fn pool(&self, jobs: usize) -> PyResult<Arc<ScoringPool>> {
        let mut cached = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((n, pool)) = cached.as_ref() {
            if *n == jobs {
                return Ok(Arc::clone(pool));
            }
        }
        let pool =
            Arc::new(ScoringPool::new(jobs).map_err(|e| PyRuntimeError::new_err(e.to_string()))?);
        *cached = Some((jobs, Arc::clone(&pool)));
        Ok(pool)
    }
}
