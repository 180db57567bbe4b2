#include "core/layout.hpp"

#include <algorithm>
#include <numeric>

namespace dri::core {

namespace {
void check_ndims(std::size_t n) {
    if (n < 1 || n > static_cast<std::size_t>(max_dims))
        fail(Errc::ndims, "a layout has 1 to " + std::to_string(max_dims) + " dimensions, got " +
                              std::to_string(n));
}
} // namespace

Layout Layout::packed(int ndims) {
    check_ndims(static_cast<std::size_t>(ndims < 0 ? 0 : ndims));
    std::vector<int> order(static_cast<std::size_t>(ndims));
    std::iota(order.begin(), order.end(), 0);
    return ordered(std::move(order));
}

Layout Layout::ordered(std::vector<int> order, std::vector<Index> pad) {
    check_ndims(order.size());
    std::vector<bool> seen(order.size(), false);
    for (int d : order) {
        if (d < 0 || static_cast<std::size_t>(d) >= order.size() ||
            seen[static_cast<std::size_t>(d)])
            fail(
                Errc::layout, "layout order must be a permutation of 0.." +
                                  std::to_string(order.size() - 1) + ", got " + [&] {
                                      std::string s;
                                      for (int x : order)
                                          s += (s.empty() ? "" : ",") + std::to_string(x);
                                      return s;
                                  }());
        seen[static_cast<std::size_t>(d)] = true;
    }
    if (pad.empty()) pad.assign(order.size(), 0);
    if (pad.size() != order.size())
        fail(Errc::layout, "layout padding has " + std::to_string(pad.size()) + " entries for " +
                               std::to_string(order.size()) + " dimensions");
    for (std::size_t d = 0; d < pad.size(); ++d)
        if (pad[d] < 0)
            fail(Errc::layout, "layout padding of dimension " + std::to_string(d) +
                                   " must be >= 0, got " + std::to_string(pad[d]));
    Layout l;
    l.order_ = std::move(order);
    l.pad_ = std::move(pad);
    return l;
}

Layout Layout::strided(std::vector<Index> strides) {
    check_ndims(strides.size());
    for (std::size_t d = 0; d < strides.size(); ++d)
        if (strides[d] < 1)
            fail(Errc::layout, "layout stride of dimension " + std::to_string(d) +
                                   " must be >= 1 element, got " + std::to_string(strides[d]));
    Layout l;
    // The order follows the strides (largest first); ties keep dimension order.
    l.order_.resize(strides.size());
    std::iota(l.order_.begin(), l.order_.end(), 0);
    std::stable_sort(l.order_.begin(), l.order_.end(), [&](int a, int b) {
        return strides[static_cast<std::size_t>(a)] > strides[static_cast<std::size_t>(b)];
    });
    l.pad_.assign(strides.size(), 0);
    l.strides_ = std::move(strides);
    return l;
}

std::string to_string(const Layout& l) {
    std::string s;
    if (l.has_explicit_strides()) {
        s = "strides(";
        for (std::size_t d = 0; d < l.strides().size(); ++d)
            s += (d ? "," : "") + std::to_string(l.strides()[d]);
        return s + ")";
    }
    s = "order(";
    for (std::size_t k = 0; k < l.order().size(); ++k)
        s += (k ? "," : "") + std::to_string(l.order()[k]);
    s += ")";
    if (std::any_of(l.pad().begin(), l.pad().end(), [](Index p) { return p != 0; })) {
        s += " pad(";
        for (std::size_t d = 0; d < l.pad().size(); ++d)
            s += (d ? "," : "") + std::to_string(l.pad()[d]);
        s += ")";
    }
    return s;
}

Index LocalLayout::offset(const std::vector<Index>& idx) const {
    Index off = 0;
    for (std::size_t d = 0; d < idx.size(); ++d)
        off += idx[d] * strides[d];
    return off * elem_size;
}

Index LocalLayout::cells() const {
    Index c = 1;
    for (Index e : extents)
        c *= e;
    return c;
}

LocalLayout bind_layout(const Layout& layout, const std::vector<Index>& ext, Index elem_size) {
    if (static_cast<std::size_t>(layout.ndims()) != ext.size())
        fail(Errc::layout, "layout has " + std::to_string(layout.ndims()) +
                               " dimensions but the data has " + std::to_string(ext.size()));
    if (elem_size < 1) fail(Errc::type, "element size must be >= 1");
    LocalLayout ll;
    ll.extents = ext;
    ll.elem_size = elem_size;
    ll.strides.assign(ext.size(), 0);
    const bool empty = std::any_of(ext.begin(), ext.end(), [](Index e) { return e == 0; });
    const std::vector<int>& order = layout.order();
    if (layout.has_explicit_strides()) {
        ll.strides = layout.strides();
        // Walking from the fastest dimension out, each stride must step over
        // everything the faster dimensions span.
        Index span = 1; // 1 + largest element offset reached by the inner dimensions
        for (std::size_t k = order.size(); k-- > 0;) {
            const std::size_t d = static_cast<std::size_t>(order[k]);
            if (empty || ext[d] <= 1) continue;
            if (ll.strides[d] < span)
                fail(Errc::layout,
                     "layout stride " + std::to_string(ll.strides[d]) + " of dimension " +
                         std::to_string(d) + " is smaller than the " + std::to_string(span) +
                         " elements spanned by the faster dimensions: cells would overlap");
            span = checked_add(span, checked_mul(ext[d] - 1, ll.strides[d], "layout span"),
                               "layout span");
        }
        ll.bytes = empty ? 0 : checked_mul(span, elem_size, "local buffer size");
        return ll;
    }
    Index stride = 1;
    for (std::size_t k = order.size(); k-- > 0;) {
        const std::size_t d = static_cast<std::size_t>(order[k]);
        ll.strides[d] = stride;
        stride = checked_mul(stride, checked_add(ext[d], layout.pad()[d], "padded extent"),
                             "local buffer size");
    }
    ll.bytes = empty ? 0 : checked_mul(stride, elem_size, "local buffer size");
    return ll;
}

} // namespace dri::core
