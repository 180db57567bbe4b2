// Radar front end: one transfer name, one producer, two consumers that do
// not know of each other, and the way back.
//
//   mpiexec.mpich -n 4 build/examples/radar_fanout/radar_fanout --n 64 --m 48 --frames 4
//
// The producers (the first half of the ranks) hold an N x M complex-float
// slice of the data cube in row blocks: rows are range gates, columns are
// channels. Transfer "pulses" fans out to
//  - the beamformer (the other ranks): column blocks stored column-major, so
//    each channel's whole range profile is one run of memory;
//  - the detector (the producers again: receiving groups must be disjoint
//    from each other, not from the sender): row blocks with 2 halo rows on
//    each side, row-major, the reach of its CFAR stencil along range.
// Each consumer declares only its own side (distribution, layout, ring); one
// execute() per frame delivers to both. Every element received is checked
// exactly. The detector then writes the gradient of its CFAR energy into its
// own and its halo cells, and the reverse transfer (SUM) adds every copy back
// into the producers' row blocks, which check it against the serial formula.
#include <dri/dri.hpp>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace {

using cf = std::complex<float>;
using dri::Index;

struct Options {
    Index n = 64, m = 48;
    int frames = 4;
};

[[noreturn]] void usage(int rank) {
    if (rank == 0)
        std::fprintf(stderr, "usage: radar_fanout [--n GATES] [--m CHANNELS] [--frames K]\n"
                             "  (GATES and CHANNELS at least the number of ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
    std::exit(2);
}

Options parse(int argc, char** argv, int rank, int size) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--n")
            o.n = std::atoll(argv[i + 1]);
        else if (a == "--m")
            o.m = std::atoll(argv[i + 1]);
        else if (a == "--frames")
            o.frames = std::atoi(argv[i + 1]);
        else
            usage(rank);
    }
    // Every block holds at least one gate and one channel (the default
    // minimum block of 1); the halo needs 2 gates.
    if (argc % 2 == 0 || o.n < std::max(2, size) || o.m < size || o.frames < 1) usage(rank);
    return o;
}

// Sample (gate i, channel j) of frame k: small integers, so that every sum
// below, in any order, is exact in float; quadratic in i, so that the CFAR
// statistic (a second difference along range) is not zero everywhere.
cf sample(Index i, Index j, const Options& o, int k) {
    if (i < 0 || i >= o.n) return {}; // beyond the swath: what the zero halo holds
    return {static_cast<float>(((i * o.m + j) * (i + 3) + 101 * k) % 2039),
            static_cast<float>((i * i + 3 * j + 7 * k) % 64 - 32)};
}

// The CFAR statistic of gate g: the cell under test against the two
// reference cells two gates away (the neighbours are guard cells), times 2
// to stay integral. Linear: s = A x, A[g][g] = 2, A[g][g +- 2] = -1.
cf cfar(Index g, Index j, const Options& o, int k) {
    return 2.f * sample(g, j, o, k) - sample(g - 2, j, o, k) - sample(g + 2, j, o, k);
}

// What a producer holds after the reverse: the gradient of 1/2 sum |s|^2,
// A^T s, summed over the gates under test (those inside the swath).
cf gradient(Index g, Index j, const Options& o, int k) {
    cf e = 2.f * cfar(g, j, o, k);
    if (g >= 2) e -= cfar(g - 2, j, o, k);
    if (g + 2 < o.n) e -= cfar(g + 2, j, o, k);
    return e;
}

// A buffer in node shared memory: as send buffers, receivers on the same
// node copy straight from them (AUTO picks the single copy).
using Buffer = std::vector<cf, dri::allocator<cf>>;

// One side of "pulses" on this process: distribution, block, ring.
struct Side {
    std::optional<dri::Distribution> dist;
    dri::BlockInfo block;
    std::vector<Buffer> ring;
    // Stored cell (local row i, local column j) of buffer b: the layout is in
    // the strides, so the same code reads row-major and column-major blocks.
    cf& at(int b, Index i, Index j) {
        return ring[static_cast<std::size_t>(b)]
                   [static_cast<std::size_t>(i * block.strides[0] + j * block.strides[1])];
    }
};

// Distributions are collective over their group: members only.
bool join(Side& s, const dri::GlobalData& cube, std::vector<dri::DimPart> parts,
          const dri::Group& group, const dri::Layout& layout, int buffers) {
    if (!group.contains_me()) return false;
    s.dist.emplace(cube, dri::Partition(std::move(parts)), group);
    s.block = s.dist->block(layout);
    s.ring.assign(static_cast<std::size_t>(buffers),
                  Buffer(static_cast<std::size_t>(s.block.bytes) / sizeof(cf)));
    return true;
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const Options o = parse(argc, argv, rank, size);
    long long bad = 0;
    try {
        dri::Session session;
        std::vector<int> producers, others;
        for (int r = 0; r < size; ++r)
            (r < std::max(1, size / 2) ? producers : others).push_back(r);
        // A process is in at most one receiving side of a name, so a lone
        // rank cannot be beamformer and detector of "pulses": the beamformer
        // then gets a transfer of its own from the same producer ring.
        const bool alone = others.empty();
        const dri::Group pgroup(MPI_COMM_WORLD, producers);
        const dri::Group bgroup(MPI_COMM_WORLD, alone ? producers : others);
        const dri::GlobalData cube({o.n, o.m}, dri::Type::complex_float);
        const dri::Layout row_major = dri::Layout::packed(2);
        const dri::Layout col_major = dri::Layout::ordered({1, 0});
        using P = dri::DimPart;

        dri::Transfer pulses("pulses");
        std::optional<dri::Transfer> solo;
        if (alone) solo.emplace("pulses to the beamformer");
        dri::Transfer& to_beam = alone ? *solo : pulses;
        // Rings of different lengths: each side cycles its own. Zero edges:
        // range does not wrap (gate 0 has no neighbour at gate N-1), and on
        // the way back padded cells have no element, so they add nothing.
        Side prod, beam, det;
        if (join(prod, cube, {P::block(), P::whole()}, pgroup, row_major, 2)) {
            pulses.send(*prod.dist, row_major, prod.ring);
            if (alone) solo->send(*prod.dist, row_major, prod.ring);
        }
        if (join(beam, cube, {P::whole(), P::block()}, bgroup, col_major, 3))
            to_beam.recv(*beam.dist, col_major, beam.ring);
        if (join(det, cube, {P::block().overlap(2, 2, dri::Edge::zero), P::whole()}, pgroup,
                 row_major, 2))
            pulses.recv(*det.dist, row_major, det.ring);
        std::vector<dri::Transfer*> declared{&pulses};
        if (alone) declared.push_back(&*solo);
        dri::commit(MPI_COMM_WORLD, declared);
        // Collective over the processes of "pulses": every receiving side
        // flows back, so the beamformer takes part too.
        dri::Transfer back = pulses.reverse(dri::Combine::sum);

        for (int k = 0; k < o.frames; ++k) {
            // The buffers this frame uses (-1 without the role).
            const int ps = prod.dist ? pulses.current_send_buffer() : -1;
            const int bs = beam.dist ? to_beam.current_recv_buffer() : -1;
            const int ds = det.dist ? pulses.current_recv_buffer() : -1;
            const Index p0 = prod.block.owned_first.empty() ? 0 : prod.block.owned_first[0];
            for (Index i = 0; prod.dist && i < prod.block.local_extent[0]; ++i)
                for (Index j = 0; j < o.m; ++j)
                    prod.at(ps, i, j) = sample(p0 + i, j, o, k);
            pulses.execute();
            if (alone) solo->execute();

            if (beam.dist) {
                const Index c0 = beam.block.owned_first[1];
                for (Index j = 0; j < beam.block.local_extent[1]; ++j)
                    for (Index i = 0; i < o.n; ++i) {
                        if (beam.at(bs, i, j) != sample(i, c0 + j, o, k)) ++bad;
                        // Nothing to return: zero copies add nothing to SUM.
                        beam.at(bs, i, j) = {};
                    }
            }
            if (det.dist) {
                const Index g0 = det.block.stored_first[0], rows = det.block.local_extent[0];
                const Index own = det.block.owned_first[0] - g0, owned = det.block.owned_count[0];
                for (Index i = 0; i < rows; ++i)
                    for (Index j = 0; j < o.m; ++j)
                        if (det.at(ds, i, j) != sample(g0 + i, j, o, k)) ++bad;
                // The statistic of each owned gate, from own and halo rows.
                std::vector<cf> s(static_cast<std::size_t>(owned * o.m));
                for (Index r = 0; r < owned; ++r)
                    for (Index j = 0; j < o.m; ++j)
                        s[static_cast<std::size_t>(r * o.m + j)] = 2.f * det.at(ds, own + r, j) -
                                                                   det.at(ds, own + r - 2, j) -
                                                                   det.at(ds, own + r + 2, j);
                // Into every stored cell, halo and padding included: this
                // process's share of A^T s, from the gates it tested. A halo
                // row's share joins its owner's in the reverse.
                for (Index i = 0; i < rows; ++i)
                    for (Index j = 0; j < o.m; ++j) {
                        cf c{};
                        for (Index d : {-2, 0, 2}) {
                            const Index r = i - own + d; // the tested gate g0 + i + d
                            if (r >= 0 && r < owned)
                                c += (d == 0 ? 2.f : -1.f) *
                                     s[static_cast<std::size_t>(r * o.m + j)];
                        }
                        det.at(ds, i, j) = c;
                    }
            }
            // The reverse has its own cursor, advanced once per frame like
            // the forward's: it reads the buffers just received and writes
            // the one just sent.
            if ((det.dist && back.current_send_buffer() != ds) ||
                (prod.dist && back.current_recv_buffer() != ps))
                ++bad;
            back.execute();
            for (Index i = 0; prod.dist && i < prod.block.local_extent[0]; ++i)
                for (Index j = 0; j < o.m; ++j)
                    if (prod.at(ps, i, j) != gradient(p0 + i, j, o, k)) ++bad;
        }
    } catch (const dri::Error& e) {
        std::fprintf(stderr, "rank %d: dri error %d: %s\n", rank, static_cast<int>(e.code()),
                     e.what());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        const int np = std::max(1, size / 2);
        std::printf("radar_fanout: %lld x %lld complex float, %d producers, beamformer on %d, "
                    "detector on %d, %d frames: %s\n",
                    static_cast<long long>(o.n), static_cast<long long>(o.m), np,
                    size == 1 ? 1 : size - np, np, o.frames, bad == 0 ? "verified" : "WRONG");
        if (bad) std::printf("radar_fanout: %lld wrong elements\n", bad);
    }
    MPI_Finalize();
    return bad == 0 ? 0 : 1;
}
