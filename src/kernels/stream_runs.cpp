// The runs of large copies whose runs are contiguous on both sides, with
// non-temporal stores (copy.cpp's strided_copy chooses this path).
#include "kernels/stream_runs.hpp"

#if DRI_STREAM_RUNS
#include "core/multi_index.hpp"
#include "kernels/offsets.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <immintrin.h>

namespace dri::core {

namespace {

// Copies a run of n bytes, the destination's whole 64-byte lines with
// non-temporal stores (the caller fences), the partial lines at either end
// with memcpy. For large copies whose runs are contiguous on both sides:
// glibc's memcpy streams only when one call is large, so runs of 1 KiB (a
// slab reshape of 256^3 doubles) went through the cache and paid a read for
// ownership of every destination line, 2.1x the time of one memcpy of the
// same bytes; streamed, 0.75x (CPU time, this machine, docs/bench.md).
__attribute__((target("avx2"))) void stream_run(const std::byte* s, std::byte* d, Index n) {
    const auto head = static_cast<Index>((64 - reinterpret_cast<std::uintptr_t>(d) % 64) % 64);
    if (n < head + 64) {
        std::memcpy(d, s, static_cast<std::size_t>(n));
        return;
    }
    std::memcpy(d, s, static_cast<std::size_t>(head));
    s += head;
    d += head;
    n -= head;
    for (; n >= 64; n -= 64, s += 64, d += 64) {
        const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
        const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32));
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d), lo);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + 32), hi);
    }
    if (n > 0) std::memcpy(d, s, static_cast<std::size_t>(n));
}

// stream_run on `ns` runs of n bytes at once, line by line in turn, whose
// destinations share their alignment modulo 64. Reading runs with gaps
// between them (1 KiB of every 2 KiB) one at a time got a third of the
// bandwidth of a contiguous read here: each run is too short for the
// hardware prefetcher to run ahead, so few lines are in flight. Eight runs
// far apart, read in turn, keep eight streams of misses going: 1.65x faster
// reads (this machine, AMD EPYC, CPU time). Each line read also prefetches
// the same line of the stream's next run, `ahead` bytes on (the next run
// along the innermost outer axis; a wrong guess at a wrap costs one useless
// prefetch, which never faults): a slab reshape's copy (256^3 doubles, 1 KiB
// runs 2 KiB apart) went from 1.29x to 1.22x memcpy's time, medians of 8
// paired runs (two or four runs ahead: no gain).
constexpr int read_streams = 8;

__attribute__((target("avx2"))) void stream_runs(const std::byte* const* s, std::byte* const* d,
                                                 Index n, Index ahead) {
    const auto head = static_cast<Index>((64 - reinterpret_cast<std::uintptr_t>(d[0]) % 64) % 64);
    if (n < head + 64) {
        for (int c = 0; c < read_streams; ++c)
            std::memcpy(d[c], s[c], static_cast<std::size_t>(n));
        return;
    }
    for (int c = 0; c < read_streams; ++c)
        std::memcpy(d[c], s[c], static_cast<std::size_t>(head));
    Index i = head;
    for (; i + 64 <= n; i += 64)
        for (int c = 0; c < read_streams; ++c) {
            // An address, not a pointer: it may lie past the source.
            _mm_prefetch(reinterpret_cast<const char*>(reinterpret_cast<std::uintptr_t>(s[c]) +
                                                       static_cast<std::uintptr_t>(i + ahead)),
                         _MM_HINT_T0);
            const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s[c] + i));
            const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s[c] + i + 32));
            _mm256_stream_si256(reinterpret_cast<__m256i*>(d[c] + i), lo);
            _mm256_stream_si256(reinterpret_cast<__m256i*>(d[c] + i + 32), hi);
        }
    if (i < n)
        for (int c = 0; c < read_streams; ++c)
            std::memcpy(d[c] + i, s[c] + i, static_cast<std::size_t>(n - i));
}

// The runs of a large copy (k axes, the last one the run of `bytes`,
// contiguous on both sides), streamed. When the source has gaps between
// runs, an outer axis is cut into read_streams equal parts walked together
// (stream_runs), the rows left over one run at a time.
} // namespace

void stream_all_runs(const std::byte* src, std::byte* dst, const Axis* axes, int k, Index bytes) {
    int cut = -1;
    if (k >= 2 && axes[k - 2].s != bytes)
        for (int a = 0; a < k - 1 && cut < 0; ++a)
            if (axes[a].n >= read_streams && axes[a].n / read_streams * axes[a].r % 64 == 0)
                cut = a;
    Axis box[max_index_axes];
    std::copy(axes, axes + k - 1, box);
    Index done = 0; // rows of axis `cut` already copied
    if (cut >= 0) {
        const Index part = axes[cut].n / read_streams;
        box[cut].n = part;
        const Index ps = part * axes[cut].s, pr = part * axes[cut].r;
        for_each_offset(box, k - 1, [&](Index so, Index ro) {
            const std::byte* s[read_streams];
            std::byte* d[read_streams];
            for (int c = 0; c < read_streams; ++c) {
                s[c] = src + so + c * ps;
                d[c] = dst + ro + c * pr;
            }
            stream_runs(s, d, bytes, axes[k - 2].s);
        });
        done = part * read_streams;
        box[cut].n = axes[cut].n - done;
        if (box[cut].n == 0) {
            _mm_sfence();
            return;
        }
        src += done * axes[cut].s;
        dst += done * axes[cut].r;
    }
    for_each_offset(box, k - 1, [&](Index so, Index ro) { stream_run(src + so, dst + ro, bytes); });
    _mm_sfence();
}

} // namespace dri::core
#endif
