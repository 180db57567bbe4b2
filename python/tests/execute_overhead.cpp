// The cost of one execute() from C++: a 64 x 64 complex-float corner turn,
// rows to columns, two buffers per side, checked once and then timed exactly
// as scripts/execute_overhead.py times it from Python; the difference is
// the Python binding's overhead per call (scripts/execute_overhead.sh).
#include <dri/dri.hpp>

#include <mpi.h>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <vector>

namespace {

using cf = std::complex<float>;
constexpr dri::Index n = 64;
constexpr int batches = 5, calls = 1000;

cf value(dri::Index i, dri::Index j) {
    return {static_cast<float>(i * n + j), 1.0f};
}

// Every element of the received column block (stored column-major).
bool verified(const std::vector<cf>& cols, const dri::BlockInfo& b) {
    for (dri::Index j = 0; j < b.local_extent[1]; ++j)
        for (dri::Index i = 0; i < n; ++i)
            if (cols[static_cast<std::size_t>(j * n + i)] != value(i, b.owned_first[1] + j))
                return false;
    return true;
}

// Best microseconds per execute() over the batches, the slowest rank's.
double time_execute(dri::Transfer& t) {
    for (int k = 0; k < 200; ++k)
        t.execute();
    double best = 1e30;
    for (int b = 0; b < batches; ++b) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        for (int k = 0; k < calls; ++k)
            t.execute();
        best = std::min(best, (MPI_Wtime() - t0) / calls * 1e6);
    }
    MPI_Allreduce(MPI_IN_PLACE, &best, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return best;
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0, ok = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    {
        dri::Session session;
        const dri::GlobalData matrix({n, n}, dri::Type::complex_float);
        const dri::Group all(MPI_COMM_WORLD);
        const dri::Distribution rows(matrix, dri::Partition::parse("block,whole"), all);
        const dri::Distribution cols(matrix, dri::Partition::parse("whole,block"), all);
        const dri::Layout row_major = dri::Layout::packed(2),
                          col_major = dri::Layout::ordered({1, 0});
        const dri::BlockInfo rb = rows.block(row_major), cb = cols.block(col_major);
        std::vector<std::vector<cf>> in(2,
                                        std::vector<cf>(static_cast<std::size_t>(rb.elements())));
        std::vector<std::vector<cf>> out(2,
                                         std::vector<cf>(static_cast<std::size_t>(cb.elements())));
        for (dri::Index i = 0; i < rb.local_extent[0]; ++i)
            for (dri::Index j = 0; j < n; ++j)
                in[0][static_cast<std::size_t>(i * n + j)] = value(rb.owned_first[0] + i, j);
        dri::Transfer t("overhead");
        t.send(rows, row_major, in);
        t.recv(cols, col_major, out);
        t.commit();
        t.execute();
        ok = verified(out[0], cb);
        MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        const double us = time_execute(t);
        if (rank == 0)
            std::printf("C++ execute(), 64x64 complex float, %d ranks: %.2f us%s\n", size, us,
                        ok ? "" : " WRONG DATA");
    }
    MPI_Finalize();
    return ok ? 0 : 1;
}
