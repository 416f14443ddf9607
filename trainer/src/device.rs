//! Device choice (`auto`, `cpu`, `cuda`) and the compute precision that goes with it:
//! float32 on the CPU, bf16 autocast on CUDA with float32 master weights.
//!
//! libtorch's CUDA autocast defaults to float16, and tch (0.24) can switch autocast
//! on but not choose its dtype. fp16 without a gradient scaler is wrong for RL: the
//! loss is divided by the step's token count (~10⁶), so per-logit gradients of ~1e-7
//! fall into fp16's subnormal range, and activations above 65504 overflow. So
//! [`with_autocast`] sets the autocast dtype to bf16 itself, through libtorch's
//! `at::autocast::set_autocast_dtype` (exported by `libtorch_cpu`, which torch-sys
//! links). The loss, the log-softmax and the optimizer state stay float32: logits are
//! cast to float before any log-softmax, and the weights and AdamW moments are float32.

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

/// libtorch's autocast dtype setting. `c10::DeviceType` and `c10::ScalarType` are
/// `enum class … : int8_t`, so they cross the C ABI as `i8`.
mod ffi {
    extern "C" {
        #[link_name = "_ZN2at8autocast18set_autocast_dtypeEN3c1010DeviceTypeENS1_10ScalarTypeE"]
        pub fn set_autocast_dtype(device_type: i8, dtype: i8);
        #[link_name = "_ZN2at8autocast18get_autocast_dtypeEN3c1010DeviceTypeE"]
        pub fn get_autocast_dtype(device_type: i8) -> i8;
    }
    /// `c10::DeviceType::CPU`, `::CUDA`.
    pub const CPU: i8 = 0;
    pub const CUDA: i8 = 1;
    /// `c10::ScalarType::Half`, `::Float`, `::BFloat16`.
    pub const HALF: i8 = 5;
    pub const FLOAT: i8 = 6;
    pub const BFLOAT16: i8 = 15;
}

/// The dtype autocast would compute in on `device`'s kind of device, on this thread
/// (libtorch keeps it per thread).
pub fn autocast_dtype(device: Device) -> Option<Kind> {
    let device_type = if device.is_cuda() {
        ffi::CUDA
    } else {
        ffi::CPU
    };
    // SAFETY: a plain read of libtorch's per-thread autocast table; no allocation,
    // no exception.
    match unsafe { ffi::get_autocast_dtype(device_type) } {
        ffi::HALF => Some(Kind::Half),
        ffi::FLOAT => Some(Kind::Float),
        ffi::BFLOAT16 => Some(Kind::BFloat16),
        _ => None,
    }
}

/// Runs `f` with bf16 autocast on CUDA; on the CPU it runs in float32 as is. The bf16
/// dtype is set for both device kinds first (it is per thread, so on every call).
pub fn with_autocast<T>(device: Device, f: impl FnOnce() -> T) -> T {
    // SAFETY: writes one entry of libtorch's per-thread autocast table; no
    // allocation, no exception.
    unsafe {
        ffi::set_autocast_dtype(ffi::CUDA, ffi::BFLOAT16);
        ffi::set_autocast_dtype(ffi::CPU, ffi::BFLOAT16);
    }
    if device.is_cuda() {
        tch::autocast(true, f)
    } else {
        f()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn autocast_is_bf16_inside_the_training_pass() {
        // A fresh thread: libtorch's per-thread default for CUDA is float16.
        std::thread::spawn(|| {
            assert_eq!(autocast_dtype(Device::Cuda(0)), Some(Kind::Half));
            for device in [Device::Cpu, Device::Cuda(0)] {
                let inside = with_autocast(Device::Cpu, || autocast_dtype(device));
                assert_eq!(inside, Some(Kind::BFloat16), "{device:?}");
            }
        })
        .join()
        .expect("thread");
    }
}
