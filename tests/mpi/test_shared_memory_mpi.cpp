// Node shared memory from every API: local DRI_Alloc_mem / DRI_Free_mem on
// one rank while the others do nothing, rings from dri::SharedMemory,
// dri::allocator, DRI_Alloc_mem and the transfer's own rings (each gives
// AUTO the single copy, data exact), frees refused or deferred while a
// committed transfer uses the memory, segments mapped once and only from
// processes of the same node, and the fallback to messages without memory
// files (DRI_SHARED_MEMORY=off).
#include "api_errors.hpp"
#include "core/spec.hpp"
#include "mpi/remote_segment.hpp"
#include "mpi_world.hpp"
#include "nodes.hpp"

#include <dri/dri.hpp>

#include <doctest/doctest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <numeric>

using namespace dri::test;
namespace core = dri::core;

namespace {

// The corner turn of an int32 matrix over every process of world(): row
// blocks to column blocks, both packed. 24 x 10, or more where there are
// more processes, so that every process owns a row and a column.
struct Turn {
    static dri::Index nrows() { return std::max(24, world_size()); }
    static dri::Index ncols() { return std::max(10, world_size()); }
    const dri::Index R = nrows(), C = ncols();
    dri::GlobalData gd{{R, C}, dri::Type::int32};
    dri::Group g{world()};
    dri::Distribution rows{gd, dri::Partition({dri::DimPart::block(), dri::DimPart::whole()}), g};
    dri::Distribution cols{gd, dri::Partition({dri::DimPart::whole(), dri::DimPart::block()}), g};
    dri::Layout packed = dri::Layout::packed(2);
    dri::BlockInfo sb = rows.block(packed), rb = cols.block(packed);

    static int value(dri::Index i, dri::Index j, int frame) {
        return static_cast<int>(i * 100 + j + 10000 * frame);
    }
    void fill(std::span<int> s, int frame) const {
        for (dri::Index i = 0; i < sb.local_extent[0]; ++i)
            for (dri::Index j = 0; j < C; ++j)
                s[static_cast<std::size_t>(i * C + j)] = value(sb.owned_first[0] + i, j, frame);
    }
    int wrong(std::span<const int> r, int frame) const {
        int bad = 0;
        for (dri::Index i = 0; i < R; ++i)
            for (dri::Index j = 0; j < rb.local_extent[1]; ++j)
                bad += r[static_cast<std::size_t>(i * rb.local_extent[1] + j)] !=
                       value(i, rb.owned_first[1] + j, frame);
        return bad;
    }
    // The strategy AUTO picks when every send ring is in node shared memory.
    static dri::Strategy auto_shared() {
        if (world_size() == 1) return dri::Strategy::p2p; // no pair of processes
        return static_cast<dri::Strategy>(single_copy_strategy());
    }
    // ... and when the send rings are ordinary memory: P2P, or NODES where
    // its rule says so.
    static dri::Strategy auto_heap() {
        const int w = world_size();
        const core::Shape shape({nrows(), ncols()},
                                core::ElementType::predefined(core::ElemKind::int32));
        const core::Distribution r(shape, core::parse_partition("block,whole"), w),
            c(shape, core::parse_partition("whole,block"), w);
        std::vector<int> all(static_cast<std::size_t>(w));
        std::iota(all.begin(), all.end(), 0);
        return auto_choice_heap(
            pairs_by_node({&r, core::Layout::packed(2)}, {&c, core::Layout::packed(2)}, all, all));
    }
};

// Runs frames over a committed transfer whose ring buffer k the callbacks
// reach; counts wrong elements over all ranks.
int run_frames(dri::Transfer& t, const Turn& turn, int frames,
               const std::function<std::span<int>(int)>& send,
               const std::function<std::span<const int>(int)>& recv) {
    int bad = 0;
    for (int f = 0; f < frames; ++f) {
        const int k = t.current_send_buffer();
        turn.fill(send(k), f);
        const int r = t.current_recv_buffer();
        t.execute();
        bad += turn.wrong(recv(r), f);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, world());
    return bad;
}

// Process ids of the processes on this process's node.
std::vector<std::int64_t> node_pids() {
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(world(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int n = 0;
    MPI_Comm_size(node, &n);
    long long mine = getpid();
    std::vector<long long> all(static_cast<std::size_t>(n));
    MPI_Allgather(&mine, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, node);
    MPI_Comm_free(&node);
    return {all.begin(), all.end()};
}

} // namespace

TEST_CASE("DRI_Alloc_mem and DRI_Free_mem on one rank while the others do nothing") {
    // Before the change this hung: the allocation was collective.
    if (world_rank() == world_size() - 1)
        for (int i = 0; i < 200; ++i) {
            void* p = nullptr;
            REQUIRE(DRI_Alloc_mem(1 << 20, &p) == DRI_SUCCESS);
            static_cast<char*>(p)[(1 << 20) - 1] = 1;
            REQUIRE(DRI_Free_mem(p) == DRI_SUCCESS);
        }
    MPI_Barrier(world());
}

TEST_CASE("rings from every source give AUTO the single copy, data exact") {
    const Turn turn;
    const auto rbytes = static_cast<std::size_t>(turn.rb.elements());
    const auto selems = static_cast<std::size_t>(turn.sb.elements());
    std::vector<std::vector<int>> out(2, std::vector<int>(rbytes));
    auto recv = [&](int k) { return std::span<const int>(out[static_cast<std::size_t>(k)]); };

    SUBCASE("dri::allocator") {
        std::vector<std::vector<int, dri::allocator<int>>> ring(
            2, std::vector<int, dri::allocator<int>>(selems));
        dri::Transfer t("allocator");
        t.send(turn.rows, turn.packed, ring);
        t.recv(turn.cols, turn.packed, out);
        t.commit();
        CHECK(t.chosen_strategy() == Turn::auto_shared());
        CHECK(run_frames(
                  t, turn, 4,
                  [&](int k) { return std::span<int>(ring[static_cast<std::size_t>(k)]); },
                  recv) == 0);
    }
    SUBCASE("dri::SharedMemory") {
        std::vector<dri::SharedMemory> ring;
        for (int k = 0; k < 2; ++k)
            ring.emplace_back(static_cast<std::size_t>(turn.sb.bytes));
        dri::Transfer t("SharedMemory");
        t.send(turn.rows, turn.packed, ring);
        t.recv(turn.cols, turn.packed, out);
        t.commit();
        CHECK(t.chosen_strategy() == Turn::auto_shared());
        CHECK(run_frames(
                  t, turn, 4, [&](int k) { return ring[static_cast<std::size_t>(k)].as<int>(); },
                  recv) == 0);
    }
    SUBCASE("the transfer's own rings (OwnedRing), both sides") {
        dri::Transfer t("owned");
        t.send(turn.rows, turn.packed, dri::OwnedRing{3});
        t.recv(turn.cols, turn.packed, dri::OwnedRing{2});
        CHECK(t.buffer(dri::Role::send, 2).size() == static_cast<std::size_t>(turn.sb.bytes));
        CHECK(t.buffer(dri::Role::recv, 1).size() == static_cast<std::size_t>(turn.rb.bytes));
        CHECK(api_code_of([&] { (void)t.buffer(dri::Role::recv, 2); }) == dri::Errc::arg);
        CHECK(api_code_of([&] { (void)t.buffer(dri::Role::send, -1); }) == dri::Errc::arg);
        t.commit();
        CHECK(t.chosen_strategy() == Turn::auto_shared());
        CHECK(run_frames(
                  t, turn, 5, [&](int k) { return t.buffer_as<int>(dri::Role::send, k); },
                  [&](int k) {
                      return std::span<const int>(t.buffer_as<int>(dri::Role::recv, k));
                  }) == 0);
    }
    SUBCASE("DRI_Alloc_mem") {
        void* mem[2] = {nullptr, nullptr};
        for (void*& m : mem)
            REQUIRE(DRI_Alloc_mem(turn.sb.bytes, &m) == DRI_SUCCESS);
        {
            dri::Transfer t("DRI_Alloc_mem");
            std::vector<std::span<int>> ring;
            for (void* m : mem)
                ring.emplace_back(static_cast<int*>(m), selems);
            t.send(turn.rows, turn.packed, ring);
            t.recv(turn.cols, turn.packed, out);
            t.commit();
            CHECK(t.chosen_strategy() == Turn::auto_shared());
            CHECK(DRI_Free_mem(mem[1]) == DRI_ERR_STATE); // pinned while committed
            CHECK(run_frames(
                      t, turn, 4, [&](int k) { return ring[static_cast<std::size_t>(k)]; }, recv) ==
                  0);
        }
        for (void* m : mem)
            CHECK(DRI_Free_mem(m) == DRI_SUCCESS);
    }
}

TEST_CASE("memory dropped by its owner while a committed transfer uses it goes with the transfer") {
    const Turn turn;
    std::vector<std::vector<int>> out(
        1, std::vector<int>(static_cast<std::size_t>(turn.rb.elements())));
    auto ring = std::make_unique<std::vector<std::vector<int, dri::allocator<int>>>>(
        1, std::vector<int, dri::allocator<int>>(static_cast<std::size_t>(turn.sb.elements())));
    int* const data = (*ring)[0].data();
    dri::Transfer t("dropped");
    t.send(turn.rows, turn.packed, *ring);
    t.recv(turn.cols, turn.packed, out);
    t.commit();
    turn.fill({data, (*ring)[0].size()}, 0);
    ring.reset(); // deallocate: deferred, the transfer still reads it
    CHECK(dri::detail::shared_find_own(reinterpret_cast<const std::byte*>(data), 1) == nullptr);
    t.execute();
    int bad = turn.wrong(out[0], 0);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, world());
    CHECK(bad == 0);
}

TEST_CASE("segments are mapped once per process, only from its node, and unmapped after use") {
    const Turn turn;
    const std::size_t before = dri::detail::remote_segment_owners().size();
    dri::SharedMemory mem(static_cast<std::size_t>(turn.sb.bytes));
    std::vector<std::vector<int>> out(
        1, std::vector<int>(static_cast<std::size_t>(turn.rb.elements())));
    std::vector<std::span<std::byte>> spans{{mem.data(), mem.size()}};
    {
        dri::Transfer a("mapped a"), b("mapped b");
        for (dri::Transfer* t : {&a, &b}) {
            t->send(turn.rows, turn.packed, std::span<const std::span<std::byte>>(spans));
            t->recv(turn.cols, turn.packed, out);
            // AUTO's one route: learning, it would hold NODES too on several
            // nodes, which maps its leader's aggregates beside the rings.
            t->learning(dri::Learning::off);
        }
        dri::commit(world(), {&a, &b});
        const std::vector<std::int64_t> owners = dri::detail::remote_segment_owners();
        const std::vector<std::int64_t> mates = node_pids();
        std::vector<std::int64_t> sorted = owners;
        std::sort(sorted.begin(), sorted.end());
        CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()); // once each
        for (std::int64_t pid : owners) {
            CHECK(pid != getpid());
            CHECK(std::find(mates.begin(), mates.end(), pid) != mates.end());
        }
        // Every other process of the node sends to this one: all are mapped.
        CHECK(owners.size() == before + mates.size() - 1);
        for (dri::Transfer* t : {&a, &b}) {
            turn.fill(mem.as<int>(), 7);
            t->execute();
            int bad = turn.wrong(out[0], 7);
            MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, world());
            CHECK(bad == 0);
        }
    }
    CHECK(dri::detail::remote_segment_owners().size() == before);
}

TEST_CASE("without memory files (DRI_SHARED_MEMORY=off) rings fall back to messages") {
    const Turn turn;
    setenv("DRI_SHARED_MEMORY", "off", 1);
    dri::SharedMemory mem(static_cast<std::size_t>(turn.sb.bytes));
    unsetenv("DRI_SHARED_MEMORY");
    std::vector<std::span<std::byte>> ring{{mem.data(), mem.size()}};
    std::vector<std::vector<int>> out(
        1, std::vector<int>(static_cast<std::size_t>(turn.rb.elements())));
    dri::Transfer t("fallback");
    t.send(turn.rows, turn.packed, std::span<const std::span<std::byte>>(ring));
    t.recv(turn.cols, turn.packed, out);
    t.commit();
    CHECK(t.chosen_strategy() == Turn::auto_heap());
    CHECK(run_frames(
              t, turn, 2, [&](int) { return mem.as<int>(); },
              [&](int) { return std::span<const int>(out[0]); }) == 0);
    if (world_size() > 1) {
        dri::Transfer forced("fallback forced");
        forced.strategy(dri::Strategy::shared);
        forced.send(turn.rows, turn.packed, std::span<const std::span<std::byte>>(ring));
        forced.recv(turn.cols, turn.packed, out);
        CHECK(api_code_of([&] { forced.commit(); }) == dri::Errc::strategy);
    }
}

TEST_CASE("HYBRID forced where no two processes exchange data says so") {
    if (world_size() != 1) return; // at 1 rank every piece stays on its process
    const Turn turn;
    dri::SharedMemory mem(static_cast<std::size_t>(turn.sb.bytes));
    std::vector<std::span<std::byte>> ring{{mem.data(), mem.size()}};
    std::vector<std::vector<int>> out(
        1, std::vector<int>(static_cast<std::size_t>(turn.rb.elements())));
    dri::Transfer t("lone hybrid");
    t.strategy(dri::Strategy::hybrid);
    t.send(turn.rows, turn.packed, std::span<const std::span<std::byte>>(ring));
    t.recv(turn.cols, turn.packed, out);
    std::string why;
    try {
        t.commit();
    } catch (const dri::Error& e) {
        why = e.what();
    }
    CHECK_MESSAGE(why.find("no two distinct processes exchange data") != std::string::npos, why);
}

TEST_CASE("allocations past the limit on open files are ordinary memory, never a failure") {
    rlimit saved{};
    REQUIRE(getrlimit(RLIMIT_NOFILE, &saved) == 0);
    int open_now = 0; // the lowest free descriptor bounds what is open
    open_now = dup(0);
    close(open_now);
    rlimit low = saved;
    low.rlim_cur = static_cast<rlim_t>(open_now + 2);
    REQUIRE(setrlimit(RLIMIT_NOFILE, &low) == 0);
    std::vector<dri::SharedMemory> many;
    for (int i = 0; i < 8; ++i)
        many.emplace_back(4096);
    REQUIRE(setrlimit(RLIMIT_NOFILE, &saved) == 0);
    int ordinary = 0;
    for (const dri::SharedMemory& m : many) {
        m.data()[4095] = std::byte{1}; // usable memory either way
        const dri::detail::SharedBlock* b = dri::detail::shared_find_own(m.data(), 1);
        REQUIRE(b != nullptr);
        ordinary += b->id.fd < 0 ? 1 : 0;
    }
    CHECK(ordinary >= 6);
}
