// What the executors that move pieces (core/pieces.hpp) share: counting, per
// receive piece, the messages or copies that land in it, and the self part
// of one send piece.
#pragma once

#include "mpi/strategies/base.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace dri::detail {

// Per receive piece: how many groups (a message, a copy, a self part) land
// in it, and how many of the reorganization in flight have not landed yet.
// Groups land from the thread that completes them (a receive, a marking of
// a send piece), so the counts are atomic; made at commit, reset at start.
class PieceArrivals {
  public:
    void build(int pieces) { total_.assign(static_cast<std::size_t>(pieces), 0); }
    // At commit, once per group: the pieces it lands in.
    void count(const std::vector<int>& lands) {
        for (int j : lands)
            ++total_.at(static_cast<std::size_t>(j));
    }
    void reset() {
        if (!left_) left_ = std::make_unique<std::atomic<int>[]>(total_.size());
        for (std::size_t j = 0; j < total_.size(); ++j)
            left_[j].store(total_[j], std::memory_order_relaxed);
    }
    void landed(const std::vector<int>& lands) {
        for (int j : lands)
            left_[static_cast<std::size_t>(j)].fetch_sub(1, std::memory_order_acq_rel);
    }
    bool arrived(int k) const {
        return left_[static_cast<std::size_t>(k)].load(std::memory_order_acquire) == 0;
    }

  private:
    std::vector<int> total_;
    std::unique_ptr<std::atomic<int>[]> left_;
};

// The self part of send piece k (every group of `groups` with that piece):
// copied or combined from `send` into `recv`, then counted as landed. `whole`:
// the bytes of the whole self part, of which each piece is a part.
inline void run_self_piece(const std::vector<core::LocalPlan::SelfPiece>& groups, int k,
                           const std::vector<core::Region>& self, const Arrival& arrival,
                           const std::byte* send, std::byte* recv, PieceArrivals& arrivals,
                           core::Index whole) {
    for (const core::LocalPlan::SelfPiece& g : groups) {
        if (g.piece != k) continue;
        for (std::size_t r = g.begin; r < g.end; ++r)
            arrival.region(send, recv, self[r], whole);
        arrivals.landed(g.lands);
    }
}

// For the pairs that move in several pieces, the bytes of all of them, for
// each piece's copies (`whole`); 0 for a pair in one piece, whose copies
// decide by their own size as before. bytes_of(m) and whole_of(m) are a
// message's (or a group's) bytes and where its pair's sum goes.
template <class Group, class Bytes, class Whole>
void set_pair_bytes(std::vector<Group>& groups, Bytes bytes_of, Whole whole_of) {
    std::map<int, std::pair<core::Index, int>> pairs; // rank -> bytes, groups
    for (const Group& g : groups) {
        auto& [bytes, count] = pairs[g.rank];
        bytes += bytes_of(g);
        ++count;
    }
    for (Group& g : groups) {
        const auto& [bytes, count] = pairs[g.rank];
        whole_of(g) = count > 1 ? bytes : 0;
    }
}

// The bytes of the self part when it comes in several pieces (0: one).
inline core::Index self_whole(const core::LocalPlan& plan) {
    if (plan.self_pieces.size() < 2) return 0;
    core::Index bytes = 0;
    for (const core::Region& r : plan.self)
        bytes += r.elements() * plan.elem_size;
    return bytes;
}

} // namespace dri::detail
