#include "mpi/commit/routes.hpp"

#include "mpi/learned_file.hpp"
#include "mpi/runtime/collectives.hpp"
#include "mpi/strategies/adaptive.hpp"
#include "mpi/strategies/scratch.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace dri::detail {

core::Learning learning_from_environment() {
    const char* v = std::getenv("DRI_AUTO_LEARNING");
    if (!v || std::strcmp(v, "on") == 0) return core::Learning::on;
    if (std::strcmp(v, "once") == 0) return core::Learning::once;
    if (std::strcmp(v, "off") == 0) return core::Learning::off;
    std::fprintf(stderr, "dri: DRI_AUTO_LEARNING=%s ignored (on, once or off)\n", v);
    return core::Learning::on;
}

core::Index learning_memory_cap() {
    const char* v = std::getenv("DRI_AUTO_MEMORY");
    if (!v) return default_learning_memory;
    char* end = nullptr;
    const long long n = std::strtoll(v, &end, 10);
    int shift = -1;
    if (end != v && n >= 0) {
        if (*end == '\0')
            shift = 0;
        else if (end[1] == '\0' && (*end == 'K' || *end == 'k'))
            shift = 10;
        else if (end[1] == '\0' && (*end == 'M' || *end == 'm'))
            shift = 20;
        else if (end[1] == '\0' && (*end == 'G' || *end == 'g'))
            shift = 30;
    }
    if (shift < 0 || n > (INT64_MAX >> shift)) {
        std::fprintf(stderr,
                     "dri: DRI_AUTO_MEMORY=%s ignored (bytes, with an optional K, M or G)\n", v);
        return default_learning_memory;
    }
    return static_cast<core::Index>(n) << shift;
}

namespace {

// One route built, its place in the arena and the scratch it needs there
// and outside it (NODES' buffers, which exist while it is built).
struct Built1 {
    Route route;
    std::size_t arena_index = 0;
    core::Index bytes = 0;
};

std::vector<Built1> build_each(const Choice& choice, const core::LocalPlan& plan,
                               ExecutorContext& ctx, MPI_Comm comm) {
    std::vector<Built1> built;
    std::size_t arena_routes = 0;
    bool shared = false;
    for (const StrategyRow* row : choice.candidates) {
        if (built.size() == static_cast<std::size_t>(core::max_routes)) break;
        // Where SHARED applies, HYBRID would be SHARED with no messages.
        if (row->kind == Strategy::hybrid && shared) continue;
        ctx.arena->begin_route();
        const std::size_t at = arena_routes++;
        ctx.comm = library_dup(comm); // the executor owns it from here, even if it fails
        const core::Index own = scratch_bytes_held();
        Built b = row->build(plan, ctx);
        if (!b.exec) continue; // the same verdict on every process: all skip it
        const core::Index bytes = ctx.arena->route_bytes(at) + (scratch_bytes_held() - own);
        built.push_back({{row->kind, std::move(b.exec)}, at, bytes});
        shared = shared || row->kind == Strategy::shared;
    }
    return built;
}

// Collective: the routes every process can hold within the cap (the static
// rule's route always), the others released.
void keep_within_cap(std::vector<Built1>& built, MPI_Comm comm) {
    const core::Index cap = std::max(learning_memory_cap(), built.front().bytes);
    int fits[core::max_routes] = {1, 1, 1};
    for (std::size_t k = 1; k < built.size(); ++k)
        fits[k] = built[k].bytes <= cap ? 1 : 0;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, fits, core::max_routes, MPI_INT, MPI_MIN, comm),
              "MPI_Allreduce");
    std::vector<Built1> kept;
    for (std::size_t k = 0; k < built.size(); ++k) {
        if (fits[k])
            kept.push_back(std::move(built[k]));
        else
            built[k].route.exec->release();
    }
    built = std::move(kept);
}

} // namespace

Candidates build_routes(const Choice& choice, const core::LocalPlan& plan, ExecutorContext ctx,
                        MPI_Comm comm, const LearningAsked& asked) {
    ctx.arena = std::make_shared<ScratchArena>();
    ctx.asked = ExecutorContext::Asked::automatic;
    std::vector<Built1> built = build_each(choice, plan, ctx, comm);
    if (built.empty()) core::fail(core::Errc::internal, "no strategy applies");
    keep_within_cap(built, comm);
    std::vector<bool> kept(ctx.arena->routes(), false);
    for (const Built1& b : built)
        kept[b.arena_index] = true;
    ctx.arena->allocate(kept); // every route's scratch exists before any runs
    Candidates c;
    c.kinds.push_back(built.front().route.kind);
    if (built.size() == 1) {
        c.execs.push_back(std::move(built.front().route.exec));
        return c;
    }
    core::LearnerConfig cfg = learning_schedule();
    cfg.routes = static_cast<int>(built.size());
    cfg.mode = asked.mode;
    std::vector<Route> routes;
    for (Built1& b : built)
        routes.push_back(std::move(b.route));
    const AdaptiveExecutor::FileIdentity id{core::plan_key(plan), ctx.send_rank.at(0)};
    auto adaptive =
        std::make_unique<AdaptiveExecutor>(std::move(routes), library_dup(comm), cfg, id);
    if (asked.from_file)
        seed_from_learned_file(*adaptive, learned_path(*asked.transfer), asked.transfer->name,
                               comm);
    c.adaptive = adaptive.get();
    c.execs.push_back(std::move(adaptive));
    return c;
}

} // namespace dri::detail
