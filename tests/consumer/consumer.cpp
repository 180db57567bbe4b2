// Built against an installed dri (find_package or pkg-config): a corner turn
// of a 64 x 48 matrix over all ranks, every element checked, and the
// installed headers' version (dri/version.h) the same as the library's.
#include <dri/dri.hpp>

#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, wrong = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    {
        dri::Session session;
        const dri::Index n = 64, m = 48;
        const dri::GlobalData gd({n, m}, dri::Type::float64);
        const dri::Group all(MPI_COMM_WORLD);
        const dri::Distribution rows(gd, dri::Partition::parse("block,whole"), all);
        const dri::Distribution cols(gd, dri::Partition::parse("whole,block"), all);
        const dri::Layout row_major = dri::Layout::packed(2);
        const dri::Layout col_major = dri::Layout::ordered({1, 0});
        const dri::BlockInfo sb = rows.block(row_major), rb = cols.block(col_major);
        std::vector<std::vector<double>> s(1, std::vector<double>(sb.elements()));
        std::vector<std::vector<double>> r(1, std::vector<double>(rb.elements()));
        for (dri::Index i = 0; i < sb.local_extent[0]; ++i)
            for (dri::Index j = 0; j < m; ++j)
                s[0][i * m + j] = static_cast<double>((sb.owned_first[0] + i) * 1000 + j);
        dri::Transfer t("turn");
        t.send(rows, row_major, s);
        t.recv(cols, col_major, r);
        t.commit();
        t.execute();
        for (dri::Index j = 0; j < rb.local_extent[1]; ++j)
            for (dri::Index i = 0; i < n; ++i)
                wrong += r[0][j * n + i] != static_cast<double>(i * 1000 + rb.owned_first[1] + j);
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    const dri::Version headers{DRI_VERSION_MAJOR, DRI_VERSION_MINOR, DRI_VERSION_PATCH};
    if (dri::version() != headers) wrong = 1;
    if (rank == 0)
        std::printf("consumer corner turn, dri %s (headers %s): %s\n",
                    dri::version().to_string().c_str(), DRI_VERSION_STRING,
                    wrong ? "WRONG" : "verified");
    MPI_Finalize();
    return wrong ? 1 : 0;
}
