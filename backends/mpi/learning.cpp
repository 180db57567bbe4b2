// AUTO that learns, as the bindings see it: how much a transfer learns,
// freezing it, and what it has learned (strategies/adaptive.hpp holds the
// executor, core/route_learner.hpp the decisions).
#include "mpi/interface.hpp"

#include "mpi/learned_file.hpp"
#include "mpi/runtime/collectives.hpp"
#include "mpi/strategies/adaptive.hpp"

namespace dri::detail {

using core::Errc;

namespace {

void require_committed(const TransferImpl& t) {
    require_initialized();
    if (!t.committed) core::fail(Errc::state, "transfer '" + t.name + "' is not committed");
}

} // namespace

void set_learning(TransferImpl& t, core::Learning mode) {
    require_initialized();
    if (t.committed) core::fail(Errc::state, "transfer '" + t.name + "' is already committed");
    if (static_cast<int>(mode) < static_cast<int>(core::Learning::off) ||
        static_cast<int>(mode) > static_cast<int>(core::Learning::on))
        core::fail(Errc::arg, "unknown learning mode " + std::to_string(static_cast<int>(mode)) +
                                  " (DRI_LEARNING_OFF, _ONCE or _ON)");
    t.learning = mode;
}

// The learners finish their agreements in flight before they freeze, so
// the decision of the last exploring call counts.
void freeze_learning(TransferImpl& t, bool on) {
    require_committed(t);
    require_no_mpi_failure(t);
    if (t.in_flight)
        core::fail(Errc::state, "transfer '" + t.name +
                                    "' has a reorganization in flight; freeze or resume between "
                                    "reorganizations");
    for (AdaptiveExecutor* a : t.learners)
        a->freeze(on);
}

Strategy route_in_use(const TransferImpl& t) {
    require_committed(t);
    return t.learners.empty() ? t.chosen : t.learners.front()->current();
}

LearningReport learning_report(const TransferImpl& t) {
    require_committed(t);
    if (t.learners.empty()) return {{t.chosen}, {}};
    return {t.learners.front()->kinds(), t.learners.front()->report()};
}

void set_learned_file(TransferImpl& t, const char* path) {
    require_initialized();
    if (t.committed) core::fail(Errc::state, "transfer '" + t.name + "' is already committed");
    t.learned_file = path ? path : "";
}

namespace {

// The outcome of every pair's processes: each pair agrees on it in pair
// order (a process takes part in the agreement of every pair it is in, so
// none waits for one that gave up early), and any failure fails them all.
void agree_over_pairs(const TransferImpl& t, const Status& mine) {
    Status outcome = mine;
    for (AdaptiveExecutor* a : t.learners) {
        const Status st = agreed(a->comm(), mine);
        if (st.failed() && !outcome.failed()) outcome = st;
    }
    if (outcome.failed()) throw AgreedError(outcome.code, outcome.message);
}

} // namespace

// Every pair of a transfer shares its sending side, so its first sending
// process is in each pair: it writes the entries of all of them (each
// pair's learner is the same on each of its processes), then every pair
// agrees on the outcome.
void save_learned(TransferImpl& t, const char* path) {
    require_committed(t);
    const Status checked = capture([&] {
        require_no_mpi_failure(t);
        if (t.in_flight)
            core::fail(Errc::state, "transfer '" + t.name +
                                        "' has a reorganization in flight; save what it learned "
                                        "between reorganizations");
        if (!path || !*path) core::fail(Errc::arg, "no path to save the learned file to");
    });
    agree_over_pairs(t, checked);
    std::vector<core::LearnedEntry> entries;
    bool writer = false;
    for (AdaptiveExecutor* a : t.learners) {
        const LearnedKeys keys = learned_keys(a->file_identity().plan_key, a->comm());
        int rank = 0;
        check_mpi(MPI_Comm_rank(a->comm(), &rank), "MPI_Comm_rank");
        writer = writer || rank == a->file_identity().first_sender;
        entries.push_back(learned_entry(*a, keys));
    }
    agree_over_pairs(t, capture([&] {
                         if (writer) write_learned_file(path, entries);
                     }));
}

} // namespace dri::detail
