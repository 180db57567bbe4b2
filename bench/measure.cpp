#include "measure.hpp"

#include "probe.hpp"
#include "simulate.hpp"
#include "trace.hpp"

#include <cstdio>

namespace dri::bench {

namespace {

double slowest(double t, MPI_Comm comm) {
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
    return t;
}

long long largest(long long v, MPI_Comm comm) {
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_LONG_LONG, MPI_MAX, comm);
    return v;
}

// Calls a method with its rings cycled: the k-th call uses buffer k mod n.
struct Driver {
    Method& m;
    int calls = 0, n = 1;
    int next() const { return calls % n; }
    void call() { m.run(calls++ % n); }
};

// The slowest rank's time of one call; with a trace, each rank's row of it.
double timed_call(Driver& d, MPI_Comm comm, Trace* trace = nullptr, int rep = -1) {
    if (trace) trace->begin();
    MPI_Barrier(comm);
    if (trace) trace->start();
    const double t0 = MPI_Wtime();
    d.call();
    const double mine = MPI_Wtime() - t0;
    if (trace) trace->end(d.m.name, rep, mine);
    return slowest(mine, comm);
}

// The first mismatch on any rank, on every rank ("" when all are right).
std::string check(Driver& d, const Problem& pb, Rings& rings) {
    const int k = d.next();
    if (d.m.verify) {
        if (d.m.prepare) d.m.prepare(k);
    } else {
        rings.poison_recv(k);
    }
    d.call();
    std::string err;
    if (d.m.verify) {
        err = d.m.verify(k);
    } else if (pb.me_recv >= 0) {
        const auto& b = rings.recv[static_cast<std::size_t>(k)];
        err = test::check_receiver(*pb.rd, pb.rl, pb.me_recv, b.data(), pb.recv_bytes);
    }
    if (!err.empty()) err = "rank " + std::to_string(pb.rank) + ": " + err;
    int bad = err.empty() ? 0 : 1, first = bad ? pb.rank : pb.size;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, pb.comm);
    if (first == pb.size) return "";
    int len = static_cast<int>(err.size());
    MPI_Bcast(&len, 1, MPI_INT, first, pb.comm);
    err.resize(static_cast<std::size_t>(len));
    MPI_Bcast(err.data(), len, MPI_CHAR, first, pb.comm);
    return err;
}

// The method at place j of rep `rep` among n, with --rotate: rows of a
// Williams design, so that over a cycle (n reps for an even n, 2n for an odd
// one) every method runs right after every other equally often, and at
// every place equally often. A plain rotation would keep the same
// neighbours: a method that always follows the same other finds the caches
// (the same rings), the MPI library's queues and the CPU as that one left
// them, which made an AUTO running P2P right after P2P up to 15% faster
// than P2P itself.
std::size_t in_order(int rep, std::size_t j, std::size_t n) {
    const std::size_t cycle = n % 2 ? 2 * n : n, row = static_cast<std::size_t>(rep) % cycle;
    if (row >= n) j = n - 1 - j; // the odd design's mirrored rows
    // 0, 1, n-1, 2, n-2, ...: consecutive differences 1, -2, 3, -4, ... (mod n)
    const std::size_t base = j == 0 ? 0 : j % 2 ? (j + 1) / 2 : n - j / 2;
    return (base + row) % n;
}

} // namespace

std::vector<Timings> measure(std::vector<Method>& methods, const Problem& pb, Rings& rings,
                             const MeasureOptions& o) {
    std::vector<Timings> out(methods.size());
    std::vector<Driver> drivers;
    for (Method& m : methods)
        drivers.push_back({m, 0, rings.count()});
    for (std::size_t i = 0; i < methods.size(); ++i) {
        Timings& t = out[i];
        const Probe probe; // the first call's page faults are part of the plan's memory
        t.first = timed_call(drivers[i], pb.comm);
        const long long grew = probe.rss_growth();
        t.setup = slowest(methods[i].setup_seconds, pb.comm);
        t.heap = largest(methods[i].heap_bytes, pb.comm);
        t.rss = largest(grew < 0 || methods[i].rss_bytes < 0 ? -1 : grew + methods[i].rss_bytes,
                        pb.comm);
        for (int w = 0; w < o.warmup; ++w)
            drivers[i].call();
        if (methods[i].check) t.error = check(drivers[i], pb, rings);
    }
    Trace trace(o.trace, pb.comm);
    for (int rep = 0; rep < o.reps; ++rep) {
        if (o.progress && pb.rank == 0 && o.reps >= 10 && rep % (o.reps / 5) == 0)
            std::fprintf(stderr, "dri-bench: rep %d/%d\n", rep, o.reps);
        const std::size_t n = methods.size();
        for (std::size_t j = 0; j < n; ++j) {
            const std::size_t i = o.rotate ? in_order(rep, j, n) : j;
            out[i].reps.push_back(
                timed_call(drivers[i], pb.comm, trace.on() ? &trace : nullptr, rep));
        }
    }
    return out;
}

} // namespace dri::bench
