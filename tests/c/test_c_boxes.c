/* Box distributions through the C binding (dri.h only): each rank owns
 * every size-th row of an N x 4 array (N = 9, or the rank count where that
 * is larger: a row for every rank) as one box per row, sent to row blocks
 * of an ordinary distribution and checked exactly; DRI_Distribution_boxes
 * lists them; bad scopes, overlapping boxes and block queries fail with
 * their codes on every rank. A step the rest depends on that fails ends
 * the test on every rank, cleanly. */
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

/* Whether ok holds on every rank. */
static int everywhere(int ok) {
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return ok;
}

/* A step the rest depends on: when it fails on any rank, every rank stops
 * (collectively, at the same step) and cleans up. */
#define REQUIRE(call)                                                                              \
    do {                                                                                           \
        const int ok_ = (call) == DRI_SUCCESS;                                                     \
        if (!ok_) {                                                                                \
            fprintf(stderr, "%s:%d: required step failed: %s (last error: %s)\n", __FILE__,        \
                    __LINE__, #call, DRI_Last_error_message());                                    \
            ++failures;                                                                            \
        }                                                                                          \
        if (!everywhere(ok_)) goto done;                                                           \
    } while (0)

enum { M = 4 };

int main(int argc, char** argv) {
    int rank, size, nmine = 0, nboxes = -1, k, initialized = 0;
    long i, j, wrong = 0;
    DRI_Index n, extents[2];
    DRI_Index *first = NULL, *last = NULL, *got_first = NULL, *got_last = NULL;
    DRI_Index cells = -1, ssize, rsize;
    DRI_Globaldata gdo = NULL;
    DRI_Group all = NULL;
    DRI_Distribution boxes = NULL, rows = NULL, bad = NULL;
    DRI_Partition rows_part = NULL;
    DRI_Dimpart rp[2];
    DRI_Layout row_major = NULL;
    DRI_Blockinfo rinfo, binfo;
    DRI_Transfer t = NULL;
    const int order[2] = {0, 1};
    int32_t *s = NULL, *r = NULL;
    void *sb[1], *rb[1];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = size > 9 ? size : 9;
    extents[0] = n;
    extents[1] = M;
    first = malloc(2 * (size_t)n * sizeof *first);
    last = malloc(2 * (size_t)n * sizeof *last);
    got_first = malloc(2 * (size_t)n * sizeof *got_first);
    got_last = malloc(2 * (size_t)n * sizeof *got_last);
    REQUIRE(DRI_Init());
    initialized = 1;
    REQUIRE(DRI_Globaldata_create(2, extents, DRI_INT32, &gdo));
    REQUIRE(DRI_Group_create(MPI_COMM_WORLD, 0, NULL, &all));
    REQUIRE(DRI_Layout_create(2, order, NULL, &row_major));

    /* Rows rank, rank + size, ...: one box each, stored in that order. */
    for (i = rank; i < n; i += size, ++nmine) {
        first[2 * nmine] = i;
        first[2 * nmine + 1] = 0;
        last[2 * nmine] = i;
        last[2 * nmine + 1] = M - 1;
    }
    REQUIRE(
        DRI_Distribution_create_boxes(gdo, all, nmine, first, last, DRI_BOXES_MINE, NULL, &boxes));
    REQUIRE(DRI_Distribution_boxes(boxes, rank, (int)n, &nboxes, got_first, got_last, &cells));
    EXPECT(nboxes == nmine && cells == (DRI_Index)nmine * M);
    for (k = 0; k < 2 * nmine; ++k)
        EXPECT(got_first[k] == first[k] && got_last[k] == last[k]);
    EXPECT(DRI_Blockinfo_get(boxes, row_major, &binfo) == DRI_ERR_PARTITION);

    rp[0] = DRI_Dim_block();
    rp[1] = DRI_Dim_whole();
    REQUIRE(DRI_Partition_create(2, rp, &rows_part));
    REQUIRE(DRI_Distribution_create(gdo, rows_part, all, &rows));
    REQUIRE(DRI_Blockinfo_get(rows, row_major, &rinfo));
    ssize = cells * 4;
    rsize = rinfo.bytes;
    s = malloc((size_t)ssize + 4);
    r = malloc((size_t)rsize + 4);
    for (k = 0; k < nmine; ++k)
        for (j = 0; j < M; ++j)
            s[k * M + j] = (int32_t)(first[2 * k] * 100 + j);
    sb[0] = s;
    rb[0] = r;
    REQUIRE(DRI_Transfer_create("c boxes", &t));
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

done:
    if (t) OK(DRI_Transfer_destroy(&t));
    if (bad) OK(DRI_Distribution_destroy(&bad));
    if (boxes) OK(DRI_Distribution_destroy(&boxes));
    if (rows) OK(DRI_Distribution_destroy(&rows));
    if (rows_part) OK(DRI_Partition_destroy(&rows_part));
    if (row_major) OK(DRI_Layout_destroy(&row_major));
    if (all) OK(DRI_Group_destroy(&all));
    if (gdo) OK(DRI_Globaldata_destroy(&gdo));
    if (initialized) OK(DRI_Finalize());
    free(s);
    free(r);
    free(first);
    free(last);
    free(got_first);
    free(got_last);
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("C box test: %s\n", failures ? "FAILED" : "passed");
    MPI_Finalize();
    return failures ? 1 : 0;
}
