// Layout: how one process stores its local block in memory.
//
// A layout is either
// - an order (a permutation of the dimensions, slowest first: {0, 1} is
//   row-major, {1, 0} stores dimension 0 contiguously) plus optional padding
//   per dimension (extra elements after the local extent, e.g. a leading
//   dimension larger than the extent), or
// - explicit strides in elements, one per dimension, checked against each
//   process's local extents when bound (cells must not overlap).
// It is independent of the distribution: binding it to a process's local
// extents gives a LocalLayout, the index -> byte offset map.
#pragma once

#include "core/shape.hpp"

#include <vector>

namespace dri::core {

class Layout {
  public:
    // Row-major packed layout (order 0, 1, ..., n-1; no padding).
    static Layout packed(int ndims);
    static Layout ordered(std::vector<int> order, std::vector<Index> pad = {});
    static Layout strided(std::vector<Index> strides);

    int ndims() const { return static_cast<int>(order_.size()); }
    const std::vector<int>& order() const { return order_; }
    const std::vector<Index>& pad() const { return pad_; }
    const std::vector<Index>& strides() const { return strides_; } // empty unless strided
    bool has_explicit_strides() const { return !strides_.empty(); }

    friend bool operator==(const Layout&, const Layout&) = default;

  private:
    std::vector<int> order_;
    std::vector<Index> pad_;
    std::vector<Index> strides_;
};

std::string to_string(const Layout& l);

// A layout bound to one process's local extents.
struct LocalLayout {
    std::vector<Index> extents; // local extent per dimension
    std::vector<Index> strides; // element stride per dimension
    Index elem_size = 1;
    Index bytes = 0; // bytes the process must allocate

    // Byte offset of a local multi-index (no bounds check).
    Index offset(const std::vector<Index>& local_index) const;
    Index cells() const;
};

// Throws Errc::layout when the layout does not fit (wrong dimension count,
// overlapping strides for these extents) and Errc::overflow when the buffer
// size does not fit 63 bits.
LocalLayout bind_layout(const Layout& layout, const std::vector<Index>& local_extents,
                        Index elem_size);

} // namespace dri::core
