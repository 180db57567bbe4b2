// Box partitions: each member of a group owns a list of boxes of the global
// array, any boxes, not a tensor product of per-dimension ranges (a
// recursive bisection, adaptive mesh patches, a pencil grid with uneven
// splits per row).
//
// Rules (documented in docs/concepts.md, "Box partitions"):
// - A box is one inclusive range [first, last] per dimension, as Range; it is
//   empty when some last == first - 1 (then it stores nothing).
// - Boxes lie inside the array and owned boxes are disjoint (Errc::not_disjoint
//   otherwise); they need not cover it, but the sending side of a transfer
//   must (Errc::not_covering).
// - Storage: a member stores its boxes one after another in the order given,
//   each box dense in the layout's dimension order (layout order {1, 0}
//   stores a box's dimension 0 contiguously). Layout padding and explicit
//   strides have no meaning for a list of boxes and are refused
//   (Errc::layout). No overlap: a box partition stores owned cells only.
#pragma once

#include "core/layout.hpp"
#include "core/partition.hpp"
#include "core/wire.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dri::core {

struct Box {
    std::vector<Index> first, last; // inclusive, one per dimension
    bool empty() const;
    Index cells() const; // 0 when empty
    friend bool operator==(const Box&, const Box&) = default;
};

class BoxPartition {
  public:
    // Validates `boxes` (one list per member) against the shape: dimension
    // counts (Errc::ndims), ranges inside the array (Errc::partition), owned
    // boxes disjoint (Errc::not_disjoint). The messages name member and box.
    BoxPartition(Shape shape, std::vector<std::vector<Box>> boxes);

    const Shape& shape() const { return shape_; }
    int ndims() const { return shape_.ndims(); }
    int nprocs() const { return static_cast<int>(boxes_.size()); }
    const std::vector<Box>& boxes(int member) const;
    const std::vector<std::vector<Box>>& all() const { return boxes_; }

    // Elements a member stores, and the element offset of its box k in its
    // buffer (the sum of the cells of its boxes before k).
    Index cells(int member) const;
    Index box_offset(int member, std::size_t k) const;

    // Throws Errc::not_covering when some element belongs to no box.
    void check_covering() const;

    friend bool operator==(const BoxPartition&, const BoxPartition&) = default;

  private:
    void check_disjoint() const;
    Shape shape_;
    std::vector<std::vector<Box>> boxes_;
};

class Distribution;

// The boxes member `index` owns: a box distribution's own list, or, for an
// ordinary distribution, one box per combination of its owned segments
// along each dimension, in local order (empty ones left out).
std::vector<Box> owned_boxes(const Distribution& dist, int index);

// Throws Errc::layout when `layout` has padding or explicit strides.
void check_box_layout(const Layout& layout);

// The element strides of a box of these extents stored dense in the
// layout's dimension order.
std::vector<Index> box_strides(const Layout& layout, const std::vector<Index>& extents);

// The boxes of every member, for side descriptions (core/declaration.hpp):
// the member count, then per member its box count and boxes.
void write_boxes(Writer& w, const BoxPartition& bp);
std::vector<std::vector<Box>> read_box_lists(Reader& r, int ndims);

// The text notation (core/box_spec.cpp, docs/concepts.md "Text notation"):
// a box is "first:last" per dimension, comma separated ("0:3,2:5"); a box
// partition is "boxes:" and its members separated by '/', a member's boxes
// by ';' ("boxes:0:3,0:5;4:7,0:2/4:7,3:5"); an empty member (or "-") owns
// no box. parse_boxes throws Errc::arg on malformed text; to_string prints
// the canonical form, which parses back to the same lists.
std::string to_string(const Box& b);
std::string to_string(const BoxPartition& bp);
bool is_box_text(std::string_view text);
std::vector<std::vector<Box>> parse_boxes(std::string_view text);

} // namespace dri::core
