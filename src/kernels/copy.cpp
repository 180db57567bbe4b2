#include "kernels/copy.hpp"

#include "core/multi_index.hpp"
#include "kernels/offsets.hpp"
#include "kernels/params.hpp"
#include "kernels/stream_runs.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#define DRI_X86_KERNELS 1
#endif

namespace dri::core {

namespace {

constexpr int max_axes = max_index_axes;

// E is the element size when it is one of the common ones (so the compiler
// turns each memcpy into a move), 0 when only known at run time.
template <Index E>
void line(const std::byte* s, std::byte* d, Index n, Index ss, Index ds, Index elem) {
    const auto e = static_cast<std::size_t>(E ? E : elem);
    for (Index i = 0; i < n; ++i, s += ss, d += ds)
        std::memcpy(d, s, e);
}

// 2-D transpose in tiles: source element (x, y) at s + x*e + y*sy goes to
// d + x*dx + y*e. A tile keeps its source and destination lines in L1.
template <Index E>
void transpose(const std::byte* s, std::byte* d, Index nx, Index ny, Index sy, Index dx,
               Index elem) {
    const Index e = E ? E : elem;
    const Index tile = std::max<Index>(4, 256 / e);
    for (Index x0 = 0; x0 < nx; x0 += tile) {
        const Index x1 = std::min(nx, x0 + tile);
        for (Index y0 = 0; y0 < ny; y0 += tile) {
            const Index y1 = std::min(ny, y0 + tile);
            for (Index x = x0; x < x1; ++x)
                line<E>(s + x * e + y0 * sy, d + x * dx + y0 * e, y1 - y0, sy, e, elem);
        }
    }
}

#if DRI_X86_KERNELS
// Vector transposes for the common element sizes (AVX2, chosen at run time).
// The unit of work is a micro tile whose destination rows are each one whole
// 64-byte line: 8 x 8 elements of 8 bytes, 4 x 4 of 16 bytes, 8 x 16 of 4
// bytes. Large copies use non-temporal stores when the destination is aligned,
// like memcpy: every destination line is then written once, whole, and never
// read. "Large" is the whole copy (every slice of a region together), not one
// 2-D slice: a pencil's region is 256 slices of 64 KiB, 16 MiB in all, whose
// destination is as far out of the cache as one 16 MiB slice's would be.
//
// Micro tiles are visited in blocks, down the block's columns: a block is up
// to one page (4 KiB) of each of its source rows, and as many source rows as
// 64 KiB of source holds (16 rows of whole pages, up to 64 short rows). A
// source row is a separate page (and DRAM row) in a large transpose, and
// going down keeps the destination rows of a micro tile streaming. The row
// count matters most: with 64 rows of whole pages the hardware prefetcher
// lost track of the 64 streams, and a 4096 x 4096 x 8-byte transpose took
// 1.43x a memcpy of the same bytes; with 16 rows, 0.70x (CPU time, this
// machine, AMD EPYC; 2048^2 x 16 bytes 1.24x -> 0.73x). Rows too short for
// the prefetcher (a pencil's 512 bytes) want the opposite, many at once, and
// a software prefetch: the first micro tile on a source line asks for the
// next line of each of its rows. In a standalone test of two processes, each
// transposing a 2-rank pencil receiver's 2 x 256 slices of 128 x 128 floats
// (rows of 512 bytes, 1 KiB apart), against two concurrent memcpys of the
// same bytes: 128 rows without the prefetch 1.30-1.51x, with it 1.12-1.25x;
// with it, 64 rows 1.00-1.06x, 48 rows 1.13-1.17x, 32 rows 1.7x (wall time,
// medians of 21 of each process's own time, variants alternated in one run).
// They return false when the CPU or the shape does not suit them. The
// numbers above are one host's: the source bytes per block, the row cap and
// the non-temporal threshold are KernelParams (kernels/params.hpp), which
// the first commit measures on the host it runs on (kernels/tune.hpp).
constexpr Index block_bytes = 4096; // of each source row

bool has_avx2() {
    static const bool yes = __builtin_cpu_supports("avx2");
    return yes;
}

template <bool NT>
__attribute__((target("avx2"), always_inline)) inline void store_line(std::byte* q, __m256 lo,
                                                                      __m256 hi) {
    auto* f = reinterpret_cast<float*>(q);
    if constexpr (NT) {
        _mm256_stream_ps(f, lo);
        _mm256_stream_ps(f + 8, hi);
    } else {
        _mm256_storeu_ps(f, lo);
        _mm256_storeu_ps(f + 8, hi);
    }
}

__attribute__((target("avx2"), always_inline)) inline __m256 load(const std::byte* p) {
    return _mm256_loadu_ps(reinterpret_cast<const float*>(p));
}

// 4 x 4 transpose of 8-byte elements: rows p, p + sy, ... -> o[0..3].
__attribute__((target("avx2"), always_inline)) inline void transpose4x4_8(const std::byte* p,
                                                                          Index sy, __m256 o[4]) {
    const __m256d r0 = _mm256_castps_pd(load(p)), r1 = _mm256_castps_pd(load(p + sy)),
                  r2 = _mm256_castps_pd(load(p + 2 * sy)), r3 = _mm256_castps_pd(load(p + 3 * sy));
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    o[0] = _mm256_castpd_ps(_mm256_permute2f128_pd(t0, t2, 0x20));
    o[1] = _mm256_castpd_ps(_mm256_permute2f128_pd(t1, t3, 0x20));
    o[2] = _mm256_castpd_ps(_mm256_permute2f128_pd(t0, t2, 0x31));
    o[3] = _mm256_castpd_ps(_mm256_permute2f128_pd(t1, t3, 0x31));
}

// 8 x 8 transpose of 4-byte elements: rows p, p + sy, ... -> o[0..7].
__attribute__((target("avx2"), always_inline)) inline void transpose8x8_4(const std::byte* p,
                                                                          Index sy, __m256 o[8]) {
    __m256 r[8], t[8];
    for (int i = 0; i < 8; ++i)
        r[i] = load(p + i * sy);
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
        r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
        r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
        r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    for (int i = 0; i < 4; ++i) {
        o[i] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x20);
        o[i + 4] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x31);
    }
}

// One micro tile at source p / destination q (source rows sy apart,
// destination rows dx apart). Its extent: MX source columns (destination
// rows) by 64 / E source rows.
template <Index E>
constexpr Index micro_x = E == 16 ? 4 : 8;

template <Index E, bool NT>
__attribute__((target("avx2"), always_inline)) inline void
micro_tile(const std::byte* p, std::byte* q, Index sy, Index dx) {
    if constexpr (E == 8) {
        for (int h = 0; h < 2; ++h, p += 32, q += 4 * dx) {
            __m256 a[4], b[4];
            transpose4x4_8(p, sy, a);
            transpose4x4_8(p + 4 * sy, sy, b);
            for (int i = 0; i < 4; ++i)
                store_line<NT>(q + i * dx, a[i], b[i]);
        }
    } else if constexpr (E == 16) {
        for (int h = 0; h < 2; ++h, p += 32, q += 2 * dx) {
            const __m256 r0 = load(p), r1 = load(p + sy), r2 = load(p + 2 * sy),
                         r3 = load(p + 3 * sy);
            store_line<NT>(q, _mm256_permute2f128_ps(r0, r1, 0x20),
                           _mm256_permute2f128_ps(r2, r3, 0x20));
            store_line<NT>(q + dx, _mm256_permute2f128_ps(r0, r1, 0x31),
                           _mm256_permute2f128_ps(r2, r3, 0x31));
        }
    } else {
        __m256 a[8], b[8];
        transpose8x8_4(p, sy, a);
        transpose8x8_4(p + 8 * sy, sy, b);
        for (int i = 0; i < 8; ++i)
            store_line<NT>(q + i * dx, a[i], b[i]);
    }
}

// Asks for the line at p in each of N rows sy apart (a hint: never faults).
template <Index N>
__attribute__((target("avx2"), always_inline)) inline void prefetch_rows(const std::byte* p,
                                                                         Index sy) {
    for (Index r = 0; r < N; ++r)
        _mm_prefetch(reinterpret_cast<const char*>(p + r * sy), _MM_HINT_T0);
}

// The micro tiles of an nx x ny transpose (multiples of the tile extent).
template <Index E, bool NT>
__attribute__((target("avx2"))) void transpose_tiles(const std::byte* s, std::byte* d, Index nx,
                                                     Index ny, Index sy, Index dx,
                                                     const KernelParams& kp) {
    constexpr Index mx = micro_x<E>, my = 64 / E;
    constexpr Index bx = block_bytes / E, line_x = 64 / E;
    // Rows per block: a multiple of the micro tile's, at least one tile
    // (max_block_rows is at least 16, the largest tile's height).
    const Index rows = std::max(
        my, std::clamp(kp.block_source / (std::min(nx, bx) * E), my, kp.max_block_rows) / my * my);
    for (Index x0 = 0; x0 < nx; x0 += bx) {
        const Index x1 = std::min(nx, x0 + bx);
        for (Index y0 = 0; y0 < ny; y0 += rows) {
            const Index y1 = std::min(ny, y0 + rows);
            for (Index x = x0; x < x1; x += mx)
                for (Index y = y0; y < y1; y += my) {
                    const std::byte* p = s + x * E + y * sy;
                    if (x % line_x == 0 && x + line_x < nx) prefetch_rows<my>(p + 64, sy);
                    micro_tile<E, NT>(p, d + x * dx + y * E, sy, dx);
                }
        }
    }
    if constexpr (NT) _mm_sfence();
}

template <Index E>
void transpose(const std::byte* s, std::byte* d, Index nx, Index ny, Index sy, Index dx,
               Index elem);

// A whole transpose with the vector kernels; false when they do not apply.
// The first `peel` destination columns (y) are done apart so that, when the
// destination rows are equally aligned, the destination lines are whole and
// large copies can use non-temporal stores.
template <Index E>
bool transpose_vector(const std::byte* s, std::byte* d, Index nx, Index ny, Index sy, Index dx,
                      bool large, const KernelParams& kp) {
    if (!has_avx2()) return false;
    constexpr Index mx = micro_x<E>, my = 64 / E;
    const auto addr = static_cast<Index>(reinterpret_cast<std::uintptr_t>(d) % 64);
    Index peel = 0;
    bool nt = false;
    if (large && dx % 64 == 0 && addr % E == 0) {
        peel = ((64 - addr) % 64) / E;
        nt = true;
    }
    // Likewise the first `xpeel` source columns when the source rows are
    // equally aligned, so that each micro tile reads whole source lines.
    const auto saddr = static_cast<Index>(reinterpret_cast<std::uintptr_t>(s) % 64);
    const Index xpeel = sy % 64 == 0 && saddr % E == 0 ? ((64 - saddr) % 64) / E : 0;
    if (nx - xpeel < mx || ny - peel < my) return false;
    if (peel > 0) transpose<E>(s, d, nx, peel, sy, dx, E);
    s += peel * sy;
    d += peel * E;
    ny -= peel;
    if (xpeel > 0) transpose<E>(s, d, xpeel, ny, sy, dx, E);
    s += xpeel * E;
    d += xpeel * dx;
    nx -= xpeel;
    const Index bx = nx - nx % mx, by = ny - ny % my; // ragged edges
    if (nt)
        transpose_tiles<E, true>(s, d, bx, by, sy, dx, kp);
    else
        transpose_tiles<E, false>(s, d, bx, by, sy, dx, kp);
    if (bx < nx) transpose<E>(s + bx * E, d + bx * dx, nx - bx, ny, sy, dx, E);
    if (by < ny) transpose<E>(s + by * sy, d + by * E, bx, ny - by, sy, dx, E);
    return true;
}

#endif

// Whether a copy of `bytes` in all should bypass the cache (non-temporal
// stores): it is then too large for its destination to be found there.
bool large_copy(Index bytes, const KernelParams& kp) {
#if DRI_X86_KERNELS
    return bytes >= kp.nt_threshold && has_avx2();
#else
    (void)bytes;
    (void)kp;
    return false;
#endif
}

template <Index E>
void copy_impl(const std::byte* src, std::byte* dst, const Axis* axes, int k, Index elem,
               Index whole, const KernelParams& kp) {
    const Index e = E ? E : elem;
    if (k == 0) {
        std::memcpy(dst, src, static_cast<std::size_t>(e));
        return;
    }
    const Axis& in = axes[k - 1];
    Index total = e;
    for (int a = 0; a < k; ++a)
        total *= axes[a].n;
    [[maybe_unused]] const bool large = large_copy(std::max(total, whole), kp);
    if (in.s == e && in.r == e) { // contiguous on both sides
        const Index bytes = in.n * e;
#if DRI_X86_KERNELS
        if (large && bytes >= min_stream_run) {
            stream_all_runs(src, dst, axes, k, bytes);
            return;
        }
#endif
        for_each_offset(axes, k - 1, [&](Index so, Index ro) {
            std::memcpy(dst + ro, src + so, static_cast<std::size_t>(bytes));
        });
        return;
    }
    if (TransposeAxes t; split_transpose(axes, k, e, t)) {
        const Axis& x = t.x;
        const Axis& y = t.y;
        for_each_offset(t.rest.data(), t.nrest, [&](Index so, Index ro) {
#if DRI_X86_KERNELS
            if constexpr (E == 4 || E == 8 || E == 16)
                if (transpose_vector<E>(src + so, dst + ro, x.n, y.n, y.s, x.r, large, kp)) return;
#endif
            transpose<E>(src + so, dst + ro, x.n, y.n, y.s, x.r, elem);
        });
        return;
    }
    for_each_offset(axes, k - 1, [&](Index so, Index ro) {
        line<E>(src + so, dst + ro, in.n, in.s, in.r, elem);
    });
}

// Strides of a dense stream in the element order of `axes`.
int stream_axes(const Region& reg, Index elem, bool replace_sender, Axis* out) {
    const int k = static_cast<int>(reg.axes.size());
    Index stride = elem;
    for (int a = k; a-- > 0;) {
        out[a] = reg.axes[static_cast<std::size_t>(a)];
        (replace_sender ? out[a].s : out[a].r) = stride;
        stride *= out[a].n;
    }
    return k;
}

} // namespace

void strided_copy_with(const KernelParams& kp, const std::byte* src, std::byte* dst,
                       const Axis* axes, int k, Index elem, Index whole) {
    switch (elem) {
    case 1:
        return copy_impl<1>(src, dst, axes, k, elem, whole, kp);
    case 2:
        return copy_impl<2>(src, dst, axes, k, elem, whole, kp);
    case 4:
        return copy_impl<4>(src, dst, axes, k, elem, whole, kp);
    case 8:
        return copy_impl<8>(src, dst, axes, k, elem, whole, kp);
    case 16:
        return copy_impl<16>(src, dst, axes, k, elem, whole, kp);
    default:
        return copy_impl<0>(src, dst, axes, k, elem, whole, kp);
    }
}

void strided_copy(const std::byte* src, std::byte* dst, const Axis* axes, int k, Index elem,
                  Index whole) {
    strided_copy_with(kernel_params(), src, dst, axes, k, elem, whole);
}

void strided_copy_reference(const std::byte* src, std::byte* dst, const Axis* axes, int k,
                            Index elem) {
    if (k == 0) {
        std::memcpy(dst, src, static_cast<std::size_t>(elem));
        return;
    }
    for_each_offset(axes, k, [&](Index so, Index ro) {
        std::memcpy(dst + ro, src + so, static_cast<std::size_t>(elem));
    });
}

std::vector<Axis> packed_axes(const Region& reg, Index elem, bool replace_sender) {
    std::vector<Axis> out(reg.axes.size());
    stream_axes(reg, elem, replace_sender, out.data());
    return out;
}

Index pack_region(const std::byte* src, const Region& reg, Index elem, std::byte* out,
                  Index whole) {
    Axis ax[max_axes];
    const int k = stream_axes(reg, elem, false, ax);
    strided_copy(src + reg.s_off, out, ax, k, elem, whole);
    return reg.elements() * elem;
}

Index unpack_region(const std::byte* in, const Region& reg, Index elem, std::byte* dst,
                    Index whole) {
    Axis ax[max_axes];
    const int k = stream_axes(reg, elem, true, ax);
    strided_copy(in, dst + reg.r_off, ax, k, elem, whole);
    return reg.elements() * elem;
}

void zero_region(std::byte* dst, const Region& reg, Index elem) {
    const int k = static_cast<int>(reg.axes.size());
    if (k > 0 && reg.axes.back().r == elem) {
        const auto bytes = static_cast<std::size_t>(reg.axes.back().n * elem);
        for_each_offset(reg.axes.data(), k - 1,
                        [&](Index, Index ro) { std::memset(dst + reg.r_off + ro, 0, bytes); });
        return;
    }
    for_each_offset(reg.axes.data(), k, [&](Index, Index ro) {
        std::memset(dst + reg.r_off + ro, 0, static_cast<std::size_t>(elem));
    });
}

} // namespace dri::core
