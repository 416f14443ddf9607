//! Real pytest for the test guests: the pinned pure-Python wheels
//! (`pytest_wheels.txt`, fetched and sha256-checked by `scripts/setup.d/swe.sh` into
//! `$CASCADE_CACHE/runtimes/NAME-VERSION/`), which runner (`RunnerMode`) a backend
//! uses, and the guest paths the wheels are mounted at, read-only.

use std::path::PathBuf;

use cascade_sandboxes::module_cache::cache_root;

/// The pinned wheels: `NAME VERSION SHA256` lines (comments start with `#`).
pub const PYTEST_WHEELS: &str = include_str!("pytest_wheels.txt");

/// A pinned wheel is not installed (or not the pinned file) in the runtime cache.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the {name}=={version} wheel is not installed in {} (run scripts/setup)", dir.display())]
pub struct WheelMissing {
    pub name: String,
    pub version: String,
    pub dir: PathBuf,
}

/// Which runner runs the tests in the guest (config values `auto`, `pytest`,
/// `builtin`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunnerMode {
    /// Real pytest when the suite uses what the stand-in lacks (a pytest config
    /// file, hooks, plugins, fixtures such as `caplog`), else the stand-in; the
    /// stand-in alone when the wheels are not installed.
    #[default]
    Auto,
    /// Always real pytest; an error when the wheels are not installed.
    Pytest,
    /// Always the standard-library stand-in in `runner.py`.
    Builtin,
}

impl RunnerMode {
    /// Parses the config value: `auto`, `pytest` or `builtin`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "auto" => Some(Self::Auto),
            "pytest" => Some(Self::Pytest),
            "builtin" => Some(Self::Builtin),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Pytest => "pytest",
            Self::Builtin => "builtin",
        }
    }
}

/// One pinned wheel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wheel {
    pub name: String,
    pub version: String,
    pub sha256: String,
}

/// The wheels listed in [`PYTEST_WHEELS`].
pub fn pinned_wheels() -> Vec<Wheel> {
    PYTEST_WHEELS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            Some(Wheel {
                name: parts.next()?.to_owned(),
                version: parts.next()?.to_owned(),
                sha256: parts.next()?.to_owned(),
            })
        })
        .collect()
}

/// The unpacked wheels on the host, each with the guest folder it is mounted at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PytestSite {
    /// `(host folder, guest folder)`, in `sys.path` order.
    pub dirs: Vec<(PathBuf, String)>,
    /// `pytest-9.2.0_pluggy-1.7.0_…_t1764520000`: names caches derived from these
    /// wheels; the last part is when they were last unpacked, since bytecode is
    /// checked against the source files' modification times.
    pub key: String,
}

impl PytestSite {
    /// The installed wheels, mounted under `guest_root` (`/pytest` in the WASI guest).
    /// An error names the first wheel that is missing or does not match its pin.
    pub fn installed(guest_root: &str) -> Result<Self, WheelMissing> {
        let runtimes = cache_root().join("runtimes");
        let mut dirs = Vec::new();
        let mut key = Vec::new();
        let mut unpacked = 0;
        for wheel in pinned_wheels() {
            let dir = runtimes.join(format!("{}-{}", wheel.name, wheel.version));
            let stamp = std::fs::read_to_string(dir.join(".complete")).unwrap_or_default();
            if stamp.trim() != wheel.sha256 {
                return Err(WheelMissing {
                    name: wheel.name,
                    version: wheel.version,
                    dir,
                });
            }
            let modified = std::fs::metadata(dir.join(".complete"))
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_secs());
            unpacked = unpacked.max(modified);
            dirs.push((dir, format!("{guest_root}/{}", wheel.name)));
            key.push(format!("{}-{}", wheel.name, wheel.version));
        }
        key.push(format!("t{unpacked}"));
        Ok(Self {
            dirs,
            key: key.join("_"),
        })
    }

    /// The guest folders joined by `:`, for the runner's `--pytest` option.
    pub fn guest_path(&self) -> String {
        self.dirs
            .iter()
            .map(|(_, guest)| guest.as_str())
            .collect::<Vec<_>>()
            .join(":")
    }
}

/// The runner's options for `mode`: `--mode M --pytest PATHS` when real pytest may
/// run, nothing for the stand-in. `Pytest` without installed wheels is an error.
pub fn runner_options(
    mode: RunnerMode,
    site: &Result<PytestSite, WheelMissing>,
) -> Result<Vec<String>, WheelMissing> {
    match (mode, site) {
        (RunnerMode::Builtin, _) | (RunnerMode::Auto, Err(_)) => Ok(Vec::new()),
        (RunnerMode::Pytest, Err(e)) => Err(e.clone()),
        (_, Ok(site)) => Ok(vec![
            "--mode".into(),
            mode.name().into(),
            "--pytest".into(),
            site.guest_path(),
        ]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pins_name_pytest_and_its_dependencies() {
        let names: Vec<String> = pinned_wheels().into_iter().map(|w| w.name).collect();
        assert_eq!(
            names,
            ["pytest", "pluggy", "iniconfig", "packaging", "pygments"]
        );
        assert!(pinned_wheels()
            .iter()
            .all(|w| w.sha256.len() == 64 && w.sha256.chars().all(|c| c.is_ascii_hexdigit())));
    }

    #[test]
    fn modes_choose_the_runner_options() {
        let site = Ok(PytestSite {
            dirs: vec![
                (PathBuf::from("/h/a"), "/pytest/a".into()),
                (PathBuf::from("/h/b"), "/pytest/b".into()),
            ],
            key: "a_b".into(),
        });
        let missing = Err(WheelMissing {
            name: "pytest".into(),
            version: "9".into(),
            dir: PathBuf::from("/nowhere"),
        });
        assert!(runner_options(RunnerMode::Builtin, &site)
            .unwrap()
            .is_empty());
        assert!(runner_options(RunnerMode::Auto, &missing)
            .unwrap()
            .is_empty());
        assert!(runner_options(RunnerMode::Pytest, &missing).is_err());
        assert_eq!(
            runner_options(RunnerMode::Auto, &site).unwrap(),
            ["--mode", "auto", "--pytest", "/pytest/a:/pytest/b"]
        );
        assert_eq!(RunnerMode::from_name("pytest"), Some(RunnerMode::Pytest));
        assert_eq!(RunnerMode::from_name("nose"), None);
    }
}
