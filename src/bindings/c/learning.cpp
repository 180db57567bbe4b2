// The C binding (include/dri/dri.h), AUTO that learns: how much a transfer
// learns, freezing it, and what it learned.
#include "bindings/c/convert.hpp"
#include "bindings/c/registry.hpp"

using namespace dri::capi;
namespace detail = dri::detail;
namespace core = dri::core;

static_assert(DRI_LEARNING_OFF == static_cast<int>(core::Learning::off) &&
              DRI_LEARNING_ONCE == static_cast<int>(core::Learning::once) &&
              DRI_LEARNING_ON == static_cast<int>(core::Learning::on));
static_assert(DRI_ROUTES_ONE == static_cast<int>(core::RouteReport::Phase::single) &&
              DRI_ROUTES_LEARNING == static_cast<int>(core::RouteReport::Phase::learning) &&
              DRI_ROUTES_SETTLED == static_cast<int>(core::RouteReport::Phase::settled) &&
              DRI_ROUTES_FROZEN == static_cast<int>(core::RouteReport::Phase::frozen));

extern "C" {

int DRI_Transfer_set_learning(DRI_Transfer xfer, DRI_Learning mode) {
    return api([&] {
        detail::require_initialized();
        detail::set_learning(*lookup<XferP>(xfer, "transfer"),
                             static_cast<core::Learning>(raw(mode)));
    });
}

int DRI_Transfer_freeze(DRI_Transfer xfer, int frozen) {
    return api([&] {
        detail::require_initialized();
        detail::freeze_learning(*lookup<XferP>(xfer, "transfer"), frozen != 0);
    });
}

int DRI_Transfer_routes(DRI_Transfer xfer, int* count) {
    return api([&] {
        detail::require_initialized();
        const XferP t = lookup<XferP>(xfer, "transfer");
        need_ptr(count, "DRI_Transfer_routes: count");
        *count = static_cast<int>(detail::learning_report(*t).routes.size());
    });
}

int DRI_Transfer_route(DRI_Transfer xfer, int k, DRI_Strategy* strategy, double* seconds) {
    return api([&] {
        detail::require_initialized();
        const XferP t = lookup<XferP>(xfer, "transfer");
        need_ptr(strategy, "DRI_Transfer_route: strategy");
        need_ptr(seconds, "DRI_Transfer_route: seconds");
        const detail::LearningReport r = detail::learning_report(*t);
        if (k < 0 || k >= static_cast<int>(r.routes.size()))
            core::fail(core::Errc::arg, "transfer '" + t->name + "' holds " +
                                            std::to_string(r.routes.size()) + " route" +
                                            (r.routes.size() == 1 ? "" : "s") +
                                            ", there is no route " + std::to_string(k));
        *strategy = static_cast<DRI_Strategy>(r.routes[static_cast<std::size_t>(k)]);
        *seconds = r.report.seconds[static_cast<std::size_t>(k)];
    });
}

int DRI_Transfer_learning(DRI_Transfer xfer, DRI_Route_state* state, DRI_Index* calls,
                          DRI_Index* explored, DRI_Index* switches) {
    return api([&] {
        detail::require_initialized();
        const core::RouteReport r =
            detail::learning_report(*lookup<XferP>(xfer, "transfer")).report;
        if (state) *state = static_cast<DRI_Route_state>(r.phase);
        if (calls) *calls = r.calls;
        if (explored) *explored = r.explored;
        if (switches) *switches = r.switches;
    });
}

int DRI_Transfer_set_learned_file(DRI_Transfer xfer, const char* path) {
    return api([&] {
        detail::require_initialized();
        detail::set_learned_file(*lookup<XferP>(xfer, "transfer"), path);
    });
}

int DRI_Transfer_save_learned(DRI_Transfer xfer, const char* path) {
    return api([&] {
        detail::require_initialized();
        detail::save_learned(*lookup<XferP>(xfer, "transfer"), path);
    });
}

int DRI_Transfer_learned_seeded(DRI_Transfer xfer, int* seeded) {
    return api([&] {
        detail::require_initialized();
        const XferP t = lookup<XferP>(xfer, "transfer");
        need_ptr(seeded, "DRI_Transfer_learned_seeded: seeded");
        *seeded = detail::learning_report(*t).report.seeded ? 1 : 0;
    });
}

} // extern "C"
