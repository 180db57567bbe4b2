// --scenario pipeline and pipeline_turn: builds the methods, chooses the
// work, times frames (latency, back to back, without work) interleaved rep
// by rep, and checks every timed frame against the oracle.
#include "pipeline.hpp"

#include "environment.hpp"
#include "pipeline_methods.hpp"
#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace dri::bench {

namespace {

using namespace pipe;

double slowest(double t, MPI_Comm comm) {
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
    return t;
}

double median_of(std::vector<double> v) {
    return Stats::of(std::move(v)).median;
}

// The first element of a consumer's block (`buf`, in its layout) that is not
// global element g of `frame` after m passes; "" when all are.
std::string check_block(const Geometry& g, const Cf* buf, long long frame, int m,
                        const char* what) {
    // Element (j, i) of the block, j the slow index: a row of the pipeline's
    // row-major frame, a column of the turn's column-major block.
    const Index slow = g.turn ? g.recv_cols : g.rows, fast = g.recv_unit();
    for (Index j = 0; j < slow; ++j)
        for (Index i = 0; i < fast; ++i) {
            const Index row = g.turn ? i : j, col = g.turn ? g.recv_col0 + j : i;
            const Cf& got = buf[j * fast + i];
            const Cf want = expected(row * g.cols + col, frame, m);
            if (got.re == want.re && got.im == want.im) continue;
            char b[256];
            std::snprintf(b, sizeof b,
                          "%s element (%lld, %lld) is (%g, %g), expected (%g, %g) of frame %lld",
                          what, static_cast<long long>(row), static_cast<long long>(col),
                          static_cast<double>(got.re), static_cast<double>(got.im),
                          static_cast<double>(want.re), static_cast<double>(want.im), frame);
            return b;
        }
    return "";
}

struct Bench {
    const Problem& pb;
    const Geometry geo;
    Frames& frames;
    PipeCatalog& cat;
    long long next_frame = 1; // every frame of the run has its own identity, the same on every rank
    // What each send buffer holds: the frame last produced into it and its
    // passes ({0, -1}: none yet). A frame without touch moves this.
    std::vector<std::pair<long long, int>> held =
        std::vector<std::pair<long long, int>>(static_cast<std::size_t>(frames.count()), {0, -1});

    // Runs `count` frames of method i back to back after a barrier and
    // returns the slowest rank's seconds; then checks the last frame: this
    // rank's receive buffer (the frame after the producer's passes) and its
    // output (after the consumer's too); without touch, the receive buffer
    // against what the send buffer held. Wrong data goes to `error` (the
    // first only) on every rank.
    double frames_of(std::size_t i, int count, const Kernel& k, std::string& error) {
        PipeMethod& m = cat.methods[i];
        long long frame = 0;
        int ring = -1;
        MPI_Barrier(pb.comm);
        const double t0 = MPI_Wtime();
        for (int f = 0; f < count; ++f) {
            frame = next_frame++;
            ring = m.run(frame, k);
            if (ring >= 0 && k.touch) held[static_cast<std::size_t>(ring)] = {frame, k.passes};
        }
        const double t = slowest(MPI_Wtime() - t0, pb.comm);
        std::string err;
        if (geo.recvs) {
            const auto [sent, passes] = held[static_cast<std::size_t>(ring)];
            if (passes >= 0)
                err = check_block(geo, frames.recv_at(ring), sent, passes, "receive buffer");
            if (err.empty() && k.touch)
                err = check_block(geo, frames.out(), frame, 2 * k.passes, "output");
            if (!err.empty()) err = "rank " + std::to_string(pb.rank) + ": " + err;
        }
        err = first_error(err, pb.rank, pb.comm);
        if (error.empty()) error = err;
        return t;
    }

    // Each rep runs every method once (`count` frames), in turn: drifts of
    // the machine spread over all methods alike. Seconds per frame.
    void phase(std::vector<Timings>& t, int reps, int count, const Kernel& k, const char* what) {
        for (int rep = 0; rep < reps; ++rep) {
            if (pb.rank == 0 && reps >= 10 && rep % (reps / 5) == 0)
                std::fprintf(stderr, "dri-bench: %s rep %d/%d\n", what, rep, reps);
            for (std::size_t i = 0; i < cat.methods.size(); ++i)
                t[i].reps.push_back(frames_of(i, count, k, t[i].error) / count);
        }
    }
};

// --work-passes: a number, or "auto": the passes that make the producer's
// kernel take about as long as the whole frame's transfer alone.
Calibration calibrate(const Context& c, const std::string& work) {
    Calibration cal;
    if (work != "auto") {
        cal.passes = std::stoi(work);
        return cal;
    }
    cal.automatic = true;
    std::string why;
    const auto t = make_transfer(c, "pipeline.calibrate", 0, why);
    if (!t) throw std::runtime_error("pipeline: the whole frame's transfer: " + why);
    std::vector<double> moves;
    for (int i = 0; i < 6; ++i) { // the first is cold
        MPI_Barrier(c.pb.comm);
        const double t0 = MPI_Wtime();
        if (c.geo.sends || c.geo.recvs) t->execute();
        if (i > 0) moves.push_back(slowest(MPI_Wtime() - t0, c.pb.comm));
    }
    cal.transfer_s = median_of(moves);
    // One pass: the producer's kernel with 8 passes less the same with none.
    double pass = 0;
    if (c.geo.sends) {
        std::vector<double> with, without;
        for (int i = 0; i < 3; ++i)
            for (int passes : {0, 8}) {
                const double t0 = MPI_Wtime();
                produce(c.frames.send_at(0), c.geo.send_elems(), c.geo.send_row0 * c.geo.cols, 0,
                        make_kernel(passes));
                (passes ? with : without).push_back(MPI_Wtime() - t0);
            }
        pass = std::max(0.0, (median_of(with) - median_of(without)) / 8);
    }
    cal.pass_s = slowest(pass, c.pb.comm);
    const double n = cal.pass_s > 0 ? std::round(cal.transfer_s / cal.pass_s) : 1;
    // At most 1000: on a small frame the transfer is per-call costs (or, on
    // an overloaded machine, scheduler ticks), which no work per element
    // should be scaled to.
    cal.passes = static_cast<int>(std::clamp(n, 1.0, 1000.0));
    return cal;
}

long long largest(long long v, MPI_Comm comm) {
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_LONG_LONG, MPI_MAX, comm);
    return v;
}

RunResult result(const std::string& label, const Problem& pb, const tools::SpecOptions& spec,
                 const Environment& env, const PipeCatalog& cat, const std::vector<Timings>& t,
                 const std::string& operation) {
    std::vector<Method> ms;
    for (const PipeMethod& m : cat.methods)
        ms.push_back(Method{m.name, m.kind, nullptr, true, m.note, m.setup_seconds, m.heap_bytes,
                            m.rss_bytes});
    RunResult r = summarise(label, pb, env, ms, t, cat.skipped);
    r.spec = spec;
    r.operation = operation;
    return r;
}

} // namespace

std::vector<RunResult> run_pipeline(const Options& o, const tools::SpecOptions& spec,
                                    MPI_Comm comm) {
    const bool turn = o.scenario == "pipeline_turn";
    int size = 0;
    MPI_Comm_size(comm, &size);
    if (!turn && size < 2)
        core::fail(core::Errc::arg, "pipeline needs 2 ranks: rank 0 produces, rank 1 consumes");
    // pipeline: the whole frame on rank 0, sent to rank 1 (the other ranks
    // idle); pipeline_turn: every rank on both sides.
    const Problem pb(spec, turn ? std::vector<int>{} : std::vector<int>{0},
                     turn ? std::vector<int>{} : std::vector<int>{1}, comm);
    if (pb.shape.ndims() != 2 || pb.elem() != static_cast<Index>(sizeof(Cf)))
        core::fail(core::Errc::arg, o.scenario + " needs a 2-D array of cfloat");
    const Environment env = environment(comm);
    const Geometry geo = geometry(pb, turn);
    Frames frames(geo, o.buffers, o.memory == "shared");
    const DriSides sides(pb);
    const Context c{pb, geo, frames, sides};
    const Calibration cal = calibrate(c, o.work_passes);
    PipeCatalog cat;
    cat.wanted = o.methods;
    for (int n : o.pieces)
        add_dri_pieces(cat, c, n);
    add_dri_whole(cat, c);
    for (int n : o.pieces)
        add_mpi_pieces(cat, c, n);

    Bench b{pb, geo, frames, cat};
    const std::size_t n = cat.methods.size();
    const Kernel work = make_kernel(cal.passes);
    Kernel idle = make_kernel(0);
    idle.touch = false;
    std::vector<Timings> latency(n), stream(n), work0(n);
    for (std::size_t i = 0; i < n; ++i) { // cold, then warm, every frame checked
        Timings& t = latency[i];
        t.first = b.frames_of(i, 1, work, t.error);
        for (int w = 0; w < o.warmup; ++w)
            b.frames_of(i, 1, work, t.error);
        t.setup = slowest(cat.methods[i].setup_seconds, comm);
        t.heap = largest(cat.methods[i].heap_bytes, comm);
        t.rss = largest(cat.methods[i].rss_bytes, comm);
    }
    b.phase(latency, o.reps, 1, work, "latency");
    if (o.stream_frames > 0) b.phase(stream, o.reps, o.stream_frames, work, "back-to-back");
    b.phase(work0, o.reps, 1, idle, "work 0");
    for (std::size_t i = 0; i < n; ++i)
        for (Timings* t : {&stream[i], &work0[i]}) {
            t->first = latency[i].first;
            t->setup = latency[i].setup;
            t->heap = latency[i].heap;
            t->rss = latency[i].rss;
        }

    std::vector<RunResult> out;
    out.push_back(result(o.scenario, pb, spec, env, cat, latency, "pipeline_latency"));
    if (o.stream_frames > 0)
        out.push_back(result(o.scenario, pb, spec, env, cat, stream, "pipeline_back_to_back"));
    out.push_back(result(o.scenario, pb, spec, env, cat, work0, "pipeline_latency_work0"));
    report(o, cal, out.front(), o.stream_frames > 0 ? &out[1] : nullptr, out.back(), pb.rank);
    return out;
}

} // namespace dri::bench
