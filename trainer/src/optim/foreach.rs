//! libtorch's multi-tensor kernels (`_fused_adamw_`, `_foreach_norm`, `_foreach_mul_`,
//! `_foreach_zero_`), which tch 0.24 does not bind, through `csrc/foreach.cpp`.
//!
//! Why: a per-tensor loop launches a handful of kernels per parameter (about 5,000 a
//! step at the Qwen2.5-0.5B shape, 290 tensors); on a GPU those launches, not the
//! arithmetic, set the optimizer's time. Each call here is one ATen call over the
//! whole list, as `torch.optim.AdamW(fused=True)` and `clip_grad_norm_(foreach=True)`
//! make. On the CPU the same kernels run (ATen has CPU versions of all four).

use std::ffi::{c_char, CStr};

use tch::Tensor;
use torch_sys::C_tensor;

extern "C" {
    fn cascade_fused_adamw(
        params: *const *mut C_tensor,
        grads: *const *mut C_tensor,
        exp_avgs: *const *mut C_tensor,
        exp_avg_sqs: *const *mut C_tensor,
        steps: *const *mut C_tensor,
        n: i64,
        lr: f64,
        beta1: f64,
        beta2: f64,
        weight_decay: f64,
        eps: f64,
    ) -> *mut c_char;
    fn cascade_foreach_total_norm(
        tensors: *const *mut C_tensor,
        n: i64,
        out: *mut *mut C_tensor,
    ) -> *mut c_char;
    fn cascade_foreach_mul_(tensors: *const *mut C_tensor, n: i64, scale: f64) -> *mut c_char;
    fn cascade_foreach_zero_(tensors: *const *mut C_tensor, n: i64) -> *mut c_char;
    fn free(ptr: *mut std::ffi::c_void);
}

/// The hyper-parameters of one fused AdamW call.
#[derive(Debug, Clone, Copy)]
pub struct AdamWStep {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub weight_decay: f64,
    pub eps: f64,
}

/// The tensors of one fused AdamW call, index for index.
pub struct AdamWLists<'a> {
    pub params: &'a [Tensor],
    pub grads: &'a [Tensor],
    pub exp_avgs: &'a [Tensor],
    pub exp_avg_sqs: &'a [Tensor],
    /// Float step counts (already incremented for this step).
    pub steps: &'a [Tensor],
}

fn pointers(tensors: &[Tensor]) -> Vec<*mut C_tensor> {
    tensors
        .iter()
        .map(|t| t.as_ptr() as *mut C_tensor)
        .collect()
}

/// Turns the shim's error message (if any) into a panic, as tch's own operations do
/// when libtorch throws: a failing kernel here is a programming error (mismatched
/// devices or dtypes), not bad input.
fn check(message: *mut c_char, what: &str) {
    if message.is_null() {
        return;
    }
    // SAFETY: a NUL-terminated string the shim allocated with strdup; freed once here.
    let text = unsafe { CStr::from_ptr(message) }
        .to_string_lossy()
        .into_owned();
    unsafe { free(message.cast()) };
    panic!("{what}: {text}");
}

/// One fused AdamW update of every tensor in `lists` (they must share device and dtype).
pub fn fused_adamw(lists: &AdamWLists, hp: AdamWStep) {
    let n = lists.params.len();
    for other in [lists.grads, lists.exp_avgs, lists.exp_avg_sqs, lists.steps] {
        assert_eq!(other.len(), n, "fused AdamW lists of unequal length");
    }
    if n == 0 {
        return;
    }
    let [p, g, m, v, s] = [
        lists.params,
        lists.grads,
        lists.exp_avgs,
        lists.exp_avg_sqs,
        lists.steps,
    ]
    .map(pointers);
    // SAFETY: every pointer is a live tch tensor borrowed for the call; the shim
    // copies the handles and catches every C++ exception.
    let message = unsafe {
        cascade_fused_adamw(
            p.as_ptr(),
            g.as_ptr(),
            m.as_ptr(),
            v.as_ptr(),
            s.as_ptr(),
            n as i64,
            hp.lr,
            hp.beta1,
            hp.beta2,
            hp.weight_decay,
            hp.eps,
        )
    };
    check(message, "fused AdamW");
}

/// The global L2 norm of `tensors` (a 0-dim float tensor on their device), or `None`
/// for an empty list.
pub fn total_norm(tensors: &[Tensor]) -> Option<Tensor> {
    if tensors.is_empty() {
        return None;
    }
    let ptrs = pointers(tensors);
    let mut out: *mut C_tensor = std::ptr::null_mut();
    // SAFETY: as in `fused_adamw`; on success `out` is a new tensor we take over.
    let message = unsafe { cascade_foreach_total_norm(ptrs.as_ptr(), ptrs.len() as i64, &mut out) };
    check(message, "foreach norm");
    // SAFETY: the shim allocated `out` with `new at::Tensor`, as tch's own C API does.
    Some(unsafe { Tensor::from_ptr(out) })
}

/// Multiplies every tensor by `scale` in place.
pub fn mul_(tensors: &[Tensor], scale: f64) {
    if tensors.is_empty() {
        return;
    }
    let ptrs = pointers(tensors);
    // SAFETY: as in `fused_adamw`.
    let message = unsafe { cascade_foreach_mul_(ptrs.as_ptr(), ptrs.len() as i64, scale) };
    check(message, "foreach mul");
}

/// Sets every tensor to zero in place.
pub fn zero_(tensors: &[Tensor]) {
    if tensors.is_empty() {
        return;
    }
    let ptrs = pointers(tensors);
    // SAFETY: as in `fused_adamw`.
    let message = unsafe { cascade_foreach_zero_(ptrs.as_ptr(), ptrs.len() as i64) };
    check(message, "foreach zero");
}
