#include "mpi/shared_memory.hpp"

#include "mpi/interface.hpp"

#include "mpi/runtime/collectives.hpp"
#include "mpi/runtime/init.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace dri::detail {

using core::Errc;
using core::Index;

namespace {

std::mutex mutex;
std::uint32_t allocations_led = 0; // calls where this process was rank 0

// By key (see shared_alloc): the same order on every process.
std::map<std::uint64_t, std::unique_ptr<SharedBlock>>& blocks() {
    static std::map<std::uint64_t, std::unique_ptr<SharedBlock>> m;
    return m;
}

constexpr Index page = 4096;

std::byte* page_up(void* p) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    return static_cast<std::byte*>(p) + (page - a % page) % page;
}

// Frees the window and the node communicator (collective over the node).
void release(SharedBlock& b) noexcept {
    if (b.win == MPI_WIN_NULL) return free_comm(b.node);
    if (mpi_alive()) {
        MPI_Win_unlock_all(b.win);
        MPI_Win_free(&b.win);
    }
    b.win = MPI_WIN_NULL;
    count_handle(-1);
    free_comm(b.node);
}

void check_comm(MPI_Comm comm, const char* call) {
    if (comm == MPI_COMM_NULL)
        core::fail(Errc::group, std::string(call) + ": MPI_COMM_NULL is not a communicator");
}

// The window and where its segments sit in this address space.
void build(SharedBlock& b, MPI_Comm work, Index bytes) {
    check_mpi(MPI_Comm_split_type(work, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &b.node),
              "MPI_Comm_split_type");
    count_handle(+1);
    MPI_Info info = MPI_INFO_NULL;
    check_mpi(MPI_Info_create(&info), "MPI_Info_create");
    // Segments start on their own pages, not packed back to back.
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    // One page more, so that every segment can start on a page (MPICH does
    // not align the segment of a lone process). A page's offset in memory is
    // the same in every address space, so every process rounds alike.
    void* base = nullptr;
    const int rc = MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes + page), 1, info, b.node,
                                           &base, &b.win);
    MPI_Info_free(&info);
    check_mpi(rc, "MPI_Win_allocate_shared");
    count_handle(+1);
    check_mpi(MPI_Win_set_errhandler(b.win, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
    check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, b.win), "MPI_Win_lock_all");
    b.base = page_up(base);
    b.size = bytes;
    int n = 0;
    check_mpi(MPI_Comm_size(b.node, &n), "MPI_Comm_size");
    b.bases.resize(static_cast<std::size_t>(n));
    b.sizes.assign(static_cast<std::size_t>(n), 0);
    for (int r = 0; r < n; ++r) {
        MPI_Aint size = 0;
        int disp = 0;
        void* p = nullptr;
        check_mpi(MPI_Win_shared_query(b.win, r, &size, &disp, &p), "MPI_Win_shared_query");
        b.bases[static_cast<std::size_t>(r)] = page_up(p);
    }
    // The asked sizes.
    long long mine = bytes;
    std::vector<long long> all(static_cast<std::size_t>(n));
    check_mpi(MPI_Allgather(&mine, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, b.node),
              "MPI_Allgather");
    std::copy(all.begin(), all.end(), b.sizes.begin());
}

} // namespace

bool within(const std::byte* p, Index bytes, const std::byte* base, Index size) {
    const auto a = reinterpret_cast<std::uintptr_t>(p), lo = reinterpret_cast<std::uintptr_t>(base);
    return bytes >= 0 && a >= lo &&
           static_cast<std::uintptr_t>(bytes) <= static_cast<std::uintptr_t>(size) &&
           a - lo <= static_cast<std::uintptr_t>(size - bytes);
}

void* shared_alloc(MPI_Comm comm, Index bytes, const Status& pre) {
    require_initialized();
    check_comm(comm, "DRI_Alloc_mem");
    const ScopedComm work(library_dup(comm));
    agree(work.get(), pre.failed() ? pre : capture([&] {
              if (bytes < 0)
                  core::fail(Errc::arg, "DRI_Alloc_mem: negative size " + std::to_string(bytes));
              if (bytes > INT64_MAX - page)
                  core::fail(Errc::overflow,
                             "DRI_Alloc_mem: " + std::to_string(bytes) + " bytes do not fit");
          }));
    // One key per call, the same on every process of it and unique among
    // the allocations of each: rank 0 of the call names it by its
    // MPI_COMM_WORLD rank and its own count of calls it led. (A process-wide
    // sequence agreed by the processes would not do: threads allocate
    // concurrently on different communicators, in different orders on
    // different processes.) Not 0 (which means "not shared" in ring tables)
    // for the first 2^32 calls a process leads. Every process frees what is
    // left at finalize in key order: one order for all.
    int world_rank = 0;
    check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank), "MPI_Comm_rank");
    unsigned long long key = 0;
    {
        std::lock_guard<std::mutex> lock(mutex);
        key = static_cast<unsigned long long>(world_rank) << 32 | ++allocations_led;
    }
    check_mpi(MPI_Bcast(&key, 1, MPI_UNSIGNED_LONG_LONG, 0, work.get()), "MPI_Bcast");
    auto b = std::make_unique<SharedBlock>();
    b->key = key;
    check_mpi(MPI_Comm_size(work.get(), &b->comm_size), "MPI_Comm_size");
    const Status built = capture([&] { build(*b, work.get(), bytes); });
    try {
        agree(work.get(), built);
    } catch (const core::Error&) {
        release(*b); // on every process, as the window was made
        throw;
    }
    std::lock_guard<std::mutex> lock(mutex);
    void* p = b->base;
    blocks()[key] = std::move(b);
    return p;
}

void shared_free(MPI_Comm comm, void* base) {
    require_initialized();
    check_comm(comm, "DRI_Free_mem");
    const ScopedComm work(library_dup(comm));
    SharedBlock* b = nullptr;
    agree(work.get(), capture([&] {
              std::lock_guard<std::mutex> lock(mutex);
              for (auto& [key, blk] : blocks())
                  if (blk->base == base) b = blk.get();
              if (!b)
                  core::fail(Errc::arg, "DRI_Free_mem: the address was not returned by "
                                        "DRI_Alloc_mem (or is already freed)");
              if (b->users > 0)
                  core::fail(Errc::state, "DRI_Free_mem: a committed transfer still uses the "
                                          "memory; destroy it first");
          }));
    // Every process must name the same allocation, made over as many processes.
    unsigned long long lo[2] = {b->key, static_cast<unsigned long long>(b->comm_size)};
    unsigned long long hi[2] = {lo[0], lo[1]};
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, lo, 2, MPI_UNSIGNED_LONG_LONG, MPI_MIN, work.get()),
              "MPI_Allreduce");
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, hi, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, work.get()),
              "MPI_Allreduce");
    int size = 0;
    check_mpi(MPI_Comm_size(work.get(), &size), "MPI_Comm_size");
    if (lo[0] != hi[0] || lo[1] != hi[1] || hi[1] != static_cast<unsigned long long>(size))
        core::fail(Errc::inconsistent, "DRI_Free_mem: the processes name different allocations, "
                                       "or not every process of the allocation takes part");
    std::unique_ptr<SharedBlock> doomed;
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = blocks().find(b->key);
        doomed = std::move(it->second);
        blocks().erase(it);
    }
    release(*doomed);
}

SharedBlock* shared_find_own(const std::byte* p, Index bytes) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto& [key, b] : blocks())
        if (within(p, bytes, b->base, b->size)) return b.get();
    return nullptr;
}

int shared_node_rank(const SharedBlock& b, MPI_Comm comm, int rank) {
    MPI_Group from = MPI_GROUP_NULL, to = MPI_GROUP_NULL;
    check_mpi(MPI_Comm_group(comm, &from), "MPI_Comm_group");
    int rc = MPI_Comm_group(b.node, &to);
    int node = MPI_UNDEFINED;
    if (rc == MPI_SUCCESS) rc = MPI_Group_translate_ranks(from, 1, &rank, to, &node);
    MPI_Group_free(&from);
    if (to != MPI_GROUP_NULL) MPI_Group_free(&to);
    check_mpi(rc, "MPI_Group_translate_ranks");
    return node == MPI_UNDEFINED ? -1 : node;
}

SharedBlock* shared_find(std::uint64_t key) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = blocks().find(key);
    return it == blocks().end() ? nullptr : it->second.get();
}

void shared_use(SharedBlock* b, int delta) noexcept {
    std::lock_guard<std::mutex> lock(mutex);
    b->users += delta;
}

void shared_release_all() noexcept {
    std::map<std::uint64_t, std::unique_ptr<SharedBlock>> doomed;
    {
        std::lock_guard<std::mutex> lock(mutex);
        doomed.swap(blocks());
    }
    for (auto& [key, b] : doomed)
        release(*b);
}

} // namespace dri::detail
