// The expert baseline's copy kernel: a box of elements from one strided
// layout to another. When both sides are contiguous along the same
// dimension it copies runs; otherwise it walks the box in square tiles
// over the two dimensions that are contiguous in source and destination,
// so that both stay in L1 while the tile is transposed (cache blocking).
#pragma once

#include "core/shape.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace dri::bench {

using core::Index;

struct BoxCopy {
    std::vector<Index> count, src_stride, dst_stride; // elements, per dimension
};

// The dimension with the smallest stride among those with count > 1.
inline int fastest(const BoxCopy& b, const std::vector<Index>& stride) {
    int best = -1;
    for (std::size_t d = 0; d < b.count.size(); ++d)
        if (b.count[d] > 1 && (best < 0 || stride[d] < stride[static_cast<std::size_t>(best)]))
            best = static_cast<int>(d);
    return best;
}

// Calls f(src offset, dst offset) in elements for each position of the
// dimensions other than a and b.
template <class F>
void for_outer(const BoxCopy& b, int a, int c, F&& f) {
    const std::size_t nd = b.count.size();
    std::vector<Index> idx(nd, 0);
    Index so = 0, dof = 0;
    for (;;) {
        f(so, dof);
        std::size_t d = nd;
        while (d-- > 0) {
            if (static_cast<int>(d) == a || static_cast<int>(d) == c) continue;
            if (++idx[d] < b.count[d]) {
                so += b.src_stride[d];
                dof += b.dst_stride[d];
                break;
            }
            so -= (b.count[d] - 1) * b.src_stride[d];
            dof -= (b.count[d] - 1) * b.dst_stride[d];
            idx[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1)) return;
    }
}

// Elements [i0, i1) x [j0, j1) of a (source-contiguous) x c (destination-
// contiguous), 4 x 4 at a time, the ragged edges one by one.
template <class T>
void transpose_tile(const T* __restrict src, T* __restrict dst, Index i0, Index i1, Index j0,
                    Index j1, Index sa, Index sc, Index da, Index dc) {
    const Index i4 = i0 + (i1 - i0) / 4 * 4, j4 = j0 + (j1 - j0) / 4 * 4;
    for (Index i = i0; i < i4; i += 4)
        for (Index j = j0; j < j4; j += 4) {
            T blk[4][4];
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 4; ++x)
                    blk[x][y] = src[(i + x) * sa + (j + y) * sc];
            for (int x = 0; x < 4; ++x)
                for (int y = 0; y < 4; ++y)
                    dst[(i + x) * da + (j + y) * dc] = blk[x][y];
        }
    for (Index i = i0; i < i1; ++i) // the ragged edges
        for (Index j = (i < i4 ? j4 : j0); j < j1; ++j)
            dst[i * da + j * dc] = src[i * sa + j * sc];
}

template <class T>
void copy_box(const T* __restrict src, T* __restrict dst, const BoxCopy& b) {
    const int a = fastest(b, b.src_stride), c = fastest(b, b.dst_stride);
    if (a < 0) { // a single element
        *dst = *src;
        return;
    }
    const auto ua = static_cast<std::size_t>(a), uc = static_cast<std::size_t>(c);
    const Index n = b.count[ua], sa = b.src_stride[ua], da = b.dst_stride[ua];
    if (a == c) { // runs along the same dimension
        for_outer(b, a, a, [&](Index so, Index dof) {
            if (sa == 1 && da == 1) {
                std::memcpy(dst + dof, src + so, static_cast<std::size_t>(n) * sizeof(T));
                return;
            }
            for (Index i = 0; i < n; ++i)
                dst[dof + i * da] = src[so + i * sa];
        });
        return;
    }
    // A transposition of a x c inside each outer position, tile by tile
    // (tile rows of 256 bytes: both tiles stay in L1), each tile by 4 x 4
    // register blocks read along the source's contiguous dimension and
    // written along the destination's. Square power-of-two strides alias in
    // the cache; the small register blocks keep few lines live per set.
    constexpr Index tile = std::max<Index>(16, 256 / static_cast<Index>(sizeof(T)));
    const Index m = b.count[uc], sc = b.src_stride[uc], dc = b.dst_stride[uc];
    for_outer(b, a, c, [&](Index so, Index dof) {
        for (Index j0 = 0; j0 < m; j0 += tile)
            for (Index i0 = 0; i0 < n; i0 += tile) {
                const Index i1 = std::min(n, i0 + tile), j1 = std::min(m, j0 + tile);
                transpose_tile(src + so, dst + dof, i0, i1, j0, j1, sa, sc, da, dc);
            }
    });
}

} // namespace dri::bench
