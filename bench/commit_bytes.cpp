// What one commit costs in communication: the bytes each process receives
// through MPI while a pencil reshape commits (x-pencils -> y-pencils of a
// 64^3 float volume on a p0 x p1 grid, every process both sides, rings of
// ordinary memory), for the strategy given (P2P by default: its commit is
// the rendezvous and the plan alone; AUTO also probes shared memory).
//
//   mpiexec.mpich -n P commit_bytes [--strategy p2p|auto] [--commits N]
//
// The counts come from this program's own definitions of the MPI calls the
// library makes (the MPI profiling interface: each forwards to its PMPI_
// twin), so they are what the library asks MPI to deliver to this process:
// the receive buffers of collectives and of point-to-point receives, not
// the bytes of MPI's internal algorithms. Linked with the static library so
// that its calls bind here. Printed per process: the mean, min and max over
// processes, bytes per commit, and how many collective calls a commit made.
#include "dri/dri.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// What this process received through MPI while counting is on.
struct Received {
    bool on = false;
    long long bytes = 0, collectives = 0;
};
Received g_rx;

long long type_bytes(MPI_Datatype t, long long count) {
    int size = 0;
    PMPI_Type_size(t, &size);
    return count * size;
}

void collective(long long bytes) {
    if (!g_rx.on) return;
    g_rx.bytes += bytes;
    ++g_rx.collectives;
}

int comm_size(MPI_Comm c) {
    int n = 0;
    PMPI_Comm_size(c, &n);
    return n;
}

} // namespace

// ---- the MPI calls the library's commit makes, counted ---------------------

extern "C" {

int MPI_Allgather(const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt,
                  MPI_Comm comm) {
    collective(type_bytes(rt, static_cast<long long>(rc) * comm_size(comm)));
    return PMPI_Allgather(sb, sc, st, rb, rc, rt, comm);
}

int MPI_Allgatherv(const void* sb, int sc, MPI_Datatype st, void* rb, const int rc[],
                   const int displs[], MPI_Datatype rt, MPI_Comm comm) {
    long long n = 0;
    for (int i = 0, p = comm_size(comm); i < p; ++i)
        n += rc[i];
    collective(type_bytes(rt, n));
    return PMPI_Allgatherv(sb, sc, st, rb, rc, displs, rt, comm);
}

int MPI_Allreduce(const void* sb, void* rb, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
    collective(type_bytes(t, count));
    return PMPI_Allreduce(sb, rb, count, t, op, comm);
}

int MPI_Exscan(const void* sb, void* rb, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
    collective(type_bytes(t, count));
    return PMPI_Exscan(sb, rb, count, t, op, comm);
}

int MPI_Bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm comm) {
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    collective(me == root ? 0 : type_bytes(t, count));
    return PMPI_Bcast(buf, count, t, root, comm);
}

int MPI_Barrier(MPI_Comm comm) {
    collective(0);
    return PMPI_Barrier(comm);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm,
              MPI_Request* req) {
    if (g_rx.on) g_rx.bytes += type_bytes(t, count);
    return PMPI_Irecv(buf, count, t, src, tag, comm, req);
}

int MPI_Recv(void* buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm,
             MPI_Status* st) {
    if (g_rx.on) g_rx.bytes += type_bytes(t, count);
    return PMPI_Recv(buf, count, t, src, tag, comm, st);
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype t, MPI_Message* msg, MPI_Status* st) {
    if (g_rx.on) g_rx.bytes += type_bytes(t, count);
    return PMPI_Mrecv(buf, count, t, msg, st);
}

// Communicator creation is collective too (its own bytes are MPI's).
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* out) {
    collective(0);
    return PMPI_Comm_split(comm, color, key, out);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* out) {
    collective(0);
    return PMPI_Comm_dup(comm, out);
}

} // extern "C"

namespace {

struct Options {
    dri::Strategy strategy = dri::Strategy::p2p;
    int commits = 3;
};

bool parse(int argc, char** argv, Options& o) {
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--strategy" && (v == "p2p" || v == "auto"))
            o.strategy = v == "p2p" ? dri::Strategy::p2p : dri::Strategy::automatic;
        else if (a == "--commits" && std::atoi(v.c_str()) > 0)
            o.commits = std::atoi(v.c_str());
        else
            return false;
    }
    return argc % 2 == 1;
}

// The grid p0 x p1 = P with p0 the largest divisor of P not above its root.
int rows_of_grid(int procs) {
    int p0 = 1;
    for (int d = 1; d * d <= procs; ++d)
        if (procs % d == 0) p0 = d;
    return p0;
}

// One commit of the pencil reshape; the bytes and collectives it took here.
Received commit_once(const Options& o, int procs) {
    const int p0 = rows_of_grid(procs);
    const std::string a = std::to_string(p0), b = std::to_string(procs / p0);
    const dri::GlobalData volume({64, 64, 64}, dri::Type::float32);
    const dri::Group all(MPI_COMM_WORLD);
    const dri::Distribution xp(volume,
                               dri::Partition::parse("block/" + a + ",block/" + b + ",whole"), all);
    const dri::Distribution yp(volume, dri::Partition::parse("block/" + a + ",whole,block/" + b),
                               all);
    const dri::Layout xl = dri::Layout::packed(3), yl = dri::Layout::ordered({0, 2, 1});
    std::vector<std::vector<float>> in(2, std::vector<float>(xp.block(xl).elements()));
    std::vector<std::vector<float>> out(2, std::vector<float>(yp.block(yl).elements()));
    dri::Transfer t("pencil");
    t.send(xp, xl, in);
    t.recv(yp, yl, out);
    t.strategy(o.strategy);
    PMPI_Barrier(MPI_COMM_WORLD);
    g_rx = {true, 0, 0};
    t.commit();
    Received got = g_rx;
    got.on = false;
    g_rx = {};
    t.execute(); // the plan works
    return got;
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int procs = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    Options o;
    if (!parse(argc, argv, o)) {
        if (rank == 0)
            std::fprintf(stderr, "usage: commit_bytes [--strategy p2p|auto] [--commits N]\n");
        MPI_Finalize();
        return 2;
    }
    int rc = 0;
    try {
        dri::Session session;
        Received last;
        for (int k = 0; k < o.commits; ++k)
            last = commit_once(o, procs); // the same each time: the last one is reported
        long long lo = last.bytes, hi = last.bytes, sum = last.bytes;
        PMPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
        PMPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        PMPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0)
            std::printf("commit_bytes: pencil 64^3 float on %d x %d, strategy %s: bytes received "
                        "per process per commit: mean %lld, min %lld, max %lld; %lld collective "
                        "calls\n",
                        rows_of_grid(procs), procs / rows_of_grid(procs),
                        o.strategy == dri::Strategy::p2p ? "P2P" : "AUTO", sum / procs, lo, hi,
                        last.collectives);
    } catch (const dri::Error& e) {
        std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
        rc = 1;
    }
    MPI_Finalize();
    return rc;
}
