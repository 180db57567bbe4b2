// The lifetime state machine of the C API: seeded random sequences of calls
// (create, declare, set a strategy, commit, DRI_Do and its non-blocking
// forms, destroy, DRI_Alloc_mem / DRI_Free_mem, DRI_Finalize / DRI_Init) on
// every object kind, checked against a model of which call is legal in which
// state (docs/api.md, "Lifetimes, teardown and threads"; docs/errors.md):
//
// - a legal call succeeds, and every reorganization moves exact data: send
//   buffers hold a value made of the global index, the frame and the
//   transfer, every cell of every receive buffer is checked, and the rings
//   advance by one buffer per reorganization (the other buffers untouched);
// - an illegal call returns its documented code on the ranks that made it,
//   and a collective call the same code on every rank (an MPI_Allreduce of
//   the recorded codes at the end of each sequence);
// - destroyed handles are NULL and their copies stale (DRI_ERR_HANDLE, or
//   DRI_ERR_NOT_INITIALIZED between DRI_Finalize and DRI_Init);
// - teardown (destroy, DRI_Finalize) with a reorganization in flight
//   completes it;
// - DRI_Alloc_mem / DRI_Free_mem are local calls of one process: each rank
//   allocates and frees alone, on a schedule of its own, also between
//   DRI_Finalize and DRI_Init; a bad argument is refused on that rank only;
//   memory a committed transfer of the rank uses cannot be freed
//   (DRI_ERR_STATE); DRI_Finalize frees no memory (rings in it keep their
//   data, and it is freed after DRI_Finalize);
// - the single copy (SHARED, HYBRID, AUTO's choice) applies per pair: same
//   node, and the sender's ring in DRI_Alloc_mem memory of its own, whatever
//   the receiver's ring is (DRI_Transfer_strategy says what a commit chose);
// - pieces (docs/api.md, "Pieces"): a declared role is split before commit
//   (local; every process of a side the same dimension and count, else the
//   commit is DRI_ERR_INCONSISTENT everywhere; a forced strategy that does
//   not move pieces is DRI_ERR_STRATEGY); during a reorganization in flight
//   each split sender marks each piece ready exactly once, in an order of
//   its own, writing its cells only just before, and receivers test or wait
//   for pieces and find their cells final at once; DRI_Do_wait / DRI_Do_test
//   with a piece unmarked is DRI_ERR_STATE on that rank, changing nothing;
// - AUTO that learns (docs/api.md): its schedule is shortened so that a
//   transfer learns, re-checks and switches routes within a few calls, and
//   a hook replaces each call's time by a draw of each rank's own, so that
//   every rank sees other routes fastest and they must still agree;
//   DRI_Transfer_set_learning (local, before commit), DRI_Transfer_freeze
//   (collective over the participants, between reorganizations) and the
//   queries of what was learned are drawn among the calls;
// - nothing leaks: after each sequence the library holds no MPI handle.
//
// Every rank draws from the same generator, so collective calls come in the
// same order everywhere; a bad argument on one rank only is drawn from the
// shared generator too. Memory calls and where a rank's ring lies are each
// rank's own draws, from a generator per rank that every rank can replay
// (the model stays the same everywhere). Each sequence starts from nothing
// and ends with everything destroyed and freed, so one sequence replays
// alone:
//
//   test_lifetime_mpi [--seed S] [--sequences N] [--steps M] [--replay K]
//                     [--seconds T]
//
// --replay K runs only sequence K of seed S and prints every call. --seconds
// T starts no sequence after T seconds (a long soak run). A failure
// prints the seed, the sequence, the step, the call and the replay command,
// then aborts every rank (MPI_Abort: a failed rank must not leave the others
// hanging).
#include "core/error.hpp"        // errc_name(): the codes' names
#include "core/node_traffic.hpp" // AUTO's rule for NODES
#include "dri/dri.h"
#include "lifetime_pieces.hpp"         // the model's splits and marks, a piece's cells
#include "mpi/runtime/handles.hpp"     // live_handles(): the library's own MPI handle count
#include "mpi/strategies/adaptive.hpp" // AUTO that learns: its schedule and clock, for tests
#include "mpi/strategy.hpp"            // strategy_count: the first value that is no strategy
#include "mpi_world.hpp"
#include "nodes.hpp" // node_of_ranks(), transfer_traffic(): which ranks share a node

#include <mpi.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

// ---- options ---------------------------------------------------------------

struct Options {
    unsigned long long seed = 0;
    int sequences = 2000;
    int steps = 40;
    int replay = -1; // >= 0: only this sequence, every call printed
    int seconds = 0; // > 0: start no sequence after this many seconds
};

struct Stats {
    long calls = 0, frames = 0, commits = 0, teardowns_in_flight = 0, finalizes = 0;
    long pinned_refusals = 0;   // DRI_Free_mem refused: a committed transfer uses the memory
    long mem_calls = 0;         // DRI_Alloc_mem / DRI_Free_mem, each made by one rank alone
    long mem_uninitialized = 0; // of those, between DRI_Finalize and DRI_Init
    long crossed = 0;           // transfers completed in per-rank random orders
    long reverses = 0;          // DRI_Transfer_reverse calls
    double crossed_seconds = 0;
    long splits = 0;            // DRI_Transfer_set_pieces / _set_piece_bounds that succeeded
    long split_commits = 0;     // successful commits of a transfer with a split side
    long split_shared = 0;      // of those, run by SHARED (rank 0's commits)
    long split_refusals = 0;    // commits refused for a split (INCONSISTENT or STRATEGY)
    long marks = 0;             // DRI_Piece_ready that succeeded
    long learning_queries = 0;  // rank 0's queries of what AUTO learned (on a participant)
    long switched = 0;          // of those, on a transfer that had switched routes
    long arrivals = 0;          // receive pieces checked as soon as they arrived
    long early_completions = 0; // DRI_Do_wait / DRI_Do_test refused: a piece unmarked
    std::array<long, 32> codes{};
    std::array<long, 8> strategies{}; // successful commits per requested strategy
    std::array<long, 8> chosen{};     // per strategy run (DRI_Transfer_strategy, on rank 0)
};

// ---- ranks -----------------------------------------------------------------

int g_size = 1, g_rank = 0;
std::vector<int> g_node; // per rank: the first rank of its node (MPI_COMM_TYPE_SHARED)
// DRI_Alloc_mem memory other processes of the node can map (not with
// DRI_SHARED_MEMORY=off: then no pair can use the single copy).
bool g_shareable = true;

MPI_Comm comm() {
    return dri::test::world();
}

using Mask = std::uint32_t; // a set of ranks (the test runs at 1-4 ranks)

Mask bit_of(int rank) {
    return Mask{1} << rank;
}

Mask all_ranks() {
    return g_size >= 32 ? ~Mask{0} : (Mask{1} << g_size) - 1;
}

int count(Mask m) {
    int n = 0;
    for (; m; m &= m - 1)
        ++n;
    return n;
}

bool has(Mask m, int rank) {
    return (m & bit_of(rank)) != 0;
}

// ---- expected outcomes -------------------------------------------------------

// A set of acceptable return codes. Where several errors apply at once the
// documentation does not rank them, so any of them is accepted; the codes of
// a collective call must still agree across ranks.
using Codes = std::uint32_t;

constexpr Codes code(int c) {
    return Codes{1} << c;
}
constexpr Codes kOk = code(DRI_SUCCESS);

// "DRI_ERR_STATE": the names of the codes, from the library's one table.
const char* code_name(int c) {
    return dri::core::errc_name(static_cast<dri::core::Errc>(c));
}

std::string codes_text(Codes cs) {
    std::string s;
    for (int c = 0; c < 32; ++c)
        if (cs & code(c)) s += (s.empty() ? "" : " or ") + std::string(code_name(c));
    return s.empty() ? "(nothing)" : s;
}

// ---- the fixed shapes, partitions, layouts and groups ----------------------------

// Two arrays keep the oracle simple: a 2-D corner turn and a 1-D halo,
// 12 x 10 and 23, or more where there are more ranks, so that every rank
// owns a row, a column and a piece of the line (set by init_shapes()).
enum Shape { kTurn, kLine, kShapes };
struct ShapeDef {
    std::string text;
    int ndims;
    DRI_Index ext[2];
};
std::array<ShapeDef, kShapes> g_shape_defs;

// Partitions, each with a twin of as many dimensions (a different argument
// for one rank of a collective call).
constexpr int kSpecs = 4;
struct SpecDef {
    const char* text;
    int ndims;
    int twin;
};
constexpr SpecDef kSpecDefs[kSpecs] = {
    {"block,whole", 2, 1}, {"whole,block", 2, 0}, {"block", 1, 3}, {"block~1:1:wrap", 1, 2}};

// The same partitions through DRI_Partition_create.
std::vector<DRI_Dimpart> dimparts(int spec) {
    switch (spec) {
    case 0:
        return {DRI_Dim_block(), DRI_Dim_whole()};
    case 1:
        return {DRI_Dim_whole(), DRI_Dim_block()};
    case 2:
        return {DRI_Dim_block()};
    default:
        return {DRI_Dim_block4(1, 1, DRI_UNBOUNDED, 1, DRI_EDGE_WRAP)};
    }
}

// Layouts; the twin (same dimension count, -1: none) is what a rank declares
// when its layout is to differ from the others'.
constexpr int kLayouts = 4;
struct LayoutDef {
    const char* text;
    int ndims;
    int order[2];
    DRI_Index pad[2];
    bool padded;
    int twin;
};
constexpr LayoutDef kLayoutDefs[kLayouts] = {{"row-major", 2, {0, 1}, {0, 0}, false, 1},
                                             {"column-major", 2, {1, 0}, {0, 0}, false, 0},
                                             {"row-major pad {0,3}", 2, {0, 1}, {0, 3}, true, 0},
                                             {"1-D", 1, {0, 0}, {0, 0}, false, -1}};

// Groups over the test communicator: all ranks (three ways), and two that
// leave one rank out, so that some ranks only send, only receive or take no
// part (a bipartite pipeline at 2 ranks: head sends, tail receives).
enum GroupKind { kAll, kAllCounted, kReversed, kHead, kTail, kGroupKinds };
const char* const kGroupText[kGroupKinds] = {"all (NULL ranks, n 0)", "all (NULL ranks, n size)",
                                             "all reversed", "all but the last",
                                             "all but the first"};

std::vector<int> group_ranks(GroupKind k) {
    std::vector<int> r;
    for (int i = k == kTail ? 1 : 0; i < (k == kHead ? g_size - 1 : g_size); ++i)
        r.push_back(k == kReversed ? g_size - 1 - i : i);
    return r;
}

Mask group_mask(GroupKind k) {
    Mask m = 0;
    for (int r : group_ranks(k))
        m |= bit_of(r);
    return m;
}

const char* const kStrategyText[] = {"AUTO",    "ALLTOALLW", "PACKED", "P2P",
                                     "MEASURE", "SHARED",    "HYBRID", "NODES"};
constexpr int kStrategies = 8;
static_assert(kStrategies == dri::detail::strategy_count);

// A C caller may pass any int for an enum; C++ may only hold values of the
// enumeration's range in it, so the bytes are copied (as the library reads them).
DRI_Strategy strategy_value(int v) {
    static_assert(sizeof(DRI_Strategy) == sizeof(int));
    DRI_Strategy s;
    std::memcpy(&s, &v, sizeof s);
    return s;
}

// ---- data --------------------------------------------------------------------

constexpr std::int32_t kSentinel = -1; // receive cells before any frame, and padding
constexpr std::int32_t kPoison = -2;   // send cells a sender does not own: never sent
constexpr int kFresh = -1;             // a buffer holding its initial contents
constexpr int kUnknown = -2;           // a buffer MEASURE wrote at commit

// The value of global element g in frame f of transfer `serial`: positive,
// distinct per element, frame (mod 4096) and transfer (mod 128).
std::int32_t value(int serial, int frame, std::int64_t g) {
    return static_cast<std::int32_t>(((serial & 0x7f) << 24) | ((frame & 0xfff) << 12) |
                                     (g & 0xfff));
}

// What one 4-byte word of a block buffer holds: the global element index,
// or -1 (padding, or a halo cell of a sender). From DRI_Blockinfo alone, so
// the oracle follows whatever layout and grid the library chose.
std::vector<std::int64_t> cell_map(const DRI_Blockinfo& b, Shape shape, bool sender) {
    const ShapeDef& sd = g_shape_defs[shape];
    std::vector<std::int64_t> map(static_cast<std::size_t>(b.bytes / 4), -1);
    const DRI_Index n1 = sd.ndims > 1 ? b.local_extent[1] : 1;
    for (DRI_Index i0 = 0; i0 < b.local_extent[0]; ++i0)
        for (DRI_Index i1 = 0; i1 < n1; ++i1) {
            const DRI_Index l[2] = {i0, i1};
            std::int64_t g = 0, off = 0;
            bool owned = true;
            for (int k = 0; k < sd.ndims; ++k) {
                const DRI_Index e = sd.ext[k], gk = b.stored_first[k] + l[k];
                owned = owned && gk >= b.owned_first[k] && gk <= b.owned_last[k];
                g = g * e + ((gk % e) + e) % e; // a wrapped halo cell comes from the other end
                off += l[k] * b.strides[k];
            }
            if (owned || !sender) map[static_cast<std::size_t>(off)] = g;
        }
    return map;
}

// The elements group index i of n owns (or stores, with the halo) under
// partition `spec`: the uneven block rule of docs/concepts.md (the first
// N mod n blocks one longer), computed apart from the library.
std::vector<bool> cells(Shape shape, int spec, std::size_t n, std::size_t i, bool stored) {
    const ShapeDef& d = g_shape_defs[shape];
    const int dim = spec == 1 ? 1 : 0; // the dimension cut in blocks
    const auto N = static_cast<std::int64_t>(d.ext[dim]), p = static_cast<std::int64_t>(n),
               c = static_cast<std::int64_t>(i);
    const std::int64_t lo = c * (N / p) + std::min(c, N % p), hi = lo + N / p + (c < N % p);
    const std::int64_t halo = stored && spec == 3 ? 1 : 0;
    std::vector<bool> in(static_cast<std::size_t>(d.ext[0] * d.ext[1]), false);
    for (std::int64_t k = lo - halo; k < hi + halo; ++k) {
        const std::int64_t g = (k % N + N) % N; // wrapped
        for (std::int64_t o = 0; o < (dim == 0 ? d.ext[1] : d.ext[0]); ++o)
            in[static_cast<std::size_t>(dim == 0 ? g * d.ext[1] + o : o * d.ext[1] + g)] = true;
    }
    return in;
}

// The variables that shape the run (simulated nodes, the test
// communicator), as a replay command must set them.
std::string environment() {
    std::string env;
    for (const char* name : {"MPIR_CVAR_NUM_CLIQUES", "DRI_TEST_COMM", "DRI_SHARED_MEMORY"})
        if (const char* v = std::getenv(name)) env += std::string(name) + "=" + v + " ";
    return env;
}

// ---- the generator -------------------------------------------------------------

// splitmix64: the same numbers on every rank and every platform.
class Rng {
  public:
    explicit Rng(std::uint64_t s) : s_(s) {}
    std::uint64_t next() {
        std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    int below(int n) { return n <= 1 ? 0 : static_cast<int>(next() % static_cast<unsigned>(n)); }
    bool percent(int p) { return below(100) < p; }

  private:
    std::uint64_t s_;
};

// Rank r's own generator for one step, seeded by a draw of the shared one:
// the ranks draw differently, and every rank can replay every other's draws.
Rng rank_rng(std::uint64_t salt, int r) {
    return Rng(salt ^ (0x94d049bb133111ebULL * static_cast<std::uint64_t>(r + 1)));
}

// ---- the model -----------------------------------------------------------------
//
// The model is the same on every rank: which slots are live, which ranks
// declared which role, whether a transfer is committed or in flight, its
// next frame, each rank's DRI_Alloc_mem slots and which of them a ring lies
// in. Only the handles, the rings (buffers and what they hold) and the
// memory's addresses are this rank's. The expected code of a
// call is computed from the model for every rank, and the model is updated
// from those expectations, never from a rank's own return code: the ranks
// cannot drift apart even where one rank's call fails and another's succeeds.

// A slot of a descriptive object. `h` is this rank's handle (NULL while the
// slot is empty, or where this rank is not a member); `stale` the last
// handle destroyed in the slot, kept to check that its use is detected.
template <class H>
struct Slot {
    H h = nullptr;
    H stale = nullptr;
    bool live = false;
    bool dead = false; // a handle of the slot was destroyed: `stale` holds it (NULL on non-members)
};
struct Gdo : Slot<DRI_Globaldata> {
    Shape shape = kTurn;
};
struct Part : Slot<DRI_Partition> {
    int spec = 0;
};
struct Group : Slot<DRI_Group> {
    GroupKind kind = kAll;
};
struct Dist : Slot<DRI_Distribution> {
    Shape shape = kTurn;
    int spec = 0;
    GroupKind group = kAll;
};
struct Layout : Slot<DRI_Layout> {
    int kind = 0;
};

// This rank's buffers of one role of a transfer.
struct Ring {
    int nbuf = 0, cur = 0;
    DRI_Index bytes = 0;
    std::vector<std::vector<std::int32_t>>
        own; // heap buffers of exactly `bytes`: ASan sees overruns
    std::vector<std::int32_t*> buf;
    std::vector<std::int64_t> map;           // cell_map of the block
    std::vector<int> frame;                  // per buffer: the frame it holds, kFresh or kUnknown
    std::vector<lifetime::LocalIndex> local; // per word: its local indices (pieces)
};

// One role of a transfer: what the ranks declared, and this rank's ring.
struct Side {
    Mask declared = 0; // ranks whose declaration succeeded
    Shape shape = kTurn;
    int spec = 0, layout = 0;
    GroupKind group = kAll;
    // Per rank (empty before a declaration): the rank's own DRI_Alloc_mem
    // slot and place holding its ring, -1: the heap.
    std::vector<int> mem, place;
    int skipped_rank = -1; // a member did not declare: the commit is NO_PARTNER
    // Ranks that refused a declaration of the role and have not declared it
    // since, and the codes it was refused with: their commit of the
    // transfer fails with one of them, on every rank.
    Mask refused = 0;
    Codes refusal = 0;
    // Per rank: the split it asked for (DRI_Transfer_set_pieces), kept
    // until it asks again; the commit compares the declared ranks'.
    std::vector<lifetime::Split> split;
    Ring ring;
    bool in_mem(int r) const { return !mem.empty() && mem[static_cast<std::size_t>(r)] >= 0; }
    bool any_mem() const {
        return std::any_of(mem.begin(), mem.end(), [](int m) { return m >= 0; });
    }
};

struct Xfer {
    DRI_Transfer h = nullptr, stale = nullptr;
    bool live = false, dead = false;
    std::string name;
    int serial = 0;
    Side side[2];              // 0 sends, 1 receives
    std::vector<int> strategy; // per rank: one rank may set another
    bool committed = false, in_flight = false;
    int frame = 0;                        // the frame of the next reorganization
    bool mismatch = false;                // the planner declares sides of different shapes
    bool split_drawn[2] = {false, false}; // useful steps drew whether to split the side
    lifetime::Marks marks;                // the send pieces marked in the reorganization in flight
    // The ranks with a role: after a commit, the transfer's participants.
    Mask roles() const { return side[0].declared | side[1].declared; }
};

// Node shared memory from DRI_Alloc_mem, each rank's own: two slots per
// rank, two places for a ring each, so that one allocation may be pinned by
// two transfers.
// Per buffer: the largest block (624 bytes of a 12 x 10 turn, row-major
// with 3 columns of padding), rounded up to 64 (set by init_shapes()).
DRI_Index g_mem_stride = 640;
DRI_Index g_place_bytes = 3 * g_mem_stride; // a ring of up to 3 buffers
DRI_Index g_mem_bytes = 2 * g_place_bytes;

// The shapes and the memory that holds their rings, for g_size ranks.
void init_shapes() {
    const DRI_Index rows = std::max(12, g_size), cols = std::max(10, g_size),
                    line = std::max(23, g_size);
    g_shape_defs[kTurn] = {
        std::to_string(rows) + "x" + std::to_string(cols) + " int32", 2, {rows, cols}};
    g_shape_defs[kLine] = {std::to_string(line) + " int32", 1, {line, 1}};
    const DRI_Index largest = std::max(rows * (cols + 3), line + 2) * 4;
    g_mem_stride = (largest + 63) / 64 * 64;
    g_place_bytes = 3 * g_mem_stride;
    g_mem_bytes = 2 * g_place_bytes;
}
struct Mem {
    void* base = nullptr;  // the allocation (on its own rank; NULL in the others' models)
    void* stale = nullptr; // the last base freed in this slot (likewise)
    bool live = false, dead = false;
    bool usable = false;     // g_mem_bytes asked (0 bytes is legal too, and holds no ring)
    int bound[2] = {-1, -1}; // per place: the transfer slot whose ring lies there
    int free_place() const { return bound[0] < 0 ? 0 : bound[1] < 0 ? 1 : -1; }
};
using Mems = std::array<Mem, 2>; // one rank's slots

enum DoKind { kBlocking, kStart, kWait, kTest };

std::string format(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* f, ...) {
    va_list ap, again;
    va_start(ap, f);
    va_copy(again, ap);
    std::string text(static_cast<std::size_t>(std::vsnprintf(nullptr, 0, f, ap)), '\0');
    std::vsnprintf(text.data(), text.size() + 1, f, again);
    va_end(again);
    va_end(ap);
    return text;
}

} // namespace

namespace {

constexpr int kAbsent = INT_MIN; // recorded for a rank that took no part in a collective call

// One seeded sequence: the objects, the model of their states, the calls.
class Sequence {
  public:
    Sequence(const Options& opt, int number, Stats& stats)
        : opt_(opt), number_(number), stats_(stats),
          rng_(opt.seed ^ (0xd1b54a32d192ed03ULL * static_cast<std::uint64_t>(number + 1))),
          verbose_(opt.replay >= 0) {}

    void run() {
        for (step_ = 1; step_ <= opt_.steps; ++step_)
            step();
        teardown();
    }

  private:
    // ---- reporting -----------------------------------------------------------

    // The call about to be made (printed with --replay, named by failures).
    void call(std::string text) {
        call_ = std::move(text);
        ++stats_.calls;
        if (verbose_ && g_rank == 0) std::printf("  %3d  %s\n", step_, call_.c_str());
    }

    [[noreturn]] void fail(const std::string& why) const {
        std::fprintf(
            stderr,
            "lifetime: FAILED on rank %d of %d: seed %llu, sequence %d, step %d\n"
            "  call: %s\n  %s\n"
            "  replay: %smpiexec -n %d test_lifetime_mpi --seed %llu --steps %d --replay %d\n",
            g_rank, g_size, opt_.seed, number_, step_, call_.c_str(), why.c_str(),
            environment().c_str(), g_size, opt_.seed, opt_.steps, number_);
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
        std::abort();
    }

    void expect(int rc, Codes want) {
        if (rc >= 0 && rc < 32) ++stats_.codes[static_cast<std::size_t>(rc)];
        if (verbose_ && g_rank == 0) std::printf("         -> %s\n", code_name(rc));
        if (rc < 0 || rc >= 32 || !(want & code(rc)))
            fail(format("returned %s, expected %s (message: \"%s\")", code_name(rc),
                        codes_text(want).c_str(),
                        rc == DRI_SUCCESS ? "" : DRI_Last_error_message()));
    }

    // A collective call: the code is checked here, and compared across the
    // ranks that took part at the end of the sequence (one MPI_Allreduce).
    void expect_collective(int rc, Codes want, bool takes_part) {
        if (takes_part) expect(rc, want);
        agreed_.push_back(takes_part ? rc : kAbsent);
        agreed_calls_.push_back(call_);
    }

    // After a collective call that only rank `first` failed before any
    // communication, every rank returns that rank's message, prefixed
    // "rank N:" (docs/errors.md).
    void expect_message_from(int first) {
        const std::string m = DRI_Last_error_message(), want = format("rank %d: ", first);
        if (m.compare(0, want.size(), want) != 0)
            fail(format("the message \"%s\" does not start with \"%s\"", m.c_str(), want.c_str()));
    }

    void check_agreement() {
        const std::size_t n = agreed_.size();
        std::vector<int> mm(2 * n + 1, 0);
        for (std::size_t i = 0; i < n; ++i) {
            const bool absent = agreed_[i] == kAbsent;
            mm[2 * i] = absent ? INT_MIN : agreed_[i];
            mm[2 * i + 1] = absent ? INT_MIN : -agreed_[i];
        }
        MPI_Allreduce(MPI_IN_PLACE, mm.data(), static_cast<int>(mm.size()), MPI_INT, MPI_MAX,
                      comm());
        for (std::size_t i = 0; i < n; ++i)
            if (mm[2 * i] != INT_MIN && mm[2 * i] != -mm[2 * i + 1]) {
                call_ = agreed_calls_[i];
                fail(format("a collective call returned different codes on different ranks: %s "
                            "and %s",
                            code_name(-mm[2 * i + 1]), code_name(mm[2 * i])));
            }
    }

    // ---- drawing ------------------------------------------------------------------

    // A random slot that is (not) live, -1 if there is none (drawn from the
    // shared generator, or from `g`: a rank's own).
    template <class S, std::size_t N>
    int pick(const std::array<S, N>& slots, bool live) {
        return pick(slots, live, rng_);
    }
    template <class S, std::size_t N>
    static int pick(const std::array<S, N>& slots, bool live, Rng& g) {
        int idx[N], n = 0;
        for (std::size_t i = 0; i < N; ++i)
            if (slots[i].live == live) idx[n++] = static_cast<int>(i);
        return n ? idx[g.below(n)] : -1;
    }

    // A slot whose handle was destroyed (its copy is stale), -1 if none.
    template <class S, std::size_t N>
    int pick_dead(const std::array<S, N>& slots) {
        int idx[N], n = 0;
        for (std::size_t i = 0; i < N; ++i)
            if (slots[i].dead) idx[n++] = static_cast<int>(i);
        return n ? idx[rng_.below(n)] : -1;
    }

    // A live slot matching `ok`, -1 if none.
    template <class S, std::size_t N, class F>
    int pick_if(const std::array<S, N>& slots, F ok) {
        return pick_if(slots, ok, rng_);
    }
    template <class S, std::size_t N, class F>
    static int pick_if(const std::array<S, N>& slots, F ok, Rng& g) {
        int idx[N], n = 0;
        for (std::size_t i = 0; i < N; ++i)
            if (slots[i].live && ok(slots[i])) idx[n++] = static_cast<int>(i);
        return n ? idx[g.below(n)] : -1;
    }

    // One member of a set of ranks (for a bad argument on one rank).
    int pick_rank(Mask m) {
        std::vector<int> r;
        for (int i = 0; i < g_size; ++i)
            if (has(m, i)) r.push_back(i);
        return r.empty() ? -1 : r[static_cast<std::size_t>(rng_.below(static_cast<int>(r.size())))];
    }

    // ---- descriptive objects ---------------------------------------------------------

    void create_gdo(int want_shape = -1) {
        const int i = pick(gdo_, false);
        if (i < 0) return destroy_gdo(pick(gdo_, true), true);
        const bool legal = want_shape >= 0 || !rng_.percent(12);
        const auto shape = static_cast<Shape>(want_shape >= 0 ? want_shape : rng_.below(kShapes));
        const int bad = legal ? -1 : rng_.below(4);
        const ShapeDef& d = g_shape_defs[shape];
        DRI_Index ext[2] = {d.ext[0], d.ext[1]};
        int ndims = d.ndims;
        DRI_Datatype type = DRI_INT32;
        DRI_Globaldata* out = &gdo_[static_cast<std::size_t>(i)].h;
        Codes want = kOk;
        if (bad == 0) ndims = 0, want = code(DRI_ERR_NDIMS);
        if (bad == 1) ext[0] = 0, want = code(DRI_ERR_EXTENT);
        if (bad == 2) type = static_cast<DRI_Datatype>(0), want = code(DRI_ERR_TYPE);
        if (bad == 3) out = nullptr, want = code(DRI_ERR_NULL);
        call(format("DRI_Globaldata_create(%d, {%lld, %lld}, type %d, %s) [gdo %d: %s]", ndims,
                    static_cast<long long>(ext[0]), static_cast<long long>(ext[1]),
                    static_cast<int>(type), out ? "&gdo" : "NULL", i, d.text.c_str()));
        expect(DRI_Globaldata_create(ndims, ext, type, out), want);
        if (want != kOk) return;
        Gdo& g = gdo_[static_cast<std::size_t>(i)];
        g.live = true;
        g.shape = shape;
        if (!g.h) fail("DRI_Globaldata_create succeeded with a NULL handle");
    }

    void create_part(int want_spec = -1) {
        const int i = pick(part_, false);
        if (i < 0) return destroy_part(pick(part_, true), true);
        const bool legal = want_spec >= 0 || !rng_.percent(12);
        const int spec = want_spec >= 0 ? want_spec : rng_.below(kSpecs);
        const bool text = rng_.percent(50);
        const int bad = legal ? -1 : rng_.below(4);
        Part& p = part_[static_cast<std::size_t>(i)];
        DRI_Partition* out = bad == 2 ? nullptr : &p.h;
        int rc = DRI_SUCCESS;
        Codes want = kOk;
        if (bad == 0) {
            call("DRI_Partition_create_spec(\"block~\", &part) [malformed]");
            rc = DRI_Partition_create_spec("block~", out), want = code(DRI_ERR_ARG);
        } else if (bad == 1 || bad == 3) {
            const DRI_Dimpart d =
                bad == 1 ? DRI_Dim_cyclic(0) : DRI_Dim_block4(0, 5, 3, 0, DRI_EDGE_TRUNCATE);
            call(bad == 1 ? "DRI_Partition_create(1, {cyclic(0)}, &part)"
                          : "DRI_Partition_create(1, {block min 5 max 3}, &part)");
            rc = DRI_Partition_create(1, &d, out);
            want = code(bad == 1 ? DRI_ERR_PARTITION : DRI_ERR_MINMAX);
        } else if (text) {
            call(format("DRI_Partition_create_spec(\"%s\", %s) [part %d]", kSpecDefs[spec].text,
                        out ? "&part" : "NULL", i));
            rc = DRI_Partition_create_spec(kSpecDefs[spec].text, out);
        } else {
            const std::vector<DRI_Dimpart> d = dimparts(spec);
            call(format("DRI_Partition_create(%d, {%s}, %s) [part %d]", kSpecDefs[spec].ndims,
                        kSpecDefs[spec].text, out ? "&part" : "NULL", i));
            rc = DRI_Partition_create(kSpecDefs[spec].ndims, d.data(), out);
        }
        if (bad == 2) want = code(DRI_ERR_NULL);
        expect(rc, want);
        if (want != kOk) return;
        p.live = true;
        p.spec = spec;
        if (!p.h) fail("DRI_Partition_create succeeded with a NULL handle");
    }

    static constexpr const char* kBadGroup[] = {"MPI_COMM_NULL", "a rank twice", "a rank outside",
                                                "no ranks, n neither 0 nor the size",
                                                "NULL output"};

    void create_group() {
        const int i = pick(group_, false);
        if (i < 0) return destroy_group(pick(group_, true), true);
        auto kind = static_cast<GroupKind>(rng_.below(kGroupKinds));
        if ((kind == kHead || kind == kTail) && g_size < 2) kind = kAll; // no empty groups
        const int bad = rng_.percent(12) ? rng_.below(5) : -1;
        Group& g = group_[static_cast<std::size_t>(i)];
        std::vector<int> ranks = group_ranks(kind);
        MPI_Comm parent = comm();
        int n = static_cast<int>(ranks.size());
        const int* list = ranks.data();
        if (kind == kAll || kind == kAllCounted) list = nullptr, n = kind == kAll ? 0 : g_size;
        DRI_Group* out = &g.h;
        Codes want = kOk;
        std::vector<int> wrong = {0, 0}; // listed twice
        if (bad == 0) parent = MPI_COMM_NULL, want = code(DRI_ERR_GROUP);
        if (bad == 1) list = wrong.data(), n = 2, want = code(DRI_ERR_GROUP);
        if (bad == 2) wrong = {g_size}, list = wrong.data(), n = 1, want = code(DRI_ERR_GROUP);
        if (bad == 3) list = nullptr, n = g_size + 1, want = code(DRI_ERR_GROUP);
        if (bad == 4) out = nullptr, want = code(DRI_ERR_NULL);
        call(format("DRI_Group_create(%s, %d, %s, %s) [group %d: %s]",
                    parent == MPI_COMM_NULL ? "MPI_COMM_NULL" : "comm", n, list ? "ranks" : "NULL",
                    out ? "&group" : "NULL", i, bad >= 0 ? kBadGroup[bad] : kGroupText[kind]));
        expect(DRI_Group_create(parent, n, list, out), want);
        if (want != kOk) return;
        g.live = true;
        g.kind = kind;
        if (!g.h) fail("DRI_Group_create succeeded with a NULL handle");
    }

    static constexpr const char* kBadLayout[] = {"order {0, 0}", "9 dimensions", "NULL order",
                                                 "negative padding", "NULL output"};

    void create_layout(int want_kind = -1) {
        const int i = pick(layout_, false);
        if (i < 0) return destroy_layout(pick(layout_, true), true);
        const bool legal = want_kind >= 0 || !rng_.percent(12);
        const int kind = want_kind >= 0 ? want_kind : rng_.below(kLayouts);
        const int bad = legal ? -1 : rng_.below(5);
        const LayoutDef& d = kLayoutDefs[kind];
        Layout& l = layout_[static_cast<std::size_t>(i)];
        int order[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8}, ndims = d.ndims;
        order[0] = d.order[0], order[1] = d.order[1];
        DRI_Index pad[2] = {d.pad[0], d.pad[1]};
        const DRI_Index* padp = d.padded ? pad : nullptr;
        const int* orderp = order;
        DRI_Layout* out = &l.h;
        Codes want = kOk;
        if (bad == 0) ndims = 2, order[0] = order[1] = 0, want = code(DRI_ERR_LAYOUT);
        if (bad == 1) ndims = 9, want = code(DRI_ERR_NDIMS);
        if (bad == 2) orderp = nullptr, want = code(DRI_ERR_NULL);
        if (bad == 3) ndims = 2, pad[1] = -1, padp = pad, want = code(DRI_ERR_LAYOUT);
        if (bad == 4) out = nullptr, want = code(DRI_ERR_NULL);
        call(format("DRI_Layout_create(%d, %s, %s, %s) [layout %d: %s]", ndims,
                    orderp ? "order" : "NULL", padp ? "pad" : "NULL", out ? "&layout" : "NULL", i,
                    bad >= 0 ? kBadLayout[bad] : d.text));
        expect(DRI_Layout_create(ndims, orderp, padp, out), want);
        if (want != kOk) return;
        l.live = true;
        l.kind = kind;
        if (!l.h) fail("DRI_Layout_create succeeded with a NULL handle");
    }

    enum DistBad {
        kStaleGdoEverywhere, // DRI_ERR_HANDLE on every member
        kStaleGdoOnOne,      // DRI_ERR_HANDLE on every member, the message from that rank
        kOtherPartOnOne,     // DRI_ERR_INCONSISTENT on every member
        kNullOutOnOne,       // DRI_ERR_NULL on every member, the message from that rank
        kStaleGroup,         // DRI_ERR_HANDLE on every rank, found before any communication
        kDistBads
    };

    // DRI_Distribution_create, collective over the group's members (not
    // `legal`: also a partition of the wrong dimension count,
    // DRI_ERR_PARTITION, or a bad argument above).
    void create_dist(bool legal, int want_shape = -1) {
        const int i = pick(dist_, false);
        if (i < 0) return destroy_dist(pick(dist_, true), true);
        const int gi =
            pick_if(gdo_, [&](const Gdo& g) { return want_shape < 0 || g.shape == want_shape; });
        if (gi < 0) return create_gdo(want_shape >= 0 ? want_shape : rng_.below(kShapes));
        const Shape shape = gdo_[static_cast<std::size_t>(gi)].shape;
        const int nd = g_shape_defs[shape].ndims;
        const int pi =
            legal ? pick_if(part_, [&](const Part& p) { return kSpecDefs[p.spec].ndims == nd; })
                  : pick(part_, true);
        if (pi < 0) return create_part((nd == 2 ? 0 : 2) + rng_.below(2));
        const int ki = pick(group_, true);
        if (ki < 0) return create_group();
        const int spec = part_[static_cast<std::size_t>(pi)].spec;
        const GroupKind kind = group_[static_cast<std::size_t>(ki)].kind;
        const Mask members = group_mask(kind);
        int v = legal ? -1 : rng_.below(kDistBads);
        const int bad = pick_rank(members);
        const int stale_g = pick_dead(gdo_), stale_k = pick_dead(group_);
        const int twin =
            pick_if(part_, [&](const Part& p) { return p.spec == kSpecDefs[spec].twin; });
        if (((v == kStaleGdoEverywhere || v == kStaleGdoOnOne) && stale_g < 0) ||
            (v == kOtherPartOnOne && (twin < 0 || count(members) < 2)) ||
            (v == kStaleGroup && stale_k < 0))
            v = -1;
        Codes want = 0;
        if (v == kStaleGdoEverywhere || v == kStaleGdoOnOne) want |= code(DRI_ERR_HANDLE);
        if (v == kNullOutOnOne) want |= code(DRI_ERR_NULL);
        if (kSpecDefs[spec].ndims != nd) want |= code(DRI_ERR_PARTITION);
        if (v == kOtherPartOnOne) want |= code(DRI_ERR_INCONSISTENT);
        if (v == kStaleGroup) want = code(DRI_ERR_HANDLE);
        if (!want) want = kOk;
        Dist& d = dist_[static_cast<std::size_t>(i)];
        const bool me_bad = g_rank == bad;
        DRI_Globaldata g = gdo_[static_cast<std::size_t>(gi)].h;
        if (v == kStaleGdoEverywhere || (v == kStaleGdoOnOne && me_bad))
            g = gdo_[static_cast<std::size_t>(stale_g)].stale;
        DRI_Partition p =
            part_[static_cast<std::size_t>(v == kOtherPartOnOne && me_bad ? twin : pi)].h;
        DRI_Group k = v == kStaleGroup ? group_[static_cast<std::size_t>(stale_k)].stale
                                       : group_[static_cast<std::size_t>(ki)].h;
        DRI_Distribution* out = v == kNullOutOnOne && me_bad ? nullptr : &d.h;
        static const char* const what[] = {
            "stale global data on every member", "stale global data on rank %d",
            "the other partition on rank %d", "NULL output on rank %d", "a stale group"};
        call(format("DRI_Distribution_create(gdo %d, part %d \"%s\", group %d: %s, &dist %d) [%s]",
                    gi, pi, kSpecDefs[spec].text, ki, kGroupText[kind], i,
                    v < 0 ? "legal arguments" : format(what[v], bad).c_str()));
        const bool takes_part = v == kStaleGroup || has(members, g_rank);
        const int rc = takes_part ? DRI_Distribution_create(g, p, k, out) : kAbsent;
        expect_collective(rc, want, takes_part);
        if (takes_part && want != kOk && d.h)
            fail("a failed DRI_Distribution_create created a handle");
        if (takes_part && (v == kStaleGdoOnOne || v == kNullOutOnOne) && count(want) == 1)
            expect_message_from(bad);
        if (want != kOk) return;
        d.live = true;
        d.shape = shape;
        d.spec = spec;
        d.group = kind;
        if (has(members, g_rank) != (d.h != nullptr))
            fail("DRI_Distribution_create: a handle exactly on the group's members expected");
    }

    void create_xfer() {
        const int i = pick(xfer_, false);
        if (i < 0) return destroy_xfer(pick(xfer_, true));
        const int bad = rng_.percent(10) ? rng_.below(3) : -1;
        const int same = rng_.percent(6) ? pick(xfer_, true) : -1; // a name another transfer has
        const bool mismatch = rng_.percent(5);
        Xfer& x = xfer_[static_cast<std::size_t>(i)];
        const std::string name = same >= 0 ? xfer_[static_cast<std::size_t>(same)].name
                                           : format("x%d.%d", i, serial_ + 1);
        const char* namep = bad == 0 ? "" : bad == 1 ? nullptr : name.c_str();
        DRI_Transfer* out = bad == 2 ? nullptr : &x.h;
        const Codes want = bad == 0 ? code(DRI_ERR_ARG) : bad >= 1 ? code(DRI_ERR_NULL) : kOk;
        call(format("DRI_Transfer_create(%s%s%s, %s) [xfer %d]", namep ? "\"" : "",
                    namep ? namep : "NULL", namep ? "\"" : "", out ? "&xfer" : "NULL", i));
        expect(DRI_Transfer_create(namep, out), want);
        if (want != kOk) return;
        if (!x.h) fail("DRI_Transfer_create succeeded with a NULL handle");
        const DRI_Transfer h = x.h, stale = x.stale;
        const bool dead = x.dead;
        x = Xfer{};
        x.h = h, x.stale = stale, x.dead = dead, x.live = true;
        x.name = name;
        x.serial = ++serial_;
        x.mismatch = mismatch;
        x.strategy.assign(static_cast<std::size_t>(g_size), DRI_STRATEGY_AUTO);
        for (Side& side : x.side)
            side.split.assign(static_cast<std::size_t>(g_size), {});
    }

    // ---- rings -----------------------------------------------------------------------

    // This rank's `nbuf` buffers for a block of `bytes`: on the heap, or in
    // this rank's memory slot `mem`, each word as a buffer is before any frame.
    Ring make_ring(DRI_Index bytes, int nbuf, int mem, int place, bool sender) {
        Ring r;
        r.nbuf = nbuf;
        r.bytes = bytes;
        const auto words = static_cast<std::size_t>(bytes / 4);
        for (int k = 0; k < nbuf; ++k) {
            std::int32_t* p = nullptr;
            if (mem >= 0) {
                p = reinterpret_cast<std::int32_t*>(
                    static_cast<char*>(mine()[static_cast<std::size_t>(mem)].base) +
                    place * g_place_bytes + k * g_mem_stride);
            } else {
                r.own.emplace_back(words);
                p = r.own.back().data();
            }
            std::fill(p, p + words, sender ? kPoison : kSentinel);
            r.buf.push_back(p);
            r.frame.push_back(kFresh);
        }
        return r;
    }

    void fill(Ring& r, int serial, int frame) {
        std::int32_t* p = r.buf[static_cast<std::size_t>(r.cur)];
        for (std::size_t w = 0; w < r.map.size(); ++w)
            p[w] = r.map[w] >= 0 ? value(serial, frame, r.map[w]) : kPoison;
        r.frame[static_cast<std::size_t>(r.cur)] = frame;
    }

    // Every word of every buffer of this rank's ring holds what the model says.
    void check_ring(const Xfer& x, int s, const char* when) const {
        check_ring(x.side[s].ring, x.serial, s == 0, x.name, when);
    }

    void check_ring(const Ring& r, int serial, bool sender, const std::string& name,
                    const char* when) const {
        const std::int32_t blank = sender ? kPoison : kSentinel;
        for (int k = 0; k < r.nbuf; ++k) {
            const int f = r.frame[static_cast<std::size_t>(k)];
            if (f == kUnknown) continue;
            const std::int32_t* p = r.buf[static_cast<std::size_t>(k)];
            for (std::size_t w = 0; w < r.map.size(); ++w) {
                const std::int64_t g = r.map[w];
                const std::int32_t want = g >= 0 && f >= 0 ? value(serial, f, g) : blank;
                if (p[w] == want) continue;
                fail(format("%s: transfer %s, %s buffer %d of %d (current %d), word %zu (element "
                            "%lld): holds 0x%08x (transfer %d, frame %d, element %d), expected "
                            "0x%08x (frame %d)",
                            when, name.c_str(), sender ? "send" : "receive", k, r.nbuf, r.cur, w,
                            static_cast<long long>(g), static_cast<unsigned>(p[w]),
                            (p[w] >> 24) & 0x7f, (p[w] >> 12) & 0xfff, p[w] & 0xfff,
                            static_cast<unsigned>(want), f));
            }
        }
    }

    // This rank's part of a completed reorganization: the current receive
    // buffer holds the frame, nothing else changed, and both rings advance by
    // one buffer (in DRI_Alloc_mem memory too, after DRI_Finalize as well).
    void deliver_local(Xfer& x, const char* when) {
        for (int s = 0; s < 2; ++s) {
            Ring& r = x.side[s].ring;
            if (!r.nbuf) continue;
            if (s == 1) r.frame[static_cast<std::size_t>(r.cur)] = x.frame;
            check_ring(x, s, when);
            r.cur = (r.cur + 1) % r.nbuf;
        }
    }

    void finish(Xfer& x) {
        ++x.frame;
        x.in_flight = false;
        x.marks.clear();
        ++stats_.frames;
    }

    // ---- declaring roles --------------------------------------------------------------

    // The bad arguments of a declaration (one at most).
    enum DeclareBad {
        kNoBuffer,    // nbuf 0: DRI_ERR_BUFFER_COUNT
        kNullBuffer,  // the last buffer NULL: DRI_ERR_BUFFER
        kShortBuffer, // the last buffer a byte short: DRI_ERR_BUFFER_SIZE
        kSkip,        // one member does not declare: the commit is DRI_ERR_NO_PARTNER
        kOddLayout,   // one member declares another layout: legal since each process may
                      // declare its own (the rings' cell maps are each rank's own)
        kStaleDist,   // DRI_ERR_HANDLE
        kStaleLayout, // DRI_ERR_HANDLE
        kStaleXfer,   // DRI_ERR_HANDLE
        kWrongNdims,  // a layout of another dimension count: DRI_ERR_LAYOUT
        kDeclareBads
    };

    // One declaration's arguments, drawn alike on every rank.
    struct Declaration {
        int xi = 0, s = 0;  // the transfer and side (0 send, 1 recv)
        int di = 0, li = 0; // the distribution and layout slots
        int nbuf = 1;
        std::vector<int> mem, place; // per rank: its own memory slot and place, -1: the heap
        int v = -1, bad = -1;        // the bad argument (DeclareBad) and on which rank
        int odd = -1;                // kOddLayout: the other layout's slot
        int wrong = -1;              // kWrongNdims: a layout slot of the other dimension count
        int stale_d = -1, stale_l = -1;
        Mask callers = 0;
        int layout_slot(int r) const {
            return v == kWrongNdims ? wrong : r == bad && odd >= 0 ? odd : li;
        }
    };

    // Whether a declaration refused with `got` is remembered for the commit:
    // refusals of its arguments are, those of the call itself (a stale
    // handle, a role declared twice, a committed transfer) are not.
    static bool remembered(Codes got) {
        return !(got & (code(DRI_ERR_HANDLE) | code(DRI_ERR_DUPLICATE) | code(DRI_ERR_STATE)));
    }

    // What DRI_Transfer_send / _recv returns on rank r.
    Codes declare_outcome(const Declaration& dc, int r) const {
        const Xfer& x = xfer_[static_cast<std::size_t>(dc.xi)];
        const Dist& d = dist_[static_cast<std::size_t>(dc.di)];
        const int v = dc.v;
        const int layout_ndims =
            kLayoutDefs[layout_[static_cast<std::size_t>(dc.layout_slot(r))].kind].ndims;
        Codes w = 0;
        if (v == kStaleDist || v == kStaleLayout || v == kStaleXfer) w |= code(DRI_ERR_HANDLE);
        if (!has(group_mask(d.group), r)) w |= code(DRI_ERR_HANDLE); // holds no handle of it
        if (v == kNoBuffer) w |= code(DRI_ERR_BUFFER_COUNT);
        if (has(x.side[dc.s].declared, r)) w |= code(DRI_ERR_DUPLICATE);
        if (committed_on(x, r)) w |= code(DRI_ERR_STATE);
        if (layout_ndims != g_shape_defs[d.shape].ndims) w |= code(DRI_ERR_LAYOUT);
        if (v == kNullBuffer) w |= code(DRI_ERR_BUFFER);
        if (v == kShortBuffer) w |= code(DRI_ERR_BUFFER_SIZE);
        return w ? w : kOk;
    }

    // DRI_Transfer_send (s 0) or DRI_Transfer_recv (s 1) on the members of
    // the distribution's group; once a side is declared somewhere, a second
    // declaration by the ranks that hold it is DRI_ERR_DUPLICATE.
    void declare(int xi, int s, bool legal) {
        Declaration dc;
        if (!draw_declaration(xi, s, legal, dc)) return; // made a missing object instead
        describe(dc);
        if (has(dc.callers, g_rank)) declare_here(dc);
        record_declaration(dc);
    }

    // Draws the arguments; false when a missing object was made instead.
    bool draw_declaration(int xi, int s, bool legal, Declaration& dc) {
        const Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        dc.xi = xi, dc.s = s;
        const int other = x.side[1 - s].declared ? x.side[1 - s].shape : -1;
        // Sometimes the other shape than the other side's, a legal call
        // whose commit is DRI_ERR_MISMATCH; not `legal`: any shape.
        const bool mismatch = other >= 0 && (legal ? x.mismatch : rng_.percent(30));
        const int want_shape = mismatch ? 1 - other : legal ? other : -1;
        dc.di =
            pick_if(dist_, [&](const Dist& d) { return want_shape < 0 || d.shape == want_shape; });
        if (dc.di < 0) return create_dist(true, want_shape), false;
        const Dist& d = dist_[static_cast<std::size_t>(dc.di)];
        const int nd = g_shape_defs[d.shape].ndims;
        dc.li = legal ? pick_if(layout_,
                                [&](const Layout& l) { return kLayoutDefs[l.kind].ndims == nd; })
                      : pick(layout_, true);
        if (dc.li < 0) return create_layout(nd == 2 ? rng_.below(3) : 3), false;
        dc.nbuf = 1 + rng_.below(3);
        draw_bad_declaration(x.side[s], d, legal, dc);
        // Each calling rank's ring in DRI_Alloc_mem memory of its own, or on the
        // heap, by its own draw: a sender's ring there lets its readers on
        // its node copy straight from it (SHARED, HYBRID), and DRI_Free_mem
        // of it is refused while committed, on that rank. Ranks that want
        // memory and have none allocate it first, alone.
        const std::uint64_t salt = rng_.next();
        dc.mem.assign(static_cast<std::size_t>(g_size), -1);
        dc.place.assign(static_cast<std::size_t>(g_size), 0);
        Mask wanting = 0;
        for (int r = 0; r < g_size; ++r) {
            Rng own = rank_rng(salt, r);
            if (!has(dc.callers, r) || !own.percent(s == 0 ? 55 : 30)) continue;
            const Mems& mm = mem_[static_cast<std::size_t>(r)];
            const int m = pick_if(
                mm, [](const Mem& o) { return o.usable && o.free_place() >= 0; }, own);
            if (m < 0 && pick(mm, false, own) >= 0) wanting |= bit_of(r);
            if (m < 0) continue;
            dc.mem[static_cast<std::size_t>(r)] = m;
            dc.place[static_cast<std::size_t>(r)] = mm[static_cast<std::size_t>(m)].free_place();
        }
        if (legal && wanting) return alloc_on(wanting), false;
        return true;
    }

    // Where the ranks' rings lie, for a call's description.
    static std::string placement(const std::vector<int>& mem, const std::vector<int>& place) {
        std::string in;
        for (std::size_t r = 0; r < mem.size(); ++r)
            if (mem[r] >= 0)
                in += format("%s%zu: mem %d place %d", in.empty() ? "" : ", ", r, mem[r], place[r]);
        return in.empty() ? "on the heap" : "in memory on ranks {" + in + "}, else on the heap";
    }

    // Not `legal`: mostly one bad argument (those that do not apply are dropped).
    void draw_bad_declaration(const Side& side, const Dist& d, bool legal, Declaration& dc) {
        const bool first = side.declared == 0;
        const Mask members = group_mask(d.group);
        const int nd = g_shape_defs[d.shape].ndims;
        int v = legal ? -1 : rng_.below(kDeclareBads + 3) - 3;
        dc.bad = pick_rank(members);
        const int twin = kLayoutDefs[layout_[static_cast<std::size_t>(dc.li)].kind].twin;
        const int odd =
            twin < 0 ? -1 : pick_if(layout_, [&](const Layout& l) { return l.kind == twin; });
        dc.wrong =
            pick_if(layout_, [&](const Layout& l) { return kLayoutDefs[l.kind].ndims != nd; });
        dc.stale_d = pick_dead(dist_), dc.stale_l = pick_dead(layout_);
        if ((v == kSkip && !first) ||
            (v == kOddLayout && (!first || odd < 0 || count(members) < 2)) ||
            (v == kStaleDist && dc.stale_d < 0) || (v == kStaleLayout && dc.stale_l < 0) ||
            (v == kStaleXfer && !xfer_[static_cast<std::size_t>(dc.xi)].dead) ||
            (v == kWrongNdims && dc.wrong < 0))
            v = -1;
        dc.v = v;
        dc.odd = v == kOddLayout ? odd : -1;
        dc.callers = first ? members & ~(v == kSkip ? bit_of(dc.bad) : 0) : side.declared;
    }

    void describe(const Declaration& dc) {
        const Xfer& x = xfer_[static_cast<std::size_t>(dc.xi)];
        const Dist& d = dist_[static_cast<std::size_t>(dc.di)];
        static const char* const what[] = {"nbuf 0",
                                           "a NULL buffer",
                                           "a buffer a byte short",
                                           "rank %d does not declare",
                                           "rank %d declares the other layout",
                                           "a stale distribution",
                                           "a stale layout",
                                           "a stale transfer",
                                           "a layout of the wrong dimension count"};
        const int l = dc.layout_slot(-1);
        call(format("DRI_Transfer_%s(xfer %d \"%s\", dist %d [%s \"%s\" over %s], layout %d [%s], "
                    "%d buffers %s) on %s [%s]",
                    dc.s == 0 ? "send" : "recv", dc.xi, x.name.c_str(), dc.di,
                    g_shape_defs[d.shape].text.c_str(), kSpecDefs[d.spec].text, kGroupText[d.group],
                    l, kLayoutDefs[layout_[static_cast<std::size_t>(l)].kind].text, dc.nbuf,
                    placement(dc.mem, dc.place).c_str(),
                    x.side[dc.s].declared ? "the ranks that declared it" : "the group's members",
                    dc.v < 0 ? "legal arguments" : format(what[dc.v], dc.bad).c_str()));
    }

    // This rank's call, with a ring of its own.
    void declare_here(const Declaration& dc) {
        Xfer& x = xfer_[static_cast<std::size_t>(dc.xi)];
        const Dist& d = dist_[static_cast<std::size_t>(dc.di)];
        const int l = dc.layout_slot(g_rank);
        const auto me = static_cast<std::size_t>(g_rank);
        Ring ring = declared_ring(d, l, dc.nbuf, dc.mem[me], dc.place[me], dc.s == 0);
        std::vector<void*> ptrs(ring.buf.begin(), ring.buf.end());
        std::vector<DRI_Index> sizes(ptrs.size(), ring.bytes);
        if (dc.v == kNullBuffer) ptrs.back() = nullptr;
        if (dc.v == kShortBuffer) sizes.back() -= 1;
        const DRI_Transfer xh = dc.v == kStaleXfer ? x.stale : x.h;
        const DRI_Distribution dh =
            dc.v == kStaleDist ? dist_[static_cast<std::size_t>(dc.stale_d)].stale : d.h;
        const DRI_Layout lh = dc.v == kStaleLayout
                                  ? layout_[static_cast<std::size_t>(dc.stale_l)].stale
                                  : layout_[static_cast<std::size_t>(l)].h;
        const int n = dc.v == kNoBuffer ? 0 : dc.nbuf;
        const int rc = dc.s == 0 ? DRI_Transfer_send(xh, dh, lh, n, ptrs.data(), sizes.data())
                                 : DRI_Transfer_recv(xh, dh, lh, n, ptrs.data(), sizes.data());
        expect(rc, declare_outcome(dc, g_rank));
        if (rc == DRI_SUCCESS) x.side[dc.s].ring = std::move(ring);
    }

    // The model after the call: the same on every rank.
    void record_declaration(const Declaration& dc) {
        Side& side = xfer_[static_cast<std::size_t>(dc.xi)].side[dc.s];
        const Dist& d = dist_[static_cast<std::size_t>(dc.di)];
        Mask ok = 0;
        for (int r = 0; r < g_size; ++r) {
            if (!has(dc.callers, r)) continue;
            const Codes got = declare_outcome(dc, r);
            if (got == kOk) {
                ok |= bit_of(r);
            } else if (remembered(got) && !has(side.declared, r)) {
                side.refused |= bit_of(r);
                side.refusal |= got;
            }
        }
        side.refused &= ~ok;
        if (!side.refused) side.refusal = 0;
        if (!ok) return;
        side.declared |= ok;
        side.shape = d.shape, side.spec = d.spec, side.group = d.group;
        side.layout = layout_[static_cast<std::size_t>(dc.li)].kind;
        side.skipped_rank = dc.v == kSkip ? dc.bad : -1;
        if (side.mem.empty()) {
            side.mem.assign(static_cast<std::size_t>(g_size), -1);
            side.place.assign(static_cast<std::size_t>(g_size), 0);
        }
        // A ring lies in the memory of the ranks whose declaration succeeded.
        for (int r = 0; r < g_size; ++r) {
            const auto k = static_cast<std::size_t>(r);
            if (!has(ok, r) || dc.mem[k] < 0) continue;
            side.mem[k] = dc.mem[k], side.place[k] = dc.place[k];
            mem_[k][static_cast<std::size_t>(dc.mem[k])].bound[dc.place[k]] = dc.xi;
        }
    }

    // This rank's ring for a declaration: sized and mapped from
    // DRI_Blockinfo_get when the distribution and layout fit, else a small
    // stand-in (the declaration fails before using it).
    Ring declared_ring(const Dist& d, int layout_slot, int nbuf, int mem, int place, bool sender) {
        const Layout& l = layout_[static_cast<std::size_t>(layout_slot)];
        DRI_Blockinfo bi{};
        const bool fits = d.h && kLayoutDefs[l.kind].ndims == g_shape_defs[d.shape].ndims;
        if (fits && DRI_Blockinfo_get(d.h, l.h, &bi) != DRI_SUCCESS)
            fail(format("DRI_Blockinfo_get failed: %s", DRI_Last_error_message()));
        Ring r = make_ring(fits ? bi.bytes : 64, nbuf, mem, place, sender);
        if (fits) r.map = cell_map(bi, d.shape, sender), check_block(d, r.map, sender);
        if (fits) r.local = lifetime::local_map(bi, g_shape_defs[d.shape].ndims);
        return r;
    }

    // The elements of this rank's block (from DRI_Blockinfo_get) are the ones
    // the uneven block rule gives it, computed apart from the library.
    void check_block(const Dist& d, const std::vector<std::int64_t>& map, bool sender) const {
        const std::vector<int> ranks = group_ranks(d.group);
        const auto me =
            static_cast<std::size_t>(std::find(ranks.begin(), ranks.end(), g_rank) - ranks.begin());
        const std::vector<bool> want = cells(d.shape, d.spec, ranks.size(), me, !sender);
        std::vector<bool> got(want.size(), false);
        for (const std::int64_t g : map)
            if (g >= 0) got[static_cast<std::size_t>(g)] = true;
        if (got != want)
            fail(format("DRI_Blockinfo_get: the block of group index %zu of %zu under \"%s\" holds "
                        "other elements than the uneven block rule gives",
                        me, ranks.size(), kSpecDefs[d.spec].text));
    }

    // ---- strategy and commit ---------------------------------------------------------------

    // DRI_Transfer_set_strategy on every rank (local). Bad: a value that is no
    // strategy (DRI_ERR_ARG), another strategy on one rank (the commit is then
    // DRI_ERR_INCONSISTENT), a stale handle.
    void set_strategy(int xi, bool legal) {
        Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        int value_all = rng_.below(kStrategies);
        // Mostly not SHARED or HYBRID without shared memory: the commit would fail.
        if (legal && (value_all == DRI_STRATEGY_SHARED || value_all == DRI_STRATEGY_HYBRID) &&
            !x.side[0].any_mem() && rng_.percent(70))
            value_all = DRI_STRATEGY_P2P;
        // Mostly one that moves pieces on a split transfer: another fails the commit.
        if (legal && any_split(x) && !moves_pieces(value_all) && rng_.percent(70))
            value_all = DRI_STRATEGY_AUTO;
        int v = legal ? -1 : rng_.below(3);
        if (v == 2 && !x.dead) v = -1;
        const int bad = rng_.below(g_size);
        const int other = (value_all + 1 + rng_.below(kStrategies - 1)) % kStrategies;
        const int mine = v == 0                      ? dri::detail::strategy_count
                         : (v == 1 && g_rank == bad) ? other
                                                     : value_all;
        // Refused on the ranks where it is committed (a rank without a role
        // took no part in the commit).
        const auto outcome = [&](int r) {
            Codes w = v == 2 ? code(DRI_ERR_HANDLE) : 0;
            if (v == 0) w |= code(DRI_ERR_ARG);
            if (v != 2 && committed_on(x, r)) w |= code(DRI_ERR_STATE);
            return w ? w : kOk;
        };
        call(format("DRI_Transfer_set_strategy(xfer %d \"%s\", %s)%s", xi, x.name.c_str(),
                    v == 0 ? "no strategy" : kStrategyText[value_all],
                    v == 1   ? format(" [rank %d: %s]", bad, kStrategyText[other]).c_str()
                    : v == 2 ? " [stale handle]"
                             : ""));
        expect(DRI_Transfer_set_strategy(v == 2 ? x.stale : x.h, strategy_value(mine)),
               outcome(g_rank));
        for (int r = 0; r < g_size; ++r)
            if (outcome(r) == kOk)
                x.strategy[static_cast<std::size_t>(r)] = v == 1 && r == bad ? other : value_all;
    }

    // Why a commit of x fails once every rank's arguments are accepted:
    // validation of the declarations (every rank sees them all).
    Codes validation(const Xfer& x) const {
        Codes c = 0;
        for (const Side& side : x.side) {
            if (!side.declared || side.skipped_rank >= 0) c |= code(DRI_ERR_NO_PARTNER);
        }
        if (x.side[0].declared && x.side[1].declared && x.side[0].shape != x.side[1].shape)
            c |= code(DRI_ERR_MISMATCH);
        if (agreed_strategy(x) < 0) c |= code(DRI_ERR_INCONSISTENT);
        for (const Side& side : x.side)
            if (!lifetime::splits_agree(side.split, side.declared)) c |= code(DRI_ERR_INCONSISTENT);
        return c;
    }

    // ---- splits in the model ----

    // The split of a side (its lowest declared rank's: the side's, once the
    // ranks agree, which a successful commit says they do).
    static lifetime::Split side_split(const Side& side) {
        return lifetime::split_of_side(side.split, side.declared);
    }
    // Whether some declared rank of x split a side (the transfer is split
    // once committed).
    static bool any_split(const Xfer& x) {
        for (const Side& side : x.side)
            for (int r = 0; r < g_size; ++r)
                if (has(side.declared, r) && lifetime::split_of(side.split, r).split()) return true;
        return false;
    }
    // The strategies that move pieces: AUTO and MEASURE choose among them
    // when a side is split (docs/api.md, "Which strategies move pieces").
    static bool moves_pieces(int s) {
        return s == DRI_STRATEGY_AUTO || s == DRI_STRATEGY_P2P || s == DRI_STRATEGY_SHARED ||
               s == DRI_STRATEGY_MEASURE;
    }

    // The strategy every rank with a role asked for, -1 if they differ.
    int agreed_strategy(const Xfer& x) const {
        int s = -2;
        for (int r = 0; r < g_size; ++r) {
            if (!has(x.roles(), r)) continue;
            const int v = x.strategy[static_cast<std::size_t>(r)];
            if (s == -2) s = v;
            if (s != v) return -1;
        }
        return s == -2 ? DRI_STRATEGY_AUTO : s;
    }

    // A forced SHARED applies when every pair of different processes that
    // exchanges data can use the single copy (or when no process reads from
    // another); a forced HYBRID when some pair can. Otherwise
    // DRI_ERR_STRATEGY. Only asked of transfers that pass validation (the
    // sides fit each other).
    // A split transfer runs only a strategy that moves pieces: any other
    // forced is DRI_ERR_STRATEGY.
    Codes build(const Xfer& x) const {
        const int s = agreed_strategy(x);
        if (validation(x)) return 0;
        if (any_split(x) && !moves_pieces(s)) return code(DRI_ERR_STRATEGY);
        if (s != DRI_STRATEGY_SHARED && s != DRI_STRATEGY_HYBRID) return 0;
        const Pairs p = pairs(x);
        const bool applies = s == DRI_STRATEGY_SHARED ? p.messages == 0 : p.copies > 0;
        return applies ? 0 : code(DRI_ERR_STRATEGY);
    }

    // The strategy a successful commit of x runs: as forced; AUTO's the
    // single copy for every pair when it applies, else for the pairs that
    // can (HYBRID), else NODES where its rule says the messages between
    // nodes are worth aggregating, else (and when no process reads from
    // another) P2P; -1 for MEASURE (the fastest of those that apply). A
    // split transfer: SHARED where it applies, else P2P.
    int chosen_strategy(const Xfer& x) const {
        const int s = agreed_strategy(x);
        if (s == DRI_STRATEGY_MEASURE) return -1;
        if (s != DRI_STRATEGY_AUTO) return s;
        const Pairs p = pairs(x);
        if (p.copies + p.messages == 0) return DRI_STRATEGY_P2P;
        if (p.messages == 0) return DRI_STRATEGY_SHARED;
        if (any_split(x)) return DRI_STRATEGY_P2P;
        if (p.copies > 0) return DRI_STRATEGY_HYBRID;
        return dri::core::aggregate_between_nodes(p.traffic) ? DRI_STRATEGY_NODES
                                                             : DRI_STRATEGY_P2P;
    }

    // The pairs (sender, receiver) of different ranks where the receiver
    // stores an element the sender owns: those that can use the single copy
    // (on one node, the sender's ring in DRI_Alloc_mem memory of its own,
    // wherever the receiver's ring lies), and the others.
    // Also the traffic between nodes that AUTO's rule for NODES reads (every
    // shape holds 4-byte elements).
    struct Pairs {
        int copies = 0, messages = 0;
        dri::core::NodeTraffic traffic;
    };
    static Pairs pairs(const Xfer& x) {
        const Side &send = x.side[0], &recv = x.side[1];
        const std::vector<int> sr = group_ranks(send.group), rr = group_ranks(recv.group);
        Pairs p;
        std::vector<dri::core::NodePiece> pieces;
        for (std::size_t i = 0; i < sr.size(); ++i) {
            const std::vector<bool> owned = cells(send.shape, send.spec, sr.size(), i, false);
            for (std::size_t j = 0; j < rr.size(); ++j) {
                if (sr[i] == rr[j]) continue;
                const std::vector<bool> stored = cells(recv.shape, recv.spec, rr.size(), j, true);
                long meet = 0;
                for (std::size_t c = 0; c < owned.size(); ++c)
                    meet += owned[c] && stored[c] ? 1 : 0;
                if (meet == 0) continue;
                pieces.push_back({sr[i], rr[j], 4 * meet});
                const bool same = g_node[static_cast<std::size_t>(sr[i])] ==
                                  g_node[static_cast<std::size_t>(rr[j])];
                ++(same && g_shareable && send.in_mem(sr[i]) ? p.copies : p.messages);
            }
        }
        p.traffic = dri::test::transfer_traffic(pieces, g_node, sr, rr);
        return p;
    }

    // The transfers of `xs` rank r passes to DRI_Commit: those it has a role
    // in, and those nobody has a role in (refused: DRI_ERR_STATE).
    std::vector<int> commit_list(const std::vector<int>& xs, int r, bool twice) const {
        std::vector<int> list;
        for (int xi : xs) {
            const Xfer& x = xfer_[static_cast<std::size_t>(xi)];
            if (x.roles() == 0 || has(x.roles(), r)) list.push_back(xi);
        }
        if (twice && !list.empty()) list.push_back(list.front());
        return list;
    }

    // What rank r's own checks find (agreed before anything else).
    Codes local_checks(const std::vector<int>& list, int r) const {
        Codes c = 0;
        std::vector<std::string> names;
        for (int xi : list) {
            const Xfer& x = xfer_[static_cast<std::size_t>(xi)];
            for (const Side& side : x.side)
                if (has(side.refused, r)) c |= side.refusal;
            if (x.committed || x.roles() == 0) c |= code(DRI_ERR_STATE);
            if (std::find(names.begin(), names.end(), x.name) != names.end())
                c |= code(DRI_ERR_DUPLICATE);
            names.push_back(x.name);
        }
        return c;
    }

    enum CommitBad {
        kNegativeCount,
        kStaleOnOne,
        kTwice,
        kNullComm,
        kStaleEverywhere,
        kCommitBads
    };

    // DRI_Commit (or DRI_Transfer_commit) of the transfers xs, collective
    // over the communicator: every rank calls, with the transfers it has a
    // role in. On any error no transfer is committed, on every rank.
    void commit(std::vector<int> xs, bool legal) {
        drop_unmatched_twins(xs);
        int v = legal ? -1 : rng_.below(kCommitBads);
        const int bad = rng_.below(g_size);
        const int stale = pick_dead(xfer_);
        if ((v == kStaleOnOne || v == kStaleEverywhere) && stale < 0) v = -1;
        const Mask roles0 = xs.size() == 1 ? xfer_[static_cast<std::size_t>(xs[0])].roles() : 0;
        // Alone, a rank with no role commits over the group of a role it
        // refused, else fails at once: a refusal on some ranks only would
        // leave them waiting for the others.
        const Mask refused0 = xs.size() == 1
                                  ? xfer_[static_cast<std::size_t>(xs[0])].side[0].refused |
                                        xfer_[static_cast<std::size_t>(xs[0])].side[1].refused
                                  : 0;
        const bool alone = xs.size() == 1 && v < 0 &&
                           (roles0 == all_ranks() ||
                            (roles0 == 0 && (refused0 == 0 || refused0 == all_ranks()))) &&
                           rng_.percent(50);
        Codes want = 0;
        bool others_fail = false; // a rank other than `bad` fails its own checks
        for (int r = 0; r < g_size; ++r) {
            if (v == kNegativeCount && r == bad)
                want |= code(DRI_ERR_ARG);
            else if ((v == kStaleOnOne && r == bad) || v == kStaleEverywhere)
                want |= code(DRI_ERR_HANDLE);
            else if (const Codes c = local_checks(commit_list(xs, r, v == kTwice), r); c)
                want |= c, others_fail = true;
        }
        if (v == kNullComm) want = code(DRI_ERR_GROUP);
        for (int phase = 0; phase < 2 && !want; ++phase)
            for (int xi : xs)
                want |= phase == 0 ? validation(xfer_[static_cast<std::size_t>(xi)])
                                   : build(xfer_[static_cast<std::size_t>(xi)]);
        if (!want) want = kOk;
        std::vector<int> list = commit_list(xs, g_rank, v == kTwice);
        std::vector<DRI_Transfer> handles;
        for (int xi : list)
            handles.push_back(xfer_[static_cast<std::size_t>(xi)].h);
        if ((v == kStaleOnOne && g_rank == bad) || v == kStaleEverywhere)
            handles.push_back(xfer_[static_cast<std::size_t>(stale)].stale);
        const int n = v == kNegativeCount && g_rank == bad ? -1 : static_cast<int>(handles.size());
        std::string names;
        for (int xi : xs)
            names += format("%s%d \"%s\"", names.empty() ? "" : ", ", xi,
                            xfer_[static_cast<std::size_t>(xi)].name.c_str());
        static const char* const what[] = {"count -1 on rank %d", "a stale transfer on rank %d",
                                           "a transfer twice", "MPI_COMM_NULL", "a stale transfer"};
        call(format("%s(xfers {%s}) [%s]", alone ? "DRI_Transfer_commit" : "DRI_Commit",
                    names.c_str(), v < 0 ? "legal arguments" : format(what[v], bad).c_str()));
        const int rc = alone ? DRI_Transfer_commit(handles[0])
                             : DRI_Commit(v == kNullComm ? MPI_COMM_NULL : comm(), n,
                                          handles.empty() ? nullptr : handles.data());
        expect_collective(rc, want, true);
        if ((v == kNegativeCount || v == kStaleOnOne) && !others_fail) expect_message_from(bad);
        if (want & (code(DRI_ERR_INCONSISTENT) | code(DRI_ERR_STRATEGY)))
            for (int xi : xs)
                if (refused_for_split(xfer_[static_cast<std::size_t>(xi)])) {
                    ++stats_.split_refusals;
                    break;
                }
        if (want == kOk)
            for (int xi : xs)
                if (!xfer_[static_cast<std::size_t>(xi)].committed) {
                    committed(xfer_[static_cast<std::size_t>(xi)]);
                    check_chosen(xi);
                }
    }

    // DRI_Transfer_strategy on the participants of a transfer just
    // committed: the strategy chosen_strategy() predicts; under MEASURE one
    // that applies.
    void check_chosen(int xi) {
        const Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        const int want = chosen_strategy(x);
        call(format("DRI_Transfer_strategy(xfer %d \"%s\") [%s asked, %s expected]", xi,
                    x.name.c_str(), kStrategyText[agreed_strategy(x)],
                    want >= 0 ? kStrategyText[want] : "one that applies"));
        if (!has(x.roles(), g_rank)) return;
        DRI_Strategy got = DRI_STRATEGY_MEASURE;
        expect(DRI_Transfer_strategy(x.h, &got), kOk);
        const int g = static_cast<int>(got);
        const Pairs p = pairs(x);
        const bool fits = want >= 0 ? g == want
                                    : g != DRI_STRATEGY_AUTO && g != DRI_STRATEGY_MEASURE &&
                                          g >= 0 && g < kStrategies &&
                                          (g != DRI_STRATEGY_SHARED || p.messages == 0) &&
                                          (g != DRI_STRATEGY_HYBRID || p.copies > 0) &&
                                          (!any_split(x) || moves_pieces(g));
        if (!fits)
            fail(format("DRI_Transfer_strategy says %s (%d pairs can copy, %d need messages)",
                        g >= 0 && g < kStrategies ? kStrategyText[g] : "no strategy", p.copies,
                        p.messages));
        if (g_rank == 0) ++stats_.chosen[static_cast<std::size_t>(g)];
        if (g_rank == 0 && any_split(x) && g == DRI_STRATEGY_SHARED) ++stats_.split_shared;
    }

    // Two transfers of one name in one commit are refused (DRI_ERR_DUPLICATE)
    // by the ranks that pass both; where no rank passes both, their
    // declarations would meet under one name, which the model does not
    // follow: the second is left out.
    void drop_unmatched_twins(std::vector<int>& xs) const {
        for (std::size_t a = 0; a < xs.size(); ++a)
            for (std::size_t b = a + 1; b < xs.size(); ++b) {
                const Xfer &x = xfer_[static_cast<std::size_t>(xs[a])],
                           &y = xfer_[static_cast<std::size_t>(xs[b])];
                if (x.name == y.name && x.roles() && y.roles() && !(x.roles() & y.roles()))
                    xs.erase(xs.begin() + static_cast<std::ptrdiff_t>(b--));
            }
    }

    // A successful commit: both rings start again at buffer 0; MEASURE ran
    // the candidates on the buffers (receive buffers overwritten).
    void committed(Xfer& x) {
        if (x.committed) return; // passed twice
        x.committed = true;
        for (Side& side : x.side)
            side.ring.cur = 0;
        const int s = agreed_strategy(x);
        if (s == DRI_STRATEGY_MEASURE)
            for (int& f : x.side[1].ring.frame)
                f = kUnknown;
        ++stats_.commits;
        ++stats_.strategies[static_cast<std::size_t>(s)];
        if (any_split(x)) ++stats_.split_commits;
    }

    // Whether a commit of x fails for its splits: they differ within a
    // side, or a forced strategy does not move pieces.
    bool refused_for_split(const Xfer& x) const {
        for (const Side& side : x.side)
            if (!lifetime::splits_agree(side.split, side.declared)) return true;
        return !validation(x) && any_split(x) && !moves_pieces(agreed_strategy(x));
    }

    // ---- AUTO that learns -------------------------------------------------------------------

    // On every rank: DRI_Transfer_set_learning (local, before commit; no mode
    // is DRI_ERR_ARG), DRI_Transfer_freeze (collective over the participants
    // of a committed transfer between reorganizations, DRI_ERR_STATE
    // elsewhere), or the queries of what was learned.
    void learning_step(int xi) {
        if (xi < 0) return;
        const Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        const bool part = committed_on(x, g_rank);
        const int k = rng_.below(3);
        if (k == 0) {
            const int mode = rng_.below(4); // 3 is no mode
            call(format("DRI_Transfer_set_learning(xfer %d \"%s\", %d)", xi, x.name.c_str(), mode));
            Codes w = mode == 3 ? code(DRI_ERR_ARG) : 0;
            if (part) w |= code(DRI_ERR_STATE);
            expect(DRI_Transfer_set_learning(x.h, static_cast<DRI_Learning>(mode)), w ? w : kOk);
            return;
        }
        if (k == 1) {
            const int frozen = rng_.below(2);
            call(format("DRI_Transfer_freeze(xfer %d \"%s\", %d)", xi, x.name.c_str(), frozen));
            const bool ok = part && !x.in_flight;
            expect(DRI_Transfer_freeze(x.h, frozen), ok ? kOk : code(DRI_ERR_STATE));
            return;
        }
        call(
            format("DRI_Transfer_routes / _route / _learning(xfer %d \"%s\")", xi, x.name.c_str()));
        int n = -1;
        expect(DRI_Transfer_routes(x.h, &n), part ? kOk : code(DRI_ERR_STATE));
        if (!part) return;
        if (n < 1 || n > 3) fail(format("DRI_Transfer_routes says %d routes", n));
        DRI_Strategy first = DRI_STRATEGY_AUTO;
        double seconds = 0;
        expect(DRI_Transfer_route(x.h, n, &first, &seconds), code(DRI_ERR_ARG));
        expect(DRI_Transfer_route(x.h, 0, &first, &seconds), kOk);
        const int want = chosen_strategy(x);
        if (want >= 0 && static_cast<int>(first) != want)
            fail(format("route 0 is %s, the static rule's choice is %s",
                        kStrategyText[static_cast<int>(first)], kStrategyText[want]));
        DRI_Route_state state = DRI_ROUTES_ONE;
        DRI_Index calls = -1, explored = -1, switches = -1;
        expect(DRI_Transfer_learning(x.h, &state, &calls, &explored, &switches), kOk);
        if ((n == 1) != (state == DRI_ROUTES_ONE) || explored > calls || switches > calls)
            fail(format("DRI_Transfer_learning says state %d, %lld calls, %lld explored, %lld "
                        "switches for %d routes",
                        static_cast<int>(state), static_cast<long long>(calls),
                        static_cast<long long>(explored), static_cast<long long>(switches), n));
        if (g_rank == 0) ++stats_.learning_queries, stats_.switched += switches > 0;
    }

    // ---- reorganizations -----------------------------------------------------------------

    // DRI_Do, DRI_Do_start, DRI_Do_wait or DRI_Do_test (until done, or once
    // and then DRI_Do_wait) on every rank: the participants succeed when the
    // state allows it, every other call is DRI_ERR_STATE (a rank without a
    // role has nothing committed).
    void reorganize(int xi, DoKind k) {
        Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        const bool part = x.committed && has(x.roles(), g_rank);
        const bool starts = k == kBlocking || k == kStart;
        const bool legal = x.committed && (starts ? !x.in_flight : x.in_flight);
        const bool then_wait = rng_.percent(40);
        const Codes want = legal && part ? kOk : code(DRI_ERR_STATE);
        if (legal && !starts) complete_marks(xi);
        static const char* const names[] = {"DRI_Do", "DRI_Do_start", "DRI_Do_wait", "DRI_Do_test"};
        call(format("%s(xfer %d \"%s\") [frame %d%s%s]", names[k], xi, x.name.c_str(), x.frame,
                    x.committed ? "" : ", not committed", x.in_flight ? ", in flight" : ""));
        // A split sender writes each piece after the start, just before it
        // marks it (mark_pieces); DRI_Do marks every piece itself.
        Ring& sr = x.side[0].ring;
        if (legal && part && starts && sr.nbuf && k == kStart && side_split(x.side[0]).split())
            sr.frame[static_cast<std::size_t>(sr.cur)] = x.frame;
        else if (legal && part && starts && sr.nbuf)
            fill(sr, x.serial, x.frame);
        int rc = DRI_SUCCESS;
        switch (k) {
        case kBlocking:
            rc = DRI_Do(x.h);
            break;
        case kStart:
            rc = DRI_Do_start(x.h);
            break;
        case kWait:
            rc = DRI_Do_wait(x.h);
            break;
        case kTest:
            rc = test_until_done(x, legal && part && then_wait);
            break;
        }
        expect_collective(rc, want, part);
        if (!legal) return;
        if (k == kStart) {
            x.in_flight = true;
            const lifetime::Split sp = side_split(x.side[0]);
            x.marks.start(g_size, sp.split() ? x.side[0].declared : 0, sp.count);
            return;
        }
        deliver_local(x, "after the reorganization completed");
        finish(x);
    }

    // DRI_Do_test until it reports done (or once, then DRI_Do_wait).
    int test_until_done(const Xfer& x, bool then_wait) {
        int done = 0;
        int rc = DRI_Do_test(x.h, &done);
        const double t0 = MPI_Wtime();
        while (rc == DRI_SUCCESS && !done) {
            if (then_wait) return DRI_Do_wait(x.h);
            if (MPI_Wtime() - t0 > 60) fail("DRI_Do_test did not report done within 60 s");
            rc = DRI_Do_test(x.h, &done);
        }
        return rc;
    }

    // DRI_Transfer_current: the buffers the next reorganization uses.
    void current(int xi) {
        const Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        if (x.in_flight) return; // which buffer is "next" while one is in flight is not said
        call(format("DRI_Transfer_current(xfer %d \"%s\")", xi, x.name.c_str()));
        int sb = -7, rb = -7;
        expect(DRI_Transfer_current(x.h, &sb, &rb), kOk);
        const Ring &sr = x.side[0].ring, &rr = x.side[1].ring;
        const int want_s = sr.nbuf ? sr.cur : -1, want_r = rr.nbuf ? rr.cur : -1;
        if (sb != want_s || rb != want_r)
            fail(format("current buffers %d, %d; expected %d, %d", sb, rb, want_s, want_r));
    }

    // DRI_Transfer_destroy on every rank. With a reorganization in flight
    // some ranks (drawn) complete it with DRI_Do_wait first, the others
    // leave it to the destroy: either way the data arrives.
    void destroy_xfer(int xi) {
        Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        if (x.in_flight) complete_marks(xi); // completed as DRI_Do_wait would: every piece marked
        const bool flight = x.in_flight, part = has(x.roles(), g_rank);
        const Mask early = flight ? static_cast<Mask>(rng_.next()) & all_ranks() : 0;
        if (flight && part && has(early, g_rank)) {
            call(format("DRI_Do_wait(xfer %d \"%s\") before destroying it", xi, x.name.c_str()));
            expect(DRI_Do_wait(x.h), kOk);
            deliver_local(x, "after DRI_Do_wait");
        }
        call(format(
            "DRI_Transfer_destroy(xfer %d \"%s\")%s", xi, x.name.c_str(),
            flight ? format(" with a reorganization in flight (ranks 0x%x waited first)", early)
                         .c_str()
                   : ""));
        const DRI_Transfer old = x.h;
        expect(DRI_Transfer_destroy(&x.h), kOk);
        if (x.h) fail("the handle is not NULL after DRI_Transfer_destroy");
        if (flight && part && !has(early, g_rank))
            deliver_local(x, "after DRI_Transfer_destroy completed it");
        if (flight) finish(x), ++stats_.teardowns_in_flight;
        forget(x, xi);
        x.stale = old;
    }

    // A transfer is gone (destroyed or finalized): its rings no longer pin memory.
    // Its heap rings are kept to the end of the sequence: nothing may write
    // them any more (a request left behind would).
    void forget(Xfer& x, int xi) {
        for (Mems& ms : mem_)
            for (Mem& m : ms)
                for (int& b : m.bound)
                    if (b == xi) b = -1;
        for (int s = 0; s < 2; ++s)
            if (x.side[s].ring.nbuf && !x.side[s].in_mem(g_rank))
                graves_.push_back({std::move(x.side[s].ring), x.serial, s == 0, x.name});
        x = Xfer{};
        x.dead = true;
    }

    struct Grave {
        Ring ring;
        int serial;
        bool sender;
        std::string name;
    };

    // ---- destroying descriptive objects -----------------------------------------------

    // `*_destroy(&h)` on the ranks holding the handle: succeeds, sets it to
    // NULL, and the old value becomes a stale copy. Where the rank holds no
    // handle (not a member) the NULL handle is refused: DRI_ERR_HANDLE. Bad
    // (not `legal`): a NULL pointer (DRI_ERR_NULL) or a handle of another
    // kind (DRI_ERR_HANDLE); the object stays alive.
    template <class S, class H, class Other>
    void destroy_slot(S& s, int i, int (*destroy)(H*), const char* what, bool legal, Other other) {
        const int bad = legal ? -1 : rng_.below(2);
        if (bad == 0) {
            call(format("%s_destroy(NULL) [%d]", what, i));
            expect(destroy(nullptr), code(DRI_ERR_NULL));
            return;
        }
        if (bad == 1) {
            H wrong = reinterpret_cast<H>(other); // a live handle of another kind
            call(format("%s_destroy(&handle of another kind)", what));
            expect(destroy(&wrong), code(DRI_ERR_HANDLE));
            return;
        }
        call(format("%s_destroy(&%d)", what, i));
        const H old = s.h;
        expect(destroy(&s.h), old ? kOk : code(DRI_ERR_HANDLE));
        if (s.h) fail("the handle is not NULL after a successful destroy");
        s.stale = old;
        s.live = false;
        s.dead = true;
    }

    // A live handle of another kind than the one destroyed (NULL if none:
    // then also refused, DRI_ERR_HANDLE).
    void* other_kind(int kind) const {
        if (kind != 0 && gdo_[0].live) return gdo_[0].h;
        if (kind != 1 && part_[0].live) return part_[0].h;
        if (kind != 0 && gdo_[1].live) return gdo_[1].h;
        return part_[1].live && kind != 1 ? static_cast<void*>(part_[1].h) : nullptr;
    }

    void destroy_gdo(int i, bool legal) {
        destroy_slot(gdo_[static_cast<std::size_t>(i)], i, DRI_Globaldata_destroy, "DRI_Globaldata",
                     legal, other_kind(0));
    }
    void destroy_part(int i, bool legal) {
        destroy_slot(part_[static_cast<std::size_t>(i)], i, DRI_Partition_destroy, "DRI_Partition",
                     legal, other_kind(1));
    }
    void destroy_group(int i, bool legal) {
        destroy_slot(group_[static_cast<std::size_t>(i)], i, DRI_Group_destroy, "DRI_Group", legal,
                     other_kind(2));
    }
    void destroy_dist(int i, bool legal) {
        destroy_slot(dist_[static_cast<std::size_t>(i)], i, DRI_Distribution_destroy,
                     "DRI_Distribution", legal, other_kind(3));
    }
    void destroy_layout(int i, bool legal) {
        destroy_slot(layout_[static_cast<std::size_t>(i)], i, DRI_Layout_destroy, "DRI_Layout",
                     legal, other_kind(4));
    }

    // Any live object, or a transfer.
    void destroy_any(bool legal) {
        switch (rng_.below(6)) {
        case 0:
            if (const int i = pick(gdo_, true); i >= 0) destroy_gdo(i, legal);
            break;
        case 1:
            if (const int i = pick(part_, true); i >= 0) destroy_part(i, legal);
            break;
        case 2:
            if (const int i = pick(group_, true); i >= 0) destroy_group(i, legal);
            break;
        case 3:
            if (const int i = pick(dist_, true); i >= 0) destroy_dist(i, legal);
            break;
        case 4:
            if (const int i = pick(layout_, true); i >= 0) destroy_layout(i, legal);
            break;
        default:
            if (const int i = pick(xfer_, true); i >= 0) destroy_xfer(i);
            break;
        }
    }

    // ---- node shared memory ---------------------------------------------------------------------

    // A commit commits a transfer on the ranks with a role only.
    static bool committed_on(const Xfer& x, int r) { return x.committed && has(x.roles(), r); }

    // This rank's memory slots.
    Mems& mine() { return mem_[static_cast<std::size_t>(g_rank)]; }

    // Is rank r's memory slot m in a ring of a live transfer, and is that
    // transfer committed (on r: its rings pin r's memory, whatever the strategy)?
    bool referenced(int r, int m) const {
        const Mem& mm = mem_[static_cast<std::size_t>(r)][static_cast<std::size_t>(m)];
        return mm.bound[0] >= 0 || mm.bound[1] >= 0;
    }
    bool pinned(int r, int m) const {
        for (int b : mem_[static_cast<std::size_t>(r)][static_cast<std::size_t>(m)].bound)
            if (b >= 0 && committed_on(xfer_[static_cast<std::size_t>(b)], r)) return true;
        return false;
    }

    // A memory call of rank r alone: every rank describes it (the same calls
    // everywhere, for --replay), only r makes it. It needs no initialization.
    void mem_call(int r, const std::string& text) {
        call(format("%s on rank %d alone", text.c_str(), r));
        ++stats_.mem_calls;
        if (!initialized_) ++stats_.mem_uninitialized;
    }

    enum AllocKind { kAllocRing, kAllocZero, kAllocNegative, kAllocNull, kAllocHuge, kAllocKinds };

    // DRI_Alloc_mem on rank r alone, into its slot i: g_mem_bytes (room for
    // two rings), or 0 bytes (legal, holds no ring). Bad: -1 bytes
    // (DRI_ERR_ARG), a NULL result (DRI_ERR_NULL), INT64_MAX bytes
    // (DRI_ERR_OVERFLOW): refused on r only.
    void alloc_mem(int r, int i, int v) {
        Mem& m = mem_[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
        const DRI_Index bytes = v == kAllocZero       ? 0
                                : v == kAllocNegative ? -1
                                : v == kAllocHuge     ? INT64_MAX
                                                      : g_mem_bytes;
        const Codes want = v == kAllocNegative ? code(DRI_ERR_ARG)
                           : v == kAllocNull   ? code(DRI_ERR_NULL)
                           : v == kAllocHuge   ? code(DRI_ERR_OVERFLOW)
                                               : kOk;
        mem_call(r, format("DRI_Alloc_mem(%lld, %s) [mem %d]", static_cast<long long>(bytes),
                           v == kAllocNull ? "NULL" : "&base", i));
        if (r == g_rank) {
            expect(DRI_Alloc_mem(bytes, v == kAllocNull ? nullptr : &m.base), want);
            if (want == kOk && reinterpret_cast<std::uintptr_t>(m.base) % 4096 != 0)
                fail("DRI_Alloc_mem: not page aligned");
            if (want == kOk) std::memset(m.base, 0x5a, static_cast<std::size_t>(bytes)); // ordinary
        }
        if (want != kOk) return;
        m.live = true;
        m.usable = v == kAllocRing;
        m.bound[0] = m.bound[1] = -1;
    }

    // Memory for rings on the ranks of `ranks`, each alone (the others go on).
    void alloc_on(Mask ranks) {
        for (int r = 0; r < g_size; ++r)
            if (has(ranks, r))
                if (const int i = pick(mem_[static_cast<std::size_t>(r)], false); i >= 0)
                    alloc_mem(r, i, kAllocRing);
    }

    enum FreeKind { kFree, kFreeTwice, kFreeOffset, kFreeNull, kFreeKinds };

    // DRI_Free_mem on rank r alone, of its slot i. Refused on r only,
    // freeing nothing: while a committed transfer of r uses the memory
    // (DRI_ERR_STATE, whatever the strategy), and for an address
    // DRI_Alloc_mem did not return: the base + 1, NULL, the base just freed
    // (kFreeTwice: freed, then again; no allocation came in between, so the
    // address cannot have been handed out again) (DRI_ERR_ARG). Memory an
    // uncommitted transfer's ring lies in must outlive the transfer: then
    // only calls that are refused are made.
    void free_mem(int r, int i, int v) {
        Mem& m = mem_[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
        if ((v == kFree || v == kFreeTwice) && referenced(r, i) && !pinned(r, i)) v = kFreeOffset;
        const bool pin = pinned(r, i);
        const Codes want = v == kFreeOffset || v == kFreeNull ? code(DRI_ERR_ARG)
                           : pin                              ? code(DRI_ERR_STATE)
                                                              : kOk;
        static const char* const what[] = {"base", "base", "base + 1", "NULL"};
        mem_call(r, format("DRI_Free_mem(%s) [mem %d%s]", what[v], i,
                           pin ? ", a committed transfer uses it" : ""));
        if (r == g_rank) {
            void* base = v == kFreeOffset ? static_cast<char*>(m.base) + 1
                         : v == kFreeNull ? nullptr
                                          : m.base;
            expect(DRI_Free_mem(base), want);
        }
        if (want == code(DRI_ERR_STATE)) ++stats_.pinned_refusals;
        if (want != kOk) return;
        m.stale = m.base;
        m.base = nullptr;
        m.live = m.usable = false;
        m.dead = true;
        if (v != kFreeTwice) return;
        mem_call(r, format("DRI_Free_mem(base) [mem %d, freed twice]", i));
        if (r == g_rank) expect(DRI_Free_mem(m.stale), code(DRI_ERR_ARG));
    }

    // Memory calls, each rank on a schedule of its own: 0 to 2 calls per
    // rank, drawn from its own generator (an allocation into a free slot or
    // a free of a live one, legal in `legal` percent, else with a bad
    // argument), so that ranks allocate and free in different orders and at
    // different moments, and go on alone to what comes next.
    void memory_step(int legal) {
        const std::uint64_t salt = rng_.next();
        for (int r = 0; r < g_size; ++r) {
            Rng own = rank_rng(salt, r);
            const Mems& mm = mem_[static_cast<std::size_t>(r)];
            for (int n = own.below(3); n > 0; --n) {
                const int live = pick(mm, true, own), idle = pick(mm, false, own);
                const bool ok = own.percent(legal);
                if (idle >= 0 && (live < 0 || own.percent(50)))
                    alloc_mem(r, idle,
                              ok ? (own.percent(15) ? kAllocZero : kAllocRing)
                                 : kAllocNegative + own.below(kAllocKinds - kAllocNegative));
                else if (live >= 0)
                    free_mem(r, live,
                             ok ? (own.percent(30) ? kFreeTwice : kFree)
                                : kFreeOffset + own.below(kFreeKinds - kFreeOffset));
            }
        }
    }

    // Every rank frees its memory (no transfer uses it), legally, alone, in
    // an order of its own.
    void free_all_mem() {
        const std::uint64_t salt = rng_.next();
        for (int r = 0; r < g_size; ++r) {
            Rng own = rank_rng(salt, r);
            const int first = own.below(2);
            for (int k = 0; k < 2; ++k)
                if (const int i = (first + k) % 2;
                    mem_[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)].live)
                    free_mem(r, i, own.percent(30) ? kFreeTwice : kFree);
        }
    }

    // A base DRI_Free_mem freed, freed again on one rank alone: DRI_ERR_ARG.
    // While that rank holds no allocation in its slots, the address cannot
    // have been handed out again.
    void free_stale_mem() {
        const int r = rng_.below(g_size);
        const Mems& mm = mem_[static_cast<std::size_t>(r)];
        const int i = pick_dead(mm);
        if (i < 0 || pick(mm, true) >= 0) return;
        mem_call(r, format("DRI_Free_mem(base freed before) [mem %d]", i));
        if (r == g_rank)
            expect(DRI_Free_mem(mine()[static_cast<std::size_t>(i)].stale), code(DRI_ERR_ARG));
    }

    // ---- finalize and init -------------------------------------------------------------

    // DRI_Finalize on every rank: reorganizations in flight complete (the
    // data arrives), every handle becomes stale, and the transfers no longer
    // pin memory. DRI_Finalize frees no memory: it stays valid and the
    // user's (rings in it keep their data) until DRI_Free_mem, which works
    // after DRI_Finalize too.
    void finalize() {
        int flights = 0;
        for (std::size_t i = 0; i < xfer_.size(); ++i)
            if (xfer_[i].live && xfer_[i].in_flight) complete_marks(static_cast<int>(i));
        for (const Xfer& x : xfer_)
            flights += x.in_flight;
        call(format("DRI_Finalize() [%d reorganizations in flight]", flights));
        expect_collective(DRI_Finalize(), kOk, true);
        for (std::size_t i = 0; i < xfer_.size(); ++i) {
            Xfer& x = xfer_[i];
            if (!x.live) continue;
            if (x.in_flight) {
                if (has(x.roles(), g_rank)) deliver_local(x, "after DRI_Finalize completed it");
                finish(x), ++stats_.teardowns_in_flight;
            } else {
                for (int s = 0; s < 2; ++s)
                    if (x.side[s].in_mem(g_rank)) check_ring(x, s, "after DRI_Finalize");
            }
            const DRI_Transfer old = x.h;
            forget(x, static_cast<int>(i));
            x.stale = old;
        }
        stale_all(gdo_), stale_all(part_), stale_all(group_), stale_all(dist_), stale_all(layout_);
        initialized_ = false;
        ++stats_.finalizes;
        check_initialized(0);
    }

    template <class S, std::size_t N>
    static void stale_all(std::array<S, N>& slots) {
        for (S& s : slots)
            if (s.live) s.stale = s.h, s.h = nullptr, s.live = false, s.dead = true;
    }

    void check_initialized(int want) {
        call("DRI_Initialized(&flag)");
        int flag = -1;
        expect(DRI_Initialized(&flag), kOk);
        if (flag != want) fail(format("DRI_Initialized says %d, expected %d", flag, want));
    }

    void init() {
        call("DRI_Init()");
        expect(DRI_Init(), kOk);
        initialized_ = true;
        check_initialized(1);
    }

    // Between DRI_Finalize and DRI_Init: DRI_Init, memory calls (local, no
    // initialization needed: they succeed or are refused as at any other
    // time), or a call that must be refused with DRI_ERR_NOT_INITIALIZED (on
    // every rank, before any communication).
    void uninitialized_step() {
        const int k = rng_.below(10);
        if (k < 3) return init();
        const Codes want = code(DRI_ERR_NOT_INITIALIZED);
        const int dx = pick_dead(xfer_), dg = pick_dead(gdo_);
        DRI_Globaldata g = nullptr;
        const DRI_Index ext[1] = {4};
        switch (k) {
        case 3:
            call("DRI_Finalize() again");
            expect(DRI_Finalize(), want);
            break;
        case 4:
            call("DRI_Globaldata_create(...)");
            expect(DRI_Globaldata_create(1, ext, DRI_INT32, &g), want);
            break;
        case 5:
            call("DRI_Globaldata_destroy(&stale)");
            g = dg >= 0 ? gdo_[static_cast<std::size_t>(dg)].stale : nullptr;
            expect(DRI_Globaldata_destroy(&g), want);
            break;
        case 6:
            call("DRI_Do(stale transfer)");
            expect(DRI_Do(dx >= 0 ? xfer_[static_cast<std::size_t>(dx)].stale : nullptr), want);
            break;
        case 7:
            memory_step(80);
            break;
        case 8:
            if (rng_.percent(30)) return free_stale_mem();
            memory_step(100);
            break;
        default:
            call("DRI_Commit(comm, 0, NULL)");
            expect(DRI_Commit(comm(), 0, nullptr), want);
            break;
        }
    }

    // ---- queries, stale handles, odd calls ---------------------------------------------------

    // A query of a live object, checked against the model.
    void query() {
        const int k = rng_.below(5);
        if (k == 0) return query_gdo(pick(gdo_, true));
        if (k == 1) return query_group(pick(group_, true));
        if (k == 2) return query_dist(pick(dist_, true));
        if (k == 3) {
            if (const int i = pick(xfer_, true); i >= 0) current(i);
            return;
        }
        call("DRI_Group_size(a handle of another kind)");
        int size = 0;
        expect(DRI_Group_size(static_cast<DRI_Group>(other_kind(2)), &size), code(DRI_ERR_HANDLE));
    }

    void query_gdo(int i) {
        if (i < 0) return;
        const ShapeDef& d = g_shape_defs[gdo_[static_cast<std::size_t>(i)].shape];
        call(format("DRI_Globaldata_get(gdo %d)", i));
        int nd = 0;
        DRI_Index ext[DRI_MAX_DIMS] = {}, eb = 0;
        expect(DRI_Globaldata_get(gdo_[static_cast<std::size_t>(i)].h, &nd, ext, &eb), kOk);
        if (nd != d.ndims || ext[0] != d.ext[0] || (nd == 2 && ext[1] != d.ext[1]) || eb != 4)
            fail(format("DRI_Globaldata_get: %d dimensions, element of %lld bytes", nd,
                        static_cast<long long>(eb)));
    }

    void query_group(int i) {
        if (i < 0) return;
        const std::vector<int> ranks = group_ranks(group_[static_cast<std::size_t>(i)].kind);
        const auto at = std::find(ranks.begin(), ranks.end(), g_rank);
        const int want_index = at == ranks.end() ? -1 : static_cast<int>(at - ranks.begin());
        call(format("DRI_Group_size and DRI_Group_index(group %d)", i));
        int size = -7, index = -7;
        expect(DRI_Group_size(group_[static_cast<std::size_t>(i)].h, &size), kOk);
        expect(DRI_Group_index(group_[static_cast<std::size_t>(i)].h, &index), kOk);
        if (size != static_cast<int>(ranks.size()) || index != want_index)
            fail(format("group of %d, index %d; expected %zu, %d", size, index, ranks.size(),
                        want_index));
    }

    // The grid: all the group's processes along the cut dimension.
    void query_dist(int i) {
        if (i < 0) return;
        const Dist& d = dist_[static_cast<std::size_t>(i)];
        const int n = static_cast<int>(group_ranks(d.group).size());
        const int want[2] = {d.spec == 1 ? 1 : n, d.spec == 1 ? n : 1};
        call(format("DRI_Distribution_grid(dist %d)", i));
        int grid[DRI_MAX_DIMS] = {};
        expect(DRI_Distribution_grid(d.h, grid), d.h ? kOk : code(DRI_ERR_HANDLE));
        if (d.h && (grid[0] != want[0] || (kSpecDefs[d.spec].ndims == 2 && grid[1] != want[1])))
            fail(format("grid %d x %d, expected %d x %d", grid[0], grid[1], want[0], want[1]));
    }

    // A stale copy of a destroyed (or finalized) handle is refused:
    // DRI_ERR_HANDLE. Between DRI_Finalize and DRI_Init: uninitialized_step.
    void use_stale() {
        const Codes want = code(DRI_ERR_HANDLE);
        const int k = rng_.below(7);
        if (k == 0) {
            const int i = pick_dead(gdo_);
            if (i < 0) return;
            call(format("DRI_Globaldata_get(stale gdo %d)", i));
            expect(DRI_Globaldata_get(gdo_[static_cast<std::size_t>(i)].stale, nullptr, nullptr,
                                      nullptr),
                   want);
        } else if (k == 1) {
            const int i = pick_dead(part_);
            if (i < 0) return;
            DRI_Partition copy = part_[static_cast<std::size_t>(i)].stale;
            call(format("DRI_Partition_destroy(&stale part %d)", i));
            expect(DRI_Partition_destroy(&copy), want);
            if (copy != part_[static_cast<std::size_t>(i)].stale)
                fail("a refused destroy changed the handle");
        } else if (k == 2) {
            const int i = pick_dead(group_);
            if (i < 0) return;
            call(format("DRI_Group_index(stale group %d)", i));
            int index = 0;
            expect(DRI_Group_index(group_[static_cast<std::size_t>(i)].stale, &index), want);
        } else if (k == 3) {
            const int i = pick_dead(dist_);
            if (i < 0) return;
            call(format("DRI_Distribution_grid(stale dist %d)", i));
            int grid[DRI_MAX_DIMS];
            expect(DRI_Distribution_grid(dist_[static_cast<std::size_t>(i)].stale, grid), want);
        } else if (k == 4) {
            const int i = pick_dead(layout_);
            if (i < 0) return;
            DRI_Layout copy = layout_[static_cast<std::size_t>(i)].stale;
            call(format("DRI_Layout_destroy(&stale layout %d)", i));
            expect(DRI_Layout_destroy(&copy), want);
        } else if (k == 5) {
            free_stale_mem();
        } else {
            const int i = pick_dead(xfer_);
            if (i < 0) return;
            DRI_Transfer copy = xfer_[static_cast<std::size_t>(i)].stale;
            const int which = rng_.below(4);
            static const char* const names[] = {"DRI_Do", "DRI_Do_wait", "DRI_Transfer_current",
                                                "DRI_Transfer_destroy"};
            call(format("%s(stale xfer %d)", names[which], i));
            int sb = 0, rb = 0;
            const int rc = which == 0   ? DRI_Do(copy)
                           : which == 1 ? DRI_Do_wait(copy)
                           : which == 2 ? DRI_Transfer_current(copy, &sb, &rb)
                                        : DRI_Transfer_destroy(&copy);
            expect(rc, want);
        }
    }

    // Calls that are legal or refused whatever the state.
    void odd_call() {
        const int k = rng_.below(3);
        const int xi = pick(xfer_, true);
        if (k == 0) {
            call("DRI_Init() while initialized");
            expect(DRI_Init(), code(DRI_ERR_STATE));
        } else if (k == 1 && xi >= 0) {
            call(format("DRI_Do_test(xfer %d, NULL)", xi));
            expect(DRI_Do_test(xfer_[static_cast<std::size_t>(xi)].h, nullptr), code(DRI_ERR_NULL));
        } else if (xi >= 0) {
            call(format("DRI_Transfer_current(xfer %d, NULL, NULL)", xi));
            expect(DRI_Transfer_current(xfer_[static_cast<std::size_t>(xi)].h, nullptr, nullptr),
                   kOk);
        }
    }

    // ---- choosing the next call -------------------------------------------------------------

    void step() {
        if (!initialized_) return uninitialized_step();
        // Several in flight at once, then completed in per-rank orders.
        const int flying = in_flight_count();
        const int idle = pick_if(xfer_, [](const Xfer& o) { return o.committed && !o.in_flight; });
        if (flying >= 1 && idle >= 0 && rng_.percent(35)) return reorganize(idle, kStart);
        if ((flying >= 2 || (flying >= 1 && idle >= 0)) && rng_.percent(40)) {
            const double t = MPI_Wtime();
            complete_crossed();
            stats_.crossed_seconds += MPI_Wtime() - t;
            return;
        }
        if (rng_.percent(55)) return useful_step();
        random_step();
    }

    int in_flight_count() const {
        int n = 0;
        for (const Xfer& x : xfer_)
            n += x.live && x.in_flight ? 1 : 0;
        return n;
    }

    // ---- pieces ----------------------------------------------------------------------------

    // DRI_Transfer_set_pieces, or DRI_Transfer_set_piece_bounds with the
    // rank's own boundaries (its own draw), of side s: a local call of every
    // rank that declared the side, or (drawn) of every rank, refused where
    // the rank has no such role or the transfer is committed (DRI_ERR_STATE).
    // Not `legal`: one bad argument on one rank (DRI_ERR_ARG, DRI_ERR_NULL,
    // DRI_ERR_HANDLE), whose earlier split stays. In `odd` percent of the
    // calls one rank of the side asks for another dimension or count: legal,
    // and the commit is DRI_ERR_INCONSISTENT on every process.
    void split_step(int xi, int s, bool legal, int odd_percent) {
        Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        Side& side = x.side[s];
        const int nd = side.declared ? g_shape_defs[side.shape].ndims : 1;
        lifetime::Split want;
        want.dim = rng_.below(nd);
        want.count = rng_.percent(85) ? 1 + rng_.below(5) : 6 + rng_.below(35); // some empty
        int v = legal ? -1 : rng_.below(lifetime::kSplitBads + 2) - 2;
        if (v < 0 || (v == lifetime::kSplitStale && !x.dead)) v = -1;
        const bool everyone = !side.declared || (!legal && rng_.percent(20));
        const Mask callers = everyone ? all_ranks() : side.declared;
        const int bad = v >= 0 ? pick_rank(callers) : -1;
        const int odd =
            count(side.declared) >= 2 && rng_.percent(odd_percent) ? pick_rank(side.declared) : -1;
        lifetime::Split other = want;
        if (nd == 2 && rng_.percent(50))
            other.dim = 1 - want.dim;
        else
            other.count = want.count % 40 + 1;
        const std::uint64_t salt = rng_.next();
        const auto split_on = [&](int r) { return r == odd ? other : want; };
        const auto outcome = [&](int r) {
            if (r == bad && v == lifetime::kSplitStale) return code(DRI_ERR_HANDLE);
            Codes w = 0;
            if (r == bad && v == lifetime::kSplitBoundsNull) w |= code(DRI_ERR_NULL);
            if (r == bad && v != lifetime::kSplitBoundsNull) w |= code(DRI_ERR_ARG);
            if (!has(side.declared, r) || x.committed) w |= code(DRI_ERR_STATE);
            return w ? w : kOk;
        };
        call(format(
            "DRI_Transfer_set_pieces(xfer %d \"%s\", %s, dim %d, count %d) on %s, even "
            "or with boundaries of its own%s [%s]",
            xi, x.name.c_str(), s == 0 ? "DRI_ROLE_SEND" : "DRI_ROLE_RECV", want.dim, want.count,
            everyone ? "every rank" : "the ranks that declared the role",
            odd >= 0 ? format(" (rank %d: dim %d, count %d)", odd, other.dim, other.count).c_str()
                     : "",
            v >= 0 ? format("%s on rank %d", lifetime::split_bad_text(v), bad).c_str()
                   : "legal arguments"));
        if (has(callers, g_rank))
            split_here(x, s, nd, split_on(g_rank), g_rank == bad ? v : -1, outcome(g_rank), salt);
        for (int r = 0; r < g_size; ++r)
            if (has(callers, r) && outcome(r) == kOk) {
                side.split[static_cast<std::size_t>(r)] = split_on(r);
                ++stats_.splits;
            }
    }

    // This rank's split call; after a success, DRI_Transfer_pieces and
    // DRI_Transfer_piece return what was asked (the even rule, or the
    // boundaries).
    void split_here(const Xfer& x, int s, int nd, lifetime::Split sp, int v, Codes want,
                    std::uint64_t salt) {
        using namespace lifetime;
        Rng own = rank_rng(salt, g_rank);
        int dim = sp.dim, n = sp.count, role = s == 0 ? DRI_ROLE_SEND : DRI_ROLE_RECV;
        if (v == kSplitDim) dim = own.percent(50) ? -1 : nd;
        if (v == kSplitCountZero) n = 0;
        if (v == kSplitCountHuge) n = DRI_MAX_PIECES + 1;
        if (v == kSplitBoundsBack) n = std::max(n, 3);
        if (v == kSplitRole) role = 7;
        const bool with_bounds = v == kSplitBoundsEnd || v == kSplitBoundsBack ||
                                 v == kSplitBoundsNull ||
                                 (v != kSplitCountZero && v != kSplitCountHuge && own.percent(35));
        const DRI_Index e = block_extent(x.side[s].ring, dim);
        const std::vector<DRI_Index> b =
            with_bounds ? draw_bounds(e, n, v, [&](int m) { return own.below(m); })
                        : std::vector<DRI_Index>{};
        DRI_Role r;
        static_assert(sizeof r == sizeof role);
        std::memcpy(&r, &role, sizeof r); // any int, as a C caller may pass
        const DRI_Transfer h = v == kSplitStale ? x.stale : x.h;
        const int rc = with_bounds ? DRI_Transfer_set_piece_bounds(
                                         h, r, dim, n, v == kSplitBoundsNull ? nullptr : b.data())
                                   : DRI_Transfer_set_pieces(h, r, dim, n);
        expect(rc, want);
        if (rc != DRI_SUCCESS) return;
        int got_dim = -7, got_count = -7;
        expect(DRI_Transfer_pieces(x.h, r, &got_dim, &got_count), kOk);
        if (got_dim != sp.dim || got_count != sp.count)
            fail(format("DRI_Transfer_pieces says dim %d, count %d", got_dim, got_count));
        for (int k = 0; k < n; ++k) {
            DRI_Index lo = -7, hi = -7;
            expect(DRI_Transfer_piece(x.h, r, k, &lo, &hi), kOk);
            const DRI_Index want_lo = with_bounds ? b[static_cast<std::size_t>(k)] : k * e / n,
                            want_hi =
                                with_bounds ? b[static_cast<std::size_t>(k) + 1] : (k + 1) * e / n;
            if (lo != want_lo || hi != want_hi)
                fail(format("DRI_Transfer_piece(%d) says [%lld, %lld), expected [%lld, %lld) of "
                            "a block of extent %lld",
                            k, static_cast<long long>(lo), static_cast<long long>(hi),
                            static_cast<long long>(want_lo), static_cast<long long>(want_hi),
                            static_cast<long long>(e)));
        }
    }

    // The extent of this rank's block along dimension d (1 when d is no
    // dimension of it: the call is refused before it matters).
    static DRI_Index block_extent(const Ring& r, int d) {
        DRI_Index e = 0;
        if (d < 0 || d > 1) return 1;
        for (const lifetime::LocalIndex& l : r.local)
            e = std::max(e, l[static_cast<std::size_t>(d)] + 1);
        return std::max<DRI_Index>(e, 1);
    }

    // Piece calls on transfer xi, each rank its own. In flight: each split
    // sender marks some of the pieces it has left, in an order of its own
    // (sometimes first one out of range, or one marked before); other ranks
    // are refused DRI_Piece_ready (DRI_ERR_STATE: the send role is not split,
    // or there is none). Then each receiver tests some of its receive pieces
    // (sometimes one out of range, or with a NULL flag), or waits for them
    // once every rank has marked every piece and the strategy moves pieces
    // (then a wait needs nothing but MPI's progress from the others), and
    // checks the cells of each piece as soon as it has arrived. Out of
    // flight every piece call is refused.
    void piece_step(int xi) {
        Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        const std::uint64_t salt = rng_.next();
        if (!x.in_flight) return pieces_out_of_flight(xi, salt);
        const lifetime::Split rp = side_split(x.side[1]);
        for (int r = 0; r < g_size; ++r) {
            Rng own = rank_rng(salt, r);
            const auto left = static_cast<int>(x.marks.unmarked(r).size());
            if (side_split(x.side[0]).split() && has(x.side[0].declared, r))
                mark_pieces(xi, r, own, own.percent(40) ? left : own.below(left + 1), true);
            else if (own.percent(30))
                refused_piece_call(xi, r, 0, "its send role is not split, or it has none");
        }
        const int chosen = chosen_strategy(x);
        const bool waits = x.marks.all() && (any_split(x) || chosen == DRI_STRATEGY_P2P ||
                                             chosen == DRI_STRATEGY_SHARED);
        for (int r = 0; r < g_size; ++r) {
            Rng own = rank_rng(salt ^ 0x2545f4914f6cdd1dULL, r);
            if (!has(x.side[1].declared, r)) {
                if (own.percent(30))
                    refused_piece_call(xi, r, 1 + own.below(2), "it has no receive role");
                continue;
            }
            for (int n = 1 + own.below(3); n > 0; --n) {
                const int bad = own.percent(8) ? 1 + own.below(2) : 0; // out of range, NULL flag
                const int k = bad == 1 ? (own.percent(50) ? rp.count + own.below(3) : -1)
                                       : own.below(rp.count);
                receive_piece(xi, r, k, bad == 0 && waits && own.percent(50), bad);
            }
        }
    }

    // DRI_Piece_ready (0), DRI_Piece_test (1) or DRI_Piece_wait (2) of
    // piece 0 on rank r alone, refused: DRI_ERR_STATE.
    void refused_piece_call(int xi, int r, int which, const char* why) {
        const Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        static const char* const names[] = {"DRI_Piece_ready", "DRI_Piece_test", "DRI_Piece_wait"};
        call(format("%s(xfer %d \"%s\", 0) on rank %d alone [%s]", names[which], xi, x.name.c_str(),
                    r, why));
        if (r != g_rank) return;
        int arrived = 0;
        expect(which == 0   ? DRI_Piece_ready(x.h, 0)
               : which == 1 ? DRI_Piece_test(x.h, 0, &arrived)
                            : DRI_Piece_wait(x.h, 0),
               code(DRI_ERR_STATE));
    }

    // Rank r marks n of the send pieces it has left of transfer xi ready, in
    // an order of its own (`own`, which every rank replays), writing each
    // piece's cells just before. With `bad`, sometimes a piece out of range
    // (DRI_ERR_ARG) or one it marked before (DRI_ERR_STATE) first.
    void mark_pieces(int xi, int r, Rng& own, int n, bool bad) {
        Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        std::vector<int> left = x.marks.unmarked(r);
        for (std::size_t i = left.size(); i > 1; --i)
            std::swap(left[i - 1], left[static_cast<std::size_t>(own.below(static_cast<int>(i)))]);
        const int total = side_split(x.side[0]).count;
        for (int i = 0; i < n && i < static_cast<int>(left.size()); ++i) {
            if (bad && own.percent(12)) {
                std::vector<int> done;
                for (int k = 0; k < total; ++k)
                    if (x.marks.marked(r, k)) done.push_back(k);
                const bool twice = !done.empty() && own.percent(50);
                const int k =
                    twice ? done[static_cast<std::size_t>(own.below(static_cast<int>(done.size())))]
                    : own.percent(50) ? total + own.below(3)
                                      : -1 - own.below(3);
                call(format("DRI_Piece_ready(xfer %d \"%s\", %d) on rank %d alone [%s]", xi,
                            x.name.c_str(), k, r, twice ? "marked before" : "out of range"));
                if (r == g_rank)
                    expect(DRI_Piece_ready(x.h, k), code(twice ? DRI_ERR_STATE : DRI_ERR_ARG));
            }
            const int k = left[static_cast<std::size_t>(i)];
            call(format("DRI_Piece_ready(xfer %d \"%s\", %d) on rank %d alone [frame %d, %d of %d "
                        "pieces left]",
                        xi, x.name.c_str(), k, r, x.frame, static_cast<int>(left.size()) - i,
                        total));
            if (r == g_rank) {
                write_piece(x, k);
                expect(DRI_Piece_ready(x.h, k), kOk);
            }
            x.marks.mark(r, k);
            ++stats_.marks;
        }
    }

    // This rank writes the cells of send piece k of the frame in flight.
    void write_piece(Xfer& x, int k) {
        DRI_Index lo = 0, hi = 0;
        expect(DRI_Transfer_piece(x.h, DRI_ROLE_SEND, k, &lo, &hi), kOk);
        Ring& r = x.side[0].ring;
        std::int32_t* p = r.buf[static_cast<std::size_t>(r.cur)];
        lifetime::for_piece_words(r.local, side_split(x.side[0]).dim, lo, hi, [&](std::size_t w) {
            if (r.map[w] >= 0) p[w] = value(x.serial, x.frame, r.map[w]);
        });
    }

    // DRI_Piece_test, or DRI_Piece_wait, of receive piece k on rank r alone:
    // an arrived piece holds the frame at once. Bad: k out of range
    // (DRI_ERR_ARG), a NULL flag (DRI_ERR_NULL).
    void receive_piece(int xi, int r, int k, bool wait, int bad) {
        const Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        call(format("DRI_Piece_%s(xfer %d \"%s\", %d%s) on rank %d alone [frame %d]",
                    wait ? "wait" : "test", xi, x.name.c_str(), k,
                    wait       ? ""
                    : bad == 2 ? ", NULL"
                               : ", &arrived",
                    r, x.frame));
        if (r != g_rank) return;
        int arrived = -7;
        const int rc = wait       ? DRI_Piece_wait(x.h, k)
                       : bad == 2 ? DRI_Piece_test(x.h, k, nullptr)
                                  : DRI_Piece_test(x.h, k, &arrived);
        expect(rc, bad == 1 ? code(DRI_ERR_ARG) : bad == 2 ? code(DRI_ERR_NULL) : kOk);
        if (bad) return;
        if (!wait && arrived != 0 && arrived != 1)
            fail(format("DRI_Piece_test set the flag to %d", arrived));
        if (wait || arrived) check_arrived(x, k, wait ? "after DRI_Piece_wait" : "arrived");
        if (!wait) return;
        expect(DRI_Piece_test(x.h, k, &arrived), kOk);
        if (arrived != 1)
            fail("DRI_Piece_test: a piece DRI_Piece_wait returned for has not arrived");
    }

    // The cells of receive piece k of the frame in flight, on this rank.
    void check_arrived(const Xfer& x, int k, const char* when) {
        DRI_Index lo = 0, hi = 0;
        expect(DRI_Transfer_piece(x.h, DRI_ROLE_RECV, k, &lo, &hi), kOk);
        const Ring& r = x.side[1].ring;
        const int dim = side_split(x.side[1]).dim;
        const std::int32_t* p = r.buf[static_cast<std::size_t>(r.cur)];
        lifetime::for_piece_words(r.local, dim, lo, hi, [&](std::size_t w) {
            const std::int64_t g = r.map[w];
            if (g < 0 || p[w] == value(x.serial, x.frame, g)) return;
            fail(format("%s: transfer %s, receive piece %d ([%lld, %lld) along dimension %d) of "
                        "buffer %d, word %zu (element %lld): holds 0x%08x (transfer %d, frame %d, "
                        "element %d), expected 0x%08x (frame %d)",
                        when, x.name.c_str(), k, static_cast<long long>(lo),
                        static_cast<long long>(hi), dim, r.cur, w, static_cast<long long>(g),
                        static_cast<unsigned>(p[w]), (p[w] >> 24) & 0x7f, (p[w] >> 12) & 0xfff,
                        p[w] & 0xfff, static_cast<unsigned>(value(x.serial, x.frame, g)), x.frame));
        });
        ++stats_.arrivals;
    }

    // Before a reorganization in flight completes (DRI_Do_wait or _test, a
    // destroy, DRI_Finalize) every rank marks the send pieces it has left,
    // in an order of its own, before any rank waits. Drawn for all, a rank
    // with a piece left first tries to complete it: DRI_Do_wait or
    // DRI_Do_test is refused there (DRI_ERR_STATE) and changes nothing (the
    // frame is still in flight: its receive pieces can be tested).
    void complete_marks(int xi) {
        Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        bool left = false;
        for (int r = 0; r < g_size; ++r)
            left = left || x.marks.any_unmarked(r);
        if (!left) return;
        const bool early = rng_.percent(50);
        const std::uint64_t salt = rng_.next();
        for (int r = 0; r < g_size; ++r) {
            const auto n = static_cast<int>(x.marks.unmarked(r).size());
            if (n == 0) continue;
            Rng own = rank_rng(salt, r);
            if (early) early_completion(xi, r, n, own.percent(50));
            mark_pieces(xi, r, own, n, own.percent(30));
        }
    }

    void early_completion(int xi, int r, int left, bool test) {
        const Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        call(format("%s(xfer %d \"%s\") on rank %d alone, %d send pieces unmarked",
                    test ? "DRI_Do_test" : "DRI_Do_wait", xi, x.name.c_str(), r, left));
        ++stats_.early_completions;
        if (r != g_rank) return;
        int done = 0;
        expect(test ? DRI_Do_test(x.h, &done) : DRI_Do_wait(x.h), code(DRI_ERR_STATE));
        if (!x.side[1].ring.nbuf) return;
        int arrived = -7;
        expect(DRI_Piece_test(x.h, 0, &arrived), kOk);
        if (arrived == 1) check_arrived(x, 0, "arrived after a refused completion");
    }

    // Piece calls with no reorganization in flight (not committed, or
    // between reorganizations), one per rank, each its own: DRI_ERR_STATE;
    // on a stale handle DRI_ERR_HANDLE.
    void pieces_out_of_flight(int xi, std::uint64_t salt) {
        const Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        const bool stale = x.dead && rng_.percent(20);
        static const char* const names[] = {"DRI_Piece_ready", "DRI_Piece_test", "DRI_Piece_wait"};
        for (int r = 0; r < g_size; ++r) {
            Rng own = rank_rng(salt, r);
            const int which = own.below(3);
            call(format("%s(%sxfer %d \"%s\", 0) on rank %d alone [%s]", names[which],
                        stale ? "stale " : "", xi, x.name.c_str(), r,
                        x.committed ? "no reorganization in flight" : "not committed"));
            if (r != g_rank) continue;
            const DRI_Transfer h = stale ? x.stale : x.h;
            int arrived = 0;
            expect(which == 0   ? DRI_Piece_ready(h, 0)
                   : which == 1 ? DRI_Piece_test(h, 0, &arrived)
                                : DRI_Piece_wait(h, 0),
                   code(stale ? DRI_ERR_HANDLE : DRI_ERR_STATE));
        }
    }

    // ---- reverses --------------------------------------------------------------------

    enum ReverseBad { kRevLegal, kRevNullOut, kRevOtherOp, kRevUnknownOp, kRevModes };

    // DRI_Transfer_reverse of a committed transfer, collective over its
    // participants, legal or with one random participant passing a NULL
    // output handle (DRI_ERR_NULL), another combine operation
    // (DRI_ERR_INCONSISTENT) or an unknown one (DRI_ERR_ARG): the same code
    // on every participant, and no handle made. A reverse made is destroyed
    // at once (its data is test_reverse_mpi's).
    void reverse(int xi) {
        const Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        const bool part = has(x.roles(), g_rank);
        const auto mode = static_cast<ReverseBad>(rng_.below(kRevModes));
        const int odd = pick_rank(x.roles());
        const int base = rng_.below(3); // SUM, MAX or MIN: defined on int32
        int op = base;
        if (g_rank == odd && mode == kRevOtherOp) op = (base + 1) % 3;
        if (g_rank == odd && mode == kRevUnknownOp) op = 17;
        static const char* const modes[] = {"", ", a NULL output handle on rank %d",
                                            ", another operation on rank %d",
                                            ", an unknown operation on rank %d"};
        call(format("DRI_Transfer_reverse(xfer %d \"%s\", %d)%s", xi, x.name.c_str(), base,
                    format(modes[mode], odd).c_str()));
        static constexpr Codes want[] = {kOk, code(DRI_ERR_NULL), code(DRI_ERR_INCONSISTENT),
                                         code(DRI_ERR_ARG)};
        ++stats_.reverses;
        DRI_Transfer rev = nullptr;
        int rc = DRI_SUCCESS;
        if (part) {
            DRI_Combine c;
            static_assert(sizeof c == sizeof op);
            std::memcpy(&c, &op, sizeof c);
            rc =
                DRI_Transfer_reverse(x.h, c, g_rank == odd && mode == kRevNullOut ? nullptr : &rev);
        }
        // Alone, a process disagrees with nobody.
        const bool alone = count(x.roles()) == 1;
        expect_collective(rc, mode == kRevOtherOp && alone ? kOk : want[mode], part);
        // The message names the odd rank by its rank among the participants.
        if (mode != kRevLegal && mode != kRevOtherOp && part)
            expect_message_from(count(x.roles() & (bit_of(odd) - 1)));
        if (rc != DRI_SUCCESS && rev) fail("a failed DRI_Transfer_reverse made a handle");
        if (rev) expect(DRI_Transfer_destroy(&rev), kOk);
    }

    // ---- crossed completion orders -----------------------------------------------------

    // Every transfer in flight is completed, and maybe one idle committed
    // transfer run with DRI_Do, each rank in an order of its own, by its own
    // choice of DRI_Do_wait, DRI_Do_test until done, or one test then a wait;
    // or (drawn for all) each destroyed, again in per-rank orders. The
    // single copy completes only because every completion call progresses
    // every single-copy transfer in flight (docs/concepts.md, "Running a
    // transfer"). The data of each is then checked as usual.
    void complete_crossed() {
        std::vector<int> order;
        for (std::size_t i = 0; i < xfer_.size(); ++i)
            if (xfer_[i].live && xfer_[i].in_flight) order.push_back(static_cast<int>(i));
        const std::size_t flying = order.size();
        const int idle = pick_if(xfer_, [](const Xfer& o) { return o.committed && !o.in_flight; });
        if (idle >= 0 && rng_.percent(50)) order.push_back(idle);
        const bool destroy = rng_.percent(25);
        // Every rank marks its pieces before any rank waits: a wait may need
        // another rank's pieces, and that rank may wait for another transfer first.
        for (std::size_t i = 0; i < flying; ++i)
            complete_marks(order[i]);
        Rng mine(rng_.next() ^ (0x94d049bb133111ebULL * static_cast<std::uint64_t>(g_rank + 1)));
        for (std::size_t i = order.size(); i > 1; --i)
            std::swap(order[i - 1],
                      order[static_cast<std::size_t>(mine.below(static_cast<int>(i)))]);
        std::vector<DRI_Transfer> old(xfer_.size(), nullptr);
        for (int xi : order) {
            Xfer& x = xfer_[static_cast<std::size_t>(xi)];
            const bool part = has(x.roles(), g_rank);
            if (destroy && x.in_flight) { // every rank destroys its handle
                call(format("DRI_Transfer_destroy(xfer %d \"%s\") in flight among %zu, this "
                            "rank's order",
                            xi, x.name.c_str(), flying));
                old[static_cast<std::size_t>(xi)] = x.h;
                expect(DRI_Transfer_destroy(&x.h), kOk);
                if (x.h) fail("the handle is not NULL after DRI_Transfer_destroy");
                if (part) deliver_local(x, "after DRI_Transfer_destroy completed it (crossed)");
                continue;
            }
            if (!part) continue; // nothing committed here
            if (!x.in_flight) {
                call(format("DRI_Do(xfer %d \"%s\") among %zu in flight, this rank's order", xi,
                            x.name.c_str(), flying));
                if (x.side[0].ring.nbuf) fill(x.side[0].ring, x.serial, x.frame);
                expect(DRI_Do(x.h), kOk);
                deliver_local(x, "after DRI_Do among transfers in flight");
                continue;
            }
            const int how = mine.below(3);
            static const char* const hows[] = {"DRI_Do_wait", "DRI_Do_test until done",
                                               "DRI_Do_test then DRI_Do_wait"};
            call(format("%s(xfer %d \"%s\") among %zu in flight, this rank's order", hows[how], xi,
                        x.name.c_str(), flying));
            expect(how == 0 ? DRI_Do_wait(x.h) : test_until_done(x, how == 2), kOk);
            deliver_local(x, "after completing it in a crossed order");
        }
        for (int xi : order) {
            Xfer& x = xfer_[static_cast<std::size_t>(xi)];
            const bool was_flying = x.in_flight;
            finish(x);
            ++stats_.crossed;
            if (!destroy || !was_flying) continue;
            ++stats_.teardowns_in_flight;
            forget(x, xi);
            x.stale = old[static_cast<std::size_t>(xi)];
        }
    }

    // A step toward a transfer that runs: what is missing first, then
    // declarations, the commit, and reorganizations.
    void useful_step() {
        const int xi = pick(xfer_, true);
        if (xi < 0) return create_xfer();
        Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        if (x.committed) return run_committed(xi);
        for (int s = 0; s < 2; ++s)
            if (!x.side[s].declared) return declare(xi, s, true);
        // Each side split or not, drawn once (now and then one rank
        // differently), and split again where the ranks differ.
        for (int s = 0; s < 2; ++s) {
            if (x.split_drawn[s]) continue;
            x.split_drawn[s] = true;
            if (rng_.percent(35)) return split_step(xi, s, true, 10);
        }
        for (int s = 0; s < 2; ++s)
            if (!lifetime::splits_agree(x.side[s].split, x.side[s].declared) && rng_.percent(60))
                return split_step(xi, s, true, 0);
        // Now and then a split transfer is committed with a strategy that
        // does not move pieces: DRI_ERR_STRATEGY on every process.
        const bool refused = build(x) && any_split(x) && !moves_pieces(agreed_strategy(x));
        if (agreed_strategy(x) < 0 || (build(x) && !(refused && rng_.percent(30))) ||
            rng_.percent(40))
            return set_strategy(xi, true);
        if (validation(x) && rng_.percent(50)) return destroy_xfer(xi); // broken for good
        std::vector<int> xs = {xi};
        const int other = pick_if(xfer_, [&](const Xfer& o) {
            return &o != &x && !o.committed && o.side[0].declared && o.side[1].declared;
        });
        if (other >= 0 && rng_.percent(30)) xs.push_back(other);
        return commit(xs, true);
    }

    void run_committed(int xi) {
        const Xfer& x = xfer_[static_cast<std::size_t>(xi)];
        const int w = rng_.below(100);
        if (x.in_flight) {
            if (w < 25) return piece_step(xi);
            if (w < 50) return reorganize(xi, kWait);
            if (w < 78) return reorganize(xi, kTest);
            if (w < 91) return destroy_xfer(xi);
            if (w < 94) return finalize();
            return random_step();
        }
        if (w < 45) return reorganize(xi, kBlocking);
        if (w < 80) return reorganize(xi, kStart);
        if (w < 79) return current(xi);
        if (w < 82) return learning_step(xi);
        if (w < 86) return reverse(xi);
        if (w < 92) {
            // A rank whose ring lies in its memory frees it alone: refused,
            // the committed transfer uses it.
            std::vector<int> holders;
            for (int r = 0; r < g_size; ++r)
                for (int s = 0; s < 2; ++s)
                    if (x.side[s].in_mem(r)) holders.push_back(r * 2 + s);
            if (!holders.empty()) {
                const int h =
                    holders[static_cast<std::size_t>(rng_.below(static_cast<int>(holders.size())))];
                return free_mem(h / 2, x.side[h % 2].mem[static_cast<std::size_t>(h / 2)], kFree);
            }
        }
        return destroy_xfer(xi);
    }

    void random_step() {
        const int w = rng_.below(100);
        const int xi = pick(xfer_, true);
        if (w < 4) return create_gdo();
        if (w < 8) return create_part();
        if (w < 12) return create_group();
        if (w < 18) return create_dist(false);
        if (w < 22) return create_layout();
        if (w < 26) return create_xfer();
        if (xi < 0 && w >= 26 && w < 58) return create_xfer(); // the next calls need one
        if (w < 34) {
            const int side = rng_.below(2);
            return declare(xi, side, rng_.percent(40));
        }
        if (w < 38) return split_step(xi, rng_.below(2), rng_.percent(40), 15);
        if (w < 40) return set_strategy(xi, rng_.percent(50));
        if (w < 41) return learning_step(xi);
        if (w < 48) return commit_random();
        if (w < 55) return reorganize(xi, static_cast<DoKind>(rng_.below(4)));
        if (w < 58) return piece_step(xi);
        if (w < 69) return destroy_any(rng_.percent(80));
        if (w < 73) return query();
        if (w < 78) return use_stale();
        if (w < 91) return memory_step(w < 85 ? 80 : 50);
        if (w < 93) return finalize();
        return odd_call();
    }

    // Any 0 to 2 live transfers, in any state, with or without bad arguments.
    void commit_random() {
        std::vector<int> xs;
        const int n = rng_.below(3);
        for (int k = 0; k < n; ++k) {
            const int xi = pick(xfer_, true);
            if (xi >= 0 && std::find(xs.begin(), xs.end(), xi) == xs.end()) xs.push_back(xi);
        }
        commit(xs, rng_.percent(50));
    }

    // ---- the end of a sequence ----------------------------------------------------------------

    // Everything destroyed and freed (legally; the memory before DRI_Init
    // where the sequence ended finalized), then: the library holds no MPI
    // handle, and every collective call returned the same code on every rank.
    void teardown() {
        step_ = opt_.steps + 1;
        if (!initialized_) free_all_mem(), init();
        for (std::size_t i = 0; i < xfer_.size(); ++i) {
            if (!xfer_[i].live) continue;
            if (xfer_[i].in_flight) reorganize(static_cast<int>(i), kWait);
            destroy_xfer(static_cast<int>(i));
        }
        free_all_mem();
        for (int i = 0; i < 3; ++i) {
            if (dist_[static_cast<std::size_t>(i)].live) destroy_dist(i, true);
            if (i < 2 && layout_[static_cast<std::size_t>(i)].live) destroy_layout(i, true);
            if (i < 2 && group_[static_cast<std::size_t>(i)].live) destroy_group(i, true);
            if (i < 2 && part_[static_cast<std::size_t>(i)].live) destroy_part(i, true);
            if (i < 2 && gdo_[static_cast<std::size_t>(i)].live) destroy_gdo(i, true);
        }
        call("end of the sequence: every object destroyed");
        for (const Grave& g : graves_)
            check_ring(g.ring, g.serial, g.sender, g.name, "the ring of a destroyed transfer");
        const long held = dri::detail::live_handles() - dri::detail::retired_comms();
        if (held != 0) fail(format("dri still holds %ld MPI handles", held));
        check_agreement();
    }

    const Options& opt_;
    int number_;
    Stats& stats_;
    Rng rng_;
    bool verbose_;
    int step_ = 0;
    std::string call_;
    bool initialized_ = true;
    int serial_ = 0; // transfers created in this sequence
    std::array<Gdo, 2> gdo_{};
    std::array<Part, 2> part_{};
    std::array<Group, 2> group_{};
    std::array<Dist, 3> dist_{};
    std::array<Layout, 2> layout_{};
    std::array<Xfer, 3> xfer_{};
    std::vector<Mems> mem_ = std::vector<Mems>(static_cast<std::size_t>(g_size)); // per rank
    std::vector<Grave> graves_;             // the heap rings of destroyed transfers
    std::vector<int> agreed_;               // per collective call: this rank's code, or kAbsent
    std::vector<std::string> agreed_calls_; // and the call
};

// ---- the program ---------------------------------------------------------------------

bool parse(int argc, char** argv, Options& o, bool& seed_given) {
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        const char* v = argv[i + 1];
        char* end = nullptr;
        const unsigned long long n = std::strtoull(v, &end, 0);
        if (!*v || *end || *v == '-') return false;
        const int small = n > INT_MAX ? -1 : static_cast<int>(n);
        if (a == "--seed")
            o.seed = n, seed_given = true;
        else if (a == "--sequences")
            o.sequences = small;
        else if (a == "--steps")
            o.steps = small;
        else if (a == "--replay")
            o.replay = small;
        else if (a == "--seconds")
            o.seconds = small;
        else
            return false;
        if (a != "--seed" && small < 0) return false;
    }
    return argc % 2 == 1;
}

void summary(const Stats& s, int sequences, double seconds) {
    std::printf("lifetime: %d sequences passed in %.1f s: %ld calls, %ld commits, %ld frames "
                "verified, %ld teardowns in flight, %ld finalizes, %ld memory calls by one rank "
                "alone (%ld between DRI_Finalize and DRI_Init), %ld DRI_Free_mem refused "
                "(memory in use), %ld completed in crossed orders, %ld reverses\n",
                sequences, seconds, s.calls, s.commits, s.frames, s.teardowns_in_flight,
                s.finalizes, s.mem_calls, s.mem_uninitialized, s.pinned_refusals, s.crossed,
                s.reverses);
    std::printf("lifetime: pieces: %ld splits, %ld commits of split transfers (%ld run by SHARED "
                "on rank 0), %ld commits refused for a split, %ld pieces marked, %ld receive "
                "pieces checked on arrival (rank 0), %ld completions refused with a piece "
                "unmarked\n",
                s.splits, s.split_commits, s.split_shared, s.split_refusals, s.marks, s.arrivals,
                s.early_completions);
    std::printf("lifetime: AUTO that learns: %ld queries of what it learned, %ld on a transfer "
                "that had switched routes\n",
                s.learning_queries, s.switched);
    std::printf("lifetime: commits by strategy:");
    for (int k = 0; k < kStrategies; ++k)
        std::printf(" %s %ld", kStrategyText[k], s.strategies[static_cast<std::size_t>(k)]);
    std::printf("\nlifetime: strategies run (rank 0's commits):");
    for (int k = 0; k < kStrategies; ++k)
        if (s.chosen[static_cast<std::size_t>(k)])
            std::printf(" %s %ld", kStrategyText[k], s.chosen[static_cast<std::size_t>(k)]);
    std::printf("\nlifetime: codes returned:");
    for (int c = 0; c < 32; ++c)
        if (s.codes[static_cast<std::size_t>(c)])
            std::printf(" %s %ld", code_name(c), s.codes[static_cast<std::size_t>(c)]);
    std::printf("\n");
}

} // namespace

// AUTO that learns, within a few calls: one timed round without warm-up,
// most calls may explore, one call per re-check compared with the last one.
dri::core::LearnerConfig quick_learning() {
    dri::core::LearnerConfig c;
    c.warmup_rounds = 0;
    c.timed_rounds = 1;
    c.explore_share = 0.9;
    c.burst = 1;
    c.window = 1;
    return c;
}

// Each call's time, drawn per rank (a hash of the rank, the route and the
// call's number on this rank): ranks see different routes fastest.
std::uint64_t g_timed_calls = 0;
double drawn_time(dri::detail::Strategy route, double) {
    std::uint64_t h = (g_timed_calls++ + 1) * 0x9e3779b97f4a7c15ULL ^
                      (static_cast<std::uint64_t>(g_rank) << 32) ^
                      static_cast<std::uint64_t>(route);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    return 1e-4 * static_cast<double>(1 + h % 100);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    static const dri::core::LearnerConfig quick = quick_learning();
    dri::detail::set_learning_schedule(&quick);
    dri::detail::set_route_time_hook(drawn_time);
    if (!dri::test::open_world()) {
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_size(comm(), &g_size);
    MPI_Comm_rank(comm(), &g_rank);
    init_shapes();
    Options opt;
    bool seed_given = false;
    if (!parse(argc, argv, opt, seed_given) || g_size > 32) {
        if (g_rank == 0) {
            std::fprintf(stderr, "usage: test_lifetime_mpi [--seed S] [--sequences N] [--steps M] "
                                 "[--replay K] [--seconds T] (at most 32 ranks)\n");
        }
        dri::test::close_world();
        MPI_Finalize();
        return 2;
    }
    if (!seed_given) {
        std::random_device rd;
        opt.seed = (static_cast<unsigned long long>(rd()) << 32) ^ rd();
    }
    MPI_Bcast(&opt.seed, 1, MPI_UNSIGNED_LONG_LONG, 0, comm());
    g_node = dri::test::node_of_ranks();
    const char* shm = std::getenv("DRI_SHARED_MEMORY");
    g_shareable = !(shm && std::strcmp(shm, "off") == 0);
    const int nodes = dri::test::node_count();
    const int first = opt.replay >= 0 ? opt.replay : 0;
    const int last = opt.replay >= 0 ? opt.replay + 1 : opt.sequences;
    if (g_rank == 0)
        std::printf("lifetime: seed %llu, %d sequences (%d steps each, %d ranks on %d nodes)%s\n",
                    opt.seed, last - first, opt.steps, g_size, nodes,
                    opt.replay >= 0 ? format(": replaying sequence %d", opt.replay).c_str() : "");
    std::fflush(stdout);
    // Memory is each process's own, with or without DRI: allocated before
    // DRI_Init (sizes differ per rank, rank 0 asks 0 bytes), held through
    // every sequence, freed after the last DRI_Finalize, its contents intact.
    const auto early_bytes = static_cast<std::size_t>(100 * g_rank);
    void* early = nullptr;
    int failed = DRI_Alloc_mem(static_cast<DRI_Index>(early_bytes), &early) != DRI_SUCCESS;
    if (failed) std::fprintf(stderr, "rank %d: DRI_Alloc_mem before DRI_Init failed\n", g_rank);
    if (!failed) std::memset(early, 0x3c, early_bytes);
    failed |= DRI_Init() != DRI_SUCCESS;
    Stats stats;
    const double t0 = MPI_Wtime();
    int done = 0;
    double slowest = 0;
    int slowest_k = -1;
    for (int k = first; k < last && !failed; ++k) {
        const double ts = MPI_Wtime();
        g_timed_calls = static_cast<std::uint64_t>(k) << 20; // a sequence replays alone
        Sequence(opt, k, stats).run();
        if (MPI_Wtime() - ts > slowest) slowest = MPI_Wtime() - ts, slowest_k = k;
        ++done;
        // The time limit (rank 0's clock decides for all) keeps a run within
        // ctest's timeout where more ranks than cores make collectives slow.
        int stop = opt.seconds > 0 && MPI_Wtime() - t0 > opt.seconds;
        if (opt.seconds > 0) MPI_Bcast(&stop, 1, MPI_INT, 0, comm());
        if (stop) {
            if (g_rank == 0)
                std::printf("lifetime: time limit of %d s reached after %d of %d sequences\n",
                            opt.seconds, done, last - first);
            break;
        }
    }
    // Every sequence destroyed its objects: no MPI handle is left, and none
    // at all after DRI_Finalize.
    const long held = dri::detail::live_handles() - dri::detail::retired_comms();
    if (held != 0)
        std::fprintf(stderr, "rank %d: dri leaked %ld MPI handles\n", g_rank, held), failed = 1;
    if (DRI_Finalize() != DRI_SUCCESS)
        std::fprintf(stderr, "rank %d: DRI_Finalize failed\n", g_rank), failed = 1;
    if (dri::detail::live_handles() != 0) {
        std::fprintf(stderr, "rank %d: dri holds %ld MPI handles after DRI_Finalize\n", g_rank,
                     dri::detail::live_handles());
        failed = 1;
    }
    if (early) {
        const auto* b = static_cast<const unsigned char*>(early);
        if (std::count(b, b + early_bytes, 0x3c) != static_cast<std::ptrdiff_t>(early_bytes))
            std::fprintf(stderr, "rank %d: memory allocated before DRI_Init changed\n", g_rank),
                failed = 1;
        if (DRI_Free_mem(early) != DRI_SUCCESS)
            std::fprintf(stderr, "rank %d: DRI_Free_mem after DRI_Finalize failed: %s\n", g_rank,
                         DRI_Last_error_message()),
                failed = 1;
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm());
    if (g_rank == 0 && !failed) {
        summary(stats, done, MPI_Wtime() - t0);
        std::printf("lifetime: the slowest sequence, %d, took %.3f s; %.3f s in crossed orders\n",
                    slowest_k, slowest, stats.crossed_seconds);
    }
    dri::test::close_world();
    MPI_Finalize();
    return failed;
}
