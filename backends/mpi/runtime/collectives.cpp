#include "mpi/runtime/collectives.hpp"

#include "core/wire.hpp"

#include <algorithm>
#include <climits>

namespace dri::detail {

Status agreed(MPI_Comm comm, const Status& mine) {
    int me = 0;
    check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    int first = mine.failed() ? me : INT_MAX;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    if (first == INT_MAX) return {};
    long long head[3] = {static_cast<long long>(mine.code),
                         static_cast<long long>(mine.message.size()), mine.everywhere ? 1 : 0};
    check_mpi(MPI_Bcast(head, 3, MPI_LONG_LONG, first, comm), "MPI_Bcast");
    std::string msg =
        me == first ? mine.message : std::string(static_cast<std::size_t>(head[1]), ' ');
    check_mpi(MPI_Bcast(msg.data(), static_cast<int>(head[1]), MPI_CHAR, first, comm), "MPI_Bcast");
    if (!head[2]) msg = "rank " + std::to_string(first) + ": " + msg;
    return {static_cast<core::Errc>(head[0]), std::move(msg), true};
}

void agree(MPI_Comm comm, const Status& mine) {
    const Status all = agreed(comm, mine);
    if (all.failed()) throw AgreedError(all.code, all.message);
}

MPI_Comm library_dup(MPI_Comm comm) {
    MPI_Comm dup = MPI_COMM_NULL;
    check_mpi(MPI_Comm_dup(comm, &dup), "MPI_Comm_dup");
    count_handle(+1);
    const int rc = MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) {
        free_comm(dup);
        check_mpi(rc, "MPI_Comm_set_errhandler");
    }
    return dup;
}

std::vector<std::byte> allgather_bytes(MPI_Comm comm, const std::vector<std::byte>& mine,
                                       std::vector<core::Index>& sizes_out) {
    int n = 0;
    check_mpi(MPI_Comm_size(comm, &n), "MPI_Comm_size");
    long long my_size = static_cast<long long>(mine.size());
    std::vector<long long> sizes(static_cast<std::size_t>(n));
    check_mpi(MPI_Allgather(&my_size, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, comm),
              "MPI_Allgather");
    std::vector<int> counts(static_cast<std::size_t>(n)), displs(static_cast<std::size_t>(n));
    long long total = 0;
    for (int i = 0; i < n; ++i) {
        if (total + sizes[static_cast<std::size_t>(i)] > INT_MAX)
            core::fail(core::Errc::overflow, "transfer declarations exceed 2 GiB in total");
        displs[static_cast<std::size_t>(i)] = static_cast<int>(total);
        counts[static_cast<std::size_t>(i)] = static_cast<int>(sizes[static_cast<std::size_t>(i)]);
        total += sizes[static_cast<std::size_t>(i)];
    }
    std::vector<std::byte> all(static_cast<std::size_t>(total));
    check_mpi(MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, all.data(),
                             counts.data(), displs.data(), MPI_BYTE, comm),
              "MPI_Allgatherv");
    sizes_out.assign(sizes.begin(), sizes.end());
    return all;
}

std::vector<std::byte> gather_sparse(MPI_Comm comm, const std::vector<std::byte>& mine) {
    int me = 0;
    check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    core::Writer part;
    if (!mine.empty()) {
        part.i64(me);
        part.i64(static_cast<core::Index>(mine.size()));
    }
    std::vector<std::byte> framed = part.bytes();
    framed.insert(framed.end(), mine.begin(), mine.end());
    long long size = static_cast<long long>(framed.size()), offset = 0, total = size;
    check_mpi(MPI_Exscan(&size, &offset, 1, MPI_LONG_LONG, MPI_SUM, comm), "MPI_Exscan");
    if (me == 0) offset = 0; // MPI_Exscan leaves rank 0's result undefined
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG_LONG, MPI_SUM, comm),
              "MPI_Allreduce");
    if (total > INT_MAX)
        core::fail(core::Errc::overflow, "transfer declarations exceed 2 GiB in total");
    std::vector<std::byte> all(static_cast<std::size_t>(total));
    std::copy(framed.begin(), framed.end(), all.begin() + offset);
    check_mpi(
        MPI_Allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(total), MPI_BYTE, MPI_BOR, comm),
        "MPI_Allreduce");
    return all;
}

} // namespace dri::detail
