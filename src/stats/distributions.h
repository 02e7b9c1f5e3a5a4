// Quantiles of the reference distributions that the tests' approximations and the noise floor use: the standard
// normal and Student's t.
#pragma once
#include <cstdint>

namespace mg {

// Acklam's rational approximation of the standard normal quantile, p in (0, 1) (relative error < 1.2e-9).
double normal_quantile(double p);

// Quantile p in (0, 1) of Student's t with dof >= 1 (normal quantile plus the Cornish-Fisher terms; within
// about 1% at dof >= 3, used only for the noise floor's estimate).
double student_t_quantile(double p, int64_t dof);

}  // namespace mg
