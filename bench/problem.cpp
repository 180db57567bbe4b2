#include "problem.hpp"

#include "core/spec.hpp"

#include <numeric>
#include <stdexcept>

namespace dri::bench {

Index Box::elements() const {
    Index n = 1;
    for (Index c : count)
        n *= c;
    return n;
}

namespace {

std::vector<int> side_ranks(std::vector<int> ranks, int procs, int size, const char* side) {
    if (ranks.empty()) {
        ranks.resize(static_cast<std::size_t>(procs > 0 ? procs : size));
        std::iota(ranks.begin(), ranks.end(), 0);
    } else if (procs > 0 && procs != static_cast<int>(ranks.size())) {
        core::fail(core::Errc::arg, std::string("--") + side +
                                        "-procs disagrees with the length of --" + side + "-ranks");
    }
    std::vector<bool> seen(static_cast<std::size_t>(size), false);
    for (int r : ranks) {
        if (r < 0 || r >= size)
            core::fail(core::Errc::group, std::string(side) + " rank " + std::to_string(r) +
                                              " outside 0.." + std::to_string(size - 1));
        if (seen[static_cast<std::size_t>(r)])
            core::fail(core::Errc::group,
                       std::string(side) + " rank " + std::to_string(r) + " twice");
        seen[static_cast<std::size_t>(r)] = true;
    }
    return ranks;
}

std::vector<int> index_of(const std::vector<int>& ranks, int size) {
    std::vector<int> out(static_cast<std::size_t>(size), -1);
    for (std::size_t i = 0; i < ranks.size(); ++i)
        out[static_cast<std::size_t>(ranks[i])] = static_cast<int>(i);
    return out;
}

} // namespace

Problem::Problem(const tools::SpecOptions& spec, std::vector<int> sranks, std::vector<int> rranks,
                 MPI_Comm c)
    : comm(c) {
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    shape = core::Shape(core::parse_shape(spec.shape), core::parse_type(spec.type));
    send_ranks = side_ranks(std::move(sranks), spec.send_procs, size, "send");
    recv_ranks = side_ranks(std::move(rranks), spec.recv_procs, size, "recv");
    send_index_of = index_of(send_ranks, size);
    recv_index_of = index_of(recv_ranks, size);
    me_send = send_index_of[static_cast<std::size_t>(rank)];
    me_recv = recv_index_of[static_cast<std::size_t>(rank)];
    sd = std::make_unique<core::Distribution>(shape, core::parse_partition(spec.send),
                                              static_cast<int>(send_ranks.size()));
    rd = std::make_unique<core::Distribution>(shape, core::parse_partition(spec.recv),
                                              static_cast<int>(recv_ranks.size()));
    const int nd = shape.ndims();
    sl = tools::make_layout(nd, spec.send_order, spec.send_pad, spec.send_strides);
    rl = tools::make_layout(nd, spec.recv_order, spec.recv_pad, spec.recv_strides);
    core::check_sides(send_side(), recv_side());
    if (me_send >= 0) send_bytes = send_local(me_send).bytes;
    if (me_recv >= 0) recv_bytes = recv_local(me_recv).bytes;
}

core::LocalLayout Problem::send_local(int s) const {
    return core::bind_layout(sl, sd->local_extents(s), elem());
}

core::LocalLayout Problem::recv_local(int r) const {
    return core::bind_layout(rl, rd->local_extents(r), elem());
}

std::vector<Box> Problem::boxes(int s, int r) const {
    const auto ranges = core::pair_global_ranges(send_side(), recv_side(), s, r);
    std::vector<Box> out;
    if (ranges.empty()) return out;
    const std::size_t nd = ranges.size();
    std::vector<std::size_t> it(nd, 0);
    for (;;) { // the product of the per-dimension ranges, last dimension fastest
        Box b;
        for (std::size_t d = 0; d < nd; ++d) {
            b.first.push_back(ranges[d][it[d]].first);
            b.count.push_back(ranges[d][it[d]].size());
        }
        out.push_back(std::move(b));
        std::size_t d = nd;
        while (d-- > 0) {
            if (++it[d] < ranges[d].size()) break;
            it[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1)) return out;
    }
}

std::vector<Box> Problem::sends_to(int p) const {
    const int r = recv_index_of[static_cast<std::size_t>(p)];
    return me_send >= 0 && r >= 0 ? boxes(me_send, r) : std::vector<Box>{};
}

std::vector<Box> Problem::recvs_from(int p) const {
    const int s = send_index_of[static_cast<std::size_t>(p)];
    return me_recv >= 0 && s >= 0 ? boxes(s, me_recv) : std::vector<Box>{};
}

Index Problem::local_of(const core::Distribution& d, int dim, int c, Index g, bool stored) {
    for (Index k = 0; k < d.segment_count(dim, c); ++k) {
        const core::Segment s = d.segment(dim, c, k);
        const Index lo = stored ? s.lo : s.own_lo, hi = stored ? s.hi : s.own_hi;
        if (g >= lo && g < hi) return s.local + (g - s.lo);
    }
    throw std::logic_error("dri-bench: global index outside the block");
}

namespace {

Index box_offset(const core::Distribution& d, const core::LocalLayout& ll, int idx, const Box& b,
                 bool stored) {
    const std::vector<int> c = d.coords(idx);
    Index off = 0;
    for (int dim = 0; dim < d.ndims(); ++dim) {
        const auto u = static_cast<std::size_t>(dim);
        off += Problem::local_of(d, dim, c[u], b.first[u], stored) * ll.strides[u];
    }
    return off * ll.elem_size;
}

} // namespace

Index Problem::send_offset(int s, const Box& b) const {
    return box_offset(*sd, send_local(s), s, b, false);
}

Index Problem::recv_offset(int r, const Box& b) const {
    return box_offset(*rd, recv_local(r), r, b, true);
}

std::string Problem::baseline_limit() const {
    for (const core::DimPartition& p : rd->partition())
        if ((p.left > 0 || p.right > 0) && p.edge != core::EdgePolicy::truncate)
            return "receiver overlap with a zero/replicate/wrap edge (cells past the bounds) is "
                   "not expressed by this baseline";
    return "";
}

bool Problem::is_clique() const {
    for (int p = 0; p < size; ++p)
        if (send_index_of[static_cast<std::size_t>(p)] != p ||
            recv_index_of[static_cast<std::size_t>(p)] != p)
            return false;
    return true;
}

bool Problem::is_corner_turn() const {
    return shape.ndims() == 2 && sd->partition() == core::parse_partition("block,whole") &&
           rd->partition() == core::parse_partition("whole,block") &&
           sl == core::Layout::packed(2) && rl == core::Layout::ordered({1, 0});
}

} // namespace dri::bench
