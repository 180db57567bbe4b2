#include "core/wire.hpp"

namespace dri::core {

void Writer::i64(Index v) {
    const auto* p = reinterpret_cast<const std::byte*>(&v);
    buf_.insert(buf_.end(), p, p + sizeof v);
}

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

void write_shape_partition(Writer& w, const Shape& shape, const Partition& part) {
    w.vec(shape.extents());
    w.i64(static_cast<Index>(shape.type().kind));
    w.i64(shape.elem_size());
    for (const DimPartition& p : part) {
        w.i64(static_cast<Index>(p.kind));
        w.i64(p.left);
        w.i64(p.right);
        w.i64(p.min_block);
        w.i64(p.max_block);
        w.i64(p.block_size);
        w.i64(p.nprocs);
        w.i64(static_cast<Index>(p.edge));
        w.i64(static_cast<Index>(p.ranges.size()));
        for (const Range& r : p.ranges) {
            w.i64(r.first);
            w.i64(r.last);
        }
    }
}

std::pair<Shape, Partition> read_shape_partition(Reader& r) {
    std::vector<Index> ext = r.vec<Index>();
    const auto kind = static_cast<ElemKind>(r.i64());
    const Index size = r.i64();
    Shape shape(ext, ElementType{kind, size});
    Partition part;
    for (std::size_t d = 0; d < ext.size(); ++d) {
        DimPartition p;
        p.kind = static_cast<PartKind>(r.i64());
        p.left = r.i64();
        p.right = r.i64();
        p.min_block = r.i64();
        p.max_block = r.i64();
        p.block_size = r.i64();
        p.nprocs = static_cast<int>(r.i64());
        p.edge = static_cast<EdgePolicy>(r.i64());
        const Index nr = r.i64();
        for (Index i = 0; i < nr; ++i) {
            const Index first = r.i64();
            p.ranges.push_back({first, r.i64()});
        }
        part.push_back(std::move(p));
    }
    return {std::move(shape), std::move(part)};
}

} // namespace dri::core
