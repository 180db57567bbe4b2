// Reverse transfers: from a committed transfer, the transfer that brings
// every receiver's copies back into the senders' elements and combines them
// (the adjoint for SUM). Planned once from the forward transfer's sides, run
// over the forward rings swapped, each with its own cursor.
#include "mpi/interface.hpp"

#include "core/reverse_plan.hpp"
#include "mpi/strategies/reverse.hpp"

#include <algorithm>

namespace dri::detail {

using core::Errc;

namespace {

// Every process of every pair of the name, sorted.
std::vector<int> participants(const core::Match& m) {
    std::vector<int> all;
    for (const std::vector<int>& p : m.participants)
        all.insert(all.end(), p.begin(), p.end());
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
}

// Collective over `ranks` of parent only (MPI_Comm_create_group), so that
// processes outside the transfer take no part.
MPI_Comm comm_of(MPI_Comm parent, const std::vector<int>& ranks) {
    constexpr int tag = 0x4452; // "DR": this library's group creations
    MPI_Group all = MPI_GROUP_NULL, some = MPI_GROUP_NULL;
    check_mpi(MPI_Comm_group(parent, &all), "MPI_Comm_group");
    int rc = MPI_Group_incl(all, static_cast<int>(ranks.size()), ranks.data(), &some);
    MPI_Group_free(&all);
    check_mpi(rc, "MPI_Group_incl");
    MPI_Comm c = MPI_COMM_NULL;
    rc = MPI_Comm_create_group(parent, some, tag, &c);
    MPI_Group_free(&some);
    check_mpi(rc, "MPI_Comm_create_group");
    count_handle(+1);
    rc = MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) free_comm(c);
    check_mpi(rc, "MPI_Comm_set_errhandler");
    return c;
}

// This process's part of each pair it takes part in.
std::vector<ReversePart> parts_of(const TransferImpl& f, const std::vector<int>& all,
                                  core::CombineOp op) {
    const core::Match& m = *f.sides;
    const core::Cells cells =
        op == core::CombineOp::replace ? core::Cells::owned : core::Cells::all;
    const int si = f.send ? f.send->dist->group->my_index : -1;
    std::vector<ReversePart> parts;
    for (std::size_t k = 0; k < m.recv.size(); ++k) {
        const bool receives = f.recv_side == static_cast<int>(k);
        if (si < 0 && !receives) continue;
        const int ri = receives ? f.recv->dist->group->my_index : -1;
        ReversePart p;
        // The reverse moves whole frames: the forward's pieces do not apply.
        core::Side send = m.send.side(), recv = m.recv[k].side();
        send.split = recv.split = {};
        p.plan = core::reverse_plan(core::plan_local(send, recv, si, ri, cells));
        for (int r : m.send.ranks)
            p.send_rank.push_back(core::position_in(all, r));
        for (int r : m.recv[k].ranks)
            p.recv_rank.push_back(core::position_in(all, r));
        parts.push_back(std::move(p));
    }
    return parts;
}

// What every process checks alike (the same sides everywhere).
void check_reverse(const TransferImpl& f, core::CombineOp op) {
    const core::Match& m = *f.sides;
    const core::ElementType& type = m.send.dist->shape().type();
    const std::string what = "transfer '" + f.name + "': ";
    if (!core::combine_defined(op, type))
        core::fail(Errc::type, what + "the reverse's " + core::to_string(op) +
                                   " is not defined on " + core::to_string(type) +
                                   " elements (records and bytes allow REPLACE only, complex "
                                   "numbers SUM and REPLACE)");
    if (op != core::CombineOp::replace) return;
    if (m.recv.size() > 1)
        core::fail(Errc::not_disjoint,
                   what + "REPLACE takes each element from its one owner, and the " +
                       std::to_string(m.recv.size()) +
                       " receiving sides of this fan-out have an owner each (combine their "
                       "copies with SUM, MAX or MIN)");
    try {
        m.recv.front().dist->check_disjoint("receiving");
    } catch (const core::Error& e) {
        core::fail(e.code(), what + "REPLACE takes each element from its one owner: " + e.what());
    }
}

Role swapped_role(const Role& r) {
    return Role{r.dist,    r.layout, r.buffers, 0, {},
                r.ring_id, -1,       1,         {}}; // the forward owns the ring
}

// Collective over comm: every process passed the same operation, else
// DRI_ERR_INCONSISTENT on every process (each would combine with its own,
// or, with REPLACE on some, plan different messages and hang).
void compare_op(MPI_Comm comm, const TransferImpl& f, core::CombineOp op) {
    int range[2] = {static_cast<int>(op), -static_cast<int>(op)};
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    if (range[0] != -range[1])
        throw AgreedError(Errc::inconsistent,
                          "transfer '" + f.name +
                              "': the processes passed different combine "
                              "operations to its reverse (" +
                              core::to_string(static_cast<core::CombineOp>(range[0])) + " and " +
                              core::to_string(static_cast<core::CombineOp>(-range[1])) + ")");
}

} // namespace

std::shared_ptr<TransferImpl> reverse_transfer(const TransferImpl& f, core::CombineOp op,
                                               const Status& pre) {
    require_initialized();
    // Without a committed forward transfer there are no processes to agree
    // with: a local error (every process of a correct program sees the same).
    if (!f.committed || !f.sides)
        core::fail(Errc::state, "transfer '" + f.name +
                                    "' has no reverse: only a committed forward transfer has one");
    require_no_mpi_failure(f);
    const std::vector<int> all = participants(*f.sides);
    const ScopedComm comm(comm_of(f.parent(), all));
    std::vector<ReversePart> parts;
    // A bad argument on one process is an error on all of them, and so are
    // different operations.
    agree(comm.get(), pre.failed() ? pre : capture([&] {
              if (static_cast<int>(op) < 0 ||
                  static_cast<int>(op) > static_cast<int>(core::CombineOp::replace))
                  core::fail(Errc::arg, "transfer '" + f.name + "': unknown combine operation " +
                                            std::to_string(static_cast<int>(op)));
          }));
    compare_op(comm.get(), f, op);
    agree(comm.get(), capture([&] {
              check_reverse(f, op);
              parts = parts_of(f, all, op);
          }));
    auto r = std::make_shared<TransferImpl>();
    r->name = f.name + " (reverse)";
    if (f.recv) r->send = swapped_role(*f.recv);
    if (f.send) r->recv = swapped_role(*f.send);
    r->strategy = r->chosen = Strategy::p2p;
    agree(comm.get(), capture([&] {
              r->exec = make_reverse(parts, library_dup(comm.get()),
                                     f.sides->send.dist->shape().type(), op);
          }));
    r->pin_rings();
    join_family(f, *r);
    r->committed = true;
    return r;
}

} // namespace dri::detail
