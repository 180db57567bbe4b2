/* Box distributions through the C binding (dri.h only): each rank owns
 * every size-th row of a 9 x 4 array as one box per row, sent to row blocks
 * of an ordinary distribution and checked exactly; DRI_Distribution_boxes
 * lists them; bad scopes, overlapping boxes and block queries fail with
 * their codes on every rank. */
#include <dri/dri.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

enum { N = 9, M = 4 };

int main(int argc, char** argv) {
    int rank, size, nmine = 0, nboxes = -1, k;
    long i, j, wrong = 0;
    DRI_Index extents[2] = {N, M}, first[2 * N], last[2 * N], got_first[2 * N], got_last[2 * N];
    DRI_Index cells = -1, ssize, rsize;
    DRI_Globaldata gdo;
    DRI_Group all;
    DRI_Distribution boxes, rows, bad = NULL;
    DRI_Partition rows_part;
    DRI_Dimpart rp[2];
    DRI_Layout row_major;
    DRI_Blockinfo rinfo, binfo;
    DRI_Transfer t;
    const int order[2] = {0, 1};
    int32_t *s, *r;
    void *sb[1], *rb[1];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    OK(DRI_Init());
    OK(DRI_Globaldata_create(2, extents, DRI_INT32, &gdo));
    OK(DRI_Group_create(MPI_COMM_WORLD, 0, NULL, &all));
    OK(DRI_Layout_create(2, order, NULL, &row_major));

    /* Rows rank, rank + size, ...: one box each, stored in that order. */
    for (i = rank; i < N; i += size, ++nmine) {
        first[2 * nmine] = i;
        first[2 * nmine + 1] = 0;
        last[2 * nmine] = i;
        last[2 * nmine + 1] = M - 1;
    }
    OK(DRI_Distribution_create_boxes(gdo, all, nmine, first, last, DRI_BOXES_MINE, NULL, &boxes));
    OK(DRI_Distribution_boxes(boxes, rank, N, &nboxes, got_first, got_last, &cells));
    EXPECT(nboxes == nmine && cells == (DRI_Index)nmine * M);
    for (k = 0; k < 2 * nmine; ++k)
        EXPECT(got_first[k] == first[k] && got_last[k] == last[k]);
    EXPECT(DRI_Blockinfo_get(boxes, row_major, &binfo) == DRI_ERR_PARTITION);

    rp[0] = DRI_Dim_block();
    rp[1] = DRI_Dim_whole();
    OK(DRI_Partition_create(2, rp, &rows_part));
    OK(DRI_Distribution_create(gdo, rows_part, all, &rows));
    OK(DRI_Blockinfo_get(rows, row_major, &rinfo));
    ssize = cells * 4;
    rsize = rinfo.bytes;
    s = malloc((size_t)ssize + 4);
    r = malloc((size_t)rsize + 4);
    for (k = 0; k < nmine; ++k)
        for (j = 0; j < M; ++j)
            s[k * M + j] = (int32_t)(first[2 * k] * 100 + j);
    sb[0] = s;
    rb[0] = r;
    OK(DRI_Transfer_create("c boxes", &t));
    OK(DRI_Transfer_send(t, boxes, row_major, 1, sb, &ssize));
    OK(DRI_Transfer_recv(t, rows, row_major, 1, rb, &rsize));
    OK(DRI_Transfer_commit(t));
    OK(DRI_Do(t));
    for (i = 0; i < rinfo.local_extent[0]; ++i)
        for (j = 0; j < M; ++j)
            if (r[i * M + j] != (int32_t)((rinfo.owned_first[0] + i) * 100 + j)) ++wrong;
    EXPECT(wrong == 0);
    OK(DRI_Transfer_destroy(&t));

    /* Errors, the same code on every rank. */
    EXPECT(DRI_Distribution_create_boxes(gdo, all, nmine, first, last, (DRI_Box_scope)7, NULL,
                                         &bad) == DRI_ERR_ARG);
    first[0] = 0; /* every rank's first box now starts at row 0 */
    last[0] = size == 1 ? 1 : last[0];
    EXPECT(DRI_Distribution_create_boxes(gdo, all, nmine, first, last, DRI_BOXES_MINE, NULL,
                                         &bad) == DRI_ERR_NOT_DISJOINT);
    EXPECT(bad == NULL);

    OK(DRI_Distribution_destroy(&boxes));
    OK(DRI_Distribution_destroy(&rows));
    OK(DRI_Partition_destroy(&rows_part));
    OK(DRI_Layout_destroy(&row_major));
    OK(DRI_Group_destroy(&all));
    OK(DRI_Globaldata_destroy(&gdo));
    OK(DRI_Finalize());
    free(s);
    free(r);
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("C box test: %s\n", failures ? "FAILED" : "passed");
    MPI_Finalize();
    return failures ? 1 : 0;
}
