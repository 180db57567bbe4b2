// Large counts (seed 000): datatypes for regions of more than 2^31 elements
// and offsets beyond 2^32 bytes, built without allocating them; and one real
// transfer whose single message exceeds 2 GiB (ctest label `large`, run by
// tools/test.sh when the machine has the memory).
#include "core/plan.hpp"
#include "dri/dri.hpp"
#include "mpi/datatype.hpp"
#include "mpi_world.hpp"

#include <doctest/doctest.h>
#include <mpi.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <span>

using namespace dri::core;
using dri::detail::Construction;
using dri::detail::regions_datatype;
using dri::detail::SideOf;

namespace {

struct Described {
    MPI_Count size = 0, true_lb = 0, true_extent = 0;
};

Described describe(const std::vector<Region>& regs, SideOf side, Index elem, Construction how) {
    const dri::detail::Datatype t = regions_datatype(regs, side, elem, how);
    Described d;
    MPI_Type_size_x(t.get(), &d.size);
    MPI_Type_get_true_extent_x(t.get(), &d.true_lb, &d.true_extent);
    return d;
}

// Size, true lower bound and true extent of both sides of a region, with both
// constructions (MPI-4 large count and MPI-3 chunks).
void check_described(const std::vector<Region>& regs, Index elem, Index bytes, Index s_lb,
                     Index s_extent, Index r_lb, Index r_extent) {
    for (Construction how : {Construction::native, Construction::mpi3}) {
        CAPTURE(static_cast<int>(how));
        const Described s = describe(regs, SideOf::sender, elem, how);
        CHECK(s.size == bytes);
        CHECK(s.true_lb == s_lb);
        CHECK(s.true_extent == s_extent);
        const Described r = describe(regs, SideOf::receiver, elem, how);
        CHECK(r.size == bytes);
        CHECK(r.true_lb == r_lb);
        CHECK(r.true_extent == r_extent);
    }
}

const ElementType f32 = ElementType::predefined(ElemKind::float32);

} // namespace

TEST_CASE("datatypes for a region of 2.5e9 elements 10 GB into the buffer (not allocated)") {
    // 3 x 5e9 floats. Sender 2 of 3 owns row 2 (row-major); receiver 1 of 2
    // owns columns [2.5e9, 5e9) stored column-major. The region has 2.5e9 >
    // INT_MAX elements and starts 1e10 bytes into the sender's buffer.
    const Index cols = 5'000'000'000;
    const Shape s({3, cols}, f32);
    const Distribution rows(s, {DimPartition::block(), DimPartition::whole()}, 3);
    const Distribution halves(s, {DimPartition::whole(), DimPartition::block()}, 2);
    const Side send{&rows, Layout::packed(2)}, recv{&halves, Layout::ordered({1, 0})};
    const std::vector<Region> regs = pair_regions(send, recv, 2, 1);
    REQUIRE(regs.size() == 1);
    const Index n = cols / 2;
    CHECK(regs[0].elements() == n);
    CHECK(regs[0].s_off == n * 4);
    CHECK(regs[0].r_off == 2 * 4);
    check_described(regs, 4, n * 4, n * 4, n * 4, 8, (n - 1) * 12 + 4);
}

TEST_CASE("datatypes for a 3-D region with a 3e9-element axis and offsets past 2^38 bytes") {
    // A 2 x 3e9 x 4 block of doubles: contiguous in the sender, three strided
    // axes in the receiver, whose outermost stride is 9.6e10 bytes.
    const ElementType f64 = ElementType::predefined(ElemKind::float64);
    const Index n1 = 3'000'000'000;
    const Shape s({4, n1, 8}, f64);
    const Distribution a(s, {DimPartition::block(), DimPartition::whole(), DimPartition::block()},
                         4);
    const Distribution b(s, {DimPartition::whole(), DimPartition::whole(), DimPartition::block()},
                         2);
    // Receiver layout: dimension 0 innermost, dimension 2 outermost.
    const Side send{&a, Layout::packed(3)}, recv{&b, Layout::ordered({2, 1, 0})};
    // Grid of a is 2 x 1 x 2: sender 3 = coords (1, 0, 1): rows 2-3, depth 4-7.
    const std::vector<Region> regs = pair_regions(send, recv, 3, 1);
    REQUIRE(regs.size() == 1);
    const Region& r = regs[0];
    CHECK(r.elements() == 2 * n1 * 4);
    const Index s_first = r.s_off, r_first = r.r_off;
    Index s_last = s_first, r_last = r_first;
    for (const Axis& ax : r.axes) {
        s_last += (ax.n - 1) * ax.s;
        r_last += (ax.n - 1) * ax.r;
    }
    CHECK(r_last > (Index{1} << 38));
    check_described(regs, 8, 2 * n1 * 4 * 8, s_first, s_last - s_first + 8, r_first,
                    r_last - r_first + 8);
}

TEST_CASE("regions far apart: struct displacements beyond 2^34 bytes") {
    std::vector<Region> regs(3, Region{0, 0, {{1, 4, 4}}});
    regs[1].s_off = regs[1].r_off = Index{1} << 33;
    regs[2].s_off = regs[2].r_off = Index{1} << 34;
    check_described(regs, 4, 12, 0, (Index{1} << 34) + 4, 0, (Index{1} << 34) + 4);
}

namespace {

long peak_rss_mib() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
}

} // namespace

// ctest label `large`: 2 ranks, about 7.5 GiB of memory in all.
TEST_CASE("large: one message of 2.5 GiB, producer rank 0 to consumer rank 1") {
    int size = 0, rank = 0;
    MPI_Comm_size(dri::test::world(), &size);
    MPI_Comm_rank(dri::test::world(), &rank);
    REQUIRE(size == 2);
    // 20480 x 32768 floats = 2.5 GiB; the consumer stores the transpose,
    // except under ALLTOALLW: MPICH's MPI_Alltoallw took 20 s into that
    // element-strided type, where P2P's MPI_Irecv into the same shape took
    // 1 s, and the suite runs this test twice. ALLTOALLW's message,
    // row-major at both ends, is still one region of 2.5 GiB.
    const dri::Index R = 20480, C = 32768, n = R * C;
    const dri::GlobalData gd({R, C}, dri::Type::float32);
    const dri::Partition whole({dri::DimPart::whole(), dri::DimPart::whole()});
    const dri::Group prod(dri::test::world(), {0}), cons(dri::test::world(), {1});
    const dri::Layout rowmajor = dri::Layout::packed(2), colmajor = dri::Layout::ordered({1, 0});
    std::unique_ptr<std::uint32_t[]> buf(new std::uint32_t[static_cast<std::size_t>(n)]);
    std::span<std::uint32_t> b(buf.get(), static_cast<std::size_t>(n));
    std::vector<std::span<std::uint32_t>> ring{b};

    struct Run {
        dri::Strategy strategy;
        const char* name;
        bool transposed; // the consumer's layout
    };
    const Run runs[] = {{dri::Strategy::automatic, "auto (p2p)", true},
                        {dri::Strategy::packed, "packed", true},
                        {dri::Strategy::alltoallw, "alltoallw", false}};
    for (int k = 0; k < 3; ++k) {
        const Run& run = runs[k];
        const auto salt = static_cast<std::uint32_t>(k + 1);
        CAPTURE(k);
        std::optional<dri::Distribution> d;
        dri::Transfer t("large");
        t.strategy(run.strategy);
        if (rank == 0) {
            d.emplace(gd, whole, prod);
            for (dri::Index i = 0; i < n; ++i)
                buf[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(i) + salt;
            t.send(*d, rowmajor, ring);
        } else {
            d.emplace(gd, whole, cons);
            std::memset(buf.get(), 0xff, static_cast<std::size_t>(n) * 4);
            t.recv(*d, run.transposed ? colmajor : rowmajor, ring);
        }
        dri::commit(dri::test::world(), {&t});
        MPI_Barrier(dri::test::world());
        const auto t0 = std::chrono::steady_clock::now();
        t.execute();
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (rank == 1) {
            // Every element, in storage order: the 4 KiB points and the
            // block boundaries are among them. Cell (i, j) holds i * C + j;
            // it is at j * R + i when transposed, else at i * C + j.
            const bool tr = run.transposed;
            const dri::Index lines = tr ? C : R, len = tr ? R : C;
            dri::Index bad = 0, first_bad = -1;
            for (dri::Index o = 0; o < lines; ++o) {
                const std::uint32_t* line = buf.get() + o * len;
                for (dri::Index x = 0; x < len; ++x) {
                    const dri::Index i = tr ? x : o, j = tr ? o : x;
                    if (line[x] != static_cast<std::uint32_t>(i * C + j) + salt) {
                        if (bad++ == 0) first_bad = o * len + x;
                    }
                }
            }
            std::printf("large transfer, strategy %s: %.2f GiB in %.2f s, %ld wrong "
                        "elements, peak RSS %ld MiB on the consumer\n",
                        run.name, static_cast<double>(n) * 4 / (1 << 30), secs,
                        static_cast<long>(bad), peak_rss_mib());
            CHECK_MESSAGE(bad == 0, "first wrong element at " << first_bad);
        } else {
            std::printf("producer peak RSS %ld MiB\n", peak_rss_mib());
        }
        std::fflush(stdout);
    }
}
