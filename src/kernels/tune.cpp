#include "kernels/tune.hpp"

#include "kernels/copy.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <vector>

namespace dri::core {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// 64-byte aligned memory, touched once so that page faults are not timed.
class Buffer {
  public:
    explicit Buffer(Index bytes) : raw_(new std::byte[static_cast<std::size_t>(bytes) + 64]) {
        const auto a = reinterpret_cast<std::uintptr_t>(raw_.get());
        data_ = raw_.get() + (64 - a % 64) % 64;
        std::memset(data_, 1, static_cast<std::size_t>(bytes));
    }
    std::byte* data() const { return data_; }

  private:
    std::unique_ptr<std::byte[]> raw_;
    std::byte* data_;
};

// A transpose of `rows` source rows of `cols` 8-byte elements, `pitch`
// bytes apart, into dense destination rows of `rows` elements: the copy of
// a corner turn (long rows) or of a pencil's slices (short rows).
struct Transpose {
    Index cols, rows, pitch;
    Index source_bytes() const { return rows * pitch; }
    Index bytes() const { return rows * cols * 8; }
};

// One word of every destination line, as a consumer's first pass would.
std::uint64_t read_lines(const std::byte* p, Index bytes) {
    std::uint64_t sum = 0;
    for (Index i = 0; i < bytes; i += 64) {
        std::uint64_t w;
        std::memcpy(&w, p + i, sizeof w);
        sum += w;
    }
    return sum;
}

struct Bench {
    const Buffer& src;
    const Buffer& dst;
    // A copy followed by a read of its destination, as a consumer reads
    // what arrived, run twice and the second timed: a transfer called in a
    // loop finds the caches as its own previous call left them, not as the
    // other candidate did (non-temporal stores evict the destination, and
    // timed right after them, stores through the cache pay misses that a
    // loop of their own would not).
    bool steady_read = false;
    volatile std::uint64_t last_read = 0; // keeps the read from being optimized away

    double run(const KernelParams& kp, const Transpose& t) {
        const std::array<Axis, 2> ax{Axis{t.rows, t.pitch, 8}, Axis{t.cols, 8, t.rows * 8}};
        const auto once = [&] {
            strided_copy_with(kp, src.data(), dst.data(), ax.data(), 2, 8);
            if (steady_read) last_read = read_lines(dst.data(), t.bytes());
        };
        if (steady_read) once();
        const auto t0 = Clock::now();
        once();
        return since(t0);
    }
};

// The candidates' times, three interleaved rounds (their order rotating
// from round to round: none always finds the caches as the same other left
// them); empty past the deadline. Appends the median times to `detail`.
std::vector<std::vector<double>> race(Bench& b, const std::vector<KernelParams>& cand,
                                      const Transpose& t, Clock::time_point deadline,
                                      const std::string& what, std::string& detail) {
    constexpr int rounds = 3;
    const std::size_t n = cand.size();
    std::vector<std::vector<double>> times(n);
    for (int r = 0; r < rounds; ++r)
        for (std::size_t i = 0; i < n; ++i) {
            if (Clock::now() > deadline) return {};
            const std::size_t k = (i + static_cast<std::size_t>(r)) % n;
            times[k].push_back(b.run(cand[k], t));
        }
    detail += (detail.empty() ? "" : "; ") + what + ":";
    for (std::vector<double> v : times) { // a copy: keep() reads the rounds in order
        std::sort(v.begin(), v.end());
        char ms[32];
        std::snprintf(ms, sizeof ms, " %.2f", v[v.size() / 2] * 1e3);
        detail += ms;
    }
    detail += " ms";
    return times;
}

// The race of the candidates, and the index of the one to keep; -1 past
// the deadline.
int fastest(Bench& b, const std::vector<KernelParams>& cand, const Transpose& t,
            Clock::time_point deadline, const std::string& what, std::string& detail) {
    const std::vector<std::vector<double>> times = race(b, cand, t, deadline, what, detail);
    return times.empty() ? -1 : keep(times);
}

// `p` with its member `field` set to each of `values` in turn.
std::vector<KernelParams> variants(KernelParams p, Index KernelParams::*field,
                                   std::initializer_list<Index> values) {
    std::vector<KernelParams> out;
    for (Index v : values) {
        p.*field = v;
        out.push_back(p);
    }
    return out;
}

// From a quarter of `data` up: stores through the cache against
// non-temporal stores, in steady state, until non-temporal stores win; -1
// when nothing was measured. `data` is twice this process's share of the
// last-level cache, so below a quarter of it a copy's source and
// destination together fit in that share and stay there from call to
// call: not measured, since a disturbed race there once chose non-temporal
// stores for 4 MiB copies, and every route of a 16 MiB reshape then took
// 1.3-1.7 times as long as with stores through the cache (Open MPI,
// 2026-11-29). Upwards, since the small sizes are cheap.
Index nt_threshold(Bench& b, KernelParams p, Index data, Clock::time_point deadline,
                   std::string& detail) {
    std::vector<NtRace> races;
    b.steady_read = true;
    for (Index bytes = data / 4; bytes <= data; bytes *= 2) {
        const Transpose t{2048, bytes / (2048 * 8), 2048 * 8};
        std::vector<KernelParams> cand{p, p};
        cand[0].nt_threshold = std::numeric_limits<Index>::max(); // through the cache
        cand[1].nt_threshold = 0;                                 // non-temporal
        const std::string what =
            "cached/non-temporal + read " + std::to_string(bytes >> 20) + " MiB";
        std::vector<std::vector<double>> times = race(b, cand, t, deadline, what, detail);
        if (times.empty()) break;
        races.push_back({bytes, std::move(times[0]), std::move(times[1])});
        if (keep({races.back().cached, races.back().non_temporal}) == 1) break;
    }
    b.steady_read = false;
    return nt_threshold_from(races);
}

} // namespace

int keep(const std::vector<std::vector<double>>& times) {
    std::size_t win = 0;
    double margin = 0.97;
    for (std::size_t k = 1; k < times.size(); ++k) {
        double worst = 0;
        for (std::size_t r = 0; r < times[k].size() && r < times[0].size(); ++r)
            worst = std::max(worst, times[k][r] / times[0][r]);
        if (worst < margin) {
            win = k;
            margin = worst;
        }
    }
    return static_cast<int>(win);
}

Index nt_threshold_from(const std::vector<NtRace>& races) {
    for (const NtRace& r : races)
        if (keep({r.cached, r.non_temporal}) == 1) return r.bytes;
    return races.empty() ? -1 : 2 * races.back().bytes;
}

Index last_level_cache() {
    Index best = 0;
    for (int i = 0; i < 8; ++i) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i);
        std::ifstream level(dir + "/level"), size(dir + "/size");
        int l = 0;
        std::string s;
        if (!(level >> l) || !(size >> s) || s.empty()) continue;
        const Index unit = s.back() == 'K' ? 1024 : s.back() == 'M' ? 1024 * 1024 : 1;
        const Index n = std::strtoll(s.c_str(), nullptr, 10) * unit;
        if (l >= 2 && n > best) best = n;
    }
    return best;
}

KernelTuning measure_kernel_params(double budget_seconds, Index data_bytes) {
    const auto t0 = Clock::now();
    const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(budget_seconds));
    KernelTuning out;
    if (budget_seconds <= 0) return out;
    // Long rows of 16 KiB (a corner turn); short rows of 512 bytes, 1 KiB
    // apart (a pencil's slices).
    const Index data = std::max<Index>(data_bytes, Index{1} << 20) >> 17 << 17;
    const Transpose long_rows{2048, data / (2048 * 8), 2048 * 8};
    const Transpose short_rows{64, data / 512, 1024};
    const Buffer src(std::max(long_rows.source_bytes(), short_rows.source_bytes()));
    const Buffer dst(data);
    Bench b{src, dst};
    KernelParams p;
    // The threshold first: where two processes measure at once the budget
    // may run out, and on this project's machine a wrong threshold cost a
    // 16 MiB reshape 1.5 times its time, a block size a few percent.
    const Index nt = nt_threshold(b, p, data, deadline, out.detail);
    std::vector<KernelParams> cand =
        variants(p, &KernelParams::block_source, {64 << 10, 32 << 10, 128 << 10, 256 << 10});
    int w = nt < 0 ? -1
                   : fastest(b, cand, long_rows, deadline, "block_source 64/32/128/256 KiB",
                             out.detail);
    if (w >= 0) p = cand[static_cast<std::size_t>(w)];
    if (w >= 0) {
        cand = variants(p, &KernelParams::max_block_rows, {64, 32, 128});
        w = fastest(b, cand, short_rows, deadline, "max_block_rows 64/32/128", out.detail);
    }
    if (w >= 0) p = cand[static_cast<std::size_t>(w)];
    if (nt >= 0) p.nt_threshold = nt;
    out.params = p;
    out.seconds = since(t0);
    return out;
}

} // namespace dri::core
