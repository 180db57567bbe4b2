// A rank killed by SIGKILL while dri's node shared memory is in use: before
// commit, after commit, or during DRI_Do (killed_rank.sh checks that nothing
// is left behind). Before the kill, every process checks that each mapping
// of its dri memory, its own and the ones it reads, is an anonymous memory
// file: nothing with a name in the file system that a kill could leave.
#include <dri/dri.h>
#include <mpi.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

// Each mapping of dri memory in this process, as /proc/self/maps names it;
// false when one is backed by a file with a name.
bool mappings_are_anonymous(int rank) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    int dri = 0;
    while (std::getline(maps, line)) {
        if (line.find("dri") == std::string::npos || line.find(".so") != std::string::npos ||
            line.find("/killed_rank") != std::string::npos)
            continue;
        if (line.find("/memfd:dri (deleted)") == std::string::npos) {
            std::fprintf(stderr, "rank %d: a dri mapping with a name: %s\n", rank, line.c_str());
            return false;
        }
        ++dri;
    }
    if (dri == 0) std::fprintf(stderr, "rank %d: no dri memory mapped\n", rank);
    return dri > 0;
}

void die_after(int ms) {
    std::thread([ms] {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        kill(getpid(), SIGKILL);
    }).detach();
}

int fail(const char* what) {
    std::fprintf(stderr, "killed_rank: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 3;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2)
        return std::fprintf(stderr, "usage: killed_rank before-commit|after-commit|in-do\n"), 2;
    const std::string when = argv[1];
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    DRI_Init();
    const int victim = size - 1;
    const DRI_Index n = 512, ext[2] = {n, n};
    DRI_Globaldata gd;
    DRI_Partition rows, cols;
    DRI_Group all;
    DRI_Distribution drows, dcols;
    DRI_Layout packed;
    DRI_Globaldata_create(2, ext, DRI_FLOAT, &gd);
    DRI_Partition_create_spec("block,whole", &rows);
    DRI_Partition_create_spec("whole,block", &cols);
    DRI_Group_create(MPI_COMM_WORLD, 0, nullptr, &all);
    DRI_Distribution_create(gd, rows, all, &drows);
    DRI_Distribution_create(gd, cols, all, &dcols);
    const int order[2] = {0, 1};
    DRI_Layout_create(2, order, nullptr, &packed);
    DRI_Blockinfo sb, rb;
    DRI_Blockinfo_get(drows, packed, &sb);
    DRI_Blockinfo_get(dcols, packed, &rb);
    void* send = nullptr;
    std::vector<float> recv(static_cast<std::size_t>(rb.bytes / 4));
    if (DRI_Alloc_mem(sb.bytes, &send) != DRI_SUCCESS) return fail("DRI_Alloc_mem");
    std::memset(send, 1, static_cast<std::size_t>(sb.bytes));
    if (when == "before-commit") {
        if (!mappings_are_anonymous(rank)) return fail("named memory");
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == victim) kill(getpid(), SIGKILL);
        MPI_Barrier(MPI_COMM_WORLD); // never completes: mpiexec ends the job
        return fail("survived the kill");
    }
    DRI_Transfer t;
    void* sbuf[1] = {send};
    void* rbuf[1] = {recv.data()};
    DRI_Transfer_create("killed", &t);
    DRI_Transfer_send(t, drows, packed, 1, sbuf, &sb.bytes);
    DRI_Transfer_recv(t, dcols, packed, 1, rbuf, &rb.bytes);
    if (DRI_Transfer_commit(t) != DRI_SUCCESS) return fail("commit");
    DRI_Strategy s;
    DRI_Transfer_strategy(t, &s);
    if (size > 1 && s != DRI_STRATEGY_SHARED && s != DRI_STRATEGY_HYBRID)
        return fail("no single copy");
    if (!mappings_are_anonymous(rank)) return fail("named memory");
    MPI_Barrier(MPI_COMM_WORLD);
    if (when == "in-do" && rank == victim) die_after(50);
    if (when == "after-commit" && rank == victim) kill(getpid(), SIGKILL);
    for (int frame = 0; frame < 1000000; ++frame)
        DRI_Do(t); // the kill ends the job in here
    return fail("survived the kill");
}
