// How P2P routes each side of a message: a side that is one dense range of
// its buffer goes straight from (or into) the user's buffer, without scratch,
// even when the other side is strided (the planner then keeps two axes).
// Scratch is observed through the bytes this process holds (scratch.hpp),
// and so is which of it is asked to lie in huge pages (Open MPI's sends).
#include "core/plan.hpp"
#include "core/spec.hpp"
#include "dri/dri.hpp"
#include "mpi/runtime/measure_budget.hpp"
#include "mpi/runtime/mpi_library.hpp"
#include "mpi/runtime/single_copy.hpp"
#include "mpi/strategies/messages.hpp"
#include "mpi/strategies/scratch.hpp"
#include "mpi_world.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using dri::test::world;
using dri::test::world_size;

namespace {

const std::vector<dri::Index> extents{8, 16, 64};

// The global row-major index of each cell of a packed block of an array of `extents`.
std::vector<double> global_indices(const dri::BlockInfo& b, const std::vector<dri::Index>& ext) {
    std::vector<double> v;
    for (dri::Index i = 0; i < b.local_extent[0]; ++i)
        for (dri::Index j = 0; j < b.local_extent[1]; ++j)
            for (dri::Index k = 0; k < b.local_extent[2]; ++k)
                v.push_back(static_cast<double>(
                    ((b.owned_first[0] + i) * ext[1] + b.owned_first[1] + j) * ext[2] +
                    b.owned_first[2] + k));
    return v;
}

std::vector<int> ranks(int first, int count) {
    std::vector<int> r(static_cast<std::size_t>(count));
    std::iota(r.begin(), r.end(), first);
    return r;
}

struct Held {
    dri::Index sender = 0, receiver = 0; // scratch bytes held while committed, per role
    dri::Index total = 0, huge = 0;      // this process's, and how much of it asked for huge pages
};

// Roles of scratch_held: the first half of the ranks send and the others
// receive (at least 2 ranks), or every rank does both.
enum class Roles { apart, shared };

// Forced P2P from `send` to `recv` on an array of `ext` doubles; returns the
// scratch held while the transfer was committed, after checking every
// received cell (sender and receiver only count where the roles are apart).
Held scratch_held(const dri::Partition& send, const dri::Partition& recv,
                  const std::vector<dri::Index>& ext = extents, Roles roles = Roles::apart,
                  dri::Combine op = dri::Combine::replace) {
    const int n = world_size(), senders = roles == Roles::apart ? n / 2 : n;
    const dri::GlobalData gd(ext, dri::Type::float64);
    const dri::Group sg(world(), ranks(0, senders)),
        rg(world(), roles == Roles::apart ? ranks(senders, n - senders) : ranks(0, n));
    const dri::Layout packed = dri::Layout::packed(3);
    std::optional<dri::Distribution> sd, rd;
    if (sg.contains_me()) sd.emplace(gd, send, sg);
    if (rg.contains_me()) rd.emplace(gd, recv, rg);
    std::vector<std::vector<double>> sbuf, rbuf;
    dri::Transfer t("routes");
    t.strategy(dri::Strategy::p2p);
    if (sd) {
        sbuf.push_back(global_indices(sd->block(packed), ext));
        t.send(*sd, packed, sbuf);
    }
    if (rd) {
        // Combined with max, cells below every index become the indices.
        rbuf.emplace_back(static_cast<std::size_t>(rd->block(packed).elements()), -1.0);
        t.recv(*rd, packed, rbuf);
        if (op != dri::Combine::replace) t.combine(op);
    }
    const dri::Index before = dri::detail::scratch_bytes_held();
    const dri::Index huge_before = dri::detail::huge_scratch_bytes_held();
    t.commit();
    Held h;
    h.total = dri::detail::scratch_bytes_held() - before;
    h.huge = dri::detail::huge_scratch_bytes_held() - huge_before;
    t.execute();
    if (rd) CHECK(rbuf[0] == global_indices(rd->block(packed), ext));
    h.sender = sd && !rd ? h.total : 0;
    h.receiver = rd && !sd ? h.total : 0;
    return h;
}

const dri::DimPart whole = dri::DimPart::whole(), block = dri::DimPart::block();

int mpi_t_inits = 0;

} // namespace

// MPI_T_init_thread, counted (this definition takes the MPI library's place
// for libdri): asking Open MPI 4.1 for its single-copy mechanism this way
// took 0.2 s.
extern "C" int MPI_T_init_thread(int required, int* provided) {
    ++mpi_t_inits;
    return PMPI_T_init_thread(required, provided);
}

// First in the file (doctest runs a file's cases in order), so that no other
// case has asked yet.
TEST_CASE("a commit whose routes need no single-copy answer does not ask MPI_T for it") {
    REQUIRE(mpi_t_inits == 0);
    scratch_held(dri::Partition({whole, whole, block}), dri::Partition({block, whole, whole}));
    CHECK(mpi_t_inits == 0);
}

TEST_CASE("a dense sender side is sent from the user's buffer, not packed") {
    // Each sender's piece for a receiver is a run of whole planes of its
    // buffer; receivers get it as runs of 64 / senders doubles.
    const Held h =
        scratch_held(dri::Partition({whole, whole, block}), dri::Partition({block, whole, whole}));
    CHECK(h.sender == 0);
}

TEST_CASE("a dense receiver side is received into the user's buffer, not unpacked") {
    const Held h =
        scratch_held(dri::Partition({block, whole, whole}), dri::Partition({whole, whole, block}));
    CHECK(h.receiver == 0);
}

TEST_CASE("packed messages leave from scratch in huge pages on Open MPI only") {
    // Every rank sends and receives: sender-strided runs of 512 B, received
    // dense, so the scratch held is the send scratch alone. At 2 ranks it is
    // 2 MiB, one huge page; at more ranks it is less and stays normal.
    const Held h =
        scratch_held(dri::Partition({block, whole, whole}), dri::Partition({whole, whole, block}),
                     {64, 64, 256}, Roles::shared);
    const dri::Index held = h.total, huge = h.huge;
    const bool open_mpi = dri::detail::mpi_library() == dri::detail::MpiLibrary::open_mpi;
    CAPTURE(held);
    if (world_size() == 2) CHECK(held == dri::Index{2} << 20);
    CHECK(huge == (open_mpi && held >= (dri::Index{2} << 20) ? held : 0));
    CHECK(dri::detail::send_scratch_pages(dri::detail::MpiLibrary::open_mpi) ==
          dri::detail::Pages::huge);
    CHECK(dri::detail::send_scratch_pages(dri::detail::MpiLibrary::mpich) ==
          dri::detail::Pages::normal);
    // DRI_HUGE_PAGES=off: nothing asks for huge pages, nothing is packed for them.
    setenv("DRI_HUGE_PAGES", "off", 1);
    const Held off =
        scratch_held(dri::Partition({block, whole, whole}), dri::Partition({whole, whole, block}),
                     {64, 64, 256}, Roles::shared);
    const dri::detail::RouteRule rule =
        dri::detail::route_rule(dri::detail::MpiLibrary::open_mpi, dri::detail::SingleCopy::cma);
    const dri::detail::Pages pages =
        dri::detail::send_scratch_pages(dri::detail::MpiLibrary::open_mpi);
    unsetenv("DRI_HUGE_PAGES");
    CHECK(off.total == held);
    CHECK(off.huge == 0);
    CHECK(pages == dri::detail::Pages::normal);
    CHECK(rule.send_dense_packed_from == dri::detail::never_run);
}

TEST_CASE("a dense send is received as a datatype, or read whole from huge pages with CMA") {
    // Every rank sends a dense 4 MiB piece to each other rank (whole planes
    // of its buffer), received as runs of `run` doubles: 4 (32 B, shorter
    // than a datatype takes) or 1024 (8 KiB). The receive scratch is in
    // small pages, so the bytes in huge pages are the dense sends packed.
    const dri::Index n = world_size(), piece = dri::Index{4} << 20;
    const auto rule =
        dri::detail::route_rule(dri::detail::mpi_library(), dri::detail::single_copy());
    const bool cma = dri::detail::mpi_library() == dri::detail::MpiLibrary::open_mpi &&
                     dri::detail::single_copy() == dri::detail::SingleCopy::cma;
    CHECK(rule.send_dense_packed_from == (cma ? piece : dri::detail::never_run));
    const auto held = [&](dri::Index run, dri::Combine op = dri::Combine::replace) {
        return scratch_held(dri::Partition({whole, whole, block}),
                            dri::Partition({block, whole, whole}),
                            {8 * n, piece / (64 * run), run * n}, Roles::shared, op);
    };
    const Held short_runs = held(4);
    // Unpacked by dri from receive scratch; sent packed into huge pages
    // where CMA reads it, else straight from the user's buffer.
    CHECK(short_runs.huge == (cma ? (n - 1) * piece : 0));
    CHECK(short_runs.total == (cma ? 2 : 1) * (n - 1) * piece);
    // Runs of 8 KiB: received as a datatype, sent straight, no scratch.
    const Held long_runs = held(1024);
    CHECK(long_runs.total == 0);
    // Unless the receiver combines: it then receives the message whole
    // into scratch, and the sender packs it as for short runs.
    const Held combined = held(1024, dri::Combine::max);
    CHECK(combined.huge == short_runs.huge);
    CHECK(combined.total == short_runs.total);
}

TEST_CASE("the MPI library is told from its version string") {
    using dri::detail::library_from_version;
    using dri::detail::MpiLibrary;
    CHECK(library_from_version("MPICH Version:      4.2.0\nMPICH Release date: ...") ==
          MpiLibrary::mpich);
    CHECK(library_from_version("Open MPI v4.1.6, package: Debian OpenMPI") == MpiLibrary::open_mpi);
    CHECK(library_from_version("MPI VERSION    : CRAY MPICH version 8.1.28") == MpiLibrary::mpich);
    CHECK(library_from_version("some other MPI") == MpiLibrary::other);
}

TEST_CASE("MEASURE's budget: defaults, and only positive numbers replace them") {
    using dri::detail::budget_from;
    const dri::detail::MeasureBudget d;
    CHECK(budget_from(nullptr, nullptr).reps == d.reps);
    CHECK(budget_from(nullptr, nullptr).seconds == d.seconds);
    CHECK(budget_from("15", "0.25").reps == 15);
    CHECK(budget_from("15", "0.25").seconds == 0.25);
    for (const char* bad : {"", "0", "-3", "7x", "x"}) {
        CAPTURE(bad);
        CHECK(budget_from(bad, bad).reps == d.reps);
        CHECK(budget_from(bad, bad).seconds == d.seconds);
    }
}

namespace {

using dri::detail::Route;

// One row of bench/route_sweep.py at 2 ranks, small enough to plan here:
// the routes only depend on the run lengths, which the columns fix.
struct SweepRow {
    const char* name;
    const char* shape;
    const char* type;
    const char *send, *recv, *recv_order;
    Route sender, receiver; // of sender 0's message to receiver 1
};

// The routes of sender 0's message to receiver 1 under `rule`.
std::pair<Route, Route> routes_of(const SweepRow& row, const dri::detail::RouteRule& rule) {
    using namespace dri::core;
    const Shape shape(parse_shape(row.shape), parse_type(row.type));
    const Distribution sd(shape, parse_partition(row.send), 2),
        rd(shape, parse_partition(row.recv), 2);
    std::vector<int> order;
    for (Index d : parse_list(row.recv_order))
        order.push_back(static_cast<int>(d));
    const Layout rl = order.empty() ? Layout::packed(shape.ndims()) : Layout::ordered(order);
    const LocalPlan p = plan_local({&sd, Layout::packed(shape.ndims())}, {&rd, rl}, 0, -1);
    const auto to1 = std::find_if(p.sends.begin(), p.sends.end(),
                                  [](const PeerRegions& m) { return m.peer == 1; });
    REQUIRE(to1 != p.sends.end());
    const auto& regs = to1->regions;
    const Index elem = shape.elem_size();
    Index off = 0;
    return {dri::detail::route_of(regs, elem, true, rule, &off),
            dri::detail::route_of(regs, elem, false, rule, &off)};
}

void check_routes(const std::vector<SweepRow>& rows, const dri::detail::RouteRule& rule) {
    for (const SweepRow& row : rows) {
        const std::string name = row.name;
        CAPTURE(name);
        const auto [s, r] = routes_of(row, rule);
        CHECK(s == row.sender);
        CHECK(r == row.receiver);
    }
}

} // namespace

// The routes of the sweep's rows that differ per library.
struct Expected {
    Route send_4k, send_256k; // a sender side of 4 KiB and 256 KiB runs, received dense
    Route recv_1k, recv_4k;   // a receiver side of 1 KiB and 4 KiB runs, sent dense
    Route dense_send;         // a dense sender side of 4 MiB or more, received in 8 B runs
};

TEST_CASE("the sweep's rows take the routes docs/concepts.md gives, per MPI library") {
    using dri::detail::MpiLibrary;
    using dri::detail::route_rule;
    using dri::detail::SingleCopy;
    const Route direct = Route::direct, packed = Route::packed, datatype = Route::datatype;
    // The sweep's shapes (128 MiB of doubles): runs of 8 B, 1 KiB, 4 KiB and
    // 256 KiB are 2, 256, 1024 and 65536 columns at 2 ranks, and each
    // message holds 32 MiB.
    const auto rows = [&](const Expected& e) {
        return std::vector<SweepRow>{
            {"sender-strided 8 B", "8388608x2", "double", "block,whole", "whole,block", "", packed,
             direct},
            {"sender-strided 1 KiB", "65536x256", "double", "block,whole", "whole,block", "",
             packed, direct},
            {"sender-strided 4 KiB", "16384x1024", "double", "block,whole", "whole,block", "",
             e.send_4k, direct},
            {"sender-strided 256 KiB", "256x65536", "double", "block,whole", "whole,block", "",
             e.send_256k, direct},
            {"receiver-strided 8 B", "8388608x2", "double", "whole,block", "block,whole", "",
             e.dense_send, packed},
            {"receiver-strided 1 KiB", "65536x256", "double", "whole,block", "block,whole", "",
             direct, e.recv_1k},
            {"receiver-strided 4 KiB", "16384x1024", "double", "whole,block", "block,whole", "",
             direct, e.recv_4k},
            {"receiver-strided 256 KiB", "256x65536", "double", "whole,block", "block,whole", "",
             direct, e.recv_4k},
            // Messages of 4 MiB and of 2 MiB: either side of the dense-send size.
            {"receiver-strided 8 B, 4 MiB", "1048576x2", "double", "whole,block", "block,whole", "",
             e.dense_send, packed},
            {"receiver-strided 8 B, 2 MiB", "524288x2", "double", "whole,block", "block,whole", "",
             direct, packed},
            // Transposes, which no side has dense (so at the sweep's size
            // too): element-wise on the sender, runs of 256 B on the receiver.
            {"corner turn", "64x64", "cfloat", "block,whole", "whole,block", "1,0", packed, packed},
            {"pencil", "16x16x16", "float", "block/1,block/2,whole", "block/1,whole,block/2",
             "0,2,1", packed, packed}};
    };
    for (SingleCopy copy :
         {SingleCopy::unknown, SingleCopy::none, SingleCopy::cma, SingleCopy::other}) {
        CAPTURE(static_cast<int>(copy));
        check_routes(rows({packed, packed, packed, datatype, direct}),
                     route_rule(MpiLibrary::mpich, copy));
        // Open MPI packs a dense send into huge pages only where CMA reads it.
        const Route dense_send = copy == SingleCopy::cma ? packed : direct;
        check_routes(rows({packed, packed, datatype, datatype, dense_send}),
                     route_rule(MpiLibrary::open_mpi, copy));
        // Unmeasured libraries keep the earlier rule: runs of 2 KiB or more as datatypes.
        check_routes(rows({datatype, datatype, packed, datatype, direct}),
                     route_rule(MpiLibrary::other, copy));
    }
}

TEST_CASE("the single copy mechanism is told from its name, and Open MPI names it") {
    using dri::detail::single_copy_from_name;
    using dri::detail::SingleCopy;
    CHECK(single_copy_from_name("cma") == SingleCopy::cma);
    CHECK(single_copy_from_name("none") == SingleCopy::none);
    CHECK(single_copy_from_name("xpmem") == SingleCopy::other);
    CHECK(single_copy_from_name("") == SingleCopy::unknown);
    // Open MPI's shared-memory transport, loaded from 2 processes, has the
    // variable; MPICH has none.
    const auto lib = dri::detail::mpi_library();
    if (lib == dri::detail::MpiLibrary::mpich)
        CHECK(dri::detail::single_copy() == SingleCopy::unknown);
    if (lib == dri::detail::MpiLibrary::open_mpi && world_size() >= 2)
        CHECK(dri::detail::single_copy() != SingleCopy::unknown);
}
