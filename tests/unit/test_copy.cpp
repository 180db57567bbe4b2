#include "kernels/copy.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>

using namespace dri::core;

namespace {

// Random non-overlapping destination layout: a random permutation of the
// axes gets dense strides; the source gets another permutation with gaps.
struct Case {
    std::vector<Axis> axes;
    Index elem;
    Index src_bytes, dst_bytes;
};

Case draw(std::mt19937_64& rng) {
    auto uni = [&](Index lo, Index hi) {
        return std::uniform_int_distribution<Index>(lo, hi)(rng);
    };
    Case c;
    const Index elems[] = {1, 2, 3, 4, 7, 8, 16, 24};
    c.elem = elems[uni(0, 7)];
    const int k = static_cast<int>(uni(0, 4));
    c.axes.resize(static_cast<std::size_t>(k));
    // At most ~40k elements: long axes only when there are few of them.
    const Index max_n = k <= 2 ? 200 : (k == 3 ? 30 : 14);
    for (auto& a : c.axes)
        a.n = uni(1, max_n);
    auto dense = [&](bool gaps, bool is_src) {
        std::vector<int> order(static_cast<std::size_t>(k));
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        Index stride = c.elem * (gaps ? uni(1, 2) : 1);
        for (int o : order) {
            Axis& a = c.axes[static_cast<std::size_t>(o)];
            (is_src ? a.s : a.r) = stride;
            stride *= a.n + (gaps ? uni(0, 2) : 0);
        }
        return stride + c.elem;
    };
    c.src_bytes = dense(true, true);
    c.dst_bytes = dense(uni(0, 1) == 1, false);
    // Sometimes a replicated source axis (stride 0).
    if (k > 0 && uni(0, 9) == 0) c.axes[static_cast<std::size_t>(uni(0, k - 1))].s = 0;
    return c;
}

} // namespace

TEST_CASE("strided_copy equals the element-by-element reference") {
    std::mt19937_64 rng(12345);
    for (int i = 0; i < 3000; ++i) {
        const Case c = draw(rng);
        std::vector<std::byte> src(static_cast<std::size_t>(c.src_bytes));
        for (std::size_t b = 0; b < src.size(); ++b)
            src[b] = static_cast<std::byte>(rng());
        std::vector<std::byte> a(static_cast<std::size_t>(c.dst_bytes), std::byte{0xCD}), b = a;
        strided_copy(src.data(), a.data(), c.axes.data(), static_cast<int>(c.axes.size()), c.elem);
        strided_copy_reference(src.data(), b.data(), c.axes.data(), static_cast<int>(c.axes.size()),
                               c.elem);
        INFO("case " << i << ", elem " << c.elem << ", axes " << c.axes.size());
        REQUIRE(a == b);
    }
}

TEST_CASE("pack then unpack is a copy") {
    Region reg;
    reg.s_off = 8;
    reg.r_off = 4;
    reg.axes = {{5, 8, 4 * 7},
                {7, 8 * 5, 4}}; // a 5x7 transpose of 4-byte elements (sender stride 8: gaps)
    std::vector<std::byte> src(8 + 8 * 5 * 7 + 8), dst(4 + 4 * 7 * 5 + 4, std::byte{0}),
        direct = dst;
    for (std::size_t i = 0; i < src.size(); ++i)
        src[i] = static_cast<std::byte>(i * 7 + 1);
    std::vector<std::byte> stream(static_cast<std::size_t>(reg.elements() * 4));
    CHECK(pack_region(src.data(), reg, 4, stream.data()) == 5 * 7 * 4);
    CHECK(unpack_region(stream.data(), reg, 4, dst.data()) == 5 * 7 * 4);
    copy_region(src.data(), direct.data(), reg, 4);
    CHECK(dst == direct);
    CHECK(packed_axes(reg, 4, false) == std::vector<Axis>{{5, 8, 28}, {7, 40, 4}});
}

TEST_CASE(
    "large transposes (vector kernels, non-temporal stores, ragged edges) equal the reference") {
    struct Free {
        void operator()(std::byte* p) const { std::free(p); }
    };
    for (Index e : {4, 8, 16, 12}) {
        for (auto [nx, ny] :
             {std::pair<Index, Index>{1027, 1031}, {1024, 1024}, {3, 2000}, {4100, 520}, {9, 17}}) {
            const auto bytes = static_cast<std::size_t>((nx * ny * e + 64 + 16 + 63) / 64 *
                                                        64); // aligned_alloc: a multiple of 64
            std::unique_ptr<std::byte, Free> src(
                static_cast<std::byte*>(std::aligned_alloc(64, bytes)));
            std::unique_ptr<std::byte, Free> a(
                static_cast<std::byte*>(std::aligned_alloc(64, bytes)));
            std::unique_ptr<std::byte, Free> b(
                static_cast<std::byte*>(std::aligned_alloc(64, bytes)));
            for (std::size_t i = 0; i < bytes; ++i)
                src.get()[i] = static_cast<std::byte>(i * 131 + i / 251);
            std::memset(a.get(), 0xCD, bytes);
            std::memset(b.get(), 0xCD, bytes);
            // Source row-major nx fastest (x contiguous); destination y fastest.
            // Source and destination start on a line, one element after it, or
            // 16 bytes after it as a std::vector's do (the kernels then peel
            // rows or columns to work on whole lines).
            const Axis axes[2] = {{nx, e, ny * e}, {ny, nx * e, e}};
            for (auto [soff, off] : {std::pair<Index, Index>{0, 0}, {0, e}, {e, 0}, {16, 16}}) {
                strided_copy(src.get() + soff, a.get() + off, axes, 2, e);
                strided_copy_reference(src.get() + soff, b.get() + off, axes, 2, e);
                INFO("elem " << e << ", " << nx << " x " << ny << ", offsets " << soff << " "
                             << off);
                CHECK(std::memcmp(a.get(), b.get(), bytes) == 0);
            }
        }
    }
}

// A copy whose 2-D slices or runs are small but whose total is over the
// kernels' non-temporal threshold (4 MiB) streams its stores: every byte of
// the destination, the bytes between the runs included, must equal the
// reference's, from line-aligned and misaligned starts.
TEST_CASE("large copies of small slices and runs (non-temporal stores) equal the reference") {
    struct Free {
        void operator()(std::byte* p) const { std::free(p); }
    };
    auto block = [](std::size_t bytes) {
        return std::unique_ptr<std::byte, Free>(
            static_cast<std::byte*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64)));
    };
    struct Shape {
        Index elem;
        std::vector<Axis> axes;
        Index src_bytes, dst_bytes;
    };
    const std::vector<Shape> shapes = {
        // A pencil: 260 slices of a 67 x 69 float transpose, rows 1 KiB apart.
        {4,
         {{260, 1024 * 80, 1024 * 80}, {67, 1024, 4}, {69, 4, 1024}},
         260 * 1024 * 80,
         260 * 1024 * 80},
        // The same with 8- and 16-byte elements (fewer slices, same bytes).
        {8,
         {{130, 2048 * 80, 2048 * 80}, {67, 2048, 8}, {69, 8, 2048}},
         130 * 2048 * 80,
         130 * 2048 * 80},
        {16,
         {{65, 4096 * 80, 4096 * 80}, {67, 4096, 16}, {69, 16, 4096}},
         65 * 4096 * 80,
         65 * 4096 * 80},
        // A slab reshape: runs of 1000 bytes read 2 KiB apart (eight at a time,
        // 6 rows left over), written densely...
        {8,
         {{70, 2048 * 64, 1000 * 64}, {64, 2048, 1000}, {125, 8, 8}},
         70 * 2048 * 64,
         70 * 1000 * 64},
        // ...and its mirror, runs written 2 KiB apart.
        {8,
         {{70, 1000 * 64, 2048 * 64}, {64, 1000, 2048}, {125, 8, 8}},
         70 * 1000 * 64,
         70 * 2048 * 64},
        // Few outer rows: the runs are read eight at a time along the second
        // axis (4 rows left over); then with destination rows whose eighths
        // are not equally aligned, one run at a time.
        {8,
         {{5, 2048 * 1100, 1024 * 1100}, {1100, 2048, 1024}, {125, 8, 8}},
         5 * 2048 * 1100,
         5 * 1024 * 1100},
        {8,
         {{5, 2048 * 1100, 1000 * 1100}, {1100, 2048, 1000}, {125, 8, 8}},
         5 * 2048 * 1100,
         5 * 1000 * 1100},
        // Runs of exactly 256 bytes (the shortest streamed) of 1-byte elements,
        // and runs of 200 bytes (copied with memcpy) of 2-byte elements.
        {1, {{17000, 300, 256}, {256, 1, 1}}, 17000 * 300, 17000 * 256},
        {2, {{22000, 256, 200}, {100, 2, 2}}, 22000 * 256, 22000 * 200},
    };
    for (const Shape& sh : shapes) {
        Index total = sh.elem;
        for (const Axis& a : sh.axes)
            total *= a.n;
        REQUIRE(total >= Index{4} << 20);
        const auto sbytes = static_cast<std::size_t>(sh.src_bytes + 64);
        const auto dbytes = static_cast<std::size_t>(sh.dst_bytes + 64);
        auto src = block(sbytes), a = block(dbytes), b = block(dbytes);
        for (std::size_t i = 0; i < sbytes; ++i)
            src.get()[i] = static_cast<std::byte>(i * 131 + i / 251);
        for (auto [soff, doff] : {std::pair<Index, Index>{0, 0}, {0, sh.elem}, {3 * sh.elem, 0}}) {
            std::memset(a.get(), 0xCD, dbytes);
            std::memset(b.get(), 0xCD, dbytes);
            const int k = static_cast<int>(sh.axes.size());
            strided_copy(src.get() + soff, a.get() + doff, sh.axes.data(), k, sh.elem);
            strided_copy_reference(src.get() + soff, b.get() + doff, sh.axes.data(), k, sh.elem);
            INFO("elem " << sh.elem << ", axes " << k << ", offsets " << soff << " " << doff);
            CHECK(std::memcmp(a.get(), b.get(), dbytes) == 0);
        }
    }
}
