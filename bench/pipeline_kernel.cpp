#include "pipeline_kernel.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace dri::bench::pipe {

namespace {

volatile float a_re = 0.0f, a_im = 1.0f, b_re = 1.0f, b_im = 2.0f;

// Elements per tile: 512 complex floats, 4 KiB, stay in L1 through all the
// passes, so the kernel's cost is its arithmetic whatever the pass count,
// not memory bandwidth (which the transfer needs).
constexpr Index tile = 512;

// The input of global element g in frame `frame`: integers in [-1024, 1023]
// and [-512, 511]. The frame enters both parts, so a piece consumed before
// it arrived (still holding an earlier frame) fails the check. 32-bit
// arithmetic keeps the low bits the masks take and vectorizes.
float input_re(Index g, long long frame) {
    const auto v = static_cast<std::uint32_t>(g) * 7u + static_cast<std::uint32_t>(frame) * 13u;
    return static_cast<float>(static_cast<int>(v & 2047u) - 1024);
}

float input_im(Index g, long long frame) {
    const auto v = static_cast<std::uint32_t>(g) * 3u + static_cast<std::uint32_t>(frame) * 5u;
    return static_cast<float>(static_cast<int>(v & 1023u) - 512);
}

// The passes over one tile, interleaved re, im. The constants are copied
// into locals: stores through t could otherwise alias k and force reloads.
void run_passes(float* t, Index n, const Kernel& k) {
    const float ar = k.ar, ai = k.ai, br = k.br, bi = k.bi;
    for (int p = 0; p < k.passes; ++p)
        for (Index i = 0; i < n; ++i) {
            const float x = t[2 * i], y = t[2 * i + 1];
            t[2 * i] = x * ar - y * ai + br;
            t[2 * i + 1] = x * ai + y * ar + bi;
        }
}

} // namespace

Kernel make_kernel(int passes) {
    return Kernel{a_re, a_im, b_re, b_im, passes, true};
}

void produce(Cf* out, Index n, Index g0, long long frame, const Kernel& k) {
    if (!k.touch) return;
    alignas(64) float t[2 * tile];
    for (Index s = 0; s < n; s += tile) {
        const Index m = std::min(tile, n - s);
        for (Index i = 0; i < m; ++i) {
            t[2 * i] = input_re(g0 + s + i, frame);
            t[2 * i + 1] = input_im(g0 + s + i, frame);
        }
        run_passes(t, m, k);
        std::memcpy(out + s, t, static_cast<std::size_t>(m) * sizeof(Cf));
    }
}

void consume(const Cf* in, Cf* out, Index n, const Kernel& k) {
    if (!k.touch) return;
    alignas(64) float t[2 * tile];
    for (Index s = 0; s < n; s += tile) {
        const Index m = std::min(tile, n - s);
        std::memcpy(t, in + s, static_cast<std::size_t>(m) * sizeof(Cf));
        run_passes(t, m, k);
        std::memcpy(out + s, t, static_cast<std::size_t>(m) * sizeof(Cf));
    }
}

Cf expected(Index g, long long frame, int m) {
    const auto x = static_cast<long long>(input_re(g, frame));
    const auto y = static_cast<long long>(input_im(g, frame));
    // i^m z, then b (1 + i + ... + i^(m-1)) with b = 1 + 2i: the sum is 0,
    // 1, 1 + i, i for m = 0, 1, 2, 3 (mod 4), so the term is 0, 1 + 2i,
    // -1 + 3i, -2 + i.
    static constexpr long long rot[4][4] = {{1, 0, 0, 1},
                                            {0, -1, 1, 0},
                                            {-1, 0, 0, -1},
                                            {0, 1, -1, 0}}; // re = r0 x + r1 y, im = r2 x + r3 y
    static constexpr long long add[4][2] = {{0, 0}, {1, 2}, {-1, 3}, {-2, 1}};
    const auto q = static_cast<std::size_t>(m % 4);
    const long long re = rot[q][0] * x + rot[q][1] * y + add[q][0];
    const long long im = rot[q][2] * x + rot[q][3] * y + add[q][1];
    return {static_cast<float>(re), static_cast<float>(im)};
}

} // namespace dri::bench::pipe
