// Pieces marked ready by several threads at once (docs/api.md, "Pieces"),
// under MPI_THREAD_MULTIPLE: every rank produces its rows of a corner turn
// with worker threads, each computing pieces of its own and marking them as
// it finishes, in an order of its own, while the main thread waits for the
// receive pieces one by one and checks each as soon as it has arrived; then
// the frame completes. Through P2P over heap rings and SHARED (or P2P where
// the nodes rule it out) over node shared memory. Built again with
// ThreadSanitizer by tools/test.sh, where a data race fails the run.
//
//   test_piece_threads_mpi [--threads T] [--frames F]
#include "dri/dri.hpp"
#include "mpi/runtime/handles.hpp" // live_handles(): the library's own MPI handle count
#include "mpi_world.hpp"
#include "nodes.hpp"

#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr dri::Index kRows = 48, kCols = 40;
constexpr int kSendPieces = 12, kRecvPieces = 5;

int g_rank = 0;
std::atomic<int> g_failures{0};

void fail(const std::string& what) {
    std::fprintf(stderr, "rank %d: %s\n", g_rank, what.c_str());
    ++g_failures;
}

float value(dri::Index i, dri::Index j, int frame) {
    return static_cast<float>(i * 1000 + j) + 0.5f * static_cast<float>(frame);
}

// One transfer's frames: rows produced by `threads` workers piece by piece,
// columns checked piece by piece on arrival.
void run(dri::Strategy strategy, bool shared_memory, int threads, int frames) {
    const dri::GlobalData gd({kRows, kCols}, dri::Type::float32);
    const dri::Group all(dri::test::world());
    const dri::Distribution rows(gd, dri::Partition::parse("block,whole"), all);
    const dri::Distribution cols(gd, dri::Partition::parse("whole,block"), all);
    const dri::Layout row_major = dri::Layout::packed(2), col_major = dri::Layout::ordered({1, 0});
    const dri::BlockInfo sb = rows.block(row_major), rb = cols.block(col_major);
    std::vector<dri::SharedMemory> shared;
    std::vector<std::vector<float>> plain;
    std::vector<std::span<std::byte>> sbuf;
    for (int i = 0; i < 2; ++i) {
        const auto bytes = static_cast<std::size_t>(sb.bytes);
        if (shared_memory) {
            shared.emplace_back(bytes);
            sbuf.emplace_back(shared.back().data(), bytes);
        } else {
            plain.emplace_back(bytes / sizeof(float));
            sbuf.push_back(std::as_writable_bytes(std::span(plain.back())));
        }
    }
    std::vector<std::vector<float>> rbuf(
        2, std::vector<float>(static_cast<std::size_t>(rb.bytes / 4)));
    dri::Transfer t("piece threads");
    t.strategy(strategy);
    t.send(rows, row_major, sbuf);
    t.pieces(dri::Role::send, 0, kSendPieces);
    t.recv(cols, col_major, rbuf);
    t.pieces(dri::Role::recv, 1, kRecvPieces);
    t.commit();
    for (int f = 0; f < frames; ++f) {
        auto* out = reinterpret_cast<float*>(
            sbuf[static_cast<std::size_t>(t.current_send_buffer())].data());
        const std::vector<float>& in = rbuf[static_cast<std::size_t>(t.current_recv_buffer())];
        t.start();
        std::vector<std::thread> workers;
        for (int w = 0; w < threads; ++w)
            workers.emplace_back([&, w] {
                // Worker w makes pieces w, w + T, ..., the last first.
                for (int k = kSendPieces - 1 - (kSendPieces - 1 - w) % threads; k >= 0;
                     k -= threads) {
                    const auto [lo, hi] = t.piece(dri::Role::send, k);
                    for (dri::Index i = lo; i < hi; ++i)
                        for (dri::Index j = 0; j < kCols; ++j)
                            out[i * kCols + j] = value(sb.owned_first[0] + i, j, f);
                    t.ready(k);
                }
            });
        for (int k = 0; k < kRecvPieces; ++k) {
            t.wait_piece(k);
            const auto [lo, hi] = t.piece(dri::Role::recv, k);
            for (dri::Index j = lo; j < hi; ++j)
                for (dri::Index i = 0; i < kRows; ++i)
                    if (in[static_cast<std::size_t>(j * kRows + i)] !=
                        value(i, rb.owned_first[1] + j, f)) {
                        fail("frame " + std::to_string(f) + ": receive piece " + std::to_string(k) +
                             " column " + std::to_string(j) + " row " + std::to_string(i) +
                             " wrong after it arrived");
                        j = hi;
                        break;
                    }
        }
        for (std::thread& th : workers)
            th.join();
        t.wait();
    }
}

} // namespace

int main(int argc, char** argv) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (!dri::test::open_world()) return MPI_Finalize(), 2;
    g_rank = dri::test::world_rank();
    int threads = 3, frames = 6;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--threads") == 0) threads = std::atoi(argv[i + 1]);
        if (std::strcmp(argv[i], "--frames") == 0) frames = std::atoi(argv[i + 1]);
    }
    if (provided < MPI_THREAD_MULTIPLE) {
        if (g_rank == 0)
            std::printf("piece threads: MPI_THREAD_MULTIPLE is not provided: SKIPPED\n");
        return dri::test::close_world(), MPI_Finalize(), 0;
    }
    {
        dri::Session session;
        // SHARED needs every pair on one node; elsewhere AUTO stands in (P2P).
        const bool one_node = dri::test::node_count() == 1;
        try {
            run(dri::Strategy::p2p, false, threads, frames);
            run(one_node ? dri::Strategy::shared : dri::Strategy::automatic, true, threads, frames);
        } catch (const dri::Error& e) {
            fail(std::string("dri::Error: ") + e.what());
        }
    }
    const long held = dri::detail::live_handles() - dri::detail::retired_comms();
    if (held != 0) fail("dri holds " + std::to_string(held) + " MPI handles");
    int bad = g_failures.load();
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, dri::test::world());
    if (g_rank == 0 && bad == 0)
        std::printf("piece threads: %d threads x %d frames on %d ranks passed\n", threads, frames,
                    dri::test::world_size());
    dri::test::close_world();
    MPI_Finalize();
    return bad == 0 ? 0 : 1;
}
