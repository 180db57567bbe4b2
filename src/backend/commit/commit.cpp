// Commit: the rendezvous of named transfers and the construction of their
// plans, as phases (each collective over the committing communicator unless
// it says otherwise):
//
// 1. local checks: each process checks its own transfers; all agree.
// 2. rendezvous: the first process of each side's group publishes the side,
//    every process gets every side (rendezvous.cpp) ...
// 3. validation: ... and validates every name with the same data and the
//    same code (core/declaration.cpp), checks its own declarations against
//    their sides (agreed), and a count per side shows every member declared.
// 4. communicators: one per name over its participants.
// 5. plans and executors: the strategies the request allows
//    (candidates.cpp, strategies/table.cpp); all agree on the outcome.
// 6. measurement: with several candidates, time them and keep the fastest.
// 7. installation: the transfers take their executors.
#include "backend/commit/commit.hpp"

#include "backend/commit/candidates.hpp"
#include "backend/commit/rendezvous.hpp"
#include "backend/runtime/init.hpp"
#include "backend/shared_memory.hpp"
#include "backend/strategies/executor.hpp"

#include <map>

namespace dri::detail {

using core::Errc;

namespace {

using Names = std::map<std::string, core::Match>;
using Local = std::map<std::string, TransferImpl*>; // by name: the same order everywhere

void check_groups(MPI_Comm comm, const TransferImpl& t) {
    for (const auto* role : {&t.send, &t.recv}) {
        if (!*role) continue;
        int cmp = MPI_UNEQUAL;
        check_mpi(MPI_Comm_compare(comm, (*role)->dist->group->parent, &cmp), "MPI_Comm_compare");
        if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT)
            core::fail(Errc::group,
                       "transfer '" + t.name +
                           "': its groups belong to another communicator than the one committing");
    }
}

// Phase 1: the transfers this process passes, checked alone.
Local check_local(MPI_Comm comm, std::span<TransferImpl* const> xfers) {
    Local local;
    for (TransferImpl* t : xfers) {
        if (!t) core::fail(Errc::handle, "commit: null transfer");
        if (t->committed)
            core::fail(Errc::state, "transfer '" + t->name + "' is already committed");
        if (!t->send && !t->recv)
            core::fail(Errc::state,
                       "transfer '" + t->name + "' declares neither a sender nor a receiver role");
        if (!local.emplace(t->name, t).second)
            core::fail(Errc::duplicate,
                       "transfer name '" + t->name + "' passed twice to one commit");
        check_groups(comm, *t);
    }
    return local;
}

// Phase 4: one communicator per name over its participants (collective over
// `work`, names in sorted order on every process); null where this process
// takes no part.
std::map<std::string, MPI_Comm> split_by_name(MPI_Comm work, const Names& names,
                                              const Local& local) {
    int me = 0;
    check_mpi(MPI_Comm_rank(work, &me), "MPI_Comm_rank");
    std::map<std::string, MPI_Comm> comms;
    for (const auto& [name, m] : names) {
        const bool part = local.count(name) != 0;
        MPI_Comm c = MPI_COMM_NULL;
        check_mpi(MPI_Comm_split(work, part ? 0 : MPI_UNDEFINED, me, &c), "MPI_Comm_split");
        if (!part) continue;
        count_handle(+1);
        comms[name] = c;
        check_mpi(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    }
    return comms;
}

// Frees the per-name communicators when the commit ends (executors hold
// duplicates of their own).
struct NameComms {
    std::map<std::string, MPI_Comm> comms;
    ~NameComms() {
        for (auto& [name, c] : comms)
            free_comm(c);
    }
};

// Every ring buffer in DRI shared memory pins its allocation: DRI_Free_mem
// refuses while the transfer is committed, whatever the strategy.
void pin_rings(TransferImpl& t) {
    for (const auto* role : {&t.send, &t.recv}) {
        if (!*role) continue;
        for (const std::span<std::byte>& b : (*role)->buffers) {
            SharedBlock* blk = shared_find_own(b.data(), static_cast<core::Index>(b.size()));
            if (!blk) continue;
            shared_use(blk, +1);
            t.pinned.push_back(blk);
        }
    }
}

// Phase 7.
void install(const Local& local, std::map<std::string, Candidates>& built) {
    for (auto& [name, c] : built) {
        TransferImpl& t = *local.at(name);
        pin_rings(t);
        t.exec = std::move(c.execs.front());
        t.chosen = c.kinds.front();
        t.committed = true;
        for (auto* role : {&t.send, &t.recv})
            if (*role) (*role)->current = 0;
    }
}

} // namespace

void commit_transfers(MPI_Comm comm, std::span<TransferImpl* const> xfers, const Status& pre) {
    require_initialized();
    if (comm == MPI_COMM_NULL)
        core::fail(Errc::group, "commit: MPI_COMM_NULL is not a communicator");
    const ScopedComm work(library_dup(comm));
    Local local;
    agree(work.get(), pre.failed() ? pre : capture([&] { local = check_local(comm, xfers); }));
    Names names = exchange_declarations(work.get(), xfers);
    const NameComms comms{split_by_name(work.get(), names, local)};
    std::map<std::string, Candidates> built;
    agree(work.get(), capture([&] {
              for (const auto& [name, t] : local)
                  built[name] = build_candidates(*t, names.at(name), comms.comms.at(name));
          }));
    agree(work.get(), capture([&] {
              for (auto& [name, c] : built)
                  if (c.execs.size() > 1) keep_fastest(*local.at(name), c);
          }));
    install(local, built);
}

} // namespace dri::detail
