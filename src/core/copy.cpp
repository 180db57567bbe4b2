#include "copy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#define DRI_X86_KERNELS 1
#endif

namespace dri::core {

namespace {

constexpr int max_axes = 2 * max_dims;

// Calls f(source offset, destination offset) for every index of `axes`.
template <class F>
void for_each_offset(const Axis* axes, int k, F&& f) {
    if (k == 0) {
        f(Index{0}, Index{0});
        return;
    }
    Index idx[max_axes] = {};
    Index so = 0, ro = 0;
    for (;;) {
        f(so, ro);
        int a = k;
        while (a-- > 0) {
            so += axes[a].s;
            ro += axes[a].r;
            if (++idx[a] < axes[a].n) break;
            so -= axes[a].s * axes[a].n;
            ro -= axes[a].r * axes[a].n;
            idx[a] = 0;
        }
        if (a < 0) return;
    }
}

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
// Vector transposes for the common element sizes (AVX2 / SSE, chosen at run
// time): 4x4 blocks of 8-byte elements, 2x2 of 16-byte, 4x4 of 4-byte, in
// tiles of 32 x 32 elements. Large copies use non-temporal stores when the
// destination is aligned, like memcpy, so the destination is not read first.
// They return false when the CPU or the shape does not suit them.
constexpr Index vtile = 32;
constexpr Index nt_threshold = Index{4} << 20;

bool has_avx2() {
    static const bool yes = __builtin_cpu_supports("avx2");
    return yes;
}

// Visits the step x step blocks of an nx x ny transpose tile by tile; the
// body is expanded inside each target-specific function so it is inlined.
#define DRI_FOR_EACH_BLOCK(nx, ny, step, ...)                                                      \
    for (Index y0 = 0; y0 + (step) <= (ny); y0 += vtile) {                                         \
        const Index y1 = std::min((ny) - (ny) % (step), y0 + vtile);                               \
        for (Index x0 = 0; x0 + (step) <= (nx); x0 += vtile) {                                     \
            const Index x1 = std::min((nx) - (nx) % (step), x0 + vtile);                           \
            for (Index x = x0; x < x1; x += (step))                                                \
                for (Index y = y0; y < y1; y += (step))                                            \
                    __VA_ARGS__                                                                    \
        }                                                                                          \
    }

__attribute__((target("avx2"))) void transpose8_avx2(const std::byte* s, std::byte* d, Index nx,
                                                     Index ny, Index sy, Index dx, bool nt) {
    DRI_FOR_EACH_BLOCK(nx, ny, 4, {
        const std::byte* p = s + x * 8 + y * sy;
        const __m256d r0 = _mm256_loadu_pd(reinterpret_cast<const double*>(p));
        const __m256d r1 = _mm256_loadu_pd(reinterpret_cast<const double*>(p + sy));
        const __m256d r2 = _mm256_loadu_pd(reinterpret_cast<const double*>(p + 2 * sy));
        const __m256d r3 = _mm256_loadu_pd(reinterpret_cast<const double*>(p + 3 * sy));
        const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
        const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
        const __m256d o[4] = {
            _mm256_permute2f128_pd(t0, t2, 0x20), _mm256_permute2f128_pd(t1, t3, 0x20),
            _mm256_permute2f128_pd(t0, t2, 0x31), _mm256_permute2f128_pd(t1, t3, 0x31)};
        std::byte* q = d + x * dx + y * 8;
        for (int i = 0; i < 4; ++i) {
            auto* out = reinterpret_cast<double*>(q + i * dx);
            if (nt)
                _mm256_stream_pd(out, o[i]);
            else
                _mm256_storeu_pd(out, o[i]);
        }
    })
    if (nt) _mm_sfence();
}

__attribute__((target("avx2"))) void transpose16_avx2(const std::byte* s, std::byte* d, Index nx,
                                                      Index ny, Index sy, Index dx, bool nt) {
    DRI_FOR_EACH_BLOCK(nx, ny, 2, {
        const std::byte* p = s + x * 16 + y * sy;
        const __m256d r0 = _mm256_loadu_pd(reinterpret_cast<const double*>(p)); // (x,y) (x+1,y)
        const __m256d r1 =
            _mm256_loadu_pd(reinterpret_cast<const double*>(p + sy)); // (x,y+1) (x+1,y+1)
        const __m256d o0 = _mm256_permute2f128_pd(r0, r1, 0x20),
                      o1 = _mm256_permute2f128_pd(r0, r1, 0x31);
        auto* q0 = reinterpret_cast<double*>(d + x * dx + y * 16);
        auto* q1 = reinterpret_cast<double*>(d + (x + 1) * dx + y * 16);
        if (nt) {
            _mm256_stream_pd(q0, o0);
            _mm256_stream_pd(q1, o1);
        } else {
            _mm256_storeu_pd(q0, o0);
            _mm256_storeu_pd(q1, o1);
        }
    })
    if (nt) _mm_sfence();
}

void transpose4_sse(const std::byte* s, std::byte* d, Index nx, Index ny, Index sy, Index dx,
                    bool nt) {
    DRI_FOR_EACH_BLOCK(nx, ny, 4, {
        const std::byte* p = s + x * 4 + y * sy;
        __m128 r0 = _mm_loadu_ps(reinterpret_cast<const float*>(p));
        __m128 r1 = _mm_loadu_ps(reinterpret_cast<const float*>(p + sy));
        __m128 r2 = _mm_loadu_ps(reinterpret_cast<const float*>(p + 2 * sy));
        __m128 r3 = _mm_loadu_ps(reinterpret_cast<const float*>(p + 3 * sy));
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        const __m128 o[4] = {r0, r1, r2, r3};
        std::byte* q = d + x * dx + y * 4;
        for (int i = 0; i < 4; ++i) {
            auto* out = reinterpret_cast<float*>(q + i * dx);
            if (nt)
                _mm_stream_ps(out, o[i]);
            else
                _mm_storeu_ps(out, o[i]);
        }
    })
    if (nt) _mm_sfence();
}

template <Index E>
void transpose(const std::byte* s, std::byte* d, Index nx, Index ny, Index sy, Index dx,
               Index elem);

// A whole transpose with the vector kernels; false when they do not apply.
// The first `peel` destination columns (y) are done apart so that, when the
// destination rows are equally aligned, the vector stores are aligned and
// large copies can use non-temporal stores.
bool transpose_vector(const std::byte* s, std::byte* d, Index nx, Index ny, Index sy, Index dx,
                      Index e) {
    const Index step = e == 16 ? 2 : 4;
    const bool avx = has_avx2();
    if (!((e == 8 && avx) || (e == 16 && avx) || e == 4)) return false;
    const Index align = e == 4 ? 16 : 32;
    const auto addr = static_cast<Index>(reinterpret_cast<std::uintptr_t>(d) %
                                         static_cast<std::uintptr_t>(align));
    Index peel = 0;
    bool nt = false;
    if (nx * ny * e >= nt_threshold && dx % align == 0 && addr % e == 0) {
        peel = ((align - addr) % align) / e;
        nt = true;
    }
    if (nx < step || ny - peel < step) return false;
    if (peel > 0) transpose<0>(s, d, nx, peel, sy, dx, e);
    s += peel * sy;
    d += peel * e;
    ny -= peel;
    if (e == 8)
        transpose8_avx2(s, d, nx, ny, sy, dx, nt);
    else if (e == 16)
        transpose16_avx2(s, d, nx, ny, sy, dx, nt);
    else
        transpose4_sse(s, d, nx, ny, sy, dx, nt);
    const Index bx = nx - nx % step, by = ny - ny % step; // ragged edges
    if (bx < nx) transpose<0>(s + bx * e, d + bx * dx, nx - bx, ny, sy, dx, e);
    if (by < ny) transpose<0>(s + by * sy, d + by * e, bx, ny - by, sy, dx, e);
    return true;
}
#undef DRI_FOR_EACH_BLOCK
#endif

template <Index E>
void copy_impl(const std::byte* src, std::byte* dst, const Axis* axes, int k, Index elem) {
    const Index e = E ? E : elem;
    if (k == 0) {
        std::memcpy(dst, src, static_cast<std::size_t>(e));
        return;
    }
    const Axis& in = axes[k - 1];
    if (in.s == e && in.r == e) { // contiguous on both sides
        const auto bytes = static_cast<std::size_t>(in.n * e);
        for_each_offset(axes, k - 1,
                        [&](Index so, Index ro) { std::memcpy(dst + ro, src + so, bytes); });
        return;
    }
    int ax = -1, ay = -1; // axes contiguous in the source / in the destination
    for (int a = 0; a < k; ++a) {
        if (ax < 0 && axes[a].s == e) ax = a;
        if (ay < 0 && axes[a].r == e) ay = a;
    }
    if (ax >= 0 && ay >= 0 && ax != ay) {
        Axis rest[max_axes];
        int nr = 0;
        for (int a = 0; a < k; ++a)
            if (a != ax && a != ay) rest[nr++] = axes[a];
        const Axis& x = axes[ax];
        const Axis& y = axes[ay];
        for_each_offset(rest, nr, [&](Index so, Index ro) {
#if DRI_X86_KERNELS
            if ((E == 4 || E == 8 || E == 16) &&
                transpose_vector(src + so, dst + ro, x.n, y.n, y.s, x.r, e))
                return;
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

void strided_copy(const std::byte* src, std::byte* dst, const Axis* axes, int k, Index elem) {
    switch (elem) {
    case 1:
        return copy_impl<1>(src, dst, axes, k, elem);
    case 2:
        return copy_impl<2>(src, dst, axes, k, elem);
    case 4:
        return copy_impl<4>(src, dst, axes, k, elem);
    case 8:
        return copy_impl<8>(src, dst, axes, k, elem);
    case 16:
        return copy_impl<16>(src, dst, axes, k, elem);
    default:
        return copy_impl<0>(src, dst, axes, k, elem);
    }
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

Index pack_region(const std::byte* src, const Region& reg, Index elem, std::byte* out) {
    Axis ax[max_axes];
    const int k = stream_axes(reg, elem, false, ax);
    strided_copy(src + reg.s_off, out, ax, k, elem);
    return reg.elements() * elem;
}

Index unpack_region(const std::byte* in, const Region& reg, Index elem, std::byte* dst) {
    Axis ax[max_axes];
    const int k = stream_axes(reg, elem, true, ax);
    strided_copy(in, dst + reg.r_off, ax, k, elem);
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
