#include "environment.hpp"

#include <algorithm>

namespace dri::bench {

namespace {

MPI_Comm node_comm(MPI_Comm comm) {
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    return node;
}

} // namespace

Environment environment(MPI_Comm comm) {
    Environment e;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0, v = 0, sub = 0;
    MPI_Get_library_version(lib, &len);
    e.library.assign(lib, static_cast<std::size_t>(len));
    e.library = e.library.substr(0, e.library.find('\n'));
    std::replace(e.library.begin(), e.library.end(), '\t', ' ');
    MPI_Get_version(&v, &sub);
    e.standard = std::to_string(v) + "." + std::to_string(sub);
    MPI_Comm_size(comm, &e.ranks);
    MPI_Comm node = node_comm(comm);
    int node_rank = 0, node_size = 1;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    int leaders = node_rank == 0 ? 1 : 0;
    MPI_Allreduce(&leaders, &e.nodes, 1, MPI_INT, MPI_SUM, comm);
    MPI_Allreduce(&node_size, &e.min_per_node, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&node_size, &e.max_per_node, 1, MPI_INT, MPI_MAX, comm);
    return e;
}

MPI_Comm first_of_each_node(MPI_Comm comm, int k) {
    MPI_Comm node = node_comm(comm);
    int node_rank = 0, rank = 0;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_free(&node);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm out = MPI_COMM_NULL;
    MPI_Comm_split(comm, node_rank < k ? 0 : MPI_UNDEFINED, rank, &out);
    return out;
}

} // namespace dri::bench
