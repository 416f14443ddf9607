//! Embeds the libtorch folder as an rpath in this crate's tests, benches and
//! binaries, so they find libtorch without `LD_LIBRARY_PATH`, hands the folder on
//! to dependents (as `DEP_CASCADE_TORCH_LIBTORCH_LIB`) for their own rpath, and
//! compiles `csrc/` (the fused optimizer kernels and the SDPA kernel switch, which
//! tch does not bind) against the same libtorch's headers.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    println!("cargo:rerun-if-env-changed=LIBTORCH_CXX11_ABI");
    println!("cargo:rerun-if-changed=csrc/foreach.cpp");
    println!("cargo:rerun-if-changed=csrc/sdpa.cpp");
    let Ok(dir) = std::env::var("DEP_TCH_LIBTORCH_LIB") else {
        panic!("torch-sys did not report its libtorch folder (DEP_TCH_LIBTORCH_LIB)");
    };
    println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    println!("cargo:libtorch_lib={dir}");
    compile_shim(Path::new(&dir));
}

/// libtorch's own layout: `lib/` beside `include/` (the PyPI wheel and the zip alike).
fn compile_shim(lib_dir: &Path) {
    let root = lib_dir.parent().map(PathBuf::from).unwrap_or_default();
    let include = root.join("include");
    // The PyPI wheels of torch 2.11 use the C++11 string ABI; a libtorch zip may not.
    let abi = std::env::var("LIBTORCH_CXX11_ABI").unwrap_or_else(|_| "1".into());
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .file("csrc/foreach.cpp")
        .file("csrc/sdpa.cpp")
        .include(&include)
        .include(include.join("torch/csrc/api/include"))
        .define("_GLIBCXX_USE_CXX11_ABI", abi.as_str())
        .flag_if_supported("-Wno-unused-parameter")
        .warnings(false)
        .compile("cascade_torch_shim");
}
