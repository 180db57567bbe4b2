#include "options.hpp"

#include "core/error.hpp"
#include "core/spec.hpp"

#include <CLI/CLI.hpp>
#include <dri/dri.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace dri::bench {

namespace {

const std::vector<std::string> strategy_list{"alltoallw", "packed", "p2p",  "shared",
                                             "hybrid",    "nodes",  "auto", "measure"};
// The method families of --scenario pipeline and pipeline_turn.
const std::vector<std::string> pipeline_methods{"dri_pieces", "dri_whole", "mpi_pieces"};

std::vector<std::string> method_names() {
    std::vector<std::string> out;
    for (const std::string& s : strategy_list)
        out.push_back("dri_" + s);
    for (const char* m : {"mpi_alltoallw_subarray", "naive_pack_alltoallv", "expert_pack_alltoallv",
                          "scalapack_pxgemr2d", "memcpy_bound", "dri_reverse_sum",
                          "expert_halo_isend_irecv", "dri_ptrans"})
        out.emplace_back(m);
    for (const std::string& m : pipeline_methods)
        out.push_back(m);
    return out;
}

// --work-passes: "auto" or a count.
std::string check_passes(const std::string& text) {
    if (text == "auto") return "";
    std::size_t end = 0;
    int v = -1;
    try {
        v = std::stoi(text, &end);
    } catch (const std::exception&) {
        end = 0;
    }
    return end == text.size() && v >= 0 && v <= 100000 ? "" : "not auto or a count in 0..100000";
}

void add_pipeline_options(CLI::App& app, Options& o, const std::string& group) {
    app.add_option("--pieces", o.pieces,
                   "--scenario pipeline/pipeline_turn: the piece counts timed, each split on "
                   "both sides (dri_pieces_N, mpi_pieces_N)")
        ->delimiter(',')
        ->check(CLI::Range(1, DRI_MAX_PIECES))
        ->capture_default_str()
        ->group(group);
    app.add_option("--work-passes", o.work_passes,
                   "--scenario pipeline/pipeline_turn: passes of z <- a*z + b per element, on "
                   "the producer and on the consumer; auto: the producer's work about the "
                   "whole frame's transfer time")
        ->check(CLI::Validator([](std::string& text) { return check_passes(text); }, "auto|N",
                               "passes"))
        ->capture_default_str()
        ->group(group);
    app.add_option("--stream-frames", o.stream_frames,
                   "--scenario pipeline/pipeline_turn: frames of each back-to-back rep (0: no "
                   "back-to-back measurement)")
        ->check(CLI::Range(0, 100000))
        ->capture_default_str()
        ->group(group);
}

void add_bench_options(CLI::App& app, Options& o) {
    const std::string run = "Measurement";
    app.add_option("--scenario", o.scenario,
                   "a named reorganization instead of --send/--recv: corner_turn, pencil, "
                   "cyclic, halo (flags: see the header of a run); reverse_halo times the "
                   "reverse (SUM) of a wrapped halo exchange: halo cells added back into "
                   "their owners (type double); ptrans times HPCC's PTRANS, C := A' + C "
                   "block-cyclic on a --grid PxQ with --nb blocks, in one transfer (type double); "
                   "pipeline and pipeline_turn time the latency of a frame that moves as it is "
                   "produced, in pieces (type cfloat)")
        ->check(CLI::IsMember({"corner_turn", "pencil", "cyclic", "halo", "reverse_halo", "ptrans",
                               "pipeline", "pipeline_turn"}))
        ->group(run);
    app.add_option("--grid", o.grid,
                   "process grid PxQ for --scenario ptrans (default: the most square one, P <= Q)")
        ->group(run);
    app.add_option("--nb", o.nb, "block size for --scenario ptrans")
        ->check(CLI::Range(1LL, 1000000000LL))
        ->capture_default_str()
        ->group(run);
    app.add_option("--halo", o.halo,
                   "halo rows on each side for --scenario halo (default 8) and reverse_halo "
                   "(default 2)")
        ->check(CLI::Range(1, 1000000000))
        ->group(run);
    app.add_option("--size", o.spec.shape, "same as --shape (older name)")->group("");
    app.add_option("--send-ranks", o.send_ranks,
                   "ranks of the sending side, e.g. 0,1 (default 0..procs-1)")
        ->group("Reorganization");
    app.add_option("--recv-ranks", o.recv_ranks, "ranks of the receiving side, e.g. 2,3")
        ->group("Reorganization");
    app.add_option("--strategies", o.strategies,
                   "DRI strategies to time: alltoallw packed p2p shared hybrid nodes auto measure")
        ->delimiter(',')
        ->check(CLI::IsMember(strategy_list))
        ->capture_default_str()
        ->group(run);
    app.add_option("--methods", o.methods,
                   "only these methods, e.g. dri_p2p,expert_pack_alltoallv,memcpy_bound "
                   "(default: every one)")
        ->delimiter(',')
        ->check(CLI::IsMember(method_names()))
        ->group(run);
    app.add_option("--reps", o.reps, "timed reorganizations per method")
        ->check(CLI::Range(1, 1000000000))
        ->capture_default_str()
        ->group(run);
    app.add_option("--warmup", o.warmup, "untimed calls per method after the first (cold) one")
        ->check(CLI::Range(0, 1000000000))
        ->capture_default_str()
        ->group(run);
    app.add_flag("--rotate", o.rotate,
                 "vary the methods' order from rep to rep so that each runs right after every "
                 "other equally often (a Williams design), not always after the same one (whose "
                 "caches it would find warm or cold)")
        ->group(run);
    app.add_option("--buffers", o.buffers, "buffers per ring, cycled as in real use")
        ->check(CLI::Range(1, 64))
        ->capture_default_str()
        ->group(run);
    app.add_option("--memory", o.memory,
                   "send buffers: shared (dri::SharedMemory, DRI_Alloc_mem), allocator "
                   "(std::vector with dri::allocator), owned (rings the transfer allocates; "
                   "other methods use the heap) or heap (64-byte aligned); the first three "
                   "give the single copy. vector: both sides plain std::vector memory, as "
                   "users pass it")
        ->check(CLI::IsMember({"shared", "allocator", "owned", "heap", "vector"}))
        ->capture_default_str()
        ->group(run);
    app.add_option("--sweep", o.sweep,
                   "none; sizes (the shape halved per dimension, --sweep-steps times, "
                   "smallest first); ranks-per-node (1, 2, ... ranks of each node)")
        ->check(CLI::IsMember({"none", "sizes", "ranks-per-node"}))
        ->capture_default_str()
        ->group(run);
    app.add_option("--sweep-steps", o.sweep_steps, "sizes in a size sweep")
        ->check(CLI::Range(1, 12))
        ->capture_default_str()
        ->group(run);
    app.add_option("--combine", o.combine,
                   "none; sum, max or min: the receivers combine what arrives into their "
                   "buffers (DRI_Transfer_set_combine; C += A' with sum). Times the DRI "
                   "strategies only, each checked against the combining oracle first")
        ->check(CLI::IsMember({"none", "sum", "max", "min"}))
        ->capture_default_str()
        ->group(run);
    add_pipeline_options(app, o, run);
    app.add_flag("--count-messages", o.count_messages,
                 "after timing, one more call of each method with the PMPI message counter "
                 "on: the messages all processes asked MPI for, within and between nodes")
        ->group("Output");
    app.add_option("--json", o.json, "write the results as JSON (one document)")->group("Output");
    app.add_option("--csv", o.csv, "write the results as CSV (one row per method)")
        ->group("Output");
    app.add_option("--trace", o.trace,
                   "write every timed rep of every method, per rank, as CSV: its time split "
                   "around the MPI calls (before the first wait: packing; in MPI; after: "
                   "unpacking), its page faults and context switches, and the machine's "
                   "compaction and huge-page counters over the rep")
        ->group("Output");
}

// The pipeline scenarios choose their ranks, methods and type; their
// options apply to them only.
void check_pipeline(const CLI::App& app, Options& o) {
    const bool pipeline = is_pipeline_scenario(o.scenario);
    const std::string sc = "--scenario " + o.scenario;
    for (const char* flag : {"--pieces", "--work-passes", "--stream-frames"})
        if (app.count(flag) && !pipeline)
            throw CLI::ValidationError(flag, "applies to --scenario pipeline and pipeline_turn");
    for (const std::string& m : o.methods)
        if (pipeline != (std::find(pipeline_methods.begin(), pipeline_methods.end(), m) !=
                         pipeline_methods.end()))
            throw CLI::ValidationError(
                "--methods", pipeline ? sc + " has the methods dri_pieces, dri_whole, mpi_pieces"
                                      : m + " belongs to --scenario pipeline and pipeline_turn");
    if (!pipeline) return;
    for (const char* flag : {"--send-ranks", "--recv-ranks", "--send-procs", "--recv-procs",
                             "--strategies", "--combine", "--trace", "--count-messages"})
        if (app.count(flag))
            throw CLI::ValidationError(flag, sc + " chooses its ranks and methods itself");
    if (o.sweep != "none") throw CLI::ValidationError("--sweep", "not with " + sc);
    if (o.memory != "shared" && o.memory != "heap")
        throw CLI::ValidationError("--memory", sc + " sends from shared or heap memory");
    if (o.spec.type != "cfloat") throw CLI::ValidationError("--type", sc + " moves cfloat only");
    std::sort(o.pieces.begin(), o.pieces.end());
    o.pieces.erase(std::unique(o.pieces.begin(), o.pieces.end()), o.pieces.end());
    if (!app.count("--buffers")) o.buffers = 2; // as a pipeline runs: one frame made, one read
}

// DRI_BENCH_MAX_REPS=N caps --reps and --warmup at N: the docs test runs
// every documented command to prove it works, and its timings are not read.
// The run says so, so that a capped run is never taken for a measurement.
void cap_reps(Options& o, int rank) {
    const char* env = std::getenv("DRI_BENCH_MAX_REPS");
    if (!env || !*env) return;
    const int cap = std::atoi(env);
    if (cap < 1 || (o.reps <= cap && o.warmup <= cap)) return;
    if (rank == 0)
        std::fprintf(stderr,
                     "dri-bench: DRI_BENCH_MAX_REPS=%d caps --reps %d and --warmup %d: a smoke "
                     "run, not a measurement\n",
                     cap, o.reps, o.warmup);
    o.reps = std::min(o.reps, cap);
    o.warmup = std::min(o.warmup, cap);
}

} // namespace

int parse_options(int argc, char** argv, int rank, Options& o) {
    CLI::App app("dri-bench: times one reorganization with every method (the DRI strategies and "
                 "the baselines), same run, each checked against the oracle first",
                 "dri-bench");
    o.spec.type = "cfloat";
    tools::add_spec_options(app, o.spec, "every rank", "every rank");
    add_bench_options(app, o);
    app.set_version_flag("--version", "dri-bench (dri) " + dri::version().to_string(),
                         "print the version of the libdri loaded and exit");
    for (const char* flag : {"--send", "--recv", "--send-order", "--recv-order", "--send-pad",
                             "--recv-pad", "--send-strides", "--recv-strides"})
        app.get_option("--scenario")->excludes(flag);
    for (int i = 0; i < argc; ++i)
        o.argv.emplace_back(argv[i]);
    try {
        app.parse(argc, argv);
        if (o.spec.send.empty() != o.spec.recv.empty())
            throw CLI::ValidationError("--send and --recv", "give both, or a --scenario");
        if (o.sweep == "ranks-per-node" && !(o.send_ranks.empty() && o.recv_ranks.empty()))
            throw CLI::ValidationError("--sweep ranks-per-node", "excludes rank lists");
        if (o.sweep != "none" && !o.trace.empty())
            throw CLI::ValidationError("--trace", "traces one run: not with --sweep");
        if (o.halo >= 0 && o.scenario != "halo" && o.scenario != "reverse_halo")
            throw CLI::ValidationError("--halo", "applies to --scenario halo and reverse_halo");
        if ((!o.grid.empty() || app.count("--nb")) && o.scenario != "ptrans")
            throw CLI::ValidationError("--grid and --nb", "apply to --scenario ptrans");
        if (o.combine != "none" && is_reverse_scenario(o.scenario))
            throw CLI::ValidationError("--combine", "applies to forward transfers only");
        if (o.combine != "none" && o.scenario == "ptrans")
            throw CLI::ValidationError("--combine", "--scenario ptrans adds into C itself (SUM)");
        check_pipeline(app, o);
        if (is_reverse_scenario(o.scenario) || o.scenario == "ptrans") {
            // The same ranks on both sides: every rank of the run.
            for (const char* flag :
                 {"--send-ranks", "--recv-ranks", "--send-procs", "--recv-procs"})
                if (app.count(flag))
                    throw CLI::ValidationError(flag, "--scenario " + o.scenario +
                                                         " runs over every rank on both sides");
            if (!app.count("--type"))
                o.spec.type = "double";
            else if (o.spec.type != "double")
                throw CLI::ValidationError("--type",
                                           "--scenario " + o.scenario + " accumulates double only");
        }
    } catch (const CLI::CallForHelp& e) {
        if (rank == 0) std::printf("%s", app.help().c_str());
        return 0;
    } catch (const CLI::CallForVersion& e) {
        if (rank == 0) std::printf("%s\n", e.what());
        return 0;
    } catch (const CLI::ParseError& e) {
        if (rank == 0)
            std::fprintf(stderr, "dri-bench: %s\nRun with --help for the options.\n", e.what());
        return 2;
    }
    if (o.spec.send.empty() && o.scenario.empty()) o.scenario = "corner_turn";
    for (const std::string& m : o.methods) // --methods dri_auto needs no --strategies auto
        if (m.rfind("dri_", 0) == 0 &&
            std::find(strategy_list.begin(), strategy_list.end(), m.substr(4)) !=
                strategy_list.end() &&
            std::find(o.strategies.begin(), o.strategies.end(), m.substr(4)) == o.strategies.end())
            o.strategies.push_back(m.substr(4));
    cap_reps(o, rank);
    return -1;
}

bool is_reverse_scenario(const std::string& name) {
    return name == "reverse_halo";
}

bool is_pipeline_scenario(const std::string& name) {
    return name == "pipeline" || name == "pipeline_turn";
}

std::pair<int, int> ptrans_grid(const std::string& grid, int size) {
    if (grid.empty()) {
        int p = 1;
        for (int d = 1; d * d <= size; ++d)
            if (size % d == 0) p = d;
        return {p, size / p};
    }
    const std::vector<core::Index> pq = core::parse_shape(grid);
    if (pq.size() != 2 || pq[0] * pq[1] != size)
        core::fail(core::Errc::arg, "ptrans: --grid " + grid + " is not PxQ with P*Q = " +
                                        std::to_string(size) + " ranks");
    return {static_cast<int>(pq[0]), static_cast<int>(pq[1])};
}

std::vector<int> ptrans_recv_ranks(int P, int Q) {
    std::vector<int> out(static_cast<std::size_t>(P * Q));
    for (int g = 0; g < P * Q; ++g)
        out[static_cast<std::size_t>(g)] = (g % P) * Q + g / P;
    return out;
}

tools::SpecOptions scenario_spec(const std::string& name, const std::string& shape,
                                 const std::string& type, int size, int halo,
                                 const std::string& grid, long long nb) {
    tools::SpecOptions s;
    s.type = type;
    const auto need = [&](int nd, const char* dflt) {
        s.shape = shape.empty() ? dflt : shape;
        if (static_cast<int>(core::parse_shape(s.shape).size()) != nd)
            core::fail(core::Errc::ndims, name + " needs a " + std::to_string(nd) + "-D --shape");
    };
    if (name == "corner_turn") {
        need(2, "4096x4096");
        s.send = "block,whole";
        s.recv = "whole,block";
        s.recv_order = "1,0";
    } else if (name == "pencil") {
        // x-pencils (dim 2 whole and contiguous) on a p0 x p1 grid -> y-pencils
        // (dim 1 whole and contiguous) on p0 x p1, as in a 3-D FFT.
        need(3, "256x256x256");
        int p0 = 1;
        for (int d = 1; d * d <= size; ++d)
            if (size % d == 0) p0 = d;
        const std::string a = std::to_string(p0), b = std::to_string(size / p0);
        s.send = "block/" + a + ",block/" + b + ",whole";
        s.recv = "block/" + a + ",whole,block/" + b;
        s.recv_order = "0,2,1";
    } else if (name == "pipeline") {
        // The whole frame on one rank each side (the ranks: pipeline.cpp).
        need(2, "4096x4096");
        s.send = "whole,whole";
        s.recv = "whole,whole";
    } else if (name == "pipeline_turn") {
        need(2, "4096x4096");
        s.send = "block,whole";
        s.recv = "whole,block";
        s.recv_order = "1,0";
    } else if (name == "cyclic") {
        need(2, "4096x4096");
        s.send = "block,whole";
        s.recv = "cyclic(64),whole";
    } else if (name == "halo") {
        need(2, "4096x4096");
        const std::string h = std::to_string(halo < 0 ? 8 : halo);
        s.send = "block,whole";
        s.recv = "block~" + h + ":" + h + ",whole";
    } else if (name == "reverse_halo") {
        // The forward transfer is the wrapped halo exchange over the same
        // ranks; the benchmark times its reverse (SUM).
        need(2, "4096x4096");
        const std::string h = std::to_string(halo < 0 ? 2 : halo);
        s.send = "block,whole";
        s.recv = "block~" + h + ":" + h + ":wrap,whole";
    } else if (name == "ptrans") {
        // A block-cyclic on P x Q, columns contiguous; where A(r, c) lands
        // in C(c, r): cyclic over Q along r, over P along c, rows contiguous
        // (C's columns). The receiving ranks are ptrans_recv_ranks(P, Q).
        need(2, "4096x4096");
        const auto core_shape = core::parse_shape(s.shape);
        if (core_shape[0] != core_shape[1])
            core::fail(core::Errc::extent, "ptrans needs a square --shape NxN");
        const auto [P, Q] = ptrans_grid(grid, size);
        const std::string c = "cyclic(" + std::to_string(nb) + ")[0:]/";
        s.send = c + std::to_string(P) + "," + c + std::to_string(Q);
        s.send_order = "1,0";
        s.recv = c + std::to_string(Q) + "," + c + std::to_string(P);
        s.recv_order = "0,1";
    } else {
        core::fail(core::Errc::arg, "unknown scenario " + name);
    }
    return s;
}

std::string spec_flags(const tools::SpecOptions& s) {
    std::string out =
        "--shape " + s.shape + " --type " + s.type + " --send " + s.send + " --recv " + s.recv;
    const std::pair<const char*, const std::string*> extra[] = {
        {"--send-order", &s.send_order},     {"--recv-order", &s.recv_order},
        {"--send-pad", &s.send_pad},         {"--recv-pad", &s.recv_pad},
        {"--send-strides", &s.send_strides}, {"--recv-strides", &s.recv_strides}};
    for (const auto& [flag, value] : extra)
        if (!value->empty()) out += std::string(" ") + flag + " " + *value;
    if (s.send_procs) out += " --send-procs " + std::to_string(s.send_procs);
    if (s.recv_procs) out += " --recv-procs " + std::to_string(s.recv_procs);
    return out;
}

} // namespace dri::bench
