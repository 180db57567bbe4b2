// AUTO that learns, as the bindings see it: how much a transfer learns,
// freezing it, and what it has learned (strategies/adaptive.hpp holds the
// executor, core/route_learner.hpp the decisions).
#include "mpi/interface.hpp"

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

} // namespace dri::detail
