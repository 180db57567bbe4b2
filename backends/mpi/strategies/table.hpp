// The strategies in one table: each one's name, how it is built (and so
// whether it applies), and the policy that picks among them: AUTO's cheap
// rule and MEASURE's candidates. Adding a strategy is one new file beside
// this one and one row in table.cpp.
#pragma once

#include "mpi/strategies/executor.hpp"
#include "mpi/strategy.hpp"

#include <vector>

namespace dri::detail {

struct StrategyRow {
    Strategy kind;
    const char* name; // as in messages: "P2P"
    // Collective over ctx.comm: an executor, or why the strategy does not
    // apply to this plan and these buffers (the same on every participant).
    Built (*build)(const core::LocalPlan& plan, const ExecutorContext& ctx);
    bool in_auto;    // AUTO tries the rows so marked, in table order
    bool in_measure; // MEASURE times the rows so marked
    // AUTO skips this row for transfers in which no process reads from
    // another (every strategy is then the same local copy).
    bool auto_needs_peers;
    // Whether its executor moves pieces (Executor::piece_ready): only such
    // rows serve a transfer with a split side.
    bool pieces;
};

const StrategyRow& strategy_row(Strategy s);

// How a requested strategy is resolved at commit.
struct Choice {
    std::vector<const StrategyRow*> candidates;
    // AUTO: the first candidate that applies is kept, the rest are not built.
    // MEASURE: every candidate that applies is built and timed.
    // A forced strategy: its one candidate must apply.
    bool first_that_applies = false;
    bool timed = false;
    // Adaptive AUTO: the first candidates that apply (up to
    // core::max_routes) are built and held, timed on the user's calls.
    bool adaptive = false;
};

// `peers`: whether some process of the transfer reads from another;
// `split`: whether a side of the pair is split into pieces (AUTO and
// MEASURE then keep the rows that move pieces); `learn`: whether AUTO
// learns (then its candidates are the rows of its rule, in order, followed
// by MEASURE's other rows).
Choice choose(Strategy requested, bool peers, bool split = false, bool learn = false);

} // namespace dri::detail
