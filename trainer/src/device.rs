//! Device choice (`auto`, `cpu`, `cuda`) and the compute precision that goes with it:
//! float32 on the CPU, bf16 autocast on CUDA with float32 master weights.

use serde::Deserialize;
use tch::Device;

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

/// Runs `f` with bf16 autocast on CUDA; on the CPU it runs in float32 as is.
pub fn with_autocast<T>(device: Device, f: impl FnOnce() -> T) -> T {
    if device.is_cuda() {
        tch::autocast(true, f)
    } else {
        f()
    }
}
