// Planning cost at scale: the planning core (no MPI) plans one rank of a
// P-process reorganization, as DRI_Commit does on every rank, and reports the
// time and the peak heap memory the plan needs.
//
//   plan_scale [--procs P] [--reps N] [--rank R]
//
// Scenarios: a 2-D corner turn (row blocks -> column blocks, columns stored
// contiguously) and a 3-D pencil reshape (x-pencils -> y-pencils), both as a
// clique (every process sends and receives). Heap use is counted by this
// program's operator new/delete, so the figure is the planner's own memory,
// not the process's resident set.
#include "core/distribution.hpp"
#include "core/layout.hpp"
#include "core/plan.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

namespace {

std::atomic<long long> g_live{0}, g_peak{0};

void note_alloc(std::size_t n) {
    const long long now = g_live += static_cast<long long>(n);
    long long peak = g_peak.load();
    while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
    }
}

} // namespace

// Every allocation carries its size in a 16-byte header so delete can count it.
void* operator new(std::size_t n) {
    void* p = std::malloc(n + 16);
    if (!p) throw std::bad_alloc();
    *static_cast<std::size_t*>(p) = n;
    note_alloc(n);
    return static_cast<char*>(p) + 16;
}
void operator delete(void* p) noexcept {
    if (!p) return;
    char* base = static_cast<char*>(p) - 16;
    g_live -= static_cast<long long>(*reinterpret_cast<std::size_t*>(base));
    std::free(base);
}
void operator delete(void* p, std::size_t) noexcept {
    operator delete(p);
}

namespace {

using namespace dri::core;
using Clock = std::chrono::steady_clock;

struct Result {
    double seconds_median = 0, seconds_min = 0;
    long long peak_bytes = 0;
    std::size_t sends = 0, recvs = 0, regions = 0;
};

Result run(const Side& send, const Side& recv, int rank, int reps) {
    Result res;
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        const long long base = g_live.load();
        g_peak = base;
        const auto t0 = Clock::now();
        LocalPlan plan = plan_local(send, recv, rank, rank);
        const auto t1 = Clock::now();
        t.push_back(std::chrono::duration<double>(t1 - t0).count());
        res.peak_bytes = std::max(res.peak_bytes, g_peak.load() - base);
        res.sends = plan.sends.size();
        res.recvs = plan.recvs.size();
        res.regions = plan.self.size();
        for (const auto& p : plan.sends)
            res.regions += p.regions.size();
        for (const auto& p : plan.recvs)
            res.regions += p.regions.size();
    }
    std::sort(t.begin(), t.end());
    res.seconds_median = t[t.size() / 2];
    res.seconds_min = t.front();
    return res;
}

void report(const char* scenario, int procs, int rank, const Result& r) {
    std::printf("{\"scenario\": \"%s\", \"procs\": %d, \"rank\": %d, \"peers_send\": %zu, "
                "\"peers_recv\": %zu, \"regions\": %zu, \"seconds_median\": %.6f, "
                "\"seconds_min\": %.6f, \"peak_heap_bytes\": %lld}\n",
                scenario, procs, rank, r.sends, r.recvs, r.regions, r.seconds_median, r.seconds_min,
                r.peak_bytes);
    std::fprintf(stderr, "%-12s P=%d rank %d: %zu sends, %zu receives, %.2f ms, peak %.2f MiB\n",
                 scenario, procs, rank, r.sends, r.recvs, r.seconds_median * 1e3,
                 static_cast<double>(r.peak_bytes) / (1 << 20));
}

int parse_int(const char* s, const char* what, long lo) {
    char* end = nullptr;
    const long v = std::strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > (1L << 30)) {
        std::fprintf(stderr, "plan_scale: bad %s '%s'\n", what, s);
        std::exit(2);
    }
    return static_cast<int>(v);
}

} // namespace

int main(int argc, char** argv) {
    int procs = 65536, reps = 5, rank = -1;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) {
            std::fprintf(stderr, "usage: plan_scale [--procs P] [--reps N] [--rank R]\n");
            return 2;
        }
        if (a == "--procs")
            procs = parse_int(argv[++i], "process count", 1);
        else if (a == "--reps")
            reps = parse_int(argv[++i], "repetition count", 1);
        else if (a == "--rank")
            rank = parse_int(argv[++i], "rank", 0);
        else {
            std::fprintf(stderr, "plan_scale: unknown option %s\n", a.c_str());
            return 2;
        }
    }
    if (rank < 0) rank = procs / 2 + 1;
    if (rank >= procs) rank = procs - 1;
    try {
        const ElementType cf32 = ElementType::predefined(ElemKind::complex_float);
        const ElementType f32 = ElementType::predefined(ElemKind::float32);
        {
            // Corner turn of a (4P) x (4P) complex matrix: row blocks, rows
            // contiguous -> column blocks, columns contiguous.
            const Index n = 4 * static_cast<Index>(procs);
            const Shape s({n, n}, cf32);
            const Distribution rows(s, {DimPartition::block(), DimPartition::whole()}, procs);
            const Distribution cols(s, {DimPartition::whole(), DimPartition::block()}, procs);
            report("corner_turn", procs, rank,
                   run({&rows, Layout::packed(2)}, {&cols, Layout::ordered({1, 0})}, rank, reps));
        }
        {
            // Pencil reshape of an n^3 float volume over a q x q grid with
            // q*q = P where possible: x-pencils (x whole) -> y-pencils.
            int q = 1;
            while ((q + 1) * (q + 1) <= procs)
                ++q;
            if (q * q != procs)
                std::fprintf(stderr, "pencil: %d is not a square, using %d x %d of it\n", procs, q,
                             q);
            const Index n = 4 * static_cast<Index>(q);
            const Shape s({n, n, n}, f32);
            const Distribution xp(
                s, {DimPartition::block(q), DimPartition::block(q), DimPartition::whole()}, q * q);
            const Distribution yp(
                s, {DimPartition::block(q), DimPartition::whole(), DimPartition::block(q)}, q * q);
            report("pencil", q * q, std::min(rank, q * q - 1),
                   run({&xp, Layout::packed(3)}, {&yp, Layout::ordered({0, 2, 1})},
                       std::min(rank, q * q - 1), reps));
        }
    } catch (const Error& e) {
        std::fprintf(stderr, "plan_scale: %s\n", e.what());
        return 1;
    }
    return 0;
}
