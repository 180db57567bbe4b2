// How P2P routes each side of a message: a side that is one dense range of
// its buffer goes straight from (or into) the user's buffer, without scratch,
// even when the other side is strided (the planner then keeps two axes).
// Scratch is observed through the bytes this process holds (scratch.hpp).
#include "dri/dri.hpp"
#include "mpi/runtime/mpi_library.hpp"
#include "mpi/strategies/scratch.hpp"
#include "mpi_world.hpp"

#include <doctest/doctest.h>

#include <numeric>
#include <optional>
#include <vector>

using dri::test::world;
using dri::test::world_size;

namespace {

const std::vector<dri::Index> extents{8, 16, 64};

// The global row-major index of each cell of a packed block.
std::vector<double> global_indices(const dri::BlockInfo& b) {
    std::vector<double> v;
    for (dri::Index i = 0; i < b.local_extent[0]; ++i)
        for (dri::Index j = 0; j < b.local_extent[1]; ++j)
            for (dri::Index k = 0; k < b.local_extent[2]; ++k)
                v.push_back(static_cast<double>(
                    ((b.owned_first[0] + i) * extents[1] + b.owned_first[1] + j) * extents[2] +
                    b.owned_first[2] + k));
    return v;
}

std::vector<int> ranks(int first, int count) {
    std::vector<int> r(static_cast<std::size_t>(count));
    std::iota(r.begin(), r.end(), first);
    return r;
}

struct Held {
    dri::Index sender = 0, receiver = 0; // scratch bytes held while committed
};

// The first half of the ranks send with `send`, the others receive with
// `recv` (at least 2 ranks: the roles are on different processes), forced P2P; returns the scratch
// each role's ranks held while the transfer was committed, after checking every received cell.
Held scratch_held(const dri::Partition& send, const dri::Partition& recv) {
    const int n = world_size(), senders = n / 2;
    const dri::GlobalData gd(extents, dri::Type::float64);
    const dri::Group sg(world(), ranks(0, senders)), rg(world(), ranks(senders, n - senders));
    const dri::Layout packed = dri::Layout::packed(3);
    std::optional<dri::Distribution> sd, rd;
    if (sg.contains_me()) sd.emplace(gd, send, sg);
    if (rg.contains_me()) rd.emplace(gd, recv, rg);
    std::vector<std::vector<double>> sbuf, rbuf;
    dri::Transfer t("routes");
    t.strategy(dri::Strategy::p2p);
    if (sd) {
        sbuf.push_back(global_indices(sd->block(packed)));
        t.send(*sd, packed, sbuf);
    }
    if (rd) {
        rbuf.emplace_back(static_cast<std::size_t>(rd->block(packed).elements()), -1.0);
        t.recv(*rd, packed, rbuf);
    }
    const dri::Index before = dri::detail::scratch_bytes_held();
    t.commit();
    const dri::Index held = dri::detail::scratch_bytes_held() - before;
    t.execute();
    if (rd) CHECK(rbuf[0] == global_indices(rd->block(packed)));
    return {sd && !rd ? held : 0, rd && !sd ? held : 0};
}

const dri::DimPart whole = dri::DimPart::whole(), block = dri::DimPart::block();

} // namespace

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

TEST_CASE("the MPI library is told from its version string") {
    using dri::detail::library_from_version;
    using dri::detail::MpiLibrary;
    CHECK(library_from_version("MPICH Version:      4.2.0\nMPICH Release date: ...") ==
          MpiLibrary::mpich);
    CHECK(library_from_version("Open MPI v4.1.6, package: Debian OpenMPI") == MpiLibrary::open_mpi);
    CHECK(library_from_version("MPI VERSION    : CRAY MPICH version 8.1.28") == MpiLibrary::mpich);
    CHECK(library_from_version("some other MPI") == MpiLibrary::other);
}
