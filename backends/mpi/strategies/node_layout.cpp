#include "mpi/strategies/node_layout.hpp"

#include <climits>

namespace dri::detail {

// A contiguous message of `bytes` at `offset` of a buffer; above INT_MAX
// bytes, a byte-range datatype (offset included), as an int count cannot
// say it.
Wire contiguous(int rank, core::Index offset, core::Index bytes) {
    Wire w{rank, offset, bytes, {}};
    if (bytes > INT_MAX) w.type = byte_range_datatype(offset, bytes);
    return w;
}

// One message whose pieces sit at `blocks` (offset, bytes) of a buffer, in
// stream order: a datatype of byte blocks (adjacent blocks merged).
Wire gathering(int rank, const std::vector<std::pair<core::Index, core::Index>>& blocks) {
    std::vector<core::Region> regs;
    core::Index bytes = 0;
    for (const auto& [offset, n] : blocks) {
        bytes += n;
        if (!regs.empty() && regs.back().s_off + regs.back().axes[0].n == offset) {
            regs.back().axes[0].n += n;
            continue;
        }
        regs.push_back(core::Region{offset, offset, {{n, 1, 1}}});
    }
    return Wire{rank, 0, bytes, regions_datatype(regs, SideOf::sender, 1)};
}

// The pieces of this node's processes to other nodes (`outgoing`) or from
// them: each keyed by the other node first.
Pieces node_pieces(const NodeMap& map, bool outgoing) {
    Pieces pieces;
    for (const NodeMember& m : map.members)
        for (const NodeLink& l : outgoing ? m.out : m.in) {
            const int node = map.node_of[static_cast<std::size_t>(l.peer)];
            if (outgoing)
                pieces[{node, l.peer, m.rank}] = l.bytes;
            else
                pieces[{node, m.rank, l.peer}] = l.bytes;
        }
    return pieces;
}

// Lays out the aggregates of `pieces`: one per node, contiguous, pieces by
// receiver then sender. Returns each piece's offset; `wires` gets one
// message per node (to or from its leader).
Layout lay_out(const Pieces& pieces, std::vector<Wire>& wires) {
    Layout at;
    core::Index offset = 0;
    auto close = [&] {
        if (!wires.empty())
            wires.back() =
                contiguous(wires.back().rank, wires.back().offset, offset - wires.back().offset);
    };
    for (const auto& [key, bytes] : pieces) {
        const auto [node, to, from] = key;
        if (wires.empty() || wires.back().rank != node) {
            close();
            wires.push_back(Wire{node, offset, 0, {}});
        }
        at[{to, from}] = offset;
        offset = core::checked_add(offset, bytes, "bytes between nodes");
    }
    close();
    return at;
}

core::Index end_of(const std::vector<Wire>& wires) {
    return wires.empty() ? 0 : wires.back().offset + wires.back().bytes;
}

} // namespace dri::detail
