//! C and C++ programs: compiled natively by clang 16 to wasm32-wasi (wasi-libc and
//! libc++ from Debian packages), then run in the sandbox like any other module.
//!
//! The compiler is native code fed untrusted source, so it runs confined
//! ([`confine`]): bubblewrap with no network and no host files but the toolchain, a
//! fresh temp dir as its only writable place, and CPU-time, memory and file-size limits
//! plus a wall-clock kill. `#include "/etc/passwd"` finds no such file.
//!
//! Programs get a 64 MiB stack (deep DFS recursion works), `-O2`, no exceptions
//! (wasi-libc++ has none), and a `bits/stdc++.h`. Compiled modules are cached in memory
//! by a hash of language, flags and source, so many test cases compile once.

mod confine;
mod diagnostics;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::engine::engine;
use crate::error::SandboxError;
use crate::module_cache::{hex, load_bytes_uncached};
use crate::wasm_program::{Entry, WasmProgram};

pub use confine::CompilerLimits;

/// Which language a source is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CLanguage {
    C,
    Cpp,
}

/// Why a program did not compile (a verdict, not a sandbox failure). Every message is
/// reproducible byte for byte (see [`diagnostics`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CompileError {
    /// The compiler's or linker's diagnostics for the program.
    #[error("{0}")]
    Rejected(String),
    /// The compiler ran out of CPU time, memory or wall-clock time (which one ran out
    /// first can depend on the machine, so they are one kind).
    #[error("compilation exceeded the compiler's time or memory limit")]
    LimitExceeded,
    /// The compiled module would be larger than the compiler may write.
    #[error("the compiled program exceeds the module size limit (initialised data too large)")]
    ModuleTooLarge,
    /// The compiler crashed; the diagnostics it printed before crashing.
    #[error("{0}\nthe compiler crashed on this program")]
    Crashed(String),
    /// The module imports what the sandbox does not provide, or with the wrong type.
    #[error("link error: {0}")]
    Link(String),
}

const LLVM: &str = "/usr/lib/llvm-16";
/// Linear-memory stack for C/C++ guests.
const GUEST_STACK_BYTES: u64 = 64 << 20;
/// Compiled programs kept in memory before the cache is cleared.
const MAX_CACHED: usize = 512;

type Compiled = Result<WasmProgram, CompileError>;

/// Loads a compiled module and links it against the sandbox's imports. An import the
/// sandbox does not offer (`__attribute__((import_module("env")))`) is the program's
/// link error, as an undefined symbol would be natively. The module's stack is not
/// counted against the memory limit (see [`WasmProgram::with_memory_allowance`]).
fn link(wasm: &[u8]) -> Result<Compiled, SandboxError> {
    let module = load_bytes_uncached(engine()?, wasm, "compiled program")?;
    match WasmProgram::new(&module, Entry::Command) {
        Ok(program) => Ok(Ok(program.with_memory_allowance(GUEST_STACK_BYTES))),
        Err(SandboxError::Link(message)) => Ok(Err(CompileError::Link(message))),
        Err(e) => Err(e),
    }
}

/// The clang toolchain, checked once per process.
pub struct Clang {
    clang: PathBuf,
    clangxx: PathBuf,
    limits: CompilerLimits,
    cache: Mutex<HashMap<String, Compiled>>,
}

impl Clang {
    /// The toolchain (clang-16, lld-16, wasi-libc, libc++ for wasm32), or an error
    /// naming what is missing.
    pub fn load() -> Result<&'static Clang, SandboxError> {
        static CLANG: OnceLock<Result<Clang, String>> = OnceLock::new();
        CLANG
            .get_or_init(|| Clang::locate().map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| SandboxError::CompilerMissing(e.clone()))
    }

    fn locate() -> Result<Clang, SandboxError> {
        let bin = Path::new(LLVM).join("bin");
        let clang = bin.join("clang");
        let clangxx = bin.join("clang++");
        for needed in [
            clang.clone(),
            bin.join("wasm-ld"),
            PathBuf::from("/usr/lib/wasm32-wasi/libc.a"),
            Path::new(LLVM).join("lib/wasm32-wasi/libc++.a"),
            Path::new(LLVM).join("lib/clang/16/lib/wasi/libclang_rt.builtins-wasm32.a"),
        ] {
            if !needed.exists() {
                return Err(SandboxError::CompilerMissing(needed.display().to_string()));
            }
        }
        confine::check_bwrap()?;
        Ok(Clang {
            clang,
            clangxx,
            limits: CompilerLimits::default(),
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// Compiles `source` (or returns the cached result) into a runnable program.
    /// `Ok(Err(..))` is a compile error of the program; `Err(..)` a sandbox failure.
    pub fn compile(
        &self,
        language: CLanguage,
        source: &str,
    ) -> Result<Result<WasmProgram, CompileError>, SandboxError> {
        let args = self.args(language);
        let key = {
            let mut h = Sha256::new();
            for a in &args {
                h.update(a.as_bytes());
                h.update([0]);
            }
            h.update(source.as_bytes());
            hex(&h.finalize())
        };
        if let Some(hit) = self.lock().get(&key) {
            return Ok(hit.clone());
        }
        let compiled = match confine::compile(&args, language, source, &self.limits)? {
            Ok(wasm) => link(&wasm)?,
            Err(e) => Err(e),
        };
        let mut cache = self.lock();
        if cache.len() >= MAX_CACHED {
            cache.clear();
        }
        cache.insert(key, compiled.clone());
        Ok(compiled)
    }

    /// Compiles `source` into the bytes of a wasm32-wasi module (a WASI command), for
    /// a file that outlives the process: a WASM verifier plugin.
    pub fn compile_module(
        &self,
        language: CLanguage,
        source: &str,
    ) -> Result<Result<Vec<u8>, CompileError>, SandboxError> {
        confine::compile(&self.args(language), language, source, &self.limits)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Compiled>> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The compiler command line, with the source and output names that
    /// [`confine::compile`] uses inside the confined work directory.
    fn args(&self, language: CLanguage) -> Vec<String> {
        let (compiler, std, source) = match language {
            CLanguage::C => (&self.clang, "-std=gnu17", "main.c"),
            CLanguage::Cpp => (&self.clangxx, "-std=gnu++17", "main.cpp"),
        };
        let mut args = vec![
            compiler.display().to_string(),
            "--target=wasm32-wasi".into(),
            "--sysroot=/usr".into(),
            std.into(),
            "-O2".into(),
            // Link-time optimisation keeps zero-initialised data out of every file: a
            // wasm object file stores `.bss` as zeros (a 200 MB DP table made a 200 MB
            // object and hit the file-size limit), a bitcode object stores one
            // `zeroinitializer`, and the linker leaves `.bss` out of the module
            // because wasm memory starts zeroed.
            "-flto".into(),
            // No reproducer files (preprocessed source, run script) after a crash.
            "-fno-crash-diagnostics".into(),
            "-fno-exceptions".into(),
            "-ftemplate-depth=1024".into(),
            "-fconstexpr-steps=10000000".into(),
            "-ferror-limit=20".into(),
            "-fno-color-diagnostics".into(),
            "-isystem".into(),
            "/work/include".into(),
            // clock() and times(): wasi-libc emulates process clocks only on request.
            "-D_WASI_EMULATED_PROCESS_CLOCKS".into(),
        ];
        if language == CLanguage::Cpp {
            // __gcd, __lg (libstdc++ extensions competitive code uses).
            args.extend(["-include".into(), "cascade_compat.h".into()]);
            args.push("-isystem".into());
            args.push(format!("{LLVM}/include/wasm32-wasi/c++/v1"));
            args.push(format!("-L{LLVM}/lib/wasm32-wasi"));
        }
        args.extend([
            format!("-Wl,-z,stack-size={GUEST_STACK_BYTES}"),
            "-Wl,--strip-all".into(),
            source.into(),
            "-lm".into(),
            "-lwasi-emulated-process-clocks".into(),
            "-o".into(),
            "main.wasm".into(),
        ]);
        args
    }

    /// Replaces the compiler's limits (defaults: 20 s CPU, 2 GiB address space).
    pub fn with_limits(mut self, limits: CompilerLimits) -> Self {
        self.limits = limits;
        self
    }
}
