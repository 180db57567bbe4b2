/* A corner turn written only against the DRI-1.0 names (dri/dri10.h):
 * predefined partitions and packed layouts, one reorganization object per
 * role, library-allocated buffers and the get/put frame protocol.
 *
 *   mpiexec.mpich -n 4 build/examples/dri10_corner_turn/dri10_corner_turn [clique|pipeline]
 *
 * clique: every process produces row blocks and consumes column blocks.
 * pipeline: the first half of the processes produce, the others consume.
 * Every element of every frame is checked; prints "verified". */
#include <dri/dri10.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 60, M = 44, FRAMES = 5, NBUFS = 2 };

static double value(long i, long j, int frame) {
    return (double)(i * 1000 + j) + 0.25 * frame;
}

static int check(int rc, const char* what) {
    if (rc != DRI_SUCCESS) {
        fprintf(stderr, "%s: %s (%s)\n", what, DRI_Error_string(rc), DRI_Last_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return rc;
}

int main(int argc, char** argv) {
    int rank, size, nprod, k, frame, pipeline;
    int* producers;
    int* consumers;
    long wrong = 0;
    DRI_Index extents[2] = {N, M};
    DRI_Globaldata matrix;
    DRI_Group prod_group, cons_group;
    DRI_Distribution rows = NULL, cols = NULL;
    DRI_Reorg send = NULL, recv = NULL;
    DRI_Blockinfo sb, rb;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pipeline = argc > 1 && strcmp(argv[1], "pipeline") == 0 && size > 1;
    check(DRI_Init(), "DRI_Init");

    /* Producers and consumers: everyone (clique) or the two halves (pipeline). */
    nprod = pipeline ? size / 2 : size;
    producers = malloc(sizeof(int) * (size_t)size);
    consumers = malloc(sizeof(int) * (size_t)size);
    for (k = 0; k < size; ++k) {
        producers[k] = k;
        consumers[k] = pipeline ? nprod + k : k;
    }
    check(DRI_Globaldata_create(2, extents, DRI_DOUBLE, &matrix), "DRI_Globaldata_create");
    check(DRI_Group_create(MPI_COMM_WORLD, nprod, producers, &prod_group), "DRI_Group_create");
    check(DRI_Group_create(MPI_COMM_WORLD, size - (pipeline ? nprod : 0), consumers, &cons_group),
          "DRI_Group_create");
    /* Distribution creation is collective over each group's members. */
    if (rank < nprod)
        check(DRI_Distribution_create(matrix, DRI_PARTITION_BW, prod_group, &rows), "rows");
    if (!pipeline || rank >= nprod)
        check(DRI_Distribution_create(matrix, DRI_PARTITION_WB, cons_group, &cols), "cols");

    if (rows) {
        check(DRI_Reorg_create(DRI_SEND, "turn", rows, DRI_LAYOUT_PACKED_01, NBUFS, &send), "send");
        check(DRI_Reorg_blockinfo(send, &sb), "blockinfo");
    }
    if (cols) {
        check(DRI_Reorg_create(DRI_RECV, "turn", cols, DRI_LAYOUT_PACKED_10, NBUFS, &recv), "recv");
        check(DRI_Reorg_blockinfo(recv, &rb), "blockinfo");
    }
    if (send) check(DRI_Reorg_connect(send), "connect");
    if (recv) check(DRI_Reorg_connect(recv), "connect");

    for (frame = 0; frame < FRAMES; ++frame) {
        void* buf = NULL;
        long i, j;
        if (send) {
            double* s;
            check(DRI_Reorg_get_sendbuf(send, &buf), "get_sendbuf");
            s = buf;
            for (i = 0; i < sb.local_extent[0]; ++i)
                for (j = 0; j < M; ++j)
                    s[i * M + j] = value(sb.owned_first[0] + i, j, frame);
            check(DRI_Reorg_put_sendbuf(send, &buf), "put_sendbuf");
        }
        if (recv) {
            const double* r;
            check(DRI_Reorg_get_recvbuf(recv, &buf), "get_recvbuf");
            r = buf;
            for (j = 0; j < rb.local_extent[1]; ++j) /* column-major: columns contiguous */
                for (i = 0; i < N; ++i)
                    if (r[j * N + i] != value(i, rb.owned_first[1] + j, frame)) ++wrong;
            check(DRI_Reorg_put_recvbuf(recv, &buf), "put_recvbuf");
        }
    }

    if (send) {
        check(DRI_Reorg_disconnect(send), "disconnect");
        check(DRI_Reorg_destroy(&send), "destroy");
    }
    if (recv) {
        check(DRI_Reorg_disconnect(recv), "disconnect");
        check(DRI_Reorg_destroy(&recv), "destroy");
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("DRI-1.0 corner turn %dx%d, %d frames, %s on %d ranks: %s\n", N, M, FRAMES,
               pipeline ? "pipeline" : "clique", size, wrong ? "WRONG" : "verified");
    if (rows) DRI_Distribution_destroy(&rows);
    if (cols) DRI_Distribution_destroy(&cols);
    DRI_Group_destroy(&prod_group);
    DRI_Group_destroy(&cons_group);
    DRI_Globaldata_destroy(&matrix);
    free(producers);
    free(consumers);
    check(DRI_Finalize(), "DRI_Finalize");
    MPI_Finalize();
    return wrong ? 1 : 0;
}
