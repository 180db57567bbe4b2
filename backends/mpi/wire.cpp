#include "wire.hpp"

#include "runtime.hpp"

#include <climits>

namespace dri::detail {

std::uint64_t fnv1a(const std::vector<int>& v) {
    std::uint64_t h = 1469598103934665603ull;
    for (int x : v) {
        h ^= static_cast<std::uint32_t>(x);
        h *= 1099511628211ull;
    }
    return h;
}

std::uint64_t fnv1a(const std::string& bytes) {
    std::uint64_t h = 1469598103934665603ull;
    for (char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

void write_shape_partition(Writer& w, const core::Shape& shape, const core::Partition& part) {
    w.vec(shape.extents());
    w.i64(static_cast<Index>(shape.type().kind));
    w.i64(shape.elem_size());
    for (const core::DimPartition& p : part) {
        w.i64(static_cast<Index>(p.kind));
        w.i64(p.left);
        w.i64(p.right);
        w.i64(p.min_block);
        w.i64(p.max_block);
        w.i64(p.block_size);
        w.i64(p.nprocs);
        w.i64(static_cast<Index>(p.edge));
        w.i64(static_cast<Index>(p.ranges.size()));
        for (const core::Range& r : p.ranges) {
            w.i64(r.first);
            w.i64(r.last);
        }
    }
}

std::pair<core::Shape, core::Partition> read_shape_partition(Reader& r) {
    std::vector<Index> ext = r.vec<Index>();
    const auto kind = static_cast<core::ElemKind>(r.i64());
    const Index size = r.i64();
    core::Shape shape(ext, core::ElementType{kind, size});
    core::Partition part;
    for (std::size_t d = 0; d < ext.size(); ++d) {
        core::DimPartition p;
        p.kind = static_cast<core::PartKind>(r.i64());
        p.left = r.i64();
        p.right = r.i64();
        p.min_block = r.i64();
        p.max_block = r.i64();
        p.block_size = r.i64();
        p.nprocs = static_cast<int>(r.i64());
        p.edge = static_cast<core::EdgePolicy>(r.i64());
        const Index nr = r.i64();
        for (Index i = 0; i < nr; ++i) {
            const Index first = r.i64();
            p.ranges.push_back({first, r.i64()});
        }
        part.push_back(std::move(p));
    }
    return {std::move(shape), std::move(part)};
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

} // namespace dri::detail
