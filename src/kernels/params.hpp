// The copy kernels' parameters that depend on the machine (cache and
// prefetcher behaviour): chosen once per process, by a short measurement
// (kernels/tune.hpp, at the first commit) or by hand (DRI_KERNEL_PARAMS),
// and read at the start of every copy. Any valid value gives the same bytes;
// only the speed differs.
#pragma once

#include "core/checked.hpp"

#include <string>

namespace dri::core {

struct KernelParams {
    // Transposes visit their micro tiles in blocks of up to one page of each
    // source row and as many source rows as `block_source` bytes of source
    // hold, at most `max_block_rows`: the first decides for long rows (each
    // row its own stream for the prefetcher), the second for short ones.
    Index block_source = Index{64} << 10;
    Index max_block_rows = 64;
    // Copies of at least this many bytes in all use non-temporal stores:
    // their destination is too large to be found in the cache.
    Index nt_threshold = Index{4} << 20;
};

inline bool operator==(const KernelParams& a, const KernelParams& b) {
    return a.block_source == b.block_source && a.max_block_rows == b.max_block_rows &&
           a.nt_threshold == b.nt_threshold;
}

// The bounds every value must keep (the kernels rely on them).
inline constexpr Index min_block_source = 4096, max_block_source = Index{16} << 20;
inline constexpr Index min_block_rows = 16, max_block_rows_limit = 1024;

// Empty when `p` is valid, else what is wrong.
std::string check_kernel_params(const KernelParams& p);

// The parameters in use (the defaults until set).
KernelParams kernel_params() noexcept;
// Throws Errc::arg when `p` is not valid.
void set_kernel_params(const KernelParams& p);

// "block_source=65536,max_block_rows=64,nt_threshold=4194304".
std::string to_string(const KernelParams& p);
// The same text, any subset of the names, over `base`; throws Errc::arg.
KernelParams parse_kernel_params(const std::string& text, KernelParams base = {});

} // namespace dri::core
