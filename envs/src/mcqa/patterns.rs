//! Compiled row patterns (`template_metadata.output_regex`), shared across samples:
//! a dataset uses a few templates, and compiling one costs far more than grading.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cascade_verifiers::mcqa::{compile_output_regex, OutputRegex as Regex, PatternError};

/// How many distinct patterns are kept; past that, patterns are compiled per sample
/// (same result, only slower), so memory stays bounded on any input.
const MAX_CACHED: usize = 1024;

type Compiled = Result<Arc<Regex>, PatternError>;

/// A bounded cache of compiled patterns, shared by clones.
#[derive(Debug, Clone, Default)]
pub struct PatternCache {
    compiled: Arc<Mutex<HashMap<String, Compiled>>>,
}

impl PatternCache {
    /// The compiled pattern (or why it does not compile).
    pub fn get(&self, pattern: &str) -> Compiled {
        // A poisoned lock only means another thread panicked mid-insert: the map is
        // still a valid cache, so keep using it.
        let mut map = self.compiled.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = map.get(pattern) {
            return found.clone();
        }
        let compiled = compile_output_regex(pattern).map(Arc::new);
        if map.len() < MAX_CACHED {
            map.insert(pattern.to_owned(), compiled.clone());
        }
        compiled
    }
}
