//! Embeds the libtorch folder as an rpath in this crate's tests, benches and
//! binaries, so they find libtorch without `LD_LIBRARY_PATH`, and hands the folder on
//! to dependents (as `DEP_CASCADE_TORCH_LIBTORCH_LIB`) for their own rpath.

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    if let Ok(dir) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
        println!("cargo:libtorch_lib={dir}");
    }
}
