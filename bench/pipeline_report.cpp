// The report of --scenario pipeline and pipeline_turn: one table per
// measurement (latency, back to back, without work), what each derives
// (frames per second, overhead per piece) also recorded in the JSON.
#include "pipeline.hpp"

#include <cstdio>
#include <optional>

namespace dri::bench::pipe {

namespace {

const MethodResult* find(const RunResult& r, const std::string& name) {
    for (const MethodResult& m : r.methods)
        if (m.name == name) return &m;
    return nullptr;
}

// A method's piece count from its name (dri_pieces_8, mpi_pieces_8), or 0.
int pieces_of(const std::string& name) {
    for (const char* family : {"dri_pieces_", "mpi_pieces_"})
        if (name.rfind(family, 0) == 0) return std::stoi(name.substr(std::string(family).size()));
    return 0;
}

// Work 0: what each piece adds to a frame, (median - the whole frame's
// median) / pieces. The whole frame is dri_whole for dri and mpi_pieces_1
// (one message) for MPI.
std::optional<double> per_piece(const RunResult& r, const MethodResult& m) {
    const int n = pieces_of(m.name);
    if (n == 0) return std::nullopt;
    const bool dri = m.name.rfind("dri_", 0) == 0;
    if (!dri && n == 1) return std::nullopt;
    const MethodResult* whole = find(r, dri ? "dri_whole" : "mpi_pieces_1");
    if (!whole || whole->stats.median <= 0) return std::nullopt;
    return (m.stats.median - whole->stats.median) / n;
}

void print_table(const RunResult& r, bool overhead) {
    std::printf("  %-22s %9s %9s %9s %9s %10s %14s\n", "method (ms)", "median", "p99", "min", "max",
                overhead ? "" : "frames/s", overhead ? "per piece (us)" : "best mpi/this");
    for (const MethodResult& m : r.methods) {
        const Stats& s = m.stats;
        char last[32] = "-", fps[32] = "";
        if (overhead) {
            if (const auto v = per_piece(r, m)) std::snprintf(last, sizeof last, "%.1f", *v * 1e6);
        } else {
            if (m.ratio) std::snprintf(last, sizeof last, "%.2fx", *m.ratio);
            if (s.median > 0) std::snprintf(fps, sizeof fps, "%.1f", 1 / s.median);
        }
        std::printf("  %-22s %9.3f %9.3f %9.3f %9.3f %10s %14s\n", m.name.c_str(), s.median * 1e3,
                    s.p99 * 1e3, s.min * 1e3, s.max * 1e3, fps, last);
    }
}

nlohmann::json fps_json(const RunResult& r) {
    nlohmann::json j = nlohmann::json::object();
    for (const MethodResult& m : r.methods)
        if (m.stats.median > 0) j[m.name] = 1 / m.stats.median;
    return j;
}

} // namespace

void report(const Options& o, const Calibration& cal, RunResult& latency, RunResult* stream,
            RunResult& work0, int rank) {
    latency.extra = {{"kernel",
                      {{"passes", cal.passes},
                       {"a", {0, 1}},
                       {"b", {1, 2}},
                       {"automatic", cal.automatic},
                       {"whole_transfer_s", cal.transfer_s},
                       {"pass_s", cal.pass_s}}},
                     {"pieces", o.pieces},
                     {"frames_per_second", fps_json(latency)}};
    if (stream)
        stream->extra = {{"frames_per_rep", o.stream_frames},
                         {"buffers", o.buffers},
                         {"frames_per_second", fps_json(*stream)}};
    nlohmann::json per = nlohmann::json::object();
    for (const MethodResult& m : work0.methods)
        if (const auto v = per_piece(work0, m)) per[m.name] = *v;
    work0.extra = {{"kernel", {{"passes", 0}, {"touch", false}}}, {"overhead_per_piece_s", per}};
    if (rank != 0) return;

    const RunResult& r = latency;
    const bool turn = r.label == "pipeline_turn";
    std::printf("\n%s: %s %s, %.1f MiB a frame, %d ranks on %d node(s)%s\n", r.label.c_str(),
                r.spec.shape.c_str(), r.spec.type.c_str(), static_cast<double>(r.bytes) / 1048576.0,
                r.env.ranks, r.env.nodes,
                latency.wrong || work0.wrong || (stream && stream->wrong)
                    ? " -- WRONG DATA, see below"
                    : "");
    std::printf("  %s\n", turn
                              ? "every rank produces its rows, pieces splitting them, and consumes "
                                "its columns, pieces splitting them"
                              : "rank 0 produces each frame, rank 1 consumes it; pieces split the "
                                "rows on both sides");
    std::printf("  spec: %s%s\n", spec_flags(r.spec).c_str(),
                turn ? "" : " (senders: rank 0; receivers: rank 1)");
    std::printf("  kernel: %d passes of z <- a*z + b per element, a = i, b = 1 + 2i, producer and "
                "consumer alike",
                cal.passes);
    if (cal.automatic)
        std::printf(" (auto: the whole frame's transfer alone %.3f ms, one pass over the largest "
                    "producer block %.3f ms)",
                    cal.transfer_s * 1e3, cal.pass_s * 1e3);
    std::printf("\n");
    for (const Skipped& s : r.skipped)
        std::printf("  skipped %s: %s\n", s.name.c_str(), s.reason.c_str());
    std::printf("\n  frame latency: from the barrier before the first piece's work to the last "
                "piece consumed, slowest rank; %d reps\n",
                o.reps);
    print_table(latency, false);
    if (stream) {
        std::printf("\n  back to back: %d frames per rep, rings of %d buffers; time per frame, "
                    "frames/s = 1 / median\n",
                    o.stream_frames, o.buffers);
        print_table(*stream, false);
    }
    std::printf("\n  work 0, the moves alone (the producer marks each piece ready without writing "
                "it, the consumer waits for each without reading it); per piece = (median - the "
                "whole frame's) / pieces, whole = dri_whole (one DRI_Do) for dri, mpi_pieces_1 "
                "for MPI\n");
    print_table(work0, true);
    std::string verified;
    for (const MethodResult& m : r.methods) {
        // Setup is the slowest rank's declaration and commit: a split's cost
        // at commit, beside its cost per frame (work 0 above).
        if (!m.note.empty())
            std::printf("  %s: %s; declare and commit %.1f ms\n", m.name.c_str(), m.note.c_str(),
                        m.setup * 1e3);
        std::string wrong;
        for (const RunResult* x : {&latency, stream, &work0})
            if (const MethodResult* y = x ? find(*x, m.name) : nullptr;
                y && !y->error.empty() && wrong.empty())
                wrong = y->error; // the first measurement's: the others may follow from it
        if (!wrong.empty())
            std::printf("  %s delivered WRONG DATA: %s\n", m.name.c_str(), wrong.c_str());
        else
            verified += (verified.empty() ? "" : ", ") + m.name;
    }
    if (!verified.empty())
        std::printf("  verified (exact, every element of every consumer's receive buffer and "
                    "output, every frame; of a back-to-back rep the last; without work the "
                    "receive buffer): %s\n",
                    verified.c_str());
    std::fflush(stdout);
}

} // namespace dri::bench::pipe
