// Streaming the runs of a large strided copy (x86-64 with AVX2 only).
#pragma once

#include "core/plan.hpp"

#include <cstddef>

#if defined(__x86_64__)
#define DRI_STREAM_RUNS 1

namespace dri::core {

// Runs shorter than this are mostly partial lines: plain memcpy.
inline constexpr Index min_stream_run = 256;

// Copies the runs of a copy of k axes, the last one a run of `bytes`
// contiguous on both sides, the destination's whole 64-byte lines with
// non-temporal stores, and fences the stores. For copies too large for
// their destination to be found in the cache. The CPU must have AVX2.
void stream_all_runs(const std::byte* src, std::byte* dst, const Axis* axes, int k, Index bytes);

} // namespace dri::core
#endif
