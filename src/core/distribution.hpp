// Distribution geometry: which process owns which block(s) of the global
// array, and which cells (owned + overlap + edge padding) each process stores.
//
// Rules (documented in docs/concepts.md):
// - Processes form a grid, one count per dimension (choose_grid). A process's
//   grid coordinates come from its index in the process set in the grid's
//   order: row-major (the last dimension varies fastest, the default) or
//   column-major (the first varies fastest, as BLACS 'C' order).
// - Uneven blocks: N elements over p processes give the first N mod p
//   coordinates ceil(N/p) elements and the others floor(N/p).
// - Block-cyclic: block j (elements [j*b, min(N, (j+1)*b))) belongs to
//   coordinate j mod p and is that coordinate's (j div p)-th local segment.
// - Each non-empty owned block is stored with its overlap: [lo - left, hi + right).
//   Past the global bounds, truncate drops those cells; zero, replicate and
//   wrap store them (filled per the policy). Empty blocks store nothing.
// - A process's local extent along a dimension is the sum of its stored
//   segments there; its local array is the product over dimensions.
#pragma once

#include "core/partition.hpp"

#include <memory>
#include <vector>

namespace dri::core {

// One owned block of one process along one dimension.
struct Segment {
    Index own_lo = 0, own_hi = 0; // owned global range [own_lo, own_hi)
    Index lo = 0, hi = 0;         // stored global range [lo, hi), may reach past [0, N)
    Index local = 0;              // local index of global coordinate lo
    friend bool operator==(const Segment&, const Segment&) = default;
};

// How process indices number the grid's coordinates.
enum class GridOrder { row_major = 0, column_major = 1 };

std::string to_string(GridOrder order);

class BoxPartition;

class Distribution {
  public:
    // Validates the partition and chooses the process grid for `nprocs` processes.
    Distribution(Shape shape, Partition part, int nprocs, GridOrder order = GridOrder::row_major);

    // A box distribution (core/box_partition.hpp, defined there): each
    // member owns a list of boxes. Its grid is all ones and its partition all
    // `whole`; its local extents are {cells, 1, ...}: the buffer is the
    // member's boxes one after another. Plans and checks go by the boxes.
    explicit Distribution(std::shared_ptr<const BoxPartition> boxes);
    // The boxes of a box distribution, or nullptr.
    const BoxPartition* boxes() const { return boxes_.get(); }

    const Shape& shape() const { return shape_; }
    const Partition& partition() const { return part_; }
    int ndims() const { return shape_.ndims(); }
    int nprocs() const { return nprocs_; }
    const std::vector<int>& grid() const { return grid_; }
    GridOrder grid_order() const { return order_; }

    std::vector<int> coords(int index) const;
    int index_of(const std::vector<int>& coords) const;

    // Segments of grid coordinate `c` along dimension `d`, in local order.
    Index segment_count(int d, int c) const;
    Segment segment(int d, int c, Index k) const;
    // Local extent (stored cells) along `d` of coordinate `c`, and owned cells.
    Index local_extent(int d, int c) const;
    Index owned_extent(int d, int c) const;
    std::vector<Index> local_extents(int index) const;

    // Index of the first segment of coordinate c along d whose owned range
    // ends after global index g (segments are sorted by owned range).
    Index first_segment_ending_after(int d, int c, Index g) const;

    // The sending side: throws not_disjoint / not_covering when some element
    // is owned twice or never. Overlap cells are not owned and never sent.
    void check_disjoint_covering() const;
    // Throws not_disjoint when some element is owned twice (`which` names the
    // side in the message).
    void check_disjoint(const std::string& which) const;

  private:
    void check_owned(const std::string& which, bool covering) const;
    // Box distributions (defined in core/box_partition.cpp).
    std::vector<Index> box_local_extents(int index) const;
    void check_boxes_covering(bool covering) const;
    Shape shape_;
    Partition part_;
    int nprocs_;
    GridOrder order_ = GridOrder::row_major;
    std::vector<int> grid_;
    std::shared_ptr<const BoxPartition> boxes_;
};

} // namespace dri::core
