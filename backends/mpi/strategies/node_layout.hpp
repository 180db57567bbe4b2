// How NODES lays out a node's aggregates (node_relay.cpp): one per other
// node, contiguous, pieces by receiver rank then sender rank. The leaders
// of both nodes and the processes of each node compute the same layout
// from the node map, so no offset travels in DRI_Do; and the messages the
// relay sends, contiguous or by a datatype of byte blocks.
#pragma once

#include "mpi/datatype.hpp"
#include "mpi/strategies/node_map.hpp"

#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace dri::detail {

// A message of contiguous bytes, or of a datatype over a buffer.
struct Wire {
    int rank = 0;
    core::Index offset = 0, bytes = 0;
    Datatype type; // a gathering type, or a byte range above INT_MAX
};

// The pieces between nodes of a node's processes: (node, receiver, sender)
// -> bytes, the node being the other one (its leader's rank).
using Pieces = std::map<std::tuple<int, int, int>, core::Index>;
// Where each piece of an aggregate sits: (receiver, sender) -> offset.
using Layout = std::map<std::pair<int, int>, core::Index>;

// A contiguous message of `bytes` at `offset` of a buffer (a byte-range
// datatype above INT_MAX bytes).
Wire contiguous(int rank, core::Index offset, core::Index bytes);

// One message whose pieces sit at `blocks` (offset, bytes) of a buffer, in
// stream order: a datatype of byte blocks.
Wire gathering(int rank, const std::vector<std::pair<core::Index, core::Index>>& blocks);

// The pieces of this node's processes to other nodes (`outgoing`) or from
// them: each keyed by the other node first.
Pieces node_pieces(const NodeMap& map, bool outgoing);

// Lays out the aggregates of `pieces`. Returns each piece's offset; `wires`
// gets one message per node (to or from its leader).
Layout lay_out(const Pieces& pieces, std::vector<Wire>& wires);

// The bytes of the aggregates `wires` covers.
core::Index end_of(const std::vector<Wire>& wires);

} // namespace dri::detail
