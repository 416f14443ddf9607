//! Device choice (`auto`, `cpu`, `cuda`) and compute precision (`auto`, `f32`, `bf16`).
//!
//! bf16 is autocast: the weights, their gradients and the AdamW moments stay float32
//! (the master copy), and each matmul and attention call casts its inputs to bf16 as it
//! runs (libtorch's autocast op lists), so activations between them are bf16 where an op
//! produced them. It is the documented equivalent of bf16 weights with float32 master
//! weights, and it runs on the CPU as well as on CUDA: `precision = "bf16"` on a CPU
//! keeps the bf16 path under test on machines without a GPU. `auto` is bf16 on CUDA and
//! float32 on the CPU.
//!
//! libtorch's CUDA autocast defaults to float16, and tch (0.24) can switch autocast
//! on for CUDA only and cannot choose its dtype. fp16 without a gradient scaler is wrong
//! for RL: the loss is divided by the step's token count (~10⁶), so per-logit gradients
//! of ~1e-7 fall into fp16's subnormal range, and activations above 65504 overflow. So
//! [`with_autocast`] drives libtorch's per-device autocast state itself (dtype bf16,
//! enabled per device type, nesting and cast cache) through the `at::autocast`
//! functions `libtorch_cpu` exports. The loss, the log-softmax and the optimizer stay
//! float32: logits are cast to float before any log-softmax.

use serde::Deserialize;
use tch::{Device, Kind};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceChoice {
    /// CUDA when libtorch sees a GPU, else the CPU.
    #[default]
    Auto,
    Cpu,
    Cuda,
}

impl DeviceChoice {
    /// The tch device, or `None` when `cuda` is asked for and there is no GPU.
    pub fn resolve(self) -> Option<Device> {
        match self {
            DeviceChoice::Cpu => Some(Device::Cpu),
            DeviceChoice::Cuda => tch::Cuda::is_available().then_some(Device::Cuda(0)),
            DeviceChoice::Auto => Some(Device::cuda_if_available()),
        }
    }
}

/// What the forward passes compute in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// bf16 autocast on CUDA, float32 on the CPU.
    #[default]
    Auto,
    /// float32 everywhere.
    F32,
    /// bf16 autocast on any device, from float32 master weights.
    Bf16,
}

impl Precision {
    /// Whether passes on `device` run under bf16 autocast.
    pub fn autocasts_on(self, device: Device) -> bool {
        match self {
            Precision::Auto => device.is_cuda(),
            Precision::F32 => false,
            Precision::Bf16 => true,
        }
    }
}

/// libtorch's autocast state (`at::autocast`, per thread). `c10::DeviceType` and
/// `c10::ScalarType` are `enum class … : int8_t`, so they cross the C ABI as `i8`.
mod ffi {
    extern "C" {
        #[link_name = "_ZN2at8autocast18set_autocast_dtypeEN3c1010DeviceTypeENS1_10ScalarTypeE"]
        pub fn set_autocast_dtype(device_type: i8, dtype: i8);
        #[link_name = "_ZN2at8autocast18get_autocast_dtypeEN3c1010DeviceTypeE"]
        pub fn get_autocast_dtype(device_type: i8) -> i8;
        #[link_name = "_ZN2at8autocast20set_autocast_enabledEN3c1010DeviceTypeEb"]
        pub fn set_autocast_enabled(device_type: i8, enabled: bool);
        #[link_name = "_ZN2at8autocast19is_autocast_enabledEN3c1010DeviceTypeE"]
        pub fn is_autocast_enabled(device_type: i8) -> bool;
        #[link_name = "_ZN2at8autocast17increment_nestingEv"]
        pub fn increment_nesting() -> i32;
        #[link_name = "_ZN2at8autocast17decrement_nestingEv"]
        pub fn decrement_nesting() -> i32;
        #[link_name = "_ZN2at8autocast11clear_cacheEv"]
        pub fn clear_cache();
    }
    /// `c10::DeviceType::CPU`, `::CUDA`.
    pub const CPU: i8 = 0;
    pub const CUDA: i8 = 1;
    /// `c10::ScalarType::Half`, `::Float`, `::BFloat16`.
    pub const HALF: i8 = 5;
    pub const FLOAT: i8 = 6;
    pub const BFLOAT16: i8 = 15;
}

fn device_type(device: Device) -> i8 {
    if device.is_cuda() {
        ffi::CUDA
    } else {
        ffi::CPU
    }
}

/// The dtype autocast would compute in on `device`'s kind of device, on this thread
/// (libtorch keeps it per thread).
pub fn autocast_dtype(device: Device) -> Option<Kind> {
    // SAFETY: a plain read of libtorch's per-thread autocast table; no allocation,
    // no exception.
    match unsafe { ffi::get_autocast_dtype(device_type(device)) } {
        ffi::HALF => Some(Kind::Half),
        ffi::FLOAT => Some(Kind::Float),
        ffi::BFLOAT16 => Some(Kind::BFloat16),
        _ => None,
    }
}

/// Whether autocast is on for `device`'s kind of device on this thread.
pub fn autocast_enabled(device: Device) -> bool {
    // SAFETY: a plain read of libtorch's per-thread autocast state.
    unsafe { ffi::is_autocast_enabled(device_type(device)) }
}

/// Runs `f` under bf16 autocast on `device` when `precision` asks for it there, else
/// as is. The bf16 dtype is set for both device kinds first (it is per thread, so on
/// every call).
pub fn with_autocast<T>(device: Device, precision: Precision, f: impl FnOnce() -> T) -> T {
    // SAFETY: writes one entry of libtorch's per-thread autocast table; no
    // allocation, no exception.
    unsafe {
        ffi::set_autocast_dtype(ffi::CUDA, ffi::BFLOAT16);
        ffi::set_autocast_dtype(ffi::CPU, ffi::BFLOAT16);
    }
    if !precision.autocasts_on(device) {
        return f();
    }
    let _scope = AutocastScope::enter(device_type(device));
    f()
}

/// Autocast switched on for one device type; dropping it (also on unwinding) restores
/// the previous state and, leaving the outermost scope, frees the cached bf16 copies
/// of the weights, as `torch.autocast.__exit__` does.
struct AutocastScope {
    device_type: i8,
    previous: bool,
}

impl AutocastScope {
    fn enter(device_type: i8) -> Self {
        // SAFETY: per-thread flags and a nesting counter; no allocation, no exception.
        let previous = unsafe {
            let previous = ffi::is_autocast_enabled(device_type);
            ffi::set_autocast_enabled(device_type, true);
            ffi::increment_nesting();
            previous
        };
        Self {
            device_type,
            previous,
        }
    }
}

impl Drop for AutocastScope {
    fn drop(&mut self) {
        // SAFETY: as in `enter`; `clear_cache` drops this thread's cast cache.
        unsafe {
            if ffi::decrement_nesting() == 0 {
                ffi::clear_cache();
            }
            ffi::set_autocast_enabled(self.device_type, self.previous);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::Tensor;

    #[test]
    fn autocast_is_bf16_inside_the_training_pass() {
        crate::numerics::pin_for_tests();
        // A fresh thread: libtorch's per-thread default for CUDA is float16.
        std::thread::spawn(|| {
            assert_eq!(autocast_dtype(Device::Cuda(0)), Some(Kind::Half));
            for device in [Device::Cpu, Device::Cuda(0)] {
                let inside = with_autocast(Device::Cpu, Precision::F32, || autocast_dtype(device));
                assert_eq!(inside, Some(Kind::BFloat16), "{device:?}");
            }
        })
        .join()
        .expect("thread");
    }

    #[test]
    fn bf16_on_the_cpu_runs_matmuls_in_bf16_and_restores_the_state() {
        crate::numerics::pin_for_tests();
        let a = Tensor::ones([2, 3], (Kind::Float, Device::Cpu));
        let w = Tensor::ones([4, 3], (Kind::Float, Device::Cpu));
        let product = |p: Precision| with_autocast(Device::Cpu, p, || a.linear::<Tensor>(&w, None));
        assert_eq!(product(Precision::Bf16).kind(), Kind::BFloat16);
        assert_eq!(product(Precision::F32).kind(), Kind::Float);
        assert_eq!(product(Precision::Auto).kind(), Kind::Float);
        assert!(!autocast_enabled(Device::Cpu));
        // Nested scopes: leaving the inner one keeps the outer one on.
        with_autocast(Device::Cpu, Precision::Bf16, || {
            with_autocast(Device::Cpu, Precision::Bf16, || {});
            assert!(autocast_enabled(Device::Cpu));
        });
        assert!(!autocast_enabled(Device::Cpu));
        // A panic inside still switches it off.
        let caught = std::panic::catch_unwind(|| {
            with_autocast(Device::Cpu, Precision::Bf16, || panic!("inside"))
        });
        assert!(caught.is_err());
        assert!(!autocast_enabled(Device::Cpu));
    }
}
