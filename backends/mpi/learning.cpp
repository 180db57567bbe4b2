// AUTO that learns, as the bindings see it: how much a transfer learns,
// freezing it, and what it has learned (strategies/adaptive.hpp holds the
// executor, core/route_learner.hpp the decisions).
#include "mpi/interface.hpp"

#include "mpi/learned_file.hpp"
#include "mpi/runtime/collectives.hpp"
#include "mpi/strategies/adaptive.hpp"

#include <cstring>

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

// An entry on the wire between processes: fixed size, so that the
// processes' parts concatenate.
struct WireEntry {
    std::uint64_t transfer, nodes;
    std::int32_t current, routes, strategies[core::max_routes];
    double seconds[core::max_routes];
};

std::vector<std::byte> to_wire(const std::vector<core::LearnedEntry>& entries) {
    std::vector<std::byte> bytes(entries.size() * sizeof(WireEntry));
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const core::LearnedEntry& e = entries[i];
        WireEntry w{e.transfer, e.nodes,
                    e.current,  static_cast<std::int32_t>(e.strategies.size()),
                    {},         {-1, -1, -1}};
        for (std::size_t k = 0; k < e.strategies.size(); ++k) {
            w.strategies[k] = e.strategies[k];
            w.seconds[k] = e.seconds[k];
        }
        std::memcpy(bytes.data() + i * sizeof w, &w, sizeof w);
    }
    return bytes;
}

std::vector<core::LearnedEntry> from_wire(const std::vector<std::byte>& bytes) {
    std::vector<core::LearnedEntry> entries(bytes.size() / sizeof(WireEntry));
    for (std::size_t i = 0; i < entries.size(); ++i) {
        WireEntry w;
        std::memcpy(&w, bytes.data() + i * sizeof w, sizeof w);
        core::LearnedEntry& e = entries[i];
        e.transfer = w.transfer;
        e.nodes = w.nodes;
        e.current = w.current;
        e.strategies.assign(w.strategies, w.strategies + w.routes);
        e.seconds.assign(w.seconds, w.seconds + w.routes);
    }
    return entries;
}

} // namespace

// Each pair's first process holds its entry; the parent's first process
// gathers them and writes the file, and every process returns its outcome.
void save_learned(TransferImpl& t, const char* path) {
    require_initialized();
    if (t.parent() == MPI_COMM_NULL)
        core::fail(Errc::state,
                   "transfer '" + t.name + "' declares neither a sender nor a receiver role");
    const ScopedComm comm(library_dup(t.parent()));
    agree(comm.get(), capture([&] {
              require_committed(t);
              require_no_mpi_failure(t);
              if (t.in_flight)
                  core::fail(Errc::state, "transfer '" + t.name +
                                              "' has a reorganization in flight; save what it "
                                              "learned between reorganizations");
              if (!path || !*path) core::fail(Errc::arg, "no path to save the learned file to");
          }));
    std::vector<core::LearnedEntry> mine;
    for (AdaptiveExecutor* a : t.learners) {
        const LearnedKeys keys = learned_keys(a->plan_key(), a->comm());
        int rank = 0;
        check_mpi(MPI_Comm_rank(a->comm(), &rank), "MPI_Comm_rank");
        if (rank == 0) mine.push_back(learned_entry(*a, keys));
    }
    std::vector<core::Index> sizes;
    const std::vector<std::byte> all = allgather_bytes(comm.get(), to_wire(mine), sizes);
    int rank = 0;
    check_mpi(MPI_Comm_rank(comm.get(), &rank), "MPI_Comm_rank");
    agree(comm.get(), capture([&] {
              const std::vector<core::LearnedEntry> entries = from_wire(all);
              if (rank == 0 && !entries.empty()) write_learned_file(path, entries);
          }));
}

} // namespace dri::detail
