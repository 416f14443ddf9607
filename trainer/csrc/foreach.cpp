// libtorch's multi-tensor ("foreach") and fused optimizer kernels, which tch 0.24 does
// not bind. Each function takes tch's tensors as they cross tch's own C API
// (`at::Tensor*`), runs one ATen call over the whole list, and returns nullptr, or a
// malloc'd message when ATen threw (the caller frees it with `free`). No C++ exception
// ever crosses into Rust.
#include <ATen/core/Tensor.h>
#include <ATen/ops/_foreach_mul.h>
#include <ATen/ops/_foreach_norm.h>
#include <ATen/ops/_foreach_zero.h>
#include <ATen/ops/_fused_adamw.h>
#include <ATen/ops/stack.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <vector>

namespace {

std::vector<at::Tensor> list(at::Tensor** tensors, int64_t n) {
  std::vector<at::Tensor> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.push_back(*tensors[i]);
  return out;
}

template <typename F>
char* guarded(F&& f) {
  try {
    f();
    return nullptr;
  } catch (const std::exception& e) {
    return strdup(e.what());
  } catch (...) {
    return strdup("unknown C++ exception");
  }
}

}  // namespace

extern "C" {

// One AdamW step over every tensor of the lists (`torch.optim.AdamW(fused=True)`):
// `steps` are the float step counts bias correction reads, already incremented.
char* cascade_fused_adamw(at::Tensor** params, at::Tensor** grads, at::Tensor** exp_avgs,
                          at::Tensor** exp_avg_sqs, at::Tensor** steps, int64_t n,
                          double lr, double beta1, double beta2, double weight_decay,
                          double eps) {
  return guarded([&] {
    at::_fused_adamw_(list(params, n), list(grads, n), list(exp_avgs, n),
                      list(exp_avg_sqs, n), {}, list(steps, n), lr, beta1, beta2,
                      weight_decay, eps, /*amsgrad=*/false, /*maximize=*/false,
                      std::nullopt, std::nullopt);
  });
}

// The global L2 norm of all the tensors, into a new tensor `*out`: per-tensor norms in
// one call, then the square root of the sum of their squares (the order of operations
// cascade's per-tensor clipping always used, so CPU trajectories keep their bits;
// `clip_grad_norm_` takes the norm of the norms, equal to rounding).
char* cascade_foreach_total_norm(at::Tensor** tensors, int64_t n, at::Tensor** out) {
  return guarded([&] {
    auto norms = at::_foreach_norm(list(tensors, n), 2);
    *out = new at::Tensor(at::stack(norms).square().sum().sqrt());
  });
}

// Multiplies every tensor by `scale` in place.
char* cascade_foreach_mul_(at::Tensor** tensors, int64_t n, double scale) {
  return guarded([&] { at::_foreach_mul_(list(tensors, n), scale); });
}

// Sets every tensor to zero in place.
char* cascade_foreach_zero_(at::Tensor** tensors, int64_t n) {
  return guarded([&] { at::_foreach_zero_(list(tensors, n)); });
}

}  // extern "C"
