// This process's kernel parameters (kernels/params.hpp), chosen once, at
// its first commit: measured on this host (kernels/tune.hpp), pinned by
// DRI_KERNEL_PARAMS, or left at their defaults by DRI_KERNEL_TUNING=off or
// where the node runs more of the job's processes than this process may use
// cores (a measurement would time the other processes' work, not the
// kernels). Local: no MPI.
#pragma once

#include <string>

namespace dri::detail {

// Chooses the parameters unless done; thread-safe, never throws.
void tune_kernels_once() noexcept;

// One line: the parameters in use and how they were chosen (or that they
// are not chosen yet).
std::string kernel_tuning_report();

} // namespace dri::detail
