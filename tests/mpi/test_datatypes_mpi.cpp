// The datatypes built from plan regions (mpi/datatype.hpp) against an
// oracle: the bytes MPI packs, and the bytes a message carries, must be the
// region walk's, in order, for strides of every sign and size (a receiver's
// overlap wraps back, so a sender reads a run backwards, or one cell twice),
// elements of odd size, and both constructions (MPI-4 large count, MPI-3).
// Open MPI 4.1 read a stride of -1 byte as the old type's extent: a
// byte-element run read backwards was sent forwards.
#include "core/plan.hpp"
#include "mpi/datatype.hpp"

#include <doctest/doctest.h>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

using dri::core::Axis;
using dri::core::Index;
using dri::core::Region;
using dri::detail::Construction;
using dri::detail::regions_datatype;
using dri::detail::SideOf;

namespace {

// The bytes of one side of `regions`, in the order a message carries them:
// region by region, each axis by axis (outermost first), each element whole.
std::vector<unsigned char> walk(const std::vector<Region>& regions, SideOf side, Index elem,
                                const std::vector<unsigned char>& buf) {
    std::vector<unsigned char> out;
    for (const Region& r : regions) {
        std::vector<Index> at(r.axes.size(), 0);
        for (;;) {
            Index off = side == SideOf::sender ? r.s_off : r.r_off;
            for (std::size_t a = 0; a < at.size(); ++a)
                off += at[a] * (side == SideOf::sender ? r.axes[a].s : r.axes[a].r);
            for (Index b = 0; b < elem; ++b)
                out.push_back(buf[static_cast<std::size_t>(off + b)]);
            std::size_t a = at.size();
            while (a > 0 && ++at[a - 1] == r.axes[a - 1].n)
                at[--a] = 0;
            if (a == 0) break;
        }
    }
    return out;
}

// What MPI_Pack makes of the datatype, and what a message to this process
// carries from it into contiguous bytes.
struct Moved {
    std::vector<unsigned char> packed, sent;
};

Moved move(const std::vector<Region>& regions, SideOf side, Index elem, Construction how,
           const std::vector<unsigned char>& buf) {
    const dri::detail::Datatype t = regions_datatype(regions, side, elem, how);
    int bytes = 0;
    MPI_Type_size(t.get(), &bytes);
    Moved m;
    m.packed.assign(static_cast<std::size_t>(bytes), 0);
    m.sent.assign(static_cast<std::size_t>(bytes), 0);
    int pos = 0;
    MPI_Pack(buf.data(), 1, t.get(), m.packed.data(), bytes, &pos, MPI_COMM_SELF);
    MPI_Sendrecv(buf.data(), 1, t.get(), 0, 0, m.sent.data(), bytes, MPI_BYTE, 0, 0, MPI_COMM_SELF,
                 MPI_STATUS_IGNORE);
    return m;
}

std::vector<unsigned char> numbered(Index bytes) {
    std::vector<unsigned char> buf(static_cast<std::size_t>(bytes));
    for (std::size_t i = 0; i < buf.size(); ++i)
        buf[i] = static_cast<unsigned char>(i % 251);
    return buf;
}

// Both sides of `regions`, both constructions, packed and sent, equal the
// walk; `bytes` is the buffer's size on either side.
void check_regions(const std::vector<Region>& regions, Index elem, Index bytes) {
    const std::vector<unsigned char> buf = numbered(bytes);
    for (SideOf side : {SideOf::sender, SideOf::receiver})
        for (Construction how : {Construction::native, Construction::mpi3}) {
            CAPTURE(static_cast<int>(side));
            CAPTURE(static_cast<int>(how));
            const std::vector<unsigned char> want = walk(regions, side, elem, buf);
            const Moved got = move(regions, side, elem, how, buf);
            CHECK(got.packed == want);
            CHECK(got.sent == want);
        }
}

// The lowest and highest byte a side of region `r` touches, from offset 0.
std::pair<Index, Index> span(const Region& r, SideOf side, Index elem) {
    Index lo = 0, hi = elem;
    for (const Axis& ax : r.axes) {
        const Index step = (ax.n - 1) * (side == SideOf::sender ? ax.s : ax.r);
        (step < 0 ? lo : hi) += step;
    }
    return {lo, hi};
}

} // namespace

TEST_CASE("a run read backwards one byte at a time: every count, nested and not") {
    for (Index n = 1; n <= 7; ++n) {
        CAPTURE(n);
        // Receiver 1's part of the random case that found it: 5 x 17 x 3
        // bytes, the receiver's wrap overlap read backwards by the sender.
        check_regions({Region{16, 22, {{5, 9, 756}, {2, 0, 324}, {n, -1, 2}}}}, 1, 4000);
        check_regions({Region{8, 0, {{n, -1, 1}}}}, 1, 16);
        check_regions({Region{8, 0, {{3, 2, 1}, {n, -1, 3}}}}, 1, 32);
    }
}

TEST_CASE("random regions: strides of every sign and size, elements of odd size") {
    std::mt19937_64 rng(20261128);
    for (int c = 0; c < 400; ++c) {
        const Index elem = std::vector<Index>{1, 1, 2, 3, 4, 8}[rng() % 6];
        std::vector<Region> regions(1 + rng() % 3);
        Index bytes = 0;
        for (Region& r : regions) {
            r.axes.resize(rng() % 4);
            for (Axis& ax : r.axes) {
                const Index steps[] = {-3 * elem, -elem, -2, -1, 0, 1, elem, 2 * elem, 5 * elem};
                ax.n = 1 + static_cast<Index>(rng() % 5);
                ax.s = steps[rng() % 9];
                ax.r = std::abs(steps[rng() % 9]);
            }
            const auto [slo, shi] = span(r, SideOf::sender, elem);
            const auto [rlo, rhi] = span(r, SideOf::receiver, elem);
            r.s_off = -slo + static_cast<Index>(rng() % 8);
            r.r_off = -rlo + static_cast<Index>(rng() % 8);
            bytes = std::max({bytes, r.s_off + shi, r.r_off + rhi});
        }
        CAPTURE(c);
        check_regions(regions, elem, bytes);
    }
}
