// The PMPI wrappers of dri-message-count (message_count.h says what counts
// and what --trace times). Each wrapper forwards to its PMPI_ name first;
// only when counting is on does it look at the arguments, and only when
// tracing is on does it read the clock, so a program linked with the
// library and doing neither pays two branches per call.
#include "message_count.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

namespace {

bool counting = false;
dri_message_counts totals{};
std::vector<int> node_of_world; // node id (its leader's world rank) per world rank
int my_node = -1;
// A persistent send (MPI_Send_init and kin) counts each time it starts.
struct PersistentSend {
    MPI_Comm comm;
    int dest;
    long long bytes;
};
std::map<MPI_Request, PersistentSend> persistent_sends;

bool tracing = false;
dri_mpi_trace trace{0, -1, 0};
double trace_start = 0;

// Adds the time of the MPI call it spans to the trace; a completion call
// (wait, test) marks the first one after the reset.
class Timed {
  public:
    explicit Timed(bool completion) : completion_(completion), t0_(tracing ? PMPI_Wtime() : 0) {}
    ~Timed() {
        if (!tracing) return;
        if (completion_ && trace.to_first_completion < 0) {
            trace.to_first_completion = t0_ - trace_start;
            trace.in_mpi_before_completion = trace.in_mpi;
        }
        trace.in_mpi += PMPI_Wtime() - t0_;
    }
    Timed(const Timed&) = delete;
    Timed& operator=(const Timed&) = delete;

  private:
    bool completion_;
    double t0_;
};

// Which node each world rank is on, as MPI_Comm_split_type reports nodes.
void learn_nodes() {
    int rank = 0, size = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node = MPI_COMM_NULL;
    PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int leader = rank;
    PMPI_Bcast(&leader, 1, MPI_INT, 0, node);
    PMPI_Comm_free(&node);
    node_of_world.assign(static_cast<std::size_t>(size), -1);
    PMPI_Allgather(&leader, 1, MPI_INT, node_of_world.data(), 1, MPI_INT, MPI_COMM_WORLD);
    my_node = leader;
}

// World ranks of `ranks` of comm's (remote, for an intercommunicator) group.
std::vector<int> world_ranks(MPI_Comm comm, const std::vector<int>& ranks) {
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
    if (inter)
        PMPI_Comm_remote_group(comm, &group);
    else
        PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    std::vector<int> out(ranks.size(), MPI_UNDEFINED);
    PMPI_Group_translate_ranks(group, static_cast<int>(ranks.size()), ranks.data(), world,
                               out.data());
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    return out;
}

// A peer whose node is unknown (MPI_Init not seen, or outside the world)
// counts as on another node.
void add(int world_peer, long long bytes) {
    const bool known = world_peer >= 0 && world_peer < static_cast<int>(node_of_world.size());
    if (known && node_of_world[static_cast<std::size_t>(world_peer)] == my_node) {
        ++totals.intra_messages;
        totals.intra_bytes += bytes;
    } else {
        ++totals.inter_messages;
        totals.inter_bytes += bytes;
    }
}

long long bytes_of(long long count, MPI_Datatype type) {
    MPI_Count size = 0;
    PMPI_Type_size_x(type, &size);
    return count * static_cast<long long>(size);
}

void count_send(MPI_Comm comm, int dest, long long bytes) {
    if (!counting || dest == MPI_PROC_NULL) return;
    add(world_ranks(comm, {dest})[0], bytes);
}

// One message per peer other than the caller with a non-empty send block;
// bytes(j) gives the block's size. Intercommunicators have no "caller" among
// the peers.
template <class Bytes>
void count_collective(MPI_Comm comm, Bytes&& bytes) {
    if (!counting) return;
    int inter = 0, me = -1, n = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) {
        PMPI_Comm_remote_size(comm, &n);
    } else {
        PMPI_Comm_size(comm, &n);
        PMPI_Comm_rank(comm, &me);
    }
    std::vector<int> peers;
    std::vector<long long> sizes;
    for (int j = 0; j < n; ++j) {
        const long long b = bytes(j);
        if (j == me || b == 0) continue;
        peers.push_back(j);
        sizes.push_back(b);
    }
    const std::vector<int> world = world_ranks(comm, peers);
    for (std::size_t k = 0; k < peers.size(); ++k)
        add(world[k], sizes[k]);
}

void remember_persistent(MPI_Request req, MPI_Comm comm, int dest, long long bytes) {
    persistent_sends[req] = PersistentSend{comm, dest, bytes};
}

void count_start(MPI_Request req) {
    if (!counting) return;
    const auto it = persistent_sends.find(req);
    if (it != persistent_sends.end())
        count_send(it->second.comm, it->second.dest, it->second.bytes);
}

int after_init(int rc) {
    if (rc != MPI_SUCCESS) return rc;
    learn_nodes();
    const char* env = std::getenv("DRI_COUNT_MESSAGES");
    counting = env != nullptr && env[0] == '1';
    return rc;
}

void report_totals() {
    const long long mine[4] = {totals.intra_messages, totals.intra_bytes, totals.inter_messages,
                               totals.inter_bytes};
    long long all[4] = {0, 0, 0, 0};
    PMPI_Reduce(mine, all, 4, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        std::printf("dri-message-count: all processes sent %lld messages (%lld bytes) within "
                    "nodes and %lld messages (%lld bytes) between nodes\n",
                    all[0], all[1], all[2], all[3]);
}

} // namespace

extern "C" {

int dri_message_count_enable(int on) {
    const int was = counting ? 1 : 0;
    counting = on != 0;
    return was;
}

void dri_message_count_get(dri_message_counts* counts) {
    if (counts != nullptr) *counts = totals;
}

void dri_message_count_reset(void) {
    totals = dri_message_counts{};
}

int dri_mpi_trace_enable(int on) {
    const int was = tracing ? 1 : 0;
    tracing = on != 0;
    return was;
}

void dri_mpi_trace_reset(void) {
    trace = dri_mpi_trace{0, -1, 0};
    trace_start = PMPI_Wtime();
}

void dri_mpi_trace_get(dri_mpi_trace* t) {
    if (t != nullptr) *t = trace;
}

int MPI_Init(int* argc, char*** argv) {
    return after_init(PMPI_Init(argc, argv));
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
    return after_init(PMPI_Init_thread(argc, argv, required, provided));
}

int MPI_Finalize(void) {
    const char* env = std::getenv("DRI_COUNT_MESSAGES");
    if (env != nullptr && env[0] == '1') report_totals();
    persistent_sends.clear();
    return PMPI_Finalize();
}

#define DRI_COUNTED_SEND(NAME, COUNT)                                                              \
    int MPI_##NAME(const void* buf, COUNT count, MPI_Datatype type, int dest, int tag,             \
                   MPI_Comm comm) {                                                                \
        const Timed timed(false);                                                                  \
        const int rc = PMPI_##NAME(buf, count, type, dest, tag, comm);                             \
        if (rc == MPI_SUCCESS) count_send(comm, dest, bytes_of(count, type));                      \
        return rc;                                                                                 \
    }
#define DRI_COUNTED_ISEND(NAME, COUNT)                                                             \
    int MPI_##NAME(const void* buf, COUNT count, MPI_Datatype type, int dest, int tag,             \
                   MPI_Comm comm, MPI_Request* req) {                                              \
        const Timed timed(false);                                                                  \
        const int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, req);                        \
        if (rc == MPI_SUCCESS) count_send(comm, dest, bytes_of(count, type));                      \
        return rc;                                                                                 \
    }
#define DRI_REMEMBERED_SEND_INIT(NAME, COUNT)                                                      \
    int MPI_##NAME(const void* buf, COUNT count, MPI_Datatype type, int dest, int tag,             \
                   MPI_Comm comm, MPI_Request* req) {                                              \
        const int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, req);                        \
        if (rc == MPI_SUCCESS) remember_persistent(*req, comm, dest, bytes_of(count, type));       \
        return rc;                                                                                 \
    }

DRI_COUNTED_SEND(Send, int)
DRI_COUNTED_SEND(Ssend, int)
DRI_COUNTED_SEND(Rsend, int)
DRI_COUNTED_SEND(Bsend, int)
DRI_COUNTED_ISEND(Isend, int)
DRI_COUNTED_ISEND(Issend, int)
DRI_COUNTED_ISEND(Irsend, int)
DRI_COUNTED_ISEND(Ibsend, int)
DRI_REMEMBERED_SEND_INIT(Send_init, int)
DRI_REMEMBERED_SEND_INIT(Ssend_init, int)
DRI_REMEMBERED_SEND_INIT(Rsend_init, int)
DRI_REMEMBERED_SEND_INIT(Bsend_init, int)
#if MPI_VERSION >= 4 // the large-count forms dri calls where MPI has them
DRI_COUNTED_SEND(Send_c, MPI_Count)
DRI_COUNTED_SEND(Ssend_c, MPI_Count)
DRI_COUNTED_SEND(Rsend_c, MPI_Count)
DRI_COUNTED_SEND(Bsend_c, MPI_Count)
DRI_COUNTED_ISEND(Isend_c, MPI_Count)
DRI_COUNTED_ISEND(Issend_c, MPI_Count)
DRI_COUNTED_ISEND(Irsend_c, MPI_Count)
DRI_COUNTED_ISEND(Ibsend_c, MPI_Count)
DRI_REMEMBERED_SEND_INIT(Send_init_c, MPI_Count)
DRI_REMEMBERED_SEND_INIT(Ssend_init_c, MPI_Count)
DRI_REMEMBERED_SEND_INIT(Rsend_init_c, MPI_Count)
DRI_REMEMBERED_SEND_INIT(Bsend_init_c, MPI_Count)
#endif

int MPI_Start(MPI_Request* req) {
    const Timed timed(false);
    const MPI_Request r = *req;
    const int rc = PMPI_Start(req);
    if (rc == MPI_SUCCESS) count_start(r);
    return rc;
}

int MPI_Startall(int n, MPI_Request reqs[]) {
    const Timed timed(false);
    const std::vector<MPI_Request> r(reqs, reqs + (n > 0 ? n : 0));
    const int rc = PMPI_Startall(n, reqs);
    if (rc == MPI_SUCCESS)
        for (MPI_Request q : r)
            count_start(q);
    return rc;
}

int MPI_Request_free(MPI_Request* req) {
    persistent_sends.erase(*req);
    return PMPI_Request_free(req);
}

int MPI_Alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm) {
    const Timed timed(false);
    const int rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        count_collective(comm, [&](int) { return bytes_of(scount, stype); });
    return rc;
}

int MPI_Alltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                  void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                  MPI_Comm comm) {
    const Timed timed(false);
    const int rc =
        PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        count_collective(comm, [&](int j) { return bytes_of(scounts[j], stype); });
    return rc;
}

int MPI_Alltoallw(const void* sbuf, const int scounts[], const int sdispls[],
                  const MPI_Datatype stypes[], void* rbuf, const int rcounts[], const int rdispls[],
                  const MPI_Datatype rtypes[], MPI_Comm comm) {
    const Timed timed(false);
    const int rc =
        PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        count_collective(comm, [&](int j) { return bytes_of(scounts[j], stypes[j]); });
    return rc;
}

int MPI_Ialltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
    const Timed timed(false);
    const int rc = PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        count_collective(comm, [&](int) { return bytes_of(scount, stype); });
    return rc;
}

int MPI_Ialltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                   void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                   MPI_Comm comm, MPI_Request* req) {
    const Timed timed(false);
    const int rc =
        PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        count_collective(comm, [&](int j) { return bytes_of(scounts[j], stype); });
    return rc;
}

int MPI_Ialltoallw(const void* sbuf, const int scounts[], const int sdispls[],
                   const MPI_Datatype stypes[], void* rbuf, const int rcounts[],
                   const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                   MPI_Request* req) {
    const Timed timed(false);
    const int rc =
        PMPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        count_collective(comm, [&](int j) { return bytes_of(scounts[j], stypes[j]); });
    return rc;
}

#if MPI_VERSION >= 4
int MPI_Alltoall_c(const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf,
                   MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm) {
    const Timed timed(false);
    const int rc = PMPI_Alltoall_c(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        count_collective(comm, [&](int) { return bytes_of(scount, stype); });
    return rc;
}

int MPI_Alltoallv_c(const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[],
                    MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
    const Timed timed(false);
    const int rc =
        PMPI_Alltoallv_c(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        count_collective(comm, [&](int j) { return bytes_of(scounts[j], stype); });
    return rc;
}

int MPI_Alltoallw_c(const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype stypes[], void* rbuf, const MPI_Count rcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm) {
    const Timed timed(false);
    const int rc =
        PMPI_Alltoallw_c(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        count_collective(comm, [&](int j) { return bytes_of(scounts[j], stypes[j]); });
    return rc;
}

int MPI_Ialltoall_c(const void* sbuf, MPI_Count scount, MPI_Datatype stype, void* rbuf,
                    MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
    const Timed timed(false);
    const int rc = PMPI_Ialltoall_c(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        count_collective(comm, [&](int) { return bytes_of(scount, stype); });
    return rc;
}

int MPI_Ialltoallv_c(const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[],
                     MPI_Datatype stype, void* rbuf, const MPI_Count rcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                     MPI_Request* req) {
    const Timed timed(false);
    const int rc =
        PMPI_Ialltoallv_c(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        count_collective(comm, [&](int j) { return bytes_of(scounts[j], stype); });
    return rc;
}

int MPI_Ialltoallw_c(const void* sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype stypes[], void* rbuf, const MPI_Count rcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                     MPI_Request* req) {
    const Timed timed(false);
    const int rc = PMPI_Ialltoallw_c(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                                     comm, req);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        count_collective(comm, [&](int j) { return bytes_of(scounts[j], stypes[j]); });
    return rc;
}
#endif

// Receives, probes and completions: timed only (receives are not counted).
#define DRI_TIMED_IRECV(NAME, COUNT)                                                               \
    int MPI_##NAME(void* buf, COUNT count, MPI_Datatype type, int source, int tag, MPI_Comm comm,  \
                   MPI_Request* req) {                                                             \
        const Timed timed(false);                                                                  \
        return PMPI_##NAME(buf, count, type, source, tag, comm, req);                              \
    }
#define DRI_TIMED_RECV(NAME, COUNT)                                                                \
    int MPI_##NAME(void* buf, COUNT count, MPI_Datatype type, int source, int tag, MPI_Comm comm,  \
                   MPI_Status* status) {                                                           \
        const Timed timed(true);                                                                   \
        return PMPI_##NAME(buf, count, type, source, tag, comm, status);                           \
    }
DRI_TIMED_IRECV(Irecv, int)
DRI_TIMED_RECV(Recv, int)
#if MPI_VERSION >= 4
DRI_TIMED_IRECV(Irecv_c, MPI_Count)
DRI_TIMED_RECV(Recv_c, MPI_Count)
#endif

int MPI_Wait(MPI_Request* req, MPI_Status* status) {
    const Timed timed(true);
    return PMPI_Wait(req, status);
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
    const Timed timed(true);
    return PMPI_Waitall(n, reqs, statuses);
}

int MPI_Waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
    const Timed timed(true);
    return PMPI_Waitany(n, reqs, index, status);
}

int MPI_Waitsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
    const Timed timed(true);
    return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
}

int MPI_Test(MPI_Request* req, int* flag, MPI_Status* status) {
    const Timed timed(true);
    return PMPI_Test(req, flag, status);
}

int MPI_Testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
    const Timed timed(true);
    return PMPI_Testall(n, reqs, flag, statuses);
}

int MPI_Testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
    const Timed timed(true);
    return PMPI_Testany(n, reqs, index, flag, status);
}

int MPI_Testsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
    const Timed timed(true);
    return PMPI_Testsome(n, reqs, outcount, indices, statuses);
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
    const Timed timed(true);
    return PMPI_Mprobe(source, tag, comm, message, status);
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
    const Timed timed(true);
    return PMPI_Mrecv(buf, count, type, message, status);
}

} // extern "C"
