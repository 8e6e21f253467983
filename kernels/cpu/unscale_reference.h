// Scalar gradient unscale with the overflow check, the reference of kernels/cuda/unscale.cuh: every element x
// becomes x * invScale (computed in float32, rounded back to the tensor's dtype) and a non-finite x (checked before
// scaling) sets the flag. The semantics of LibTorch's _amp_foreach_non_finite_check_and_unscale_.
#pragma once
#include "kernels/kernel_types.h"

namespace fts::kernels {

// Returns true when some element of `t` was inf or NaN. invScale == 1 leaves the values untouched.
bool unscaleReference(const GradTensor& t, float invScale);

}  // namespace fts::kernels
