// One reorganization as the benchmark's methods see it: the planning core's
// distributions and layouts of both sides, which rank of the benchmark's
// communicator plays which role, and the boxes of global elements each
// sender -> receiver pair exchanges (what the hand-written baselines move).
#pragma once

#include "core/plan.hpp"
#include "spec_options.hpp"

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

namespace dri::bench {

using core::Index;

// A box of global elements moved between two ranks: one piece of a pair.
struct Box {
    std::vector<Index> first, count;
    Index elements() const;
};

class Problem {
  public:
    // Ranks are ranks of `comm`; empty lists mean ranks 0..procs-1 (procs 0:
    // every rank of comm). Throws dri::core::Error on a malformed spec.
    Problem(const tools::SpecOptions& spec, std::vector<int> send_ranks,
            std::vector<int> recv_ranks, MPI_Comm comm);

    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0, size = 1;
    core::Shape shape{{1}, core::ElementType::predefined(core::ElemKind::byte)};
    std::unique_ptr<core::Distribution> sd, rd;
    core::Layout sl = core::Layout::packed(1), rl = core::Layout::packed(1);
    std::vector<int> send_ranks, recv_ranks;       // comm rank of each side index
    std::vector<int> send_index_of, recv_index_of; // per comm rank: side index or -1
    int me_send = -1, me_recv = -1;                // this rank's side indices or -1
    Index send_bytes = 0, recv_bytes = 0;          // this rank's buffer sizes (0: no role)

    Index elem() const { return shape.elem_size(); }
    core::Side send_side() const { return {sd.get(), sl}; }
    core::Side recv_side() const { return {rd.get(), rl}; }
    // Sender layout bound to sender s's block, receiver layout to receiver r's.
    core::LocalLayout send_local(int s) const;
    core::LocalLayout recv_local(int r) const;
    // The boxes sender index s sends to receiver index r.
    std::vector<Box> boxes(int s, int r) const;
    // What this rank sends to / receives from comm rank p.
    std::vector<Box> sends_to(int p) const;
    std::vector<Box> recvs_from(int p) const;
    // Local index of global g along dimension dim at grid coordinate c
    // (sender: owned cells; receiver: stored cells).
    static Index local_of(const core::Distribution& d, int dim, int c, Index g, bool stored);
    // Byte offset of a box's first element in the sender's / receiver's block.
    Index send_offset(int s, const Box& b) const;
    Index recv_offset(int r, const Box& b) const;
    // Why the hand-written baselines cannot express this reorganization, or
    // "" when they can (they move owned cells; edge fills are not theirs).
    std::string baseline_limit() const;
    // Every rank of comm is sender i and receiver i, in order (a clique).
    bool is_clique() const;
    // The corner turn: 2-D block,whole row-major -> whole,block column-major.
    bool is_corner_turn() const;
};

} // namespace dri::bench
