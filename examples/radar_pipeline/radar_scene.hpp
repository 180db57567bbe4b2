// What the radar sees and the serial reference of radar_pipeline.cpp: point
// targets under a known pattern, the matched filter, and the whole pipeline
// on one frame with FFTW. The same numbers on every rank, element by element,
// so that the distributed pipeline is checked against exactly its input.
#pragma once

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <numbers>
#include <type_traits>
#include <utility>
#include <vector>

namespace radar {

using cf = std::complex<float>;
using Index = std::int64_t;

inline fftwf_complex* fc(const cf* p) {
    return reinterpret_cast<fftwf_complex*>(const_cast<cf*>(p));
}

// An FFTW plan, destroyed with its owner.
struct PlanFree {
    void operator()(fftwf_plan p) const { fftwf_destroy_plan(p); }
};
using Plan = std::unique_ptr<std::remove_pointer_t<fftwf_plan>, PlanFree>;

// Point targets: range as a fraction of the swath, Doppler bin as a fraction
// of the pulses, amplitude.
struct Target {
    double range, doppler;
    float amp;
};
inline constexpr Target targets[] = {
    {0.20, 0.125, 1.0f}, {0.45, 0.75, 0.6f}, {0.70, 0.02, 0.8f}, {0.90, 0.5, 0.4f}};

// exp(2 pi i num / den), num reduced first so that the phase is as exact for
// the last pulse of a late frame as for the first.
inline cf phase(Index num, Index den) {
    const double a = 2 * std::numbers::pi * static_cast<double>(num % den);
    return static_cast<cf>(std::polar(1.0, a / static_cast<double>(den)));
}

// Frame k moves every target k Doppler bins: no two frames in flight alike.
inline cf frame_phase(int k, Index pulse, Index pulses) {
    return phase(k * pulse, pulses);
}

// The transmitted pulse: a linear FM chirp over an eighth of the swath.
inline std::vector<cf> chirp(Index range) {
    std::vector<cf> c(static_cast<std::size_t>(std::max<Index>(1, range / 8)));
    const auto n = static_cast<double>(c.size());
    for (std::size_t i = 0; i < c.size(); ++i)
        c[i] = static_cast<cf>(std::polar(1.0, std::numbers::pi * static_cast<double>(i * i) / n));
    return c;
}

// A known pattern under the echoes (a stand-in for noise and clutter): a
// hash of the cell, each component in [-1, 1).
inline cf pattern(Index p, Index r) {
    std::uint64_t x = static_cast<std::uint64_t>(p) * 0x9E3779B97F4A7C15ull ^
                      static_cast<std::uint64_t>(r) * 0xC2B2AE3D27D4EB4Full;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return {static_cast<float>((x & 0xFFFF) / 32768.0 - 1.0),
            static_cast<float>(((x >> 16) & 0xFFFF) / 32768.0 - 1.0)};
}

// The echoes of pulses [p0, p0 + rows) of a pulses x range frame, row-major,
// before the frame's own phase: computed once, so that a frame costs the
// producer one multiply per sample instead of a sum over targets.
inline std::vector<cf> echoes(Index pulses, Index range, Index p0, Index rows) {
    const std::vector<cf> c = chirp(range);
    std::vector<cf> buf(static_cast<std::size_t>(rows * range));
    cf* x = buf.data();
    for (Index p = 0; p < rows; ++p)
        for (Index r = 0; r < range; ++r)
            x[p * range + r] = 0.25f * pattern(p0 + p, r);
    for (const Target& t : targets) {
        const auto rt = static_cast<Index>(t.range * static_cast<double>(range));
        const auto fd = static_cast<Index>(t.doppler * static_cast<double>(pulses));
        for (Index p = 0; p < rows; ++p) {
            const cf d = t.amp * phase(fd * (p0 + p), pulses);
            for (std::size_t n = 0; n < c.size(); ++n)
                x[p * range + (rt + static_cast<Index>(n)) % range] += d * c[n];
        }
    }
    return buf;
}

// The matched filter's spectrum, conj(FFT(chirp)), with the inverse FFT's 1/R.
inline std::vector<cf> matched_filter(Index range) {
    std::vector<cf> h(static_cast<std::size_t>(range));
    const std::vector<cf> c = chirp(range);
    std::copy(c.begin(), c.end(), h.begin());
    const Plan p(fftwf_plan_dft_1d(static_cast<int>(range), fc(h.data()), fc(h.data()),
                                   FFTW_FORWARD, FFTW_ESTIMATE));
    fftwf_execute(p.get());
    for (cf& v : h)
        v = std::conj(v) / static_cast<float>(range);
    return h;
}

// The serial pipeline on frame k, whole, from scratch, with FFTW's batched
// (and, along pulses, strided) transforms: another path to the same numbers.
// Returns the sums of squares, over a consumer's columns [c0, c0 + cols) of
// the frame, of the difference from its Doppler map (those columns, each
// `stride` apart, pulses contiguous) and of the reference: summed over the
// consumers, the frame's relative error in the 2-norm, which a single range
// bin of noise gone wrong moves well above float rounding (a maximum
// norm would see only the targets' peaks).
inline std::pair<double, double> compare(Index pulses, Index range, int k, const cf* map,
                                         Index stride, Index c0, Index cols) {
    std::vector<cf> buf = echoes(pulses, range, 0, pulses);
    const std::vector<cf> filter = matched_filter(range);
    cf* x = buf.data();
    const int n = static_cast<int>(range), p = static_cast<int>(pulses);
    const Plan forward(fftwf_plan_many_dft(1, &n, p, fc(x), nullptr, 1, n, fc(x), nullptr, 1, n,
                                           FFTW_FORWARD, FFTW_ESTIMATE));
    const Plan inverse(fftwf_plan_many_dft(1, &n, p, fc(x), nullptr, 1, n, fc(x), nullptr, 1, n,
                                           FFTW_BACKWARD, FFTW_ESTIMATE));
    const Plan doppler(fftwf_plan_many_dft(1, &p, static_cast<int>(cols), fc(x + c0), nullptr, n, 1,
                                           fc(x + c0), nullptr, n, 1, FFTW_FORWARD, FFTW_ESTIMATE));
    for (Index i = 0; i < pulses; ++i) {
        const cf w = frame_phase(k, i, pulses);
        for (Index r = 0; r < range; ++r)
            x[i * range + r] *= w;
    }
    fftwf_execute(forward.get());
    for (Index i = 0; i < pulses * range; ++i)
        x[i] *= filter[static_cast<std::size_t>(i % range)];
    fftwf_execute(inverse.get());
    fftwf_execute(doppler.get());
    double diff = 0, ref = 0;
    for (Index j = 0; j < cols; ++j)
        for (Index d = 0; d < pulses; ++d) {
            const std::complex<double> want = x[d * range + c0 + j];
            ref += std::norm(want);
            diff += std::norm(want - static_cast<std::complex<double>>(map[j * stride + d]));
        }
    return {diff, ref};
}

} // namespace radar
