#include "core/distribution.hpp"

#include <algorithm>

namespace dri::core {

namespace {

__extension__ typedef __int128 Wide;

Index narrow(Wide v, const char* what) {
    if (v > static_cast<Wide>(unbounded) || v < -static_cast<Wide>(unbounded))
        fail(Errc::overflow, std::string(what) + " overflows 64 bits");
    return static_cast<Index>(v);
}

// sum_{i=0}^{k-1} max(0, a - b*i) for b > 0.
Wide sum_pos_decreasing(Wide a, Wide b, Wide k) {
    if (a <= 0 || k <= 0) return 0;
    Wide cnt = (a + b - 1) / b; // terms with a - b*i > 0
    if (cnt > k) cnt = k;
    return cnt * a - b * (cnt * (cnt - 1) / 2);
}

// sum_{i=0}^{k-1} max(0, a + b*i) for b > 0.
Wide sum_pos_increasing(Wide a, Wide b, Wide k) {
    if (k <= 0) return 0;
    Wide first = 0; // first i with a + b*i > 0
    if (a <= 0) first = (-a) / b + 1;
    if (first >= k) return 0;
    const Wide cnt = k - first;
    // sum_{i=first}^{k-1} (a + b*i)
    return cnt * a + b * ((first + k - 1) * cnt / 2);
}

} // namespace

std::string to_string(GridOrder order) {
    return order == GridOrder::column_major ? "column-major" : "row-major";
}

Distribution::Distribution(Shape shape, Partition part, int nprocs, GridOrder order)
    : shape_(std::move(shape)), part_(std::move(part)), nprocs_(nprocs), order_(order) {
    if (order != GridOrder::row_major && order != GridOrder::column_major)
        fail(Errc::arg, "grid order " + std::to_string(static_cast<int>(order)) +
                            " is neither row-major (0) nor column-major (1)");
    grid_ = choose_grid(shape_, part_, nprocs_);
    // Every stored extent must be representable: check the largest local block.
    for (int d = 0; d < ndims(); ++d)
        for (int c = 0; c < grid_[static_cast<std::size_t>(d)]; ++c)
            (void)local_extent(d, c);
}

std::vector<int> Distribution::coords(int index) const {
    if (index < 0 || index >= nprocs_)
        fail(Errc::arg, "process index " + std::to_string(index) + " outside [0, " +
                            std::to_string(nprocs_) + ")");
    // The fastest dimension takes the remainder first.
    const std::size_t n = grid_.size();
    const bool rows = order_ == GridOrder::row_major;
    std::vector<int> c(n);
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t d = rows ? n - 1 - k : k;
        c[d] = index % grid_[d];
        index /= grid_[d];
    }
    return c;
}

int Distribution::index_of(const std::vector<int>& c) const {
    // The slowest dimension first.
    const std::size_t n = grid_.size();
    const bool rows = order_ == GridOrder::row_major;
    int index = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t d = rows ? k : n - 1 - k;
        index = index * grid_[d] + c[d];
    }
    return index;
}

Index Distribution::segment_count(int d, int c) const {
    const DimPartition& dp = part_[static_cast<std::size_t>(d)];
    const Index n = shape_.extent(d);
    const Index p = grid_[static_cast<std::size_t>(d)];
    switch (dp.kind) {
    case PartKind::whole:
        return 1;
    case PartKind::block:
        return (n / p + (c < n % p ? 1 : 0)) > 0 ? 1 : 0;
    case PartKind::cyclic: {
        const Index nb = ceil_div(n, dp.block_size);
        return c < nb ? ceil_div(nb - c, p) : 0;
    }
    case PartKind::ranges:
        return dp.ranges[static_cast<std::size_t>(c)].size() > 0 ? 1 : 0;
    }
    return 0;
}

Segment Distribution::segment(int d, int c, Index k) const {
    const DimPartition& dp = part_[static_cast<std::size_t>(d)];
    const Index n = shape_.extent(d);
    const Index p = grid_[static_cast<std::size_t>(d)];
    const bool trunc = dp.edge == EdgePolicy::truncate;
    Segment s;
    switch (dp.kind) {
    case PartKind::whole:
        s.own_lo = 0;
        s.own_hi = n;
        break;
    case PartKind::block: {
        const Index q = n / p, r = n % p;
        s.own_lo = c * q + std::min<Index>(c, r);
        s.own_hi = s.own_lo + q + (c < r ? 1 : 0);
        break;
    }
    case PartKind::cyclic: {
        const Index b = dp.block_size;
        const Wide j = static_cast<Wide>(c) + static_cast<Wide>(k) * p;
        s.own_lo = narrow(j * b, "block-cyclic offset");
        s.own_hi = std::min<Index>(n, narrow((j + 1) * b, "block-cyclic offset"));
        // Local start: k full stored blocks minus what the edges removed.
        const Index full = b + dp.left + dp.right;
        Wide local = static_cast<Wide>(k) * full;
        if (trunc) {
            local -= sum_pos_decreasing(static_cast<Wide>(dp.left) - static_cast<Wide>(c) * b,
                                        static_cast<Wide>(p) * b, k);
            local -= sum_pos_increasing(static_cast<Wide>(c + 1) * b + dp.right - n,
                                        static_cast<Wide>(p) * b, k);
        }
        // (Without truncation only the last block is short, and it is never
        // before another segment.)
        s.local = narrow(local, "block-cyclic local offset");
        break;
    }
    case PartKind::ranges: {
        const Range& r = dp.ranges[static_cast<std::size_t>(c)];
        s.own_lo = r.first;
        s.own_hi = r.last + 1;
        break;
    }
    }
    s.lo = s.own_lo - dp.left;
    s.hi = s.own_hi + dp.right;
    if (trunc) {
        s.lo = std::max<Index>(0, s.lo);
        s.hi = std::min<Index>(n, s.hi);
    }
    return s;
}

Index Distribution::local_extent(int d, int c) const {
    const Index cnt = segment_count(d, c);
    if (cnt == 0) return 0;
    const Segment last = segment(d, c, cnt - 1);
    return checked_add(last.local, last.hi - last.lo, "local extent");
}

Index Distribution::owned_extent(int d, int c) const {
    const DimPartition& dp = part_[static_cast<std::size_t>(d)];
    const Index n = shape_.extent(d);
    const Index p = grid_[static_cast<std::size_t>(d)];
    switch (dp.kind) {
    case PartKind::whole:
        return n;
    case PartKind::block:
        return n / p + (c < n % p ? 1 : 0);
    case PartKind::cyclic: {
        const Index cnt = segment_count(d, c);
        if (cnt == 0) return 0;
        const Segment last = segment(d, c, cnt - 1);
        return (cnt - 1) * dp.block_size + (last.own_hi - last.own_lo);
    }
    case PartKind::ranges:
        return dp.ranges[static_cast<std::size_t>(c)].size();
    }
    return 0;
}

std::vector<Index> Distribution::local_extents(int index) const {
    if (boxes_) return box_local_extents(index);
    const std::vector<int> c = coords(index);
    std::vector<Index> e(c.size());
    for (std::size_t d = 0; d < c.size(); ++d)
        e[d] = local_extent(static_cast<int>(d), c[d]);
    return e;
}

Index Distribution::first_segment_ending_after(int d, int c, Index g) const {
    const DimPartition& dp = part_[static_cast<std::size_t>(d)];
    const Index cnt = segment_count(d, c);
    if (dp.kind != PartKind::cyclic) {
        return (cnt == 1 && segment(d, c, 0).own_hi > g) ? 0 : cnt;
    }
    const Index p = grid_[static_cast<std::size_t>(d)];
    const Index jmin = g < 0 ? 0 : g / dp.block_size; // first block with own_hi > g
    const Index k = jmin <= c ? 0 : ceil_div(jmin - c, p);
    return std::min(k, cnt);
}

void Distribution::check_disjoint_covering() const {
    check_owned("sending", true);
}

void Distribution::check_disjoint(const std::string& which) const {
    check_owned(which, false);
}

void Distribution::check_owned(const std::string& which, bool covering) const {
    if (boxes_) return check_boxes_covering(covering);
    for (int d = 0; d < ndims(); ++d) {
        const DimPartition& dp = part_[static_cast<std::size_t>(d)];
        if (dp.kind != PartKind::ranges) continue; // disjoint and covering by construction
        std::vector<Range> rs;
        for (const Range& r : dp.ranges)
            if (r.size() > 0) rs.push_back(r);
        std::sort(rs.begin(), rs.end(),
                  [](const Range& a, const Range& b) { return a.first < b.first; });
        Index next = 0;
        const std::string where = which + " partition, dimension " + std::to_string(d) + ": ";
        for (const Range& r : rs) {
            if (r.first < next)
                fail(Errc::not_disjoint, where + "elements " + std::to_string(r.first) + ".." +
                                             std::to_string(std::min(r.last, next - 1)) +
                                             " are owned by two processes");
            if (covering && r.first > next)
                fail(Errc::not_covering, where + "elements " + std::to_string(next) + ".." +
                                             std::to_string(r.first - 1) +
                                             " are owned by no process");
            next = std::max(next, r.last + 1);
        }
        if (covering && next != shape_.extent(d))
            fail(Errc::not_covering, where + "elements " + std::to_string(next) + ".." +
                                         std::to_string(shape_.extent(d) - 1) +
                                         " are owned by no process");
    }
}

} // namespace dri::core
