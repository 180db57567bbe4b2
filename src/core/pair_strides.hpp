// The byte strides of the two buffers of a pair of processes, from each
// side's layout bound to each process's local extents: what the planner
// multiplies its element runs by (plan.cpp).
#pragma once

#include "core/plan.hpp"

#include <vector>

namespace dri::core {

struct Strides {
    std::vector<Index> s, r; // byte strides per dimension: sender's, receiver's
};

Strides byte_strides(const LocalLayout& sl, const LocalLayout& rl);

// The layout of process `index` of `side` bound to its local extents.
LocalLayout bind_side(const Side& side, int index);

// Byte strides between this process's buffer and the peers' buffers, each
// peer's own layout bound. Peers with equal local extents and one layout have
// equal strides, and in a block distribution nearly all peers do, so the last
// binding is kept.
class PeerStrides {
  public:
    PeerStrides(const LocalLayout& mine, const Side& peers, bool mine_sends)
        : mine_(mine), peers_(peers), mine_sends_(mine_sends) {}

    const Strides& get(int peer);

  private:
    const LocalLayout& mine_;
    const Side& peers_;
    bool mine_sends_;
    bool valid_ = false;
    std::vector<Index> extents_;
    const Layout* layout_ = nullptr; // the peer layout bound last
    Strides strides_;
};

} // namespace dri::core
