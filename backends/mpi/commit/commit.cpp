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
// 4. communicators: one per pair of the sending side and a receiving side
//    (a name has several receiving sides when it fans out).
// 5. plans and executors: the strategies the request allows
//    (candidates.cpp, strategies/table.cpp); all agree on the outcome.
// 6. measurement: with several candidates, time them and keep the fastest.
// 7. installation: the transfers take their executors.
#include "mpi/commit/commit.hpp"

#include "mpi/commit/candidates.hpp"
#include "mpi/commit/rendezvous.hpp"
#include "mpi/runtime/init.hpp"
#include "mpi/runtime/kernel_tuning.hpp"
#include "mpi/shared_memory.hpp"
#include "mpi/strategies/executor.hpp"
#include "mpi/strategies/fanout.hpp"

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
        for (const TransferImpl::Refusal& r : t->refused)
            if (r.code != Errc::success)
                core::fail(r.code, "this process refused a role of the transfer, which it "
                                   "committed all the same: " +
                                       r.message);
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

// Phase 4: one communicator per pair (sending side, receiving side) over
// the pair's participants (collective over `work`, names in sorted order and
// receiving sides in order on every process); null where this process takes
// no part.
using PairComms = std::map<std::string, std::vector<MPI_Comm>>;

PairComms split_by_pair(MPI_Comm work, const Names& names, const Local& local) {
    int me = 0;
    check_mpi(MPI_Comm_rank(work, &me), "MPI_Comm_rank");
    PairComms comms;
    for (const auto& [name, m] : names) {
        const auto it = local.find(name);
        for (std::size_t k = 0; k < m.recv.size(); ++k) {
            const bool part = it != local.end() &&
                              (it->second->send || it->second->recv_side == static_cast<int>(k));
            MPI_Comm c = MPI_COMM_NULL;
            check_mpi(MPI_Comm_split(work, part ? 0 : MPI_UNDEFINED, me, &c), "MPI_Comm_split");
            if (part) {
                count_handle(+1);
                check_mpi(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
            }
            comms[name].push_back(c);
        }
    }
    return comms;
}

// Frees the per-pair communicators when the commit ends (executors hold
// duplicates of their own).
struct ScopedPairComms {
    PairComms comms;
    ~ScopedPairComms() {
        for (auto& [name, cs] : comms)
            for (MPI_Comm& c : cs)
                free_comm(c);
    }
};

// Phase 5 for one transfer: the candidates of every pair it takes part in.
struct Pairs {
    std::vector<Candidates> built;
    std::vector<bool> receives;
};

// Every pair is built even after one failed (its error is agreed among its
// participants only): the processes of a later pair, or of a later
// transfer, wait in its collectives for this one. `first` keeps the first
// failure, which the caller agrees on over every process.
void build_pairs(const TransferImpl& t, const core::Match& m, const std::vector<MPI_Comm>& comms,
                 Pairs& p, Status& first) {
    for (std::size_t k = 0; k < comms.size(); ++k) {
        if (comms[k] == MPI_COMM_NULL) continue;
        const bool receives = t.recv_side == static_cast<int>(k);
        const int ri = receives ? t.recv->dist->group->my_index : -1;
        const Status st = capture([&] {
            p.built.push_back(build_candidates(t, m, k, ri, comms[k]));
            p.receives.push_back(receives);
        });
        if (st.failed() && !first.failed()) first = st;
    }
}

// Phase 7.
void install(const Local& local, Names& names, std::map<std::string, Pairs>& built) {
    for (auto& [name, p] : built) {
        TransferImpl& t = *local.at(name);
        t.pin_rings();
        t.sides = std::make_shared<const core::Match>(std::move(names.at(name)));
        std::vector<PairExecutor> execs;
        t.learners.clear();
        for (std::size_t i = 0; i < p.built.size(); ++i) {
            if (p.built[i].adaptive) t.learners.push_back(p.built[i].adaptive);
            execs.push_back({std::move(p.built[i].execs.front()), p.receives[i]});
        }
        t.exec = make_fanout(std::move(execs));
        t.chosen = p.built.front().kinds.front();
        if (t.send && t.send->piece_dim >= 0)
            t.marked = std::make_unique<std::atomic<bool>[]>(
                static_cast<std::size_t>(t.send->piece_count));
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
    tune_kernels_once(); // local, once per process: before the plans use them
    const ScopedComm work(library_dup(comm));
    Local local;
    agree(work.get(), pre.failed() ? pre : capture([&] { local = check_local(comm, xfers); }));
    Names names = exchange_declarations(work.get(), xfers);
    // Which receiving side each transfer's receiving role is in, found once
    // (from its side's description) for the phases that follow.
    for (const auto& [name, t] : local)
        t->recv_side = receiving_side(*t, names.at(name));
    const ScopedPairComms comms{split_by_pair(work.get(), names, local)};
    std::map<std::string, Pairs> built;
    Status first;
    for (const auto& [name, t] : local)
        build_pairs(*t, names.at(name), comms.comms.at(name), built[name], first);
    agree(work.get(), first);
    agree(work.get(), capture([&] {
              for (auto& [name, p] : built)
                  for (std::size_t i = 0; i < p.built.size(); ++i)
                      if (p.built[i].execs.size() > 1)
                          keep_fastest(*local.at(name), p.built[i], p.receives[i]);
          }));
    install(local, names, built);
}

} // namespace dri::detail
