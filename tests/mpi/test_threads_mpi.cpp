// The thread contract of docs/api.md ("Threads"), under MPI_THREAD_MULTIPLE:
// calls on different objects run concurrently, collective calls run
// concurrently on different communicators, and the last error message is
// per thread. Built again with ThreadSanitizer by tools/test.sh, where a
// data race in the library fails the run.
//
// Every thread of every rank owns one communicator (a duplicate of world(),
// made before the threads start) and builds, on it and concurrently with
// the other threads: global data, a partition, a group, two distributions,
// two layouts, a corner-turn transfer with its own strategy (SHARED and
// HYBRID over DRI_Alloc_mem memory of its communicator, the others over
// heap rings), commits it, runs blocking and non-blocking reorganizations
// whose every received element is checked, provokes an error of its own and
// checks that its message is the one it sees, then destroys everything. It
// does so for several rounds, so that creation, use and destruction of
// objects in one thread overlap all of these in the others.
//
//   test_threads_mpi [--threads T] [--rounds R] [--frames F]
#include "dri/dri.h"
#include "mpi/runtime/handles.hpp" // live_handles(): the library's own MPI handle count
#include "mpi_world.hpp"
#include "nodes.hpp"

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr DRI_Index kRows = 24, kCols = 20;

int g_size = 1, g_rank = 0;
// The single copy's strategy on this world (see main).
DRI_Strategy g_single_copy = DRI_STRATEGY_SHARED;

// A failure ends the run on every rank: the peers of a failed thread would
// wait forever in its next collective call.
[[noreturn]] void failed(int thread, const std::string& what) {
    std::fprintf(stderr, "threads: FAILED on rank %d thread %d: %s\n", g_rank, thread,
                 what.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();
}

// A DRI call that must succeed.
void must(int thread, int rc, const char* call) {
    if (rc != DRI_SUCCESS)
        failed(thread, std::string(call) + " returned " + DRI_Error_string(rc) + ": " +
                           DRI_Last_error_message());
}

// The value of element (r, c) in frame f of thread t: distinct per thread
// and frame, so that a buffer delivered to the wrong thread's transfer or
// from the wrong frame is found.
std::int32_t value(int thread, int frame, DRI_Index r, DRI_Index c) {
    return static_cast<std::int32_t>(((thread * 64 + frame) * kRows + r) * kCols + c + 1);
}

// The strategy thread t uses, and whether its rings lie in DRI_Alloc_mem
// memory (the single copy needs them there).
DRI_Strategy strategy_of(int thread) {
    const DRI_Strategy all[] = {DRI_STRATEGY_P2P,   g_single_copy,     DRI_STRATEGY_ALLTOALLW,
                                DRI_STRATEGY_NODES, DRI_STRATEGY_AUTO, DRI_STRATEGY_PACKED};
    return all[thread % 6];
}
bool in_shared_memory(int thread) {
    return thread % 6 == 1 || strategy_of(thread) == DRI_STRATEGY_AUTO;
}

// The global element at each cell of a block: (row, column), or (-1, -1)
// where the cell holds nothing (every cell does here: no padding).
struct Cell {
    DRI_Index r = -1, c = -1;
};
std::vector<Cell> cells(const DRI_Blockinfo& b) {
    std::vector<Cell> out(static_cast<std::size_t>(b.bytes / 4));
    for (DRI_Index i = 0; i < b.local_extent[0]; ++i)
        for (DRI_Index j = 0; j < b.local_extent[1]; ++j)
            out[static_cast<std::size_t>(i * b.strides[0] + j * b.strides[1])] = {
                b.stored_first[0] + i, b.stored_first[1] + j};
    return out;
}

// One thread's objects over its own communicator.
class Worker {
  public:
    Worker(int thread, MPI_Comm comm, int frames) : t_(thread), comm_(comm), frames_(frames) {}

    void run(int rounds) {
        for (int round = 0; round < rounds; ++round) {
            build();
            // Every other round the descriptions go before the transfer
            // that holds them (allowed once the roles are declared).
            if (round % 2) destroy_descriptions();
            reorganize();
            own_error();
            destroy_transfer();
            destroy_descriptions();
        }
    }

  private:
    void build() {
        const DRI_Index ext[2] = {kRows, kCols};
        const int row_major[2] = {0, 1}, col_major[2] = {1, 0};
        must(t_, DRI_Globaldata_create(2, ext, DRI_INT32, &gdo_), "DRI_Globaldata_create");
        must(t_, DRI_Partition_create_spec("block,whole", &rows_), "DRI_Partition_create_spec");
        must(t_, DRI_Partition_create_spec("whole,block", &cols_), "DRI_Partition_create_spec");
        must(t_, DRI_Group_create(comm_, 0, nullptr, &group_), "DRI_Group_create");
        must(t_, DRI_Distribution_create(gdo_, rows_, group_, &by_rows_),
             "DRI_Distribution_create");
        must(t_, DRI_Distribution_create(gdo_, cols_, group_, &by_cols_),
             "DRI_Distribution_create");
        must(t_, DRI_Layout_create(2, row_major, nullptr, &row_major_), "DRI_Layout_create");
        must(t_, DRI_Layout_create(2, col_major, nullptr, &col_major_), "DRI_Layout_create");
        must(t_, DRI_Blockinfo_get(by_rows_, row_major_, &send_), "DRI_Blockinfo_get");
        must(t_, DRI_Blockinfo_get(by_cols_, col_major_, &recv_), "DRI_Blockinfo_get");
        rings();
        declare();
    }

    // Two buffers per side, from the heap or from DRI_Alloc_mem on this
    // thread's communicator (collective, concurrently with the other threads').
    void rings() {
        const DRI_Index s = send_.bytes, r = recv_.bytes;
        if (in_shared_memory(t_)) {
            must(t_, DRI_Alloc_mem(2 * s, &mem_), "DRI_Alloc_mem");
            send_bufs_ = {mem_, static_cast<char*>(mem_) + s};
        } else {
            heap_send_.assign(2, std::vector<std::int32_t>(static_cast<std::size_t>(s / 4)));
            send_bufs_ = {heap_send_[0].data(), heap_send_[1].data()};
        }
        heap_recv_.assign(2, std::vector<std::int32_t>(static_cast<std::size_t>(r / 4)));
        recv_bufs_ = {heap_recv_[0].data(), heap_recv_[1].data()};
    }

    void declare() {
        const DRI_Index ss[2] = {send_.bytes, send_.bytes}, rs[2] = {recv_.bytes, recv_.bytes};
        const std::string name = "thread " + std::to_string(t_);
        must(t_, DRI_Transfer_create(name.c_str(), &xfer_), "DRI_Transfer_create");
        must(t_, DRI_Transfer_send(xfer_, by_rows_, row_major_, 2, send_bufs_.data(), ss),
             "DRI_Transfer_send");
        must(t_, DRI_Transfer_recv(xfer_, by_cols_, col_major_, 2, recv_bufs_.data(), rs),
             "DRI_Transfer_recv");
        must(t_, DRI_Transfer_set_strategy(xfer_, strategy_of(t_)), "DRI_Transfer_set_strategy");
        must(t_, DRI_Commit(comm_, 1, &xfer_), "DRI_Commit");
    }

    void fill(int frame) {
        auto* buf = static_cast<std::int32_t*>(send_bufs_[static_cast<std::size_t>(frame % 2)]);
        const std::vector<Cell> map = cells(send_);
        for (std::size_t k = 0; k < map.size(); ++k)
            buf[k] = value(t_, frame, map[k].r, map[k].c);
    }

    void check(int frame) {
        const auto* buf =
            static_cast<const std::int32_t*>(recv_bufs_[static_cast<std::size_t>(frame % 2)]);
        const std::vector<Cell> map = cells(recv_);
        for (std::size_t k = 0; k < map.size(); ++k)
            if (buf[k] != value(t_, frame, map[k].r, map[k].c))
                failed(t_, "frame " + std::to_string(frame) + ": element (" +
                               std::to_string(map[k].r) + ", " + std::to_string(map[k].c) +
                               ") holds " + std::to_string(buf[k]));
    }

    // Blocking and non-blocking reorganizations, every element checked.
    void reorganize() {
        for (int f = 0; f < frames_; ++f) {
            fill(f);
            if (f % 2 == 0) {
                must(t_, DRI_Do(xfer_), "DRI_Do");
            } else {
                int done = 0;
                must(t_, DRI_Do_start(xfer_), "DRI_Do_start");
                while (!done)
                    must(t_, DRI_Do_test(xfer_, &done), "DRI_Do_test");
            }
            check(f);
        }
    }

    // An error of this thread's own, whose message this thread must see
    // whatever the other threads' calls fail with meanwhile.
    void own_error() {
        const DRI_Index bad[2] = {kRows, -1 - t_};
        DRI_Globaldata g = nullptr;
        if (DRI_Globaldata_create(2, bad, DRI_INT32, &g) != DRI_ERR_EXTENT)
            failed(t_, "a negative extent was not DRI_ERR_EXTENT");
        const std::string want = std::to_string(-1 - t_);
        std::this_thread::yield();
        if (std::string(DRI_Last_error_message()).find(want) == std::string::npos)
            failed(t_, std::string("the last error message is another thread's: ") +
                           DRI_Last_error_message());
    }

    // The transfer, then the memory its ring lay in (refused before).
    void destroy_transfer() {
        must(t_, DRI_Transfer_destroy(&xfer_), "DRI_Transfer_destroy");
        if (mem_) must(t_, DRI_Free_mem(mem_), "DRI_Free_mem");
        mem_ = nullptr;
    }

    void destroy_descriptions() {
        if (by_rows_) must(t_, DRI_Distribution_destroy(&by_rows_), "DRI_Distribution_destroy");
        if (by_cols_) must(t_, DRI_Distribution_destroy(&by_cols_), "DRI_Distribution_destroy");
        if (row_major_) must(t_, DRI_Layout_destroy(&row_major_), "DRI_Layout_destroy");
        if (col_major_) must(t_, DRI_Layout_destroy(&col_major_), "DRI_Layout_destroy");
        if (group_) must(t_, DRI_Group_destroy(&group_), "DRI_Group_destroy");
        if (rows_) must(t_, DRI_Partition_destroy(&rows_), "DRI_Partition_destroy");
        if (cols_) must(t_, DRI_Partition_destroy(&cols_), "DRI_Partition_destroy");
        if (gdo_) must(t_, DRI_Globaldata_destroy(&gdo_), "DRI_Globaldata_destroy");
    }

    int t_;
    MPI_Comm comm_;
    int frames_;
    DRI_Globaldata gdo_ = nullptr;
    DRI_Partition rows_ = nullptr, cols_ = nullptr;
    DRI_Group group_ = nullptr;
    DRI_Distribution by_rows_ = nullptr, by_cols_ = nullptr;
    DRI_Layout row_major_ = nullptr, col_major_ = nullptr;
    DRI_Blockinfo send_{}, recv_{};
    DRI_Transfer xfer_ = nullptr;
    void* mem_ = nullptr;
    std::vector<std::vector<std::int32_t>> heap_send_, heap_recv_;
    std::vector<void*> send_bufs_, recv_bufs_;
};

struct Options {
    int threads = 4, rounds = 4, frames = 6;
};

bool parse(int argc, char** argv, Options& o) {
    for (int i = 1; i + 1 < argc; i += 2) {
        const int v = std::atoi(argv[i + 1]);
        if (v < 1) return false;
        if (std::strcmp(argv[i], "--threads") == 0)
            o.threads = v;
        else if (std::strcmp(argv[i], "--rounds") == 0)
            o.rounds = v;
        else if (std::strcmp(argv[i], "--frames") == 0)
            o.frames = v;
        else
            return false;
    }
    return argc % 2 == 1;
}

} // namespace

int main(int argc, char** argv) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (!dri::test::open_world()) return MPI_Finalize(), 2;
    MPI_Comm_size(dri::test::world(), &g_size);
    MPI_Comm_rank(dri::test::world(), &g_rank);
    // SHARED needs one node, HYBRID two processes on one of several; with
    // one process per node the single copy has no pair, and P2P stands in.
    const int nodes = dri::test::node_count();
    g_single_copy = nodes == 1       ? DRI_STRATEGY_SHARED
                    : nodes < g_size ? DRI_STRATEGY_HYBRID
                                     : DRI_STRATEGY_P2P;
    Options opt;
    if (!parse(argc, argv, opt)) {
        if (g_rank == 0)
            std::fprintf(stderr,
                         "usage: test_threads_mpi [--threads T] [--rounds R] [--frames F]\n");
        return dri::test::close_world(), MPI_Finalize(), 2;
    }
    if (provided < MPI_THREAD_MULTIPLE) {
        // The contract is stated for MPI_THREAD_MULTIPLE only: not an error
        // of dri, but nothing to test.
        if (g_rank == 0) std::printf("threads: MPI_THREAD_MULTIPLE is not provided: SKIPPED\n");
        return dri::test::close_world(), MPI_Finalize(), 0;
    }
    must(-1, DRI_Init(), "DRI_Init");
    std::vector<MPI_Comm> comms(static_cast<std::size_t>(opt.threads));
    for (MPI_Comm& c : comms)
        MPI_Comm_dup(dri::test::world(), &c);
    std::vector<std::thread> threads;
    for (int t = 0; t < opt.threads; ++t)
        threads.emplace_back(
            [&, t] { Worker(t, comms[static_cast<std::size_t>(t)], opt.frames).run(opt.rounds); });
    for (std::thread& th : threads)
        th.join();
    for (MPI_Comm& c : comms)
        MPI_Comm_free(&c);
    const long held = dri::detail::live_handles() - dri::detail::retired_comms();
    if (held != 0) failed(-1, "dri holds " + std::to_string(held) + " MPI handles");
    must(-1, DRI_Finalize(), "DRI_Finalize");
    if (g_rank == 0)
        std::printf("threads: %d threads x %d rounds x %d frames on %d ranks passed\n", opt.threads,
                    opt.rounds, opt.frames, g_size);
    dri::test::close_world();
    MPI_Finalize();
    return 0;
}
