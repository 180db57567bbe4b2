/* dri-message-count: a PMPI library that counts the point-to-point messages
 * a process asks MPI for, split by whether the peer is on the same node as
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) reports it (so MPICH's simulated
 * nodes, MPIR_CVAR_NUM_CLIQUES=k, count as nodes).
 *
 * What counts as one message, from the calling process:
 *  - each MPI_Send, Ssend, Rsend, Bsend and their I- forms, and each start of
 *    a persistent send (MPI_Start, MPI_Startall on MPI_Send_init requests);
 *  - in MPI_Alltoall, Alltoallv, Alltoallw and their I- forms, each peer
 *    other than the caller that the call gives a non-empty send block.
 * Bytes are the sent counts times the datatype sizes. A collective's entries
 * are what the caller asks for, not the packets the MPI library's algorithm
 * puts on the wire; receives are not counted (every message has one sender).
 *
 * Link it before the MPI library (dri-bench does), or preload it into any
 * MPI program: LD_PRELOAD=.../libdri-message-count.so. Counting is off until
 * dri_message_count_enable(1), or from MPI_Init when the environment has
 * DRI_COUNT_MESSAGES=1; then MPI_Finalize prints the totals of all
 * processes on rank 0 of MPI_COMM_WORLD. Not thread-safe: count (and
 * trace, below) from one thread per process. */
#ifndef DRI_MESSAGE_COUNT_H
#define DRI_MESSAGE_COUNT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dri_message_counts {
    long long intra_messages; /* to processes on the caller's node */
    long long intra_bytes;
    long long inter_messages; /* to processes on other nodes */
    long long inter_bytes;
} dri_message_counts;

/* dri-bench --trace: where one call's time went, from the calling process.
 * While tracing is on, each MPI call that moves or completes messages (the
 * sends and receives above and their completions: waits, tests, probes, the
 * all-to-alls) adds the seconds spent inside it. The first completion call
 * (a wait or a test) after a reset splits the call into what came before it
 * (packing, local copies, posting) and after it (unpacking, single copies,
 * as messages arrive). */
typedef struct dri_mpi_trace {
    double in_mpi;                   /* seconds inside those MPI calls */
    double to_first_completion;      /* seconds from the reset to the first
                                        completion call; -1: none yet */
    double in_mpi_before_completion; /* the part of in_mpi before it */
} dri_mpi_trace;

/* Turns tracing on (1) or off (0); returns the previous setting. */
int dri_mpi_trace_enable(int on);
/* Zeroes the trace and starts its clock. */
void dri_mpi_trace_reset(void);
void dri_mpi_trace_get(dri_mpi_trace* trace);

/* Turns counting on (1) or off (0); returns the previous setting. */
int dri_message_count_enable(int on);
/* This process's counts since the last reset. */
void dri_message_count_get(dri_message_counts* counts);
void dri_message_count_reset(void);

#ifdef __cplusplus
}
#endif

#endif
