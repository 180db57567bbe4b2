#include "core/box_partition.hpp"

#include "core/checked.hpp"
#include "core/distribution.hpp"

#include <algorithm>
#include <limits>

namespace dri::core {

bool Box::empty() const {
    for (std::size_t d = 0; d < first.size(); ++d)
        if (last[d] < first[d]) return true;
    return false;
}

Index Box::cells() const {
    if (empty()) return 0;
    Index n = 1;
    for (std::size_t d = 0; d < first.size(); ++d)
        n = checked_mul(n, last[d] - first[d] + 1, "box size");
    return n;
}

std::string to_string(const Box& b) {
    std::string s;
    for (std::size_t d = 0; d < b.first.size(); ++d)
        s += (d ? "," : "") + std::to_string(b.first[d]) + ":" + std::to_string(b.last[d]);
    return s;
}

namespace {

std::string name(int member, std::size_t k, const Box& b) {
    return "box " + std::to_string(k) + " (" + to_string(b) + ") of member " +
           std::to_string(member);
}

void check_box(const Shape& shape, int member, std::size_t k, const Box& b) {
    const auto nd = static_cast<std::size_t>(shape.ndims());
    if (b.first.size() != nd || b.last.size() != nd)
        fail(Errc::ndims, "box " + std::to_string(k) + " of member " + std::to_string(member) +
                              " has " + std::to_string(b.first.size()) +
                              " dimensions but the data has " + std::to_string(nd));
    for (std::size_t d = 0; d < nd; ++d) {
        const Index n = shape.extent(static_cast<int>(d));
        // An empty range is [first, first - 1]; its first may be n (as in a
        // ranges partition), anything else is a malformed range.
        if (b.last[d] < b.first[d] - 1 || b.first[d] < 0 || b.first[d] > n || b.last[d] >= n)
            fail(Errc::partition, name(member, k, b) + ": dimension " + std::to_string(d) +
                                      " range [" + std::to_string(b.first[d]) + ", " +
                                      std::to_string(b.last[d]) + "] is not inside [0, " +
                                      std::to_string(n - 1) + "] (empty: last = first - 1)");
    }
}

bool intersect(const Box& a, const Box& b) {
    for (std::size_t d = 0; d < a.first.size(); ++d)
        if (a.last[d] < b.first[d] || b.last[d] < a.first[d]) return false;
    return true;
}

} // namespace

BoxPartition::BoxPartition(Shape shape, std::vector<std::vector<Box>> boxes)
    : shape_(std::move(shape)), boxes_(std::move(boxes)) {
    if (boxes_.empty()) fail(Errc::group, "a box partition needs at least one member");
    for (std::size_t m = 0; m < boxes_.size(); ++m) {
        Index total = 0;
        for (std::size_t k = 0; k < boxes_[m].size(); ++k) {
            check_box(shape_, static_cast<int>(m), k, boxes_[m][k]);
            total = checked_add(total, boxes_[m][k].cells(), "member's cells");
        }
        (void)checked_mul(total, shape_.elem_size(), "member's buffer size");
    }
    check_disjoint();
}

const std::vector<Box>& BoxPartition::boxes(int member) const {
    if (member < 0 || member >= nprocs())
        fail(Errc::arg, "process index " + std::to_string(member) + " outside [0, " +
                            std::to_string(nprocs()) + ")");
    return boxes_[static_cast<std::size_t>(member)];
}

Index BoxPartition::cells(int member) const {
    Index n = 0;
    for (const Box& b : boxes(member))
        n += b.cells();
    return n;
}

Index BoxPartition::box_offset(int member, std::size_t k) const {
    const std::vector<Box>& bs = boxes(member);
    Index n = 0;
    for (std::size_t i = 0; i < k && i < bs.size(); ++i)
        n += bs[i].cells();
    return n;
}

// Sweep along dimension 0: only boxes whose dimension-0 ranges meet are
// compared, so the usual partitions cost about n log n, not n^2.
void BoxPartition::check_disjoint() const {
    struct Ref {
        int member;
        std::size_t k;
        const Box* box;
    };
    std::vector<Ref> all;
    for (std::size_t m = 0; m < boxes_.size(); ++m)
        for (std::size_t k = 0; k < boxes_[m].size(); ++k)
            if (!boxes_[m][k].empty()) all.push_back({static_cast<int>(m), k, &boxes_[m][k]});
    std::sort(all.begin(), all.end(), [](const Ref& a, const Ref& b) {
        return a.box->first[0] != b.box->first[0]
                   ? a.box->first[0] < b.box->first[0]
                   : std::tie(a.member, a.k) < std::tie(b.member, b.k);
    });
    for (std::size_t i = 0; i < all.size(); ++i)
        for (std::size_t j = i + 1; j < all.size() && all[j].box->first[0] <= all[i].box->last[0];
             ++j)
            if (intersect(*all[i].box, *all[j].box)) {
                const Ref& a = std::min(all[i], all[j], [](const Ref& x, const Ref& y) {
                    return std::tie(x.member, x.k) < std::tie(y.member, y.k);
                });
                const Ref& b = &a == &all[i] ? all[j] : all[i];
                fail(Errc::not_disjoint, name(a.member, a.k, *a.box) + " and " +
                                             name(b.member, b.k, *b.box) + " own common elements");
            }
}

// Disjoint boxes inside the array cover it when their cells add up to it.
void BoxPartition::check_covering() const {
    Index n = 0;
    for (int m = 0; m < nprocs(); ++m)
        n += cells(m);
    if (n != shape_.elements())
        fail(Errc::not_covering, "the boxes hold " + std::to_string(n) + " of the " +
                                     std::to_string(shape_.elements()) +
                                     " elements: the sending side must cover the array");
}

void write_boxes(Writer& w, const BoxPartition& bp) {
    w.i64(bp.nprocs());
    for (const std::vector<Box>& list : bp.all()) {
        w.i64(static_cast<Index>(list.size()));
        for (const Box& b : list) {
            w.vec(b.first);
            w.vec(b.last);
        }
    }
}

std::vector<std::vector<Box>> read_box_lists(Reader& r, int ndims) {
    const Index members = r.i64();
    if (members < 0 || members > std::numeric_limits<int>::max())
        fail(Errc::internal, "corrupt box description");
    std::vector<std::vector<Box>> lists(static_cast<std::size_t>(members));
    for (auto& list : lists) {
        const Index n = r.i64();
        if (n < 0) fail(Errc::internal, "corrupt box description");
        for (Index k = 0; k < n; ++k) {
            Box b{r.vec<Index>(), r.vec<Index>()};
            if (b.first.size() != static_cast<std::size_t>(ndims) ||
                b.last.size() != b.first.size())
                fail(Errc::internal, "corrupt box description");
            list.push_back(std::move(b));
        }
    }
    return lists;
}

void check_box_layout(const Layout& layout) {
    if (layout.has_explicit_strides())
        fail(Errc::layout, "a box partition stores each box dense: explicit layout strides (" +
                               to_string(layout) + ") are refused");
    if (std::any_of(layout.pad().begin(), layout.pad().end(), [](Index p) { return p != 0; }))
        fail(Errc::layout, "a box partition stores each box dense: layout padding (" +
                               to_string(layout) + ") is refused");
}

std::vector<Index> box_strides(const Layout& layout, const std::vector<Index>& extents) {
    std::vector<Index> st(extents.size(), 0);
    Index stride = 1;
    const std::vector<int>& order = layout.order();
    for (std::size_t k = order.size(); k-- > 0;) {
        const auto d = static_cast<std::size_t>(order[k]);
        st[d] = stride;
        stride *= extents[d];
    }
    return st;
}

} // namespace dri::core

// The Distribution members of a box distribution (core/distribution.hpp).
namespace dri::core {

namespace {
const BoxPartition& need(const std::shared_ptr<const BoxPartition>& b) {
    if (!b) fail(Errc::null_pointer, "a box distribution needs its boxes");
    return *b;
}
} // namespace

Distribution::Distribution(std::shared_ptr<const BoxPartition> boxes)
    : shape_(need(boxes).shape()),
      part_(static_cast<std::size_t>(need(boxes).ndims()), DimPartition::whole()),
      nprocs_(need(boxes).nprocs()), grid_(static_cast<std::size_t>(need(boxes).ndims()), 1),
      boxes_(std::move(boxes)) {}

std::vector<Index> Distribution::box_local_extents(int index) const {
    std::vector<Index> e(static_cast<std::size_t>(ndims()), 1);
    e[0] = boxes_->cells(index);
    return e;
}

std::vector<Box> owned_boxes(const Distribution& d, int index) {
    if (d.boxes()) return d.boxes()->boxes(index);
    const std::vector<int> c = d.coords(index);
    std::vector<Box> out{Box{}};
    for (int dim = 0; dim < d.ndims(); ++dim) {
        std::vector<Box> next;
        const int cd = c[static_cast<std::size_t>(dim)];
        for (const Box& b : out)
            for (Index k = 0; k < d.segment_count(dim, cd); ++k) {
                const Segment s = d.segment(dim, cd, k);
                if (s.own_hi <= s.own_lo) continue;
                Box nb = b;
                nb.first.push_back(s.own_lo);
                nb.last.push_back(s.own_hi - 1);
                next.push_back(std::move(nb));
            }
        out = std::move(next);
    }
    return out;
}

void Distribution::check_boxes_covering(bool covering) const {
    // Disjoint by construction.
    if (covering) boxes_->check_covering();
}

} // namespace dri::core
