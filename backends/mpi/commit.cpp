// Commit: the rendezvous of named transfers and the construction of their plans.
//
// 1. Every process of the communicator checks its own transfers locally, then
//    all agree on the outcome (any local error fails the call everywhere).
// 2. Every process publishes one declaration per role it plays (name, role,
//    its group index, the side's shape/partition/layout, its buffer sizes);
//    the declarations are allgathered, so every process sees all of them.
// 3. Every process validates every name with the same data and the same
//    code, so an invalid transfer gives the same error on every process
//    without further communication.
// 4. One communicator per name over its participants (MPI_Comm_split on the
//    library's duplicate, names in sorted order), then each process builds
//    its executor; the outcome is agreed once more.
#include "commit.hpp"

#include "executor.hpp"
#include "runtime.hpp"
#include "wire.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <map>
#include <tuple>

namespace dri::detail {

using core::Errc;
using core::Index;

namespace {

// What every process of one side must agree on, in canonical form.
std::string side_description(const Role& role) {
    const GroupImpl& g = *role.dist->group;
    const core::Distribution& d = role.dist->dist;
    Writer w;
    w.i64(static_cast<Index>(g.ranks.size()));
    w.i64(static_cast<Index>(fnv1a(g.ranks)));
    write_shape_partition(w, d.shape(), d.partition());
    w.i64(role.layout.has_explicit_strides() ? 1 : 0);
    if (role.layout.has_explicit_strides()) {
        w.vec(role.layout.strides());
    } else {
        w.vec(role.layout.order());
        w.vec(role.layout.pad());
    }
    return w.str_bytes();
}

struct SideData {
    Index group_size = 0;
    std::uint64_t group_hash = 0;
    core::Shape shape{{1}, core::ElementType::predefined(core::ElemKind::byte)};
    core::Partition part;
    core::Layout layout = core::Layout::packed(1);
};

SideData parse_description(const std::string& desc) {
    Reader r(reinterpret_cast<const std::byte*>(desc.data()), desc.size());
    SideData s;
    s.group_size = r.i64();
    s.group_hash = static_cast<std::uint64_t>(r.i64());
    std::tie(s.shape, s.part) = read_shape_partition(r);
    if (r.i64()) {
        s.layout = core::Layout::strided(r.vec<Index>());
    } else {
        std::vector<int> order = r.vec<int>();
        s.layout = core::Layout::ordered(std::move(order), r.vec<Index>());
    }
    return s;
}

// One role of one process, as published.
struct Decl {
    std::string name;
    int role = 0; // 0 sender, 1 receiver
    int rank = 0; // in the commit communicator
    Strategy strategy = Strategy::automatic;
    std::string desc;
    int index = -1;         // in the side's group
    std::vector<int> ranks; // the group, published by its index 0 only
    std::vector<Index> sizes;
};

void write_decl(Writer& w, const TransferImpl& t, int role_id, const Role& role) {
    w.str(t.name);
    w.i64(role_id);
    w.i64(static_cast<Index>(t.strategy));
    w.str(side_description(role));
    const GroupImpl& g = *role.dist->group;
    w.i64(g.my_index);
    if (g.my_index == 0)
        w.vec(g.ranks);
    else
        w.vec(std::vector<int>{});
    std::vector<Index> sizes;
    for (const auto& b : role.buffers)
        sizes.push_back(static_cast<Index>(b.size()));
    w.vec(sizes);
}

Decl read_decl(Reader& r, int rank) {
    Decl d;
    d.rank = rank;
    d.name = r.str();
    d.role = static_cast<int>(r.i64());
    d.strategy = static_cast<Strategy>(r.i64());
    d.desc = r.str();
    d.index = static_cast<int>(r.i64());
    d.ranks = r.vec<int>();
    d.sizes = r.vec<Index>();
    return d;
}

const char* role_name(int role) {
    return role == 0 ? "sending" : "receiving";
}

// Everything known about one name after the exchange.
struct Named {
    std::vector<Decl> side[2];
    std::vector<int> ranks[2]; // group of each side, in group order
    std::unique_ptr<core::Distribution> dist[2];
    core::Layout layout[2] = {core::Layout::packed(1), core::Layout::packed(1)};
    Strategy strategy = Strategy::automatic;
    std::vector<int> participants; // sorted ranks of the commit communicator
};

// Same data, same code on every process: same verdict everywhere.
void validate(const std::string& name, Named& n) {
    const std::string what = "transfer '" + name + "': ";
    for (int s = 0; s < 2; ++s)
        if (n.side[s].empty())
            core::fail(Errc::no_partner, what + "has a " + role_name(1 - s) +
                                             " side but no process declared the " + role_name(s) +
                                             " role");
    for (int s = 0; s < 2; ++s) {
        auto& decls = n.side[s];
        std::sort(decls.begin(), decls.end(),
                  [](const Decl& a, const Decl& b) { return a.rank < b.rank; });
        for (std::size_t i = 1; i < decls.size(); ++i)
            if (decls[i].rank == decls[i - 1].rank)
                core::fail(Errc::duplicate, what + "rank " + std::to_string(decls[i].rank) +
                                                " declared the " + role_name(s) + " role twice");
        for (const Decl& d : decls)
            if (d.desc != decls.front().desc)
                core::fail(Errc::inconsistent,
                           what + "ranks " + std::to_string(decls.front().rank) + " and " +
                               std::to_string(d.rank) + " declared the " + role_name(s) +
                               " side with different global data, partition, group or layout");
        for (const Decl& d : decls)
            if (d.strategy != n.side[0].front().strategy)
                core::fail(Errc::inconsistent,
                           what + "ranks " + std::to_string(n.side[0].front().rank) + " and " +
                               std::to_string(d.rank) + " chose different strategies");
        const SideData data = parse_description(decls.front().desc);
        const auto leader =
            std::find_if(decls.begin(), decls.end(), [](const Decl& d) { return d.index == 0; });
        if (leader == decls.end())
            core::fail(Errc::no_partner, what + "the first process of the " +
                                             std::string(role_name(s)) +
                                             " group did not declare its role");
        n.ranks[s] = leader->ranks;
        if (static_cast<Index>(n.ranks[s].size()) != data.group_size ||
            fnv1a(n.ranks[s]) != data.group_hash)
            core::fail(Errc::internal, what + "corrupt group description");
        if (static_cast<Index>(decls.size()) != data.group_size) {
            std::vector<bool> seen(n.ranks[s].size(), false);
            for (const Decl& d : decls)
                if (d.index >= 0 && static_cast<std::size_t>(d.index) < seen.size())
                    seen[static_cast<std::size_t>(d.index)] = true;
            const auto missing = std::find(seen.begin(), seen.end(), false) - seen.begin();
            core::fail(Errc::no_partner,
                       what + "rank " +
                           std::to_string(n.ranks[s][static_cast<std::size_t>(missing)]) +
                           " is in the " + role_name(s) + " group but did not declare its role");
        }
        for (const Decl& d : decls)
            if (d.index < 0 || static_cast<std::size_t>(d.index) >= n.ranks[s].size() ||
                n.ranks[s][static_cast<std::size_t>(d.index)] != d.rank)
                core::fail(Errc::group, what + "rank " + std::to_string(d.rank) +
                                            " is not where the " + role_name(s) +
                                            " group says it is");
        n.dist[s] = std::make_unique<core::Distribution>(data.shape, data.part,
                                                         static_cast<int>(data.group_size));
        n.layout[s] = data.layout;
    }
    n.strategy = n.side[0].front().strategy;
    const core::Side send{n.dist[0].get(), n.layout[0]}, recv{n.dist[1].get(), n.layout[1]};
    try {
        core::check_sides(send, recv);
    } catch (const core::Error& e) {
        core::fail(e.code(), what + e.what());
    }
    for (int s = 0; s < 2; ++s) {
        const core::Side& side = s == 0 ? send : recv;
        for (const Decl& d : n.side[s]) {
            const core::LocalLayout ll = core::bind_layout(
                side.layout, side.dist->local_extents(d.index), side.dist->shape().elem_size());
            for (std::size_t b = 0; b < d.sizes.size(); ++b)
                if (d.sizes[b] < ll.bytes)
                    core::fail(Errc::buffer_size,
                               what + "rank " + std::to_string(d.rank) + "'s " + role_name(s) +
                                   " buffer " + std::to_string(b) + " has " +
                                   std::to_string(d.sizes[b]) + " bytes but its block needs " +
                                   std::to_string(ll.bytes));
        }
    }
    for (int s = 0; s < 2; ++s)
        for (int r : n.ranks[s])
            n.participants.push_back(r);
    std::sort(n.participants.begin(), n.participants.end());
    n.participants.erase(std::unique(n.participants.begin(), n.participants.end()),
                         n.participants.end());
}

// Local checks of the transfers this process passes to commit.
void check_local(MPI_Comm comm, std::span<TransferImpl* const> xfers) {
    std::map<std::string, const TransferImpl*> seen;
    for (TransferImpl* t : xfers) {
        if (!t) core::fail(Errc::handle, "commit: null transfer");
        if (t->committed)
            core::fail(Errc::state, "transfer '" + t->name + "' is already committed");
        if (!t->send && !t->recv)
            core::fail(Errc::state,
                       "transfer '" + t->name + "' declares neither a sender nor a receiver role");
        if (!seen.emplace(t->name, t).second)
            core::fail(Errc::duplicate,
                       "transfer name '" + t->name + "' passed twice to one commit");
        for (const auto* role : {&t->send, &t->recv}) {
            if (!*role) continue;
            int cmp = MPI_UNEQUAL;
            check_mpi(MPI_Comm_compare(comm, (*role)->dist->group->parent, &cmp),
                      "MPI_Comm_compare");
            if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT)
                core::fail(
                    Errc::group,
                    "transfer '" + t->name +
                        "': its groups belong to another communicator than the one committing");
        }
    }
}

int position(const std::vector<int>& sorted, int rank) {
    return static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), rank) - sorted.begin());
}

// Owns communicators until they are handed to executors.
struct CommList {
    std::vector<MPI_Comm> comms;
    ~CommList() {
        for (MPI_Comm& c : comms)
            free_comm(c);
    }
};

// The strategies to build for a requested one.
std::vector<Strategy> candidates(Strategy s) {
    switch (s) {
    case Strategy::alltoallw:
        return {Strategy::alltoallw};
    case Strategy::packed:
        return {Strategy::packed};
    case Strategy::p2p:
        return {Strategy::p2p};
    case Strategy::shared:
        return {Strategy::shared};
    case Strategy::measure:
        return {Strategy::p2p, Strategy::packed, Strategy::alltoallw, Strategy::shared};
    case Strategy::automatic:
        break;
    }
    // The cheap rule, first that applies: single copy through shared memory
    // when every send buffer is there and every reader on its node (each byte
    // read and written once, no message carries data); else point to point,
    // which moves each byte the fewest times through MPI (no intermediate
    // copy for contiguous sides or long runs, cache-blocked kernels
    // otherwise) and overlaps the self copy with the messages.
    return {Strategy::shared, Strategy::p2p};
}

// Whether the candidates are alternatives tried in order (the cheap rule)
// rather than timed against each other.
bool first_applicable(Strategy s) {
    return s == Strategy::automatic;
}

std::unique_ptr<Executor> make_executor(Strategy s, const core::LocalPlan& plan,
                                        const ExecutorContext& ctx) {
    switch (s) {
    case Strategy::alltoallw:
        return make_alltoallw_executor(plan, ctx);
    case Strategy::packed:
        return make_packed_executor(plan, ctx);
    case Strategy::shared:
        return make_shared_executor(plan, ctx);
    default:
        return make_p2p_executor(plan, ctx);
    }
}

// Candidate executors of one transfer, and their communicators (owned by
// the executors; kept here to agree on timings).
struct Built {
    std::vector<Strategy> kinds;
    std::vector<std::unique_ptr<Executor>> execs;
    std::vector<MPI_Comm> comms;
};

// Times every candidate (one warm-up, then the median of three runs, the
// slowest participant counting), keeps the fastest first and frees the others.
// Collective over the transfer's participants; moves the user's buffers
// (receive buffers are overwritten, like FFTW_MEASURE).
void keep_fastest(TransferImpl& t, Built& b) {
    const std::byte* send = t.send ? t.send->buffers[0].data() : nullptr;
    std::byte* recv = t.recv ? t.recv->buffers[0].data() : nullptr;
    std::size_t best = 0;
    double best_time = 0;
    for (std::size_t k = 0; k < b.execs.size(); ++k) {
        double times[3];
        b.execs[k]->run(send, recv);
        for (double& tm : times) {
            check_mpi(MPI_Barrier(b.comms[k]), "MPI_Barrier");
            const double t0 = MPI_Wtime();
            b.execs[k]->run(send, recv);
            tm = MPI_Wtime() - t0;
        }
        std::sort(times, times + 3);
        double slowest = times[1];
        check_mpi(MPI_Allreduce(MPI_IN_PLACE, &slowest, 1, MPI_DOUBLE, MPI_MAX, b.comms[k]),
                  "MPI_Allreduce");
        if (k == 0 || slowest < best_time) {
            best = k;
            best_time = slowest;
        }
    }
    std::swap(b.execs[0], b.execs[best]);
    std::swap(b.kinds[0], b.kinds[best]);
    std::swap(b.comms[0], b.comms[best]);
    for (std::size_t k = 1; k < b.execs.size(); ++k)
        b.execs[k]->release();
    b.execs.resize(1);
    b.kinds.resize(1);
    b.comms.resize(1);
}

} // namespace

void commit_transfers(MPI_Comm comm, std::span<TransferImpl* const> xfers, const Status& pre) {
    require_initialized();
    if (comm == MPI_COMM_NULL)
        core::fail(Errc::group, "commit: MPI_COMM_NULL is not a communicator");
    MPI_Comm work = library_dup(comm);
    struct FreeWork {
        MPI_Comm& c;
        ~FreeWork() { free_comm(c); }
    } free_work{work};
    int me = 0;
    check_mpi(MPI_Comm_rank(work, &me), "MPI_Comm_rank");

    // 1. local checks, agreed
    agree(work, pre.failed() ? pre : capture([&] { check_local(comm, xfers); }));

    // 2. exchange the declarations
    Writer w;
    w.i64(0);
    Index count = 0;
    for (const TransferImpl* t : xfers) {
        if (t->send) write_decl(w, *t, 0, *t->send), ++count;
        if (t->recv) write_decl(w, *t, 1, *t->recv), ++count;
    }
    std::vector<std::byte> mine = w.bytes();
    std::memcpy(mine.data(), &count, sizeof count);
    std::vector<Index> sizes;
    const std::vector<std::byte> all = allgather_bytes(work, mine, sizes);

    // 3. validate every name, identically everywhere
    std::map<std::string, Named> names;
    std::size_t off = 0;
    for (std::size_t r = 0; r < sizes.size(); ++r) {
        Reader rd(all.data() + off, static_cast<std::size_t>(sizes[r]));
        const Index n = rd.i64();
        for (Index i = 0; i < n; ++i) {
            Decl d = read_decl(rd, static_cast<int>(r));
            names[d.name].side[d.role].push_back(std::move(d));
        }
        if (!rd.done()) core::fail(Errc::internal, "corrupt transfer declaration");
        off += static_cast<std::size_t>(sizes[r]);
    }
    for (auto& [name, n] : names)
        validate(name, n);

    // 4. communicators (one per candidate strategy) for every name, in
    //    sorted order on every process; then the plans and executors.
    std::map<std::string, TransferImpl*> local; // sorted by name: the same order everywhere
    for (TransferImpl* t : xfers)
        local[t->name] = t;
    CommList comms;
    std::map<std::string, std::vector<std::size_t>> comms_of;
    for (auto& [name, n] : names) {
        const bool part = local.count(name) != 0;
        MPI_Comm c = MPI_COMM_NULL;
        check_mpi(MPI_Comm_split(work, part ? 0 : MPI_UNDEFINED, me, &c), "MPI_Comm_split");
        if (!part) continue;
        count_handle(+1);
        comms_of[name].push_back(comms.comms.size());
        comms.comms.push_back(c);
        check_mpi(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
        for (std::size_t k = 1; k < candidates(n.strategy).size(); ++k) {
            comms_of[name].push_back(comms.comms.size());
            comms.comms.push_back(library_dup(c));
        }
    }
    std::map<std::string, Built> built;
    agree(work, capture([&] {
              for (auto& [name, tp] : local) {
                  TransferImpl& t = *tp;
                  Named& n = names.at(name);
                  const core::Side send{n.dist[0].get(), n.layout[0]},
                      recv{n.dist[1].get(), n.layout[1]};
                  const int si = t.send ? t.send->dist->group->my_index : -1;
                  const int ri = t.recv ? t.recv->dist->group->my_index : -1;
                  const core::LocalPlan plan = core::plan_local(send, recv, si, ri);
                  ExecutorContext ctx;
                  for (int r : n.ranks[0])
                      ctx.send_rank.push_back(position(n.participants, r));
                  for (int r : n.ranks[1])
                      ctx.recv_rank.push_back(position(n.participants, r));
                  if (t.send) ctx.send_buffers = t.send->buffers;
                  ctx.shared_needs_peers = first_applicable(n.strategy);
                  Built& b = built[name];
                  const std::vector<Strategy> kinds = candidates(n.strategy);
                  for (std::size_t k = 0; k < kinds.size(); ++k) {
                      MPI_Comm& c = comms.comms[comms_of.at(name)[k]];
                      ctx.comm = c;
                      b.comms.push_back(c);
                      c = MPI_COMM_NULL; // the executor owns it now, even if it fails
                      std::unique_ptr<Executor> e;
                      try {
                          e = make_executor(kinds[k], plan, ctx);
                      } catch (const core::Error& err) {
                          // Measuring or the cheap rule: a candidate that does
                          // not apply (the same on every participant) is left out.
                          if (kinds.size() == 1 || err.code() != Errc::buffer) throw;
                          b.comms.pop_back();
                          continue;
                      }
                      b.kinds.push_back(kinds[k]);
                      b.execs.push_back(std::move(e));
                      if (first_applicable(n.strategy)) break; // the rest stay unused
                  }
              }
          }));
    // 5. with several candidates, time them on the user's buffers and keep the fastest
    agree(work, capture([&] {
              for (auto& [name, b] : built)
                  if (b.execs.size() > 1) keep_fastest(*local.at(name), b);
          }));
    for (auto& [name, b] : built) {
        TransferImpl& t = *local.at(name);
        t.exec = std::move(b.execs.front());
        t.chosen = b.kinds.front();
        t.committed = true;
        for (auto* role : {&t.send, &t.recv})
            if (*role) (*role)->current = 0;
    }
}

} // namespace dri::detail
