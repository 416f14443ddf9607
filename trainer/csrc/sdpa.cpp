// libtorch's global switch for the math (unfused) scaled-dot-product-attention
// kernel, which tch 0.24 does not bind: with it off, a pass that needs the math
// kernel fails instead of silently taking it, which is how a benchmark proves that
// its passes take the fused kernels.
#include <ATen/Context.h>

extern "C" {

void cascade_set_math_sdpa_enabled(bool enabled) {
  at::globalContext().setSDPUseMath(enabled);
}

}  // extern "C"
