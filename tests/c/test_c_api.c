/* A corner turn written in C99 against dri.h only, plus the C binding's
 * error reporting: codes, messages, stale handles, calls before DRI_Init. */
#include <dri/dri10.h>

#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: expectation failed: %s (last error: %s)\n", __FILE__,          \
                    __LINE__, #cond, DRI_Last_error_message());                                    \
            ++failures;                                                                            \
        }                                                                                          \
    } while (0)

#define OK(call) EXPECT((call) == DRI_SUCCESS)

/* The communicator the test runs on: MPI_COMM_WORLD, or with the
 * environment variable DRI_TEST_COMM=reversed the same processes in
 * reversed rank order (as tests/support/mpi_world.hpp for the C++ tests).
 * Nonzero, with a message, for an unknown value. */
static int open_comm(MPI_Comm* comm) {
    const char* v = getenv("DRI_TEST_COMM");
    int size, rank;
    *comm = MPI_COMM_WORLD;
    if (!v || !*v || strcmp(v, "world") == 0) return 0;
    if (strcmp(v, "reversed") != 0) {
        fprintf(stderr, "DRI_TEST_COMM=%s: expected 'reversed' or 'world'\n", v);
        return 1;
    }
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, comm);
    return 0;
}

static float complex value(long i, long j, int frame) {
    return (float)(i * 1000 + j) + (float)frame * I;
}

/* Whether every process of comm is on one node (several are simulated in
 * CI with MPIR_CVAR_NUM_CLIQUES). */
static int one_node(MPI_Comm comm) {
    MPI_Comm node;
    int n = 0, all = 0;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &n);
    MPI_Comm_free(&node);
    MPI_Comm_size(comm, &all);
    return n == all;
}

/* DRI_Distribution_create_ordered: a column-major grid numbers the first
 * grid dimension fastest (Blockinfo reports those coordinates); a bad order
 * or members passing different orders fail alike on every member. */
static void check_grid_orders(DRI_Globaldata gdo, DRI_Group all, int rank, int size) {
    DRI_Dimpart bb[2];
    DRI_Partition part;
    DRI_Distribution col = NULL, row = NULL, bad = NULL;
    DRI_Layout packed;
    DRI_Blockinfo info;
    int grid[DRI_MAX_DIMS], i;
    const int order01[2] = {0, 1};
    bb[0] = DRI_Dim_block();
    bb[1] = DRI_Dim_block();
    OK(DRI_Partition_create(2, bb, &part));
    OK(DRI_Layout_create(2, order01, NULL, &packed));
    OK(DRI_Distribution_create_ordered(gdo, part, all, DRI_GRID_COLUMN_MAJOR, &col));
    OK(DRI_Distribution_create_ordered(gdo, part, all, DRI_GRID_ROW_MAJOR, &row));
    OK(DRI_Distribution_grid(col, grid));
    for (i = 0; i < size; ++i) {
        OK(DRI_Blockinfo_get_index(col, packed, i, &info));
        EXPECT(info.coords[0] == i % grid[0] && info.coords[1] == i / grid[0]);
        OK(DRI_Blockinfo_get_index(row, packed, i, &info));
        EXPECT(info.coords[1] == i % grid[1] && info.coords[0] == i / grid[1]);
    }
    OK(DRI_Blockinfo_get(col, packed, &info));
    EXPECT(info.index == rank && info.coords[0] == rank % grid[0]);
    /* Every member passes a bad order, or only the first one: DRI_ERR_ARG everywhere. */
    EXPECT(DRI_Distribution_create_ordered(gdo, part, all, (DRI_Grid_order)7, &bad) == DRI_ERR_ARG);
    EXPECT(DRI_Distribution_create_ordered(gdo, part, all,
                                           rank == 0 ? (DRI_Grid_order)-1 : DRI_GRID_ROW_MAJOR,
                                           &bad) == DRI_ERR_ARG);
    EXPECT(bad == NULL);
    if (size > 1) {
        EXPECT(DRI_Distribution_create_ordered(
                   gdo, part, all, rank == size - 1 ? DRI_GRID_COLUMN_MAJOR : DRI_GRID_ROW_MAJOR,
                   &bad) == DRI_ERR_INCONSISTENT);
        EXPECT(strstr(DRI_Last_error_message(), "grid orders") != NULL);
    }
    OK(DRI_Distribution_destroy(&col));
    OK(DRI_Distribution_destroy(&row));
    OK(DRI_Layout_destroy(&packed));
    OK(DRI_Partition_destroy(&part));
}

/* The kernel parameters' line after a commit: its length alone, a copy
 * truncated and terminated, the whole line, and the argument errors. */
static void check_kernel_tuning(void) {
    char small[8], line[1024];
    int length = -1, ignored = 0;
    OK(DRI_Kernel_tuning(NULL, 0, &length));
    EXPECT(length > 0 && length < (int)sizeof line);
    OK(DRI_Kernel_tuning(small, (int)sizeof small, NULL));
    EXPECT(strlen(small) == sizeof small - 1 && strncmp(small, "block_s", 7) == 0);
    OK(DRI_Kernel_tuning(line, (int)sizeof line, &ignored));
    EXPECT(strstr(line, "block_source=") == line && strstr(line, "nt_threshold=") != NULL);
    EXPECT(strstr(line, "not chosen yet") == NULL); /* chosen by the commit or the call */
    EXPECT(DRI_Kernel_tuning(NULL, 4, NULL) == DRI_ERR_NULL);
    EXPECT(DRI_Kernel_tuning(line, -1, NULL) == DRI_ERR_ARG);
}

/* The learned file's calls on a committed transfer: their errors (the
 * save's on every process alike); docs/api.md, "A learned file". */
static void check_learned_file_calls(DRI_Transfer t) {
    int seeded = -1;
    OK(DRI_Transfer_learned_seeded(t, &seeded));
    EXPECT(seeded == 0);
    EXPECT(DRI_Transfer_learned_seeded(t, NULL) == DRI_ERR_NULL);
    EXPECT(DRI_Transfer_learned_seeded(NULL, &seeded) == DRI_ERR_HANDLE);
    EXPECT(DRI_Transfer_set_learned_file(t, "routes") == DRI_ERR_STATE);
    EXPECT(DRI_Transfer_save_learned(t, NULL) == DRI_ERR_ARG);
    EXPECT(DRI_Transfer_save_learned(t, "") == DRI_ERR_ARG);
    EXPECT(DRI_Transfer_save_learned(NULL, "routes") == DRI_ERR_HANDLE);
}

int main(int argc, char** argv) {
    enum { N = 45, M = 31, FRAMES = 4, NBUF = 2 };
    int rank, size, k;
    MPI_Comm comm;
    DRI_Globaldata gdo = NULL, stale;
    DRI_Partition rows_part, cols_part;
    DRI_Group all;
    DRI_Distribution rows, cols;
    DRI_Layout row_major, col_major;
    DRI_Transfer turn;
    DRI_Blockinfo sinfo, rinfo;
    DRI_Index extents[2] = {N, M}, ssize[NBUF], rsize[NBUF];
    void* sbuf[NBUF];
    void* kept = NULL; /* node shared memory freed after DRI_Finalize */
    void* rbuf[NBUF];
    DRI_Dimpart rp[2], cp[2];
    const int order_rows[2] = {0, 1}, order_cols[2] = {1, 0};
    long wrong = 0;

    MPI_Init(&argc, &argv);
    if (open_comm(&comm) != 0) {
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank == 0 && comm != MPI_COMM_WORLD)
        printf("C API test: on the reversed communicator (DRI_TEST_COMM=reversed)\n");

    /* Before DRI_Init every call fails cleanly. */
    EXPECT(DRI_Globaldata_create(2, extents, DRI_COMPLEX_FLOAT, &gdo) == DRI_ERR_NOT_INITIALIZED);
    EXPECT(strlen(DRI_Last_error_message()) > 0);
    OK(DRI_Init());
    EXPECT(DRI_Init() == DRI_ERR_STATE);

    /* Argument errors with their codes. */
    EXPECT(DRI_Globaldata_create(0, extents, DRI_FLOAT, &gdo) == DRI_ERR_NDIMS);
    EXPECT(DRI_Globaldata_create(2, NULL, DRI_FLOAT, &gdo) == DRI_ERR_NULL);
    {
        DRI_Index bad[2] = {N, 0};
        EXPECT(DRI_Globaldata_create(2, bad, DRI_FLOAT, &gdo) == DRI_ERR_EXTENT);
    }
    EXPECT(DRI_Globaldata_create_record(2, extents, 0, &gdo) == DRI_ERR_TYPE);
    /* Enumeration arguments outside their enumerations (any int is a valid
     * C enum value): refused with a code, read without undefined behaviour. */
    EXPECT(DRI_Globaldata_create(2, extents, (DRI_Datatype)99, &gdo) == DRI_ERR_TYPE);
    {
        DRI_Partition bad_part;
        DRI_Reorg bad_reorg;
        DRI_Dimpart bad = DRI_Dim_block();
        bad.kind = (DRI_Partkind)9;
        EXPECT(DRI_Partition_create(1, &bad, &bad_part) == DRI_ERR_PARTITION);
        bad = DRI_Dim_block4(1, 1, DRI_UNBOUNDED, 1, (DRI_Edge)9);
        EXPECT(DRI_Partition_create(1, &bad, &bad_part) == DRI_ERR_PARTITION);
        EXPECT(DRI_Reorg_create((DRI_Reorgtype)5, "x", NULL, DRI_LAYOUT_PACKED_01, 1, &bad_reorg) ==
               DRI_ERR_ARG);
    }
    EXPECT(strcmp(DRI_Error_string(DRI_ERR_OVERLAP), "invalid overlap") == 0);
    EXPECT(strcmp(DRI_Error_string(12345), "unknown error code") == 0);

    /* A stale handle is detected after destroy. */
    OK(DRI_Globaldata_create(2, extents, DRI_FLOAT, &stale));
    gdo = stale;
    OK(DRI_Globaldata_destroy(&gdo));
    EXPECT(gdo == NULL);
    EXPECT(DRI_Globaldata_destroy(&stale) == DRI_ERR_HANDLE);
    EXPECT(DRI_Globaldata_get(stale, NULL, NULL, NULL) == DRI_ERR_HANDLE);

    /* The corner turn. */
    OK(DRI_Globaldata_create(2, extents, DRI_COMPLEX_FLOAT, &gdo));
    rp[0] = DRI_Dim_block();
    rp[1] = DRI_Dim_whole();
    cp[0] = DRI_Dim_whole();
    cp[1] = DRI_Dim_block();
    OK(DRI_Partition_create(2, rp, &rows_part));
    OK(DRI_Partition_create(2, cp, &cols_part));
    OK(DRI_Group_create(comm, 0, NULL, &all));
    check_grid_orders(gdo, all, rank, size);
    OK(DRI_Distribution_create(gdo, rows_part, all, &rows));
    OK(DRI_Distribution_create(gdo, cols_part, all, &cols));
    OK(DRI_Layout_create(2, order_rows, NULL, &row_major));
    OK(DRI_Layout_create(2, order_cols, NULL, &col_major));
    OK(DRI_Blockinfo_get(rows, row_major, &sinfo));
    OK(DRI_Blockinfo_get(cols, col_major, &rinfo));
    EXPECT(sinfo.local_extent[1] == M);
    EXPECT(rinfo.local_extent[0] == N);
    EXPECT(rinfo.strides[0] == 1 && rinfo.strides[1] == N);
    for (k = 0; k < NBUF; ++k) {
        ssize[k] = sinfo.bytes;
        rsize[k] = rinfo.bytes;
        sbuf[k] = malloc((size_t)sinfo.bytes + 1);
        rbuf[k] = malloc((size_t)rinfo.bytes + 1);
    }
    OK(DRI_Transfer_create("c corner turn", &turn));
    EXPECT(DRI_Do(turn) == DRI_ERR_STATE); /* not committed */
    EXPECT(DRI_Transfer_set_strategy(turn, (DRI_Strategy)99) == DRI_ERR_ARG);
    OK(DRI_Transfer_send(turn, rows, row_major, NBUF, sbuf, ssize));
    OK(DRI_Transfer_recv(turn, cols, col_major, NBUF, rbuf, rsize));
    EXPECT(DRI_Transfer_recv(turn, cols, col_major, NBUF, rbuf, rsize) == DRI_ERR_DUPLICATE);
    OK(DRI_Transfer_commit(turn));
    check_kernel_tuning();
    for (k = 0; k < FRAMES; ++k) {
        long i, j;
        int cur_s, cur_r, done = 0;
        float complex* s;
        float complex* r;
        OK(DRI_Transfer_current(turn, &cur_s, &cur_r));
        EXPECT(cur_s == k % NBUF && cur_r == k % NBUF);
        s = (float complex*)sbuf[cur_s];
        r = (float complex*)rbuf[cur_r];
        for (i = 0; i < sinfo.local_extent[0]; ++i)
            for (j = 0; j < M; ++j)
                s[i * M + j] = value(sinfo.owned_first[0] + i, j, k);
        if (k % 2) {
            OK(DRI_Do(turn));
        } else {
            OK(DRI_Do_start(turn));
            while (!done)
                OK(DRI_Do_test(turn, &done));
        }
        for (j = 0; j < rinfo.local_extent[1]; ++j)
            for (i = 0; i < N; ++i)
                if (r[j * N + i] != value(i, rinfo.owned_first[1] + j, k)) ++wrong;
    }
    EXPECT(wrong == 0);

    /* The same corner turn in one convenience call. A buffer too small on
     * rank 0 alone fails the call on every rank. */
    {
        DRI_Blockinfo cs, cr;
        DRI_Transfer ct = NULL;
        void *s1[1], *r1[1];
        DRI_Index ss1[1], rs1[1];
        long i, j;
        int rc;
        OK(DRI_Corner_turn_blocks(comm, N, M, DRI_COMPLEX_FLOAT, &cs, &cr));
        EXPECT(cs.bytes == sinfo.bytes && cr.bytes == rinfo.bytes);
        EXPECT(cr.owned_first[1] == rinfo.owned_first[1] && cr.strides[1] == N);
        s1[0] = malloc((size_t)cs.bytes + 1);
        r1[0] = malloc((size_t)cr.bytes + 1);
        ss1[0] = cs.bytes;
        rs1[0] = rank == 0 ? cr.bytes - 1 : cr.bytes;
        rc = DRI_Corner_turn_create(comm, N, M, DRI_COMPLEX_FLOAT, 1, s1, ss1, r1, rs1, &ct);
        EXPECT(rc == DRI_ERR_BUFFER_SIZE && ct == NULL);
        rs1[0] = cr.bytes;
        OK(DRI_Corner_turn_create(comm, N, M, DRI_COMPLEX_FLOAT, 1, s1, ss1, r1, rs1, &ct));
        for (i = 0; i < cs.local_extent[0]; ++i)
            for (j = 0; j < M; ++j)
                ((float complex*)s1[0])[i * M + j] = value(cs.owned_first[0] + i, j, 7);
        OK(DRI_Do(ct));
        for (j = 0; j < cr.local_extent[1]; ++j)
            for (i = 0; i < N; ++i)
                if (((float complex*)r1[0])[j * N + i] != value(i, cr.owned_first[1] + j, 7))
                    ++wrong;
        EXPECT(wrong == 0);
        OK(DRI_Transfer_destroy(&ct));
        free(s1[0]);
        free(r1[0]);
    }

    /* NODES over ordinary buffers: through the nodes' leaders on several
     * nodes, P2P on one. */
    {
        DRI_Transfer nt = NULL;
        DRI_Strategy chosen = DRI_STRATEGY_AUTO;
        void *s1[1], *r1[1];
        DRI_Index ss1[1], rs1[1];
        long i, j;
        s1[0] = malloc((size_t)sinfo.bytes + 1);
        r1[0] = malloc((size_t)rinfo.bytes + 1);
        ss1[0] = sinfo.bytes;
        rs1[0] = rinfo.bytes;
        OK(DRI_Transfer_create("c nodes", &nt));
        OK(DRI_Transfer_set_strategy(nt, DRI_STRATEGY_NODES));
        OK(DRI_Transfer_send(nt, rows, row_major, 1, s1, ss1));
        OK(DRI_Transfer_recv(nt, cols, col_major, 1, r1, rs1));
        OK(DRI_Transfer_commit(nt));
        OK(DRI_Transfer_strategy(nt, &chosen));
        EXPECT(chosen == DRI_STRATEGY_NODES);
        for (i = 0; i < sinfo.local_extent[0]; ++i)
            for (j = 0; j < M; ++j)
                ((float complex*)s1[0])[i * M + j] = value(sinfo.owned_first[0] + i, j, 9);
        OK(DRI_Do(nt));
        for (j = 0; j < rinfo.local_extent[1]; ++j)
            for (i = 0; i < N; ++i)
                if (((float complex*)r1[0])[j * N + i] != value(i, rinfo.owned_first[1] + j, 9))
                    ++wrong;
        EXPECT(wrong == 0);
        OK(DRI_Transfer_destroy(&nt));
        free(s1[0]);
        free(r1[0]);
    }

    /* Send buffers in node shared memory: the single-copy strategy. The
     * second allocation outlives DRI_Finalize (it is the user's). */
    {
        DRI_Transfer st = NULL;
        void *s2[NBUF], *r2[NBUF];
        long i, j;
        EXPECT(DRI_Alloc_mem(64, NULL) == DRI_ERR_NULL);
        for (k = 0; k < NBUF; ++k) {
            OK(DRI_Alloc_mem(sinfo.bytes, &s2[k]));
            r2[k] = malloc((size_t)rinfo.bytes + 1);
        }
        OK(DRI_Transfer_create("c shared", &st));
        OK(DRI_Transfer_set_strategy(st, DRI_STRATEGY_SHARED));
        OK(DRI_Transfer_send(st, rows, row_major, NBUF, s2, ssize));
        OK(DRI_Transfer_recv(st, cols, col_major, NBUF, r2, rsize));
        if (one_node(comm)) {
            OK(DRI_Transfer_commit(st));
        } else {
            /* Some pair crosses nodes: SHARED refuses on every process,
             * HYBRID copies within nodes and sends messages across. */
            EXPECT(DRI_Transfer_commit(st) == DRI_ERR_STRATEGY);
            OK(DRI_Transfer_set_strategy(st, DRI_STRATEGY_HYBRID));
            OK(DRI_Transfer_commit(st));
        }
        for (k = 0; k < FRAMES; ++k) {
            float complex* s = (float complex*)s2[k % NBUF];
            float complex* r = (float complex*)r2[k % NBUF];
            for (i = 0; i < sinfo.local_extent[0]; ++i)
                for (j = 0; j < M; ++j)
                    s[i * M + j] = value(sinfo.owned_first[0] + i, j, k + 20);
            OK(DRI_Do(st));
            for (j = 0; j < rinfo.local_extent[1]; ++j)
                for (i = 0; i < N; ++i)
                    if (r[j * N + i] != value(i, rinfo.owned_first[1] + j, k + 20)) ++wrong;
        }
        EXPECT(wrong == 0);
        EXPECT(DRI_Free_mem(s2[0]) == DRI_ERR_STATE); /* still in use */
        OK(DRI_Transfer_destroy(&st));
        OK(DRI_Free_mem(s2[0]));
        for (k = 0; k < NBUF; ++k)
            free(r2[k]);
        kept = s2[1];
    }

    /* Rings the transfer allocates itself (buffers and sizes NULL), reached
     * with DRI_Transfer_buffer; AUTO gives them the single copy. */
    {
        DRI_Transfer ot = NULL;
        DRI_Strategy chosen = DRI_STRATEGY_AUTO;
        void* b = NULL;
        DRI_Index bytes = 0;
        int cs = 0, cr = 0;
        long i, j;
        OK(DRI_Transfer_create("c owned", &ot));
        OK(DRI_Transfer_send(ot, rows, row_major, NBUF, NULL, NULL));
        OK(DRI_Transfer_recv(ot, cols, col_major, NBUF + 1, NULL, NULL));
        EXPECT(DRI_Transfer_strategy(ot, &chosen) == DRI_ERR_STATE);
        OK(DRI_Transfer_buffer(ot, DRI_ROLE_RECV, NBUF, &b, &bytes));
        EXPECT(bytes == rinfo.bytes);
        EXPECT(DRI_Transfer_buffer(ot, DRI_ROLE_SEND, NBUF, &b, NULL) == DRI_ERR_ARG);
        EXPECT(DRI_Transfer_buffer(ot, (DRI_Role)7, 0, &b, NULL) == DRI_ERR_ARG);
        EXPECT(DRI_Transfer_buffer(ot, DRI_ROLE_SEND, 0, NULL, NULL) == DRI_ERR_NULL);
        OK(DRI_Transfer_set_learned_file(ot, NULL)); /* none, whatever DRI_AUTO_LEARNED says */
        OK(DRI_Transfer_commit(ot));
        check_learned_file_calls(ot);
        OK(DRI_Transfer_strategy(ot, &chosen));
        EXPECT(size == 1 || chosen == (one_node(comm) ? DRI_STRATEGY_SHARED : DRI_STRATEGY_HYBRID));
        for (k = 0; k < FRAMES; ++k) {
            float complex *s, *r;
            OK(DRI_Transfer_current(ot, &cs, &cr));
            OK(DRI_Transfer_buffer(ot, DRI_ROLE_SEND, cs, &b, NULL));
            s = (float complex*)b;
            OK(DRI_Transfer_buffer(ot, DRI_ROLE_RECV, cr, &b, NULL));
            r = (float complex*)b;
            for (i = 0; i < sinfo.local_extent[0]; ++i)
                for (j = 0; j < M; ++j)
                    s[i * M + j] = value(sinfo.owned_first[0] + i, j, k + 40);
            OK(DRI_Do(ot));
            for (j = 0; j < rinfo.local_extent[1]; ++j)
                for (i = 0; i < N; ++i)
                    if (r[j * N + i] != value(i, rinfo.owned_first[1] + j, k + 40)) ++wrong;
        }
        EXPECT(wrong == 0);
        OK(DRI_Transfer_destroy(&ot));
    }

    /* Combine on receive: C := A' + C. A sender alone, an unknown op, a
     * mismatch between receivers (DRI_ERR_INCONSISTENT everywhere), MAX on
     * complex numbers (DRI_ERR_TYPE everywhere), a change after commit. */
    {
        DRI_Transfer ct = NULL;
        DRI_Index cs1 = sinfo.bytes, cr1 = rinfo.bytes;
        void* cs[1];
        void* cr[1];
        int round, rc;
        long i, j;
        cs[0] = malloc((size_t)sinfo.bytes + 1);
        cr[0] = malloc((size_t)rinfo.bytes + 1);
        for (round = 0; round < 3; ++round) {
            OK(DRI_Transfer_create("c combine", &ct));
            OK(DRI_Transfer_send(ct, rows, row_major, 1, cs, &cs1));
            EXPECT(DRI_Transfer_set_combine(ct, DRI_COMBINE_SUM) == DRI_ERR_STATE);
            OK(DRI_Transfer_recv(ct, cols, col_major, 1, cr, &cr1));
            EXPECT(DRI_Transfer_set_combine(ct, (DRI_Combine)9) == DRI_ERR_ARG);
            if (round == 0) /* the last process asks for MIN, the others for SUM */
                OK(DRI_Transfer_set_combine(ct,
                                            rank == size - 1 ? DRI_COMBINE_MIN : DRI_COMBINE_SUM));
            else
                OK(DRI_Transfer_set_combine(ct, round == 1 ? DRI_COMBINE_MAX : DRI_COMBINE_SUM));
            rc = DRI_Transfer_commit(ct);
            if (round == 0) EXPECT(rc == (size > 1 ? DRI_ERR_INCONSISTENT : DRI_ERR_TYPE));
            if (round == 1) EXPECT(rc == DRI_ERR_TYPE);
            if (round < 2) {
                int mm[2] = {rc, -rc};
                MPI_Allreduce(MPI_IN_PLACE, mm, 2, MPI_INT, MPI_MAX, comm);
                EXPECT(mm[0] == -mm[1]); /* the same error on every rank */
                OK(DRI_Transfer_destroy(&ct));
            }
        }
        OK(rc);
        EXPECT(DRI_Transfer_set_combine(ct, DRI_COMBINE_REPLACE) == DRI_ERR_STATE);
        for (k = 0; k < 2; ++k) {
            float complex* s = (float complex*)cs[0];
            float complex* r = (float complex*)cr[0];
            int done = 0;
            for (i = 0; i < sinfo.local_extent[0]; ++i)
                for (j = 0; j < M; ++j)
                    s[i * M + j] = value(sinfo.owned_first[0] + i, j, k + 60);
            for (j = 0; j < rinfo.local_extent[1]; ++j)
                for (i = 0; i < N; ++i)
                    r[j * N + i] = value(j, i, 7);
            if (k == 0) {
                OK(DRI_Do(ct));
            } else {
                OK(DRI_Do_start(ct));
                while (!done)
                    OK(DRI_Do_test(ct, &done));
            }
            for (j = 0; j < rinfo.local_extent[1]; ++j)
                for (i = 0; i < N; ++i)
                    if (r[j * N + i] != value(j, i, 7) + value(i, rinfo.owned_first[1] + j, k + 60))
                        ++wrong;
        }
        EXPECT(wrong == 0);
        OK(DRI_Transfer_destroy(&ct));
        free(cs[0]);
        free(cr[0]);
    }

    /* Objects may be destroyed in any order; the rest is freed by DRI_Finalize. */
    OK(DRI_Distribution_destroy(&rows));
    OK(DRI_Group_destroy(&all));
    OK(DRI_Do(turn)); /* the transfer keeps what it needs alive */
    OK(DRI_Transfer_destroy(&turn));
    EXPECT(DRI_Do(turn) == DRI_ERR_HANDLE);
    OK(DRI_Finalize());
    EXPECT(DRI_Finalize() == DRI_ERR_NOT_INITIALIZED);
    OK(DRI_Free_mem(kept)); /* node shared memory is the user's, after finalize too */
    EXPECT(DRI_Layout_destroy(&col_major) == DRI_ERR_NOT_INITIALIZED);
    for (k = 0; k < NBUF; ++k) {
        free(sbuf[k]);
        free(rbuf[k]);
    }
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0)
        printf("C API corner turn %dx%d on %d ranks: %s\n", N, M, size,
               failures ? "FAILED" : "verified");
    if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
    MPI_Finalize();
    return failures ? 1 : 0;
}
