// Radar pipeline: pulse compression, a corner turn that moves each frame in
// pieces while it is produced (issue 44), Doppler processing.
//
// The defaults are a quick check (ctest); a real size:
//
//   cd build/examples/radar_pipeline
//   mpiexec.mpich -n 2 ./radar_pipeline --pulses 1024 --range 4096 --frames 50 --pieces 32
//
// The first half of the ranks (at least one) are producers, the others
// consumers (one rank is both). A frame is a pulses x range complex-float
// data cube slice. Producers hold row blocks (pulses) and pulse-compress each
// range line with FFTW (FFT along range, times the matched filter's spectrum,
// inverse FFT), one piece (a group of pulses) at a time, and mark each piece
// ready as soon as it is done, so that it travels while the next is computed.
// Consumers hold column blocks (range bins) with pulses contiguous; their own
// split is along range, and each piece is Doppler-transformed (FFT along
// pulses, out of place: an arrived piece may be read, not written) as soon
// as it arrives. Both roles cycle rings of --buffers buffers.
//
// Two runs in the same process, over the same buffers: "pieces" (both sides
// split into --pieces pieces) and "whole frames" (no split: the producer
// fills the whole frame, then start() and wait()). Each run first goes
// through every frame checked, every consumer comparing its Doppler map with
// a serial FFTW computation of the whole frame's pipeline (relative error in
// the 2-norm over the frame at most 1e-4: float rounding gives 3e-7, one
// range bin of one frame gone wrong 4e-3 or more); this also warms buffers
// and plans. Then the same frames run twice more without the check, timed:
// one at a time (every rank waits in a barrier before each frame) and back
// to back.
//
// Latency of a frame: from the moment the first producer begins the frame's
// work (before start() with pieces; before compressing the frame without)
// to the moment the last consumer has processed its last piece. Each rank
// stamps with MPI_Wtime minus its clock's offset to rank 0's, estimated
// once from the fastest of several round trips (error below half a round
// trip: microseconds on one node); the earliest start and the latest end of
// each frame count. One at a time, it is the latency of an idle pipeline;
// back to back it includes the wait behind earlier frames. p50 and p99 are
// nearest-rank percentiles over the frames (p99 is the slowest frame below
// 100 frames). frames/s: the frames run back to back over the time between
// two barriers around them. Move exposed: from the last producer's end of
// compression to the moment the last consumer can begin transforming, what
// the corner turn adds to the latency (all of it without pieces; with
// pieces, what the last piece leaves). Compute: the time the slowest
// producer spent compressing and the slowest consumer transforming, per
// frame.
#include "radar_scene.hpp"

#include <dri/dri.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace radar;
// Node shared memory, page aligned: AUTO may pick the single copy, and FFTW
// finds its SIMD alignment at every row or column whose size keeps it.
using Buffer = std::vector<cf, dri::allocator<cf>>;
constexpr double tolerance = 1e-4;

struct Options {
    Index pulses = 64, range = 128, frames = 8, pieces = 32, buffers = 2;
    dri::Strategy strategy = dri::Strategy::automatic;
};

// The strategies that move pieces (dri.h, DRI_Transfer_set_pieces): p2p
// compares both runs on the same one (AUTO may pick SHARED for whole frames).
constexpr std::pair<const char*, dri::Strategy> strategies[] = {{"auto", dri::Strategy::automatic},
                                                                {"p2p", dri::Strategy::p2p}};

const char* strategy_name(dri::Strategy s) {
    constexpr const char* names[] = {"auto",    "alltoallw", "packed", "p2p",
                                     "measure", "shared",    "hybrid", "nodes"};
    const auto i = static_cast<std::size_t>(s);
    return i < std::size(names) ? names[i] : "?";
}

[[noreturn]] void usage(int rank) {
    if (rank == 0)
        std::fprintf(stderr, "usage: radar_pipeline [--pulses P] [--range R] [--frames F] "
                             "[--pieces N] [--buffers 2|3] [--strategy auto|p2p]\n"
                             "  (P at least the producers, R at least the consumers)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
    std::exit(2);
}

Options parse(int argc, char** argv, int rank, int producers, int consumers) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) usage(rank);
        const char* v = argv[++i];
        Index* n = a == "--pulses"    ? &o.pulses
                   : a == "--range"   ? &o.range
                   : a == "--frames"  ? &o.frames
                   : a == "--pieces"  ? &o.pieces
                   : a == "--buffers" ? &o.buffers
                                      : nullptr;
        bool known = n != nullptr;
        if (n) *n = std::atoll(v);
        for (const auto& [name, value] : strategies)
            if (a == "--strategy" && std::strcmp(v, name) == 0) {
                known = true;
                o.strategy = value;
            }
        if (!known) usage(rank);
    }
    // Every block holds at least one pulse and one range bin; FFTW takes int sizes.
    const Index most = std::numeric_limits<int>::max();
    if (o.pulses < producers || o.range < consumers || std::max(o.pulses, o.range) > most ||
        o.frames < 1 || o.frames > 1000000 || o.pieces < 1 || o.pieces > DRI_MAX_PIECES ||
        o.buffers < 2 || o.buffers > 3)
        usage(rank);
    return o;
}

// A 1-D transform of n points, run on any array whose alignment matches the
// plan's: SIMD-aligned when every array it will see starts at a multiple of
// `step` elements from a page (FFTW_UNALIGNED otherwise).
Plan line_plan(Index n, int sign, bool in_place, Index step) {
    const bool aligned = step * static_cast<Index>(sizeof(cf)) % 64 == 0;
    auto* a = static_cast<cf*>(fftwf_malloc(2 * static_cast<std::size_t>(n) * sizeof(cf)));
    Plan plan(fftwf_plan_dft_1d(static_cast<int>(n), fc(a), fc(in_place ? a : a + n), sign,
                                FFTW_ESTIMATE | (aligned ? 0u : FFTW_UNALIGNED)));
    fftwf_free(a);
    return plan;
}

// ---- the two stages --------------------------------------------------------

struct Producer {
    dri::BlockInfo block;
    std::vector<Buffer> ring;
    std::vector<cf> raw, filter;
    Plan forward, inverse;
    Index p0 = 0, rows = 0, R = 0, P = 0;

    // Pulse-compresses pulses [lo, hi) (local) of frame k into buf, in place.
    void compress(cf* buf, int k, Index lo, Index hi) const {
        for (Index p = lo; p < hi; ++p) {
            cf* row = buf + p * block.strides[0];
            const cf* x = raw.data() + p * R;
            const cf w = frame_phase(k, p0 + p, P);
            for (Index r = 0; r < R; ++r)
                row[r] = x[r] * w;
            fftwf_execute_dft(forward.get(), fc(row), fc(row));
            for (Index r = 0; r < R; ++r)
                row[r] *= filter[static_cast<std::size_t>(r)];
            fftwf_execute_dft(inverse.get(), fc(row), fc(row));
        }
    }
};

struct Consumer {
    dri::BlockInfo block;
    std::vector<Buffer> ring;
    Buffer doppler_map; // column-major, as the receive block
    Plan doppler;
    Index c0 = 0, cols = 0;

    // The Doppler FFT of range bins [lo, hi) (local) of buf into the map.
    void transform(const cf* buf, Index lo, Index hi) {
        const Index s = block.strides[1];
        for (Index j = lo; j < hi; ++j)
            fftwf_execute_dft(doppler.get(), fc(buf + j * s), fc(doppler_map.data() + j * s));
    }
};

// This rank's MPI_Wtime minus rank 0's, by Cristian's algorithm: of several
// round trips to rank 0, the fastest bounds the error by half its time.
double clock_offset(int rank, int size) {
    double offset = 0, best = std::numeric_limits<double>::infinity();
    for (int r = 1; r < size; ++r)
        for (int i = 0; i < 32; ++i) {
            const double t0 = MPI_Wtime();
            double t = 0;
            if (rank == 0) {
                MPI_Recv(&t, 1, MPI_DOUBLE, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                t = MPI_Wtime();
                MPI_Send(&t, 1, MPI_DOUBLE, r, 0, MPI_COMM_WORLD);
            } else if (rank == r) {
                MPI_Sendrecv(&t0, 1, MPI_DOUBLE, 0, 0, &t, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                const double t1 = MPI_Wtime();
                if (t1 - t0 < best) best = t1 - t0, offset = (t0 + t1) / 2 - t;
            }
        }
    return offset;
}

// How a pass runs the frames: each checked after it completes; one at a
// time, every rank waiting in a barrier before each (the latency of a frame
// on an idle pipeline); back to back (throughput, and latency under load:
// a producer may then run ahead of the consumers as far as the strategy
// lets it, P2P's small messages as far as MPI buffers them).
enum class Mode { check, one_at_a_time, back_to_back };

// A pass through every frame: stamps per frame (on rank 0's clock: the
// first producer's start, the last producer's end of compression, the
// moment the last consumer can begin transforming, the last consumer's end),
// the time each stage computed, and, when checking, each frame's sums of
// squares of the error and of the reference.
struct Pass {
    std::vector<double> start, compressed, available, end, diff, ref;
    double produce = 0, doppler = 0, seconds = 0;
};

Pass run(dri::Transfer& t, bool split, Mode mode, const Options& o, Producer* prod, Consumer* cons,
         double offset) {
    const auto F = static_cast<std::size_t>(o.frames);
    constexpr double inf = std::numeric_limits<double>::infinity();
    Pass s;
    s.start.assign(F, inf), s.end.assign(F, -inf), s.diff.assign(F, 0), s.ref.assign(F, 0);
    s.compressed.assign(F, -inf), s.available.assign(F, -inf);
    auto now = [offset] { return MPI_Wtime() - offset; };
    // Each piece's local range, asked once: the loop below is the hot path.
    // A role never split is one piece, its whole block: all its pulses, all
    // its range bins (DRI_Transfer_piece gives the extent of dimension 0).
    std::vector<std::pair<Index, Index>> sp, rp;
    if (prod && !split) sp.emplace_back(0, prod->rows);
    if (cons && !split) rp.emplace_back(0, cons->cols);
    for (int k = 0; split && prod && k < t.pieces(dri::Role::send).second; ++k)
        sp.push_back(t.piece(dri::Role::send, k));
    for (int k = 0; split && cons && k < t.pieces(dri::Role::recv).second; ++k)
        rp.push_back(t.piece(dri::Role::recv, k));

    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int k = 0; k < o.frames; ++k) {
        const auto f = static_cast<std::size_t>(k);
        if (mode == Mode::one_at_a_time) MPI_Barrier(MPI_COMM_WORLD);
        // This frame's buffers: the current ones when it starts.
        cf* sb =
            prod ? prod->ring[static_cast<std::size_t>(t.current_send_buffer())].data() : nullptr;
        const cf* rb =
            cons ? cons->ring[static_cast<std::size_t>(t.current_recv_buffer())].data() : nullptr;
        // With pieces: start, then each piece marked as soon as it is
        // compressed and transformed as soon as it arrives. Without: the
        // whole frame compressed, moved (start, wait), then transformed.
        if (prod) s.start[f] = now();
        if (split) t.start();
        for (std::size_t i = 0; i < sp.size(); ++i) {
            const double w = now();
            prod->compress(sb, k, sp[i].first, sp[i].second);
            s.produce += now() - w;
            if (split) t.ready(static_cast<int>(i));
        }
        if (prod) s.compressed[f] = now();
        if (!split) {
            t.start();
            t.wait();
        }
        for (std::size_t i = 0; i < rp.size(); ++i) {
            if (split) t.wait_piece(static_cast<int>(i));
            const double w = now();
            if (i == 0) s.available[f] = w;
            cons->transform(rb, rp[i].first, rp[i].second);
            s.doppler += now() - w;
        }
        if (cons) s.end[f] = now();
        if (split) t.wait();
        if (mode == Mode::check && cons) {
            const auto [diff, ref] = compare(o.pulses, o.range, k, cons->doppler_map.data(),
                                             cons->block.strides[1], cons->c0, cons->cols);
            s.diff[f] = diff, s.ref[f] = ref;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    s.seconds = MPI_Wtime() - t0;
    const int n = static_cast<int>(o.frames);
    MPI_Allreduce(MPI_IN_PLACE, s.start.data(), n, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    for (std::vector<double>* v : {&s.compressed, &s.available, &s.end})
        MPI_Allreduce(MPI_IN_PLACE, v->data(), n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, s.diff.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, s.ref.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &s.produce, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &s.doppler, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return s;
}

// The worst relative error (2-norm over the frame) of a checked pass.
double worst(const Pass& s) {
    double e = 0;
    for (std::size_t f = 0; f < s.diff.size(); ++f)
        e = std::max(e, std::sqrt(s.ref[f] > 0 ? s.diff[f] / s.ref[f] : s.diff[f]));
    return e;
}

// The q-quantile over the frames of the time from one stamp to another, in
// ms (nearest rank).
double quantile(const std::vector<double>& from, const std::vector<double>& to, double q) {
    std::vector<double> lat;
    for (std::size_t f = 0; f < from.size(); ++f)
        lat.push_back(1e3 * (to[f] - from[f]));
    std::sort(lat.begin(), lat.end());
    const auto r = static_cast<std::size_t>(std::ceil(q * static_cast<double>(lat.size())));
    return lat[std::max<std::size_t>(r, 1) - 1];
}

// One line per run: latency one frame at a time, then back to back; the
// time the corner turn adds to the latency (from the end of compression to
// the first transform: the move of the whole frame, or of what the last
// piece leaves); the compute time of each stage.
void report(const std::string& what, const dri::Transfer& t, const Pass& one, const Pass& load) {
    const auto frames = static_cast<double>(one.start.size());
    std::printf("%-13s %-8s %7.2f %7.2f %8.2f %7.2f %8.1f %8.2f %7.2f %7.2f\n", what.c_str(),
                strategy_name(t.chosen_strategy()), quantile(one.start, one.end, 0.5),
                quantile(one.start, one.end, 0.99), quantile(load.start, load.end, 0.5),
                quantile(load.start, load.end, 0.99), frames / load.seconds,
                quantile(one.compressed, one.available, 0.5), 1e3 * one.produce / frames,
                1e3 * one.doppler / frames);
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int nprod = std::max(1, size / 2), ncons = size == 1 ? 1 : size - nprod;
    const Options o = parse(argc, argv, rank, nprod, ncons);
    int rc = 0;
    try {
        dri::Session session;
        std::vector<int> producers, consumers;
        for (int r = 0; r < size; ++r) {
            if (r < nprod) producers.push_back(r);
            if (size == 1 || r >= nprod) consumers.push_back(r);
        }
        const dri::Group pgroup(MPI_COMM_WORLD, producers), cgroup(MPI_COMM_WORLD, consumers);
        const dri::GlobalData cube({o.pulses, o.range}, dri::Type::complex_float);
        const dri::Layout rows_contiguous = dri::Layout::packed(2);
        const dri::Layout pulses_contiguous = dri::Layout::ordered({1, 0});
        const auto nb = static_cast<std::size_t>(o.buffers);

        // The buffers outlive the transfers. Two transfers over the same
        // rings: one split into pieces on both sides, one not; they are
        // never in flight at once.
        std::optional<Producer> prod;
        std::optional<Consumer> cons;
        dri::Transfer pieces("radar pieces"), whole("radar whole frames");
        if (pgroup.contains_me()) {
            const dri::Distribution rows(
                cube, dri::Partition({dri::DimPart::block(), dri::DimPart::whole()}), pgroup);
            Producer& p = prod.emplace();
            p.block = rows.block(rows_contiguous);
            p.p0 = p.block.owned_first[0], p.rows = p.block.local_extent[0];
            p.R = o.range, p.P = o.pulses;
            p.ring.assign(nb, Buffer(static_cast<std::size_t>(p.block.elements())));
            p.raw = echoes(o.pulses, o.range, p.p0, p.rows);
            p.filter = matched_filter(o.range);
            p.forward = line_plan(o.range, FFTW_FORWARD, true, p.block.strides[0]);
            p.inverse = line_plan(o.range, FFTW_BACKWARD, true, p.block.strides[0]);
            for (dri::Transfer* t : {&pieces, &whole})
                t->send(rows, rows_contiguous, p.ring);
            // Pieces of the producers: groups of pulses.
            pieces.pieces(dri::Role::send, 0, static_cast<int>(o.pieces));
        }
        if (cgroup.contains_me()) {
            const dri::Distribution cols(
                cube, dri::Partition({dri::DimPart::whole(), dri::DimPart::block()}), cgroup);
            Consumer& c = cons.emplace();
            c.block = cols.block(pulses_contiguous);
            c.c0 = c.block.owned_first[1], c.cols = c.block.local_extent[1];
            c.ring.assign(nb, Buffer(static_cast<std::size_t>(c.block.elements())));
            c.doppler_map.resize(static_cast<std::size_t>(c.block.elements()));
            c.doppler = line_plan(o.pulses, FFTW_FORWARD, false, c.block.strides[1]);
            for (dri::Transfer* t : {&pieces, &whole})
                t->recv(cols, pulses_contiguous, c.ring);
            // The consumers' own split: groups of range bins.
            pieces.pieces(dri::Role::recv, 1, static_cast<int>(o.pieces));
        }
        for (dri::Transfer* t : {&pieces, &whole})
            t->strategy(o.strategy);
        dri::commit(MPI_COMM_WORLD, {&pieces, &whole});
        const double offset = clock_offset(rank, size);

        Producer* pp = prod ? &*prod : nullptr;
        Consumer* cp = cons ? &*cons : nullptr;
        const double error_pieces = worst(run(pieces, true, Mode::check, o, pp, cp, offset));
        const double error_whole = worst(run(whole, false, Mode::check, o, pp, cp, offset));
        Pass one[2], load[2];
        for (int split = 1; split >= 0; --split) {
            dri::Transfer& t = split ? pieces : whole;
            one[split] = run(t, split, Mode::one_at_a_time, o, pp, cp, offset);
            load[split] = run(t, split, Mode::back_to_back, o, pp, cp, offset);
        }
        const bool ok = std::max(error_pieces, error_whole) <= tolerance;
        if (rank == 0) {
            using ll = long long;
            std::printf("radar_pipeline: %lld pulses x %lld range bins, complex float, %d "
                        "producer(s) -> %d consumer(s)%s, %lld frames, rings of %lld\n",
                        ll{o.pulses}, ll{o.range}, nprod, ncons, size == 1 ? " (one rank)" : "",
                        ll{o.frames}, ll{o.buffers});
            std::printf("%23s%-16s%-26s%-9s%s\n", "", "latency ms,", "latency ms,", "move ms,",
                        "compute ms/frame");
            std::printf("%23s%-16s%-26s%s\n", "", "one frame", "back to back", "exposed");
            std::printf("%-13s %-8s %7s %7s %8s %7s %8s %8s %7s %7s\n", "run", "strategy", "p50",
                        "p99", "p50", "p99", "frames/s", "p50", "compr.", "doppler");
            report("pieces " + std::to_string(o.pieces), pieces, one[1], load[1]);
            report("whole frames", whole, one[0], load[0]);
            std::printf("check: all %lld frames of each run against serial FFTW, largest relative "
                        "error %.2e with pieces, %.2e whole (tolerance %.0e): %s\n",
                        ll{o.frames}, error_pieces, error_whole, tolerance,
                        ok ? "verified" : "WRONG");
        }
        rc = ok ? 0 : 1;
    } catch (const dri::Error& e) {
        std::fprintf(stderr, "rank %d: dri error %d: %s\n", rank, static_cast<int>(e.code()),
                     e.what());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fftwf_cleanup();
    MPI_Finalize();
    return rc;
}
