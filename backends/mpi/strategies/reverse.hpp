// The executor of a reverse transfer: every receiver cell that holds a copy
// of a sender element goes back to that element and is combined into it.
//
// Messages only: each forward receiver sends each forward sender the copies
// it holds (packed, or straight from its buffer where P2P would), and each
// forward sender receives into scratch, since contributions are combined,
// not stored. The contributions to an element are combined in a fixed order
// (the process's own copies first, then its peers in plan order, whatever
// order their messages arrive in), so a floating-point SUM gives the same
// bits on every run.
#pragma once

#include "kernels/combine.hpp"
#include "mpi/strategies/executor.hpp"

#include <memory>
#include <vector>

namespace dri::detail {

// One pair's share of the reverse on this process.
struct ReversePart {
    core::LocalPlan plan;       // core::reverse_plan of the pair's forward plan
    std::vector<int> send_rank; // plan.sends' peer (a forward sender) -> rank in comm
    std::vector<int> recv_rank; // plan.recvs' peer (a forward receiver) -> rank in comm
};

// `comm` (owned from now on) spans every process of every part.
std::unique_ptr<Executor> make_reverse(const std::vector<ReversePart>& parts, MPI_Comm comm,
                                       const core::ElementType& type, core::CombineOp op);

} // namespace dri::detail
