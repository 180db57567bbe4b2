/* Yield the processor while an MPI call waits, for the MPI tests only.
 *
 * The suite runs up to 7 ranks on 2 cores. MPICH 4.0 (ch4) waits by
 * polling and never gives up its core, so with more ranks than cores a rank
 * that waits holds the processor that the rank it waits for needs, until the
 * scheduler preempts it: every collective costs a scheduler tick (8 ms
 * measured) and test_transfer_mpi took 33 s at 3 ranks against 0.09 s at 2.
 * Open MPI yields by itself when oversubscribed (mpi_yield_when_idle).
 *
 * Linked into every MPI test program (never into the library, the examples
 * or the benchmarks), these definitions take the place of the MPI library's
 * for the test and for libdri (PMPI interposition): each blocking call the
 * library and the tests make is its non-blocking form, tested until done
 * with sched_yield() between tests. The semantics are MPI's own: the same
 * operation, completed by the same process, only waited for politely.
 * Calls without a non-blocking form that synchronise internally
 * (MPI_Comm_split and MPI_Comm_split_type) first meet in a yielding
 * barrier, so that they wait little inside the MPI library. */
#include <mpi.h>

#include <sched.h>

static int finish(int rc, MPI_Request* req, MPI_Status* status) {
    int done = 0;
    while (rc == MPI_SUCCESS && !done) {
        rc = PMPI_Test(req, &done, status);
        if (rc == MPI_SUCCESS && !done) sched_yield();
    }
    return rc;
}

int MPI_Wait(MPI_Request* req, MPI_Status* status) {
    return finish(MPI_SUCCESS, req, status);
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
    int done = 0, rc = MPI_SUCCESS;
    while (rc == MPI_SUCCESS && !done) {
        rc = PMPI_Testall(n, reqs, &done, statuses);
        if (rc == MPI_SUCCESS && !done) sched_yield();
    }
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
    int done = 0, rc = MPI_SUCCESS;
    while (rc == MPI_SUCCESS && !done) {
        rc = PMPI_Testany(n, reqs, index, &done, status);
        if (rc == MPI_SUCCESS && !done) sched_yield();
    }
    return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int* count, int indices[], MPI_Status statuses[]) {
    int rc = MPI_SUCCESS;
    for (*count = 0; rc == MPI_SUCCESS && *count == 0;) {
        rc = PMPI_Testsome(n, reqs, count, indices, statuses);
        if (rc == MPI_SUCCESS && *count == 0) sched_yield();
    }
    return rc;
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
    MPI_Request req;
    return finish(PMPI_Irecv(buf, count, type, source, tag, comm, &req), &req, status);
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
    int found = 0, rc = MPI_SUCCESS;
    while (rc == MPI_SUCCESS && !found) {
        rc = PMPI_Improbe(source, tag, comm, &found, message, status);
        if (rc == MPI_SUCCESS && !found) sched_yield();
    }
    return rc;
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
    MPI_Request req;
    return finish(PMPI_Imrecv(buf, count, type, message, &req), &req, status);
}

int MPI_Barrier(MPI_Comm comm) {
    MPI_Request req;
    return finish(PMPI_Ibarrier(comm, &req), &req, MPI_STATUS_IGNORE);
}

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
    MPI_Request req;
    return finish(PMPI_Ibcast(buf, count, type, root, comm, &req), &req, MPI_STATUS_IGNORE);
}

int MPI_Allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
    MPI_Request req;
    return finish(PMPI_Iallreduce(in, out, count, type, op, comm, &req), &req, MPI_STATUS_IGNORE);
}

int MPI_Reduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm) {
    MPI_Request req;
    return finish(PMPI_Ireduce(in, out, count, type, op, root, comm, &req), &req,
                  MPI_STATUS_IGNORE);
}

int MPI_Exscan(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    MPI_Request req;
    return finish(PMPI_Iexscan(in, out, count, type, op, comm, &req), &req, MPI_STATUS_IGNORE);
}

int MPI_Allgather(const void* in, int incount, MPI_Datatype intype, void* out, int outcount,
                  MPI_Datatype outtype, MPI_Comm comm) {
    MPI_Request req;
    return finish(PMPI_Iallgather(in, incount, intype, out, outcount, outtype, comm, &req), &req,
                  MPI_STATUS_IGNORE);
}

int MPI_Allgatherv(const void* in, int incount, MPI_Datatype intype, void* out,
                   const int outcounts[], const int displs[], MPI_Datatype outtype, MPI_Comm comm) {
    MPI_Request req;
    return finish(
        PMPI_Iallgatherv(in, incount, intype, out, outcounts, displs, outtype, comm, &req), &req,
        MPI_STATUS_IGNORE);
}

int MPI_Gather(const void* in, int incount, MPI_Datatype intype, void* out, int outcount,
               MPI_Datatype outtype, int root, MPI_Comm comm) {
    MPI_Request req;
    return finish(PMPI_Igather(in, incount, intype, out, outcount, outtype, root, comm, &req), &req,
                  MPI_STATUS_IGNORE);
}

int MPI_Alltoall(const void* in, int incount, MPI_Datatype intype, void* out, int outcount,
                 MPI_Datatype outtype, MPI_Comm comm) {
    MPI_Request req;
    return finish(PMPI_Ialltoall(in, incount, intype, out, outcount, outtype, comm, &req), &req,
                  MPI_STATUS_IGNORE);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* copy) {
    MPI_Request req;
    return finish(PMPI_Comm_idup(comm, copy, &req), &req, MPI_STATUS_IGNORE);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* part) {
    const int rc = MPI_Barrier(comm);
    return rc == MPI_SUCCESS ? PMPI_Comm_split(comm, color, key, part) : rc;
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm* part) {
    const int rc = MPI_Barrier(comm);
    return rc == MPI_SUCCESS ? PMPI_Comm_split_type(comm, type, key, info, part) : rc;
}
