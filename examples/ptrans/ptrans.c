/* HPC Challenge's PTRANS with one dri transfer: C := A' + C.
 *
 *   mpiexec.mpich -n 4 build/examples/ptrans/ptrans --n 1000 --nb 80 --grid 2x2 --order row
 *
 * A and C are n x n matrices of double, block-cyclic with nb x nb blocks on
 * a P x Q process grid as ScaLAPACK lays them out: process (p, q) holds the
 * blocks (bi, bj) with bi mod P = p and bj mod Q = q, stored column-major
 * with leading dimension LLD = max(1, local rows). The grid is numbered as
 * BLACS numbers it: --order row gives process (p, q) rank p*Q + q (HPCC's
 * PTRANS calls Cblacs_gridinit with "Row-major"), --order column rank
 * p + q*P (BLACS's default 'C' order).
 *
 * In dri terms the global array is A. The sending side is A's own
 * distribution: dimension 0 cyclic(nb) over P, dimension 1 cyclic(nb) over
 * Q, columns contiguous (layout order {1,0}). The receiving side says where
 * each A(r, c) lands: in C(c, r), so along A's dimension 0 the receiver is
 * cyclic(nb) over Q (C's columns) and along dimension 1 cyclic(nb) over P
 * (C's rows), on a Q x P grid; C's local column-major storage is, in A's
 * indices, rows contiguous (layout order {0,1}) with LLD = C's local rows =
 * the receiver's local extent along A's dimension 1. The process holding
 * C's block (p, q) is grid coordinate (q, p) of that Q x P grid: with BLACS
 * row-major numbering its rank p*Q + q is the column-major index of (q, p),
 * with BLACS column-major numbering its rank p + q*P the row-major one. So
 * one of the two sides always numbers its grid column-major
 * (DRI_Distribution_create_ordered with DRI_GRID_COLUMN_MAJOR); both sides
 * are the world in rank order. The receiver adds what arrives
 * into C (DRI_Transfer_set_combine with DRI_COMBINE_SUM): one DRI_Do is the
 * whole of C := A' + C.
 *
 * The check is HPCC's (PTRANS/pdtransdriver.c, pdmatcmp.c): regenerate
 * C_old and add A' to it in the same order (C_old + A'), then
 *   resid = max |C_new - (C_old + A')| / max |C_old + A'|   (over all ranks)
 * and HPCC passes when resid / (eps * n) <= 16. Here the sum is exact, so
 * the example also demands resid == 0. Prints the time of DRI_Do (slowest
 * rank) and HPCC's rate n * n * 8 bytes / time. */
#include <dri/dri.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Options {
    long n, nb;
    int P, Q, column_major;
} Options;

static void check(int rc, const char* what) {
    if (rc != DRI_SUCCESS) {
        fprintf(stderr, "ptrans: %s: %s (%s)\n", what, DRI_Error_string(rc),
                DRI_Last_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* ScaLAPACK's NUMROC: how many of n indices, dealt in blocks of nb over
 * nprocs processes starting at process 0, process iproc holds. */
static long numroc(long n, long nb, int iproc, int nprocs) {
    long blocks = n / nb, count = (blocks / nprocs) * nb;
    long extra = blocks % nprocs;
    if (iproc < extra)
        count += nb;
    else if (iproc == extra)
        count += n % nb;
    return count;
}

/* The global index of local index l of process iproc. */
static long global_of(long l, long nb, int iproc, int nprocs) {
    return (l / nb) * nb * nprocs + (long)iproc * nb + l % nb;
}

/* Element (i, j) of the matrix of `seed`: a hash of the indices mapped to
 * [-0.5, 0.5), like HPCC's pdmatgen's uniform values, but computable
 * anywhere without a jump-ahead generator. */
static double random_value(uint64_t seed, long i, long j) {
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + (uint64_t)i * 0xBF58476D1CE4E5B9ull +
                 (uint64_t)j * 0x94D049BB133111EBull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0 - 0.5;
}

enum { SEED_A = 100, SEED_C = 200 }; /* HPCC's iaseed and icseed */

/* Fills this process's column-major block (mp x nq, leading dimension lld)
 * of the matrix of `seed`, transposed when `transposed` (the value of
 * (i, j) is then that of (j, i)), added to what is there when `add`. */
static void generate(double* local, long lld, long mp, long nq, const Options* o, int p, int q,
                     uint64_t seed, int transposed, int add) {
    long il, jl;
    for (jl = 0; jl < nq; ++jl) {
        long j = global_of(jl, o->nb, q, o->Q);
        for (il = 0; il < mp; ++il) {
            long i = global_of(il, o->nb, p, o->P);
            double v = transposed ? random_value(seed, j, i) : random_value(seed, i, j);
            local[il + jl * lld] = add ? local[il + jl * lld] + v : v;
        }
    }
}

static int parse(int argc, char** argv, Options* o) {
    int k;
    o->n = 1000;
    o->nb = 80;
    o->P = 1;
    o->Q = 1;
    o->column_major = 0;
    for (k = 1; k + 1 < argc; k += 2) {
        if (strcmp(argv[k], "--n") == 0)
            o->n = atol(argv[k + 1]);
        else if (strcmp(argv[k], "--nb") == 0)
            o->nb = atol(argv[k + 1]);
        else if (strcmp(argv[k], "--grid") == 0) {
            if (sscanf(argv[k + 1], "%dx%d", &o->P, &o->Q) != 2) return 0;
        } else if (strcmp(argv[k], "--order") == 0) {
            if (strcmp(argv[k + 1], "row") != 0 && strcmp(argv[k + 1], "column") != 0) return 0;
            o->column_major = strcmp(argv[k + 1], "column") == 0;
        } else
            return 0;
    }
    return k == argc && o->n >= 1 && o->nb >= 1 && o->P >= 1 && o->Q >= 1;
}

/* cyclic(nb) over nprocs, processes without a block allowed (n < nb * nprocs). */
static DRI_Dimpart cyclic_over(long nb, int nprocs) {
    DRI_Dimpart d = DRI_Dim_cyclic(nb);
    d.nprocs = nprocs;
    d.min_block = 0;
    return d;
}

/* HPCC's residual of C against C_old + A', regenerated; returns the
 * unscaled residual (max over all ranks). */
static double residual(const double* c, long lld, long mp, long nq, const Options* o, int p,
                       int q) {
    double* want = malloc(sizeof(double) * (size_t)(lld * (nq > 0 ? nq : 1)));
    double err = 0, big = 0, vals[2];
    long il, jl;
    generate(want, lld, mp, nq, o, p, q, SEED_C, 0, 0);
    generate(want, lld, mp, nq, o, p, q, SEED_A, 1, 1);
    for (jl = 0; jl < nq; ++jl)
        for (il = 0; il < mp; ++il) {
            double w = want[il + jl * lld];
            if (fabs(w) > big) big = fabs(w);
            if (fabs(c[il + jl * lld] - w) > err) err = fabs(c[il + jl * lld] - w);
        }
    free(want);
    vals[0] = err;
    vals[1] = big;
    MPI_Allreduce(MPI_IN_PLACE, vals, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return vals[1] > 0 ? vals[0] / vals[1] : vals[0];
}

int main(int argc, char** argv) {
    Options o;
    int rank, size, p, q, ok;
    long mp, nq, lld;
    double *a, *c, t, resid, scaled;
    DRI_Index extents[2], a_bytes, c_bytes;
    DRI_Dimpart a_parts[2], c_parts[2];
    DRI_Globaldata gdo;
    DRI_Partition a_part, c_part;
    DRI_Group world;
    DRI_Distribution a_dist, c_dist;
    DRI_Layout col_major, row_major;
    DRI_Transfer xfer;
    DRI_Blockinfo ai, ci;
    const int order10[2] = {1, 0}, order01[2] = {0, 1};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!parse(argc, argv, &o) || o.P * o.Q != size) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: ptrans [--n N] [--nb NB] [--grid PxQ] [--order row|column]\n"
                    "  N, NB >= 1; P*Q must equal the number of processes (%d)\n",
                    size);
        MPI_Finalize();
        return 2;
    }
    /* This process's grid coordinates: rank p*Q + q (row) or p + q*P (column). */
    p = o.column_major ? rank % o.P : rank / o.Q;
    q = o.column_major ? rank / o.P : rank % o.Q;
    mp = numroc(o.n, o.nb, p, o.P);
    nq = numroc(o.n, o.nb, q, o.Q);
    lld = mp > 1 ? mp : 1;
    check(DRI_Init(), "DRI_Init");

    extents[0] = o.n;
    extents[1] = o.n;
    check(DRI_Globaldata_create(2, extents, DRI_DOUBLE, &gdo), "DRI_Globaldata_create");
    a_parts[0] = cyclic_over(o.nb, o.P);
    a_parts[1] = cyclic_over(o.nb, o.Q);
    c_parts[0] = cyclic_over(o.nb, o.Q);
    c_parts[1] = cyclic_over(o.nb, o.P);
    check(DRI_Partition_create(2, a_parts, &a_part), "DRI_Partition_create");
    check(DRI_Partition_create(2, c_parts, &c_part), "DRI_Partition_create");
    check(DRI_Group_create(MPI_COMM_WORLD, 0, NULL, &world), "DRI_Group_create");
    /* BLACS column-major: A's P x Q grid numbered first dimension fastest;
     * row-major: C's Q x P grid is (rank p*Q + q holds coordinate (q, p)). */
    check(DRI_Distribution_create_ordered(
              gdo, a_part, world, o.column_major ? DRI_GRID_COLUMN_MAJOR : DRI_GRID_ROW_MAJOR,
              &a_dist),
          "A's distribution");
    check(DRI_Distribution_create_ordered(
              gdo, c_part, world, o.column_major ? DRI_GRID_ROW_MAJOR : DRI_GRID_COLUMN_MAJOR,
              &c_dist),
          "C's distribution");
    check(DRI_Layout_create(2, order10, NULL, &col_major), "DRI_Layout_create");
    check(DRI_Layout_create(2, order01, NULL, &row_major), "DRI_Layout_create");

    /* dri's blocks must be BLACS's: A column-major with LLD = mp; C's block
     * (mp x nq in C's indices) is nq x mp in A's, rows of length mp. */
    check(DRI_Blockinfo_get(a_dist, col_major, &ai), "DRI_Blockinfo_get");
    check(DRI_Blockinfo_get(c_dist, row_major, &ci), "DRI_Blockinfo_get");
    ok = ai.local_extent[0] == mp && ai.local_extent[1] == nq && ci.local_extent[0] == nq &&
         ci.local_extent[1] == mp &&
         (mp * nq == 0 || (ai.strides[0] == 1 && ai.strides[1] == lld && ci.strides[1] == 1 &&
                           ci.strides[0] == lld));
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok) {
        if (rank == 0) fprintf(stderr, "ptrans: dri's blocks differ from BLACS's\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* Buffers of at least one element: a process may hold no block. */
    a_bytes = (DRI_Index)sizeof(double) * lld * nq;
    c_bytes = a_bytes;
    a = malloc((size_t)(a_bytes > 0 ? a_bytes : 8));
    c = malloc((size_t)(c_bytes > 0 ? c_bytes : 8));
    generate(a, lld, mp, nq, &o, p, q, SEED_A, 0, 0);
    generate(c, lld, mp, nq, &o, p, q, SEED_C, 0, 0);

    check(DRI_Transfer_create("ptrans", &xfer), "DRI_Transfer_create");
    check(DRI_Transfer_send(xfer, a_dist, col_major, 1, (void* const*)&a, &a_bytes), "send");
    check(DRI_Transfer_recv(xfer, c_dist, row_major, 1, (void* const*)&c, &c_bytes), "recv");
    /* Arriving A(r, c) is added into C(c, r): C := A' + C in one DRI_Do. */
    check(DRI_Transfer_set_combine(xfer, DRI_COMBINE_SUM), "DRI_Transfer_set_combine");
    check(DRI_Transfer_commit(xfer), "DRI_Transfer_commit");

    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    check(DRI_Do(xfer), "DRI_Do");
    t = MPI_Wtime() - t;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    resid = residual(c, lld, mp, nq, &o, p, q);
    scaled = resid / (DBL_EPSILON / 2 * (double)o.n); /* HPCC's eps is the unit roundoff */
    ok = resid == 0 && scaled <= 16.0;
    if (rank == 0)
        printf("PTRANS n=%ld nb=%ld grid %dx%d %s-major: %.6f s, %.3f GB/s, resid %g "
               "(scaled %g): %s\n",
               o.n, o.nb, o.P, o.Q, o.column_major ? "column" : "row", t,
               t > 0 ? 8e-9 * (double)o.n * (double)o.n / t : 0.0, resid, scaled,
               ok ? "verified" : "WRONG");

    check(DRI_Transfer_destroy(&xfer), "DRI_Transfer_destroy");
    DRI_Layout_destroy(&col_major);
    DRI_Layout_destroy(&row_major);
    DRI_Distribution_destroy(&a_dist);
    DRI_Distribution_destroy(&c_dist);
    DRI_Group_destroy(&world);
    DRI_Partition_destroy(&a_part);
    DRI_Partition_destroy(&c_part);
    DRI_Globaldata_destroy(&gdo);
    free(a);
    free(c);
    check(DRI_Finalize(), "DRI_Finalize");
    MPI_Finalize();
    return ok ? 0 : 1;
}
