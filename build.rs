//! Embeds the libtorch folder (found by cascade-trainer's build script) as an rpath,
//! so `cascade` runs without `LD_LIBRARY_PATH`.

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_CASCADE_TORCH_LIBTORCH_LIB");
    if let Ok(dir) = std::env::var("DEP_CASCADE_TORCH_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
}
