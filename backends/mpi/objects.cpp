// The descriptive objects: global data, partitions, groups, layouts, and the
// collective creation of distributions.
#include "mpi/interface.hpp"

#include "core/wire.hpp"

#include <algorithm>
#include <optional>

namespace dri::detail {

using core::Errc;
using core::Index;

namespace {

// A communicator over the group's members. It is built from the ranks in
// sorted order, so that every member builds the same MPI group even when the
// members listed the ranks in different orders (MPI_Comm_create_group with
// different groups hangs); the order is compared afterwards.
MPI_Comm members_comm(const GroupImpl& g) {
    std::vector<int> sorted = g.ranks;
    std::sort(sorted.begin(), sorted.end());
    MPI_Group parent_group = MPI_GROUP_NULL, sub = MPI_GROUP_NULL;
    MPI_Comm comm = MPI_COMM_NULL;
    check_mpi(MPI_Comm_group(g.parent, &parent_group), "MPI_Comm_group");
    int rc = MPI_Group_incl(parent_group, static_cast<int>(sorted.size()), sorted.data(), &sub);
    MPI_Group_free(&parent_group);
    check_mpi(rc, "MPI_Group_incl");
    rc = MPI_Comm_create_group(g.parent, sub, 0x445249, &comm);
    MPI_Group_free(&sub);
    check_mpi(rc, "MPI_Comm_create_group");
    count_handle(+1);
    rc = MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) free_comm(comm);
    check_mpi(rc, "MPI_Comm_set_errhandler");
    return comm;
}

// Collective over the members' communicator: agree() naming the failing
// process by its rank in the group's parent communicator, the rank the user
// knows (the members' communicator numbers processes otherwise).
void agree_among(MPI_Comm comm, const Status& mine, int parent_rank) {
    Status named = mine;
    if (mine.failed() && !mine.everywhere) {
        named.message = "rank " + std::to_string(parent_rank) + ": " + mine.message;
        named.everywhere = true; // named already: agree() adds no prefix
    }
    agree(comm, named);
}

// Collective: fails on every process unless all passed the same bytes.
void require_same(MPI_Comm comm, const std::string& bytes, const std::string& what,
                  int parent_rank) {
    const std::uint64_t h = core::fnv1a(bytes);
    unsigned long long hv[2] = {h, ~h};
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, hv, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm),
              "MPI_Allreduce");
    agree_among(comm, hv[0] != h || hv[1] != ~h ? Status{core::Errc::inconsistent, what} : Status{},
                parent_rank);
}

// Only members of a distribution's group take part in creating it.
void require_member(const GroupImpl& g) {
    if (g.my_index < 0)
        core::fail(core::Errc::group, "rank " + std::to_string(g.parent_rank) +
                                          " is not a member of the distribution's group");
}

// Collective over the members (comm): a member that failed before the call
// (`pre`) fails it everywhere, and so do members listing the group's ranks
// in different orders.
void agree_on_members(MPI_Comm comm, const GroupImpl& g, const Status& pre,
                      const std::string& call) {
    agree_among(comm, pre, g.parent_rank);
    core::Writer order;
    order.vec(g.ranks);
    require_same(comm, order.str_bytes(),
                 "the processes of the group listed its ranks in different orders in " + call,
                 g.parent_rank);
}

// Collective over the group: builds the distribution when every member
// passed the same group (ranks in the same order), global data and
// partition, and they are valid. `call` names the call for messages.
core::Distribution create_distribution(const core::Shape* shape, const core::Partition* part,
                                       core::GridOrder grid_order, const GroupImpl& g,
                                       const Status& pre, const std::string& call) {
    require_member(g);
    const ScopedComm comm(members_comm(g));
    agree_on_members(comm.get(), g, pre, call);
    core::Writer w;
    core::write_shape_partition(w, *shape, *part);
    require_same(comm.get(), w.str_bytes(),
                 "the processes of the group passed different global data or partitions to " + call,
                 g.parent_rank);
    core::Writer o;
    o.i64(static_cast<Index>(grid_order));
    require_same(comm.get(), o.str_bytes(),
                 "the processes of the group passed different grid orders to " + call,
                 g.parent_rank);
    std::optional<core::Distribution> dist;
    agree_among(comm.get(), capture([&] {
                    dist.emplace(*shape, *part, static_cast<int>(g.ranks.size()), grid_order);
                }),
                g.parent_rank);
    return std::move(*dist);
}

} // namespace

std::shared_ptr<const GlobalDataImpl> make_globaldata(std::vector<Index> extents,
                                                      core::ElementType type) {
    require_initialized();
    return std::make_shared<const GlobalDataImpl>(
        GlobalDataImpl{core::Shape(std::move(extents), type)});
}

std::shared_ptr<const PartitionImpl> make_partition(core::Partition part) {
    require_initialized();
    if (part.empty() || part.size() > static_cast<std::size_t>(core::max_dims))
        core::fail(Errc::ndims, "a partition has 1 to " + std::to_string(core::max_dims) +
                                    " dimensions, got " + std::to_string(part.size()));
    for (std::size_t d = 0; d < part.size(); ++d)
        core::validate_dim_partition(part[d], d, std::nullopt);
    return std::make_shared<const PartitionImpl>(PartitionImpl{std::move(part)});
}

std::shared_ptr<const GroupImpl> make_group(MPI_Comm parent, std::vector<int> ranks,
                                            int all_count) {
    require_initialized();
    if (parent == MPI_COMM_NULL)
        core::fail(Errc::group, "the parent communicator is MPI_COMM_NULL");
    int size = 0, me = 0;
    check_mpi(MPI_Comm_size(parent, &size), "MPI_Comm_size");
    check_mpi(MPI_Comm_rank(parent, &me), "MPI_Comm_rank");
    if (ranks.empty() && all_count != 0 && all_count != size)
        core::fail(Errc::group, "without a rank list the group is every process of the parent: "
                                "n must be 0 or the parent's size " +
                                    std::to_string(size) + ", got " + std::to_string(all_count));
    if (ranks.empty())
        for (int r = 0; r < size; ++r)
            ranks.push_back(r);
    std::vector<bool> seen(static_cast<std::size_t>(size), false);
    auto g = std::make_shared<GroupImpl>();
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        const int r = ranks[i];
        if (r < 0 || r >= size)
            core::fail(Errc::group, "group rank " + std::to_string(r) +
                                        " is outside the parent's [0, " + std::to_string(size) +
                                        ")");
        if (seen[static_cast<std::size_t>(r)])
            core::fail(Errc::group, "rank " + std::to_string(r) + " appears twice in the group");
        seen[static_cast<std::size_t>(r)] = true;
        if (r == me) g->my_index = static_cast<int>(i);
    }
    g->parent = parent;
    g->ranks = std::move(ranks);
    g->parent_rank = me;
    return g;
}

std::shared_ptr<const LayoutImpl> make_layout(core::Layout layout) {
    require_initialized();
    return std::make_shared<const LayoutImpl>(LayoutImpl{std::move(layout)});
}

std::shared_ptr<const DistributionImpl> make_distribution(const GlobalDataImpl* gdo,
                                                          const PartitionImpl* part,
                                                          std::shared_ptr<const GroupImpl> group,
                                                          const Status& pre,
                                                          const std::string& call) {
    return make_distribution(gdo, part, std::move(group), core::GridOrder::row_major, pre, call);
}

std::shared_ptr<const DistributionImpl> make_distribution(const GlobalDataImpl* gdo,
                                                          const PartitionImpl* part,
                                                          std::shared_ptr<const GroupImpl> group,
                                                          core::GridOrder order, const Status& pre,
                                                          const std::string& call) {
    require_initialized();
    if (!group) core::fail(Errc::handle, "distribution: invalid group");
    Status first = pre;
    if (!first.failed() && (!gdo || !part))
        first = {Errc::handle, "distribution: invalid global data or partition"};
    if (!first.failed() && order != core::GridOrder::row_major &&
        order != core::GridOrder::column_major)
        first = {Errc::arg, "distribution: grid order " + std::to_string(static_cast<int>(order)) +
                                " is neither row-major (0) nor column-major (1)"};
    core::Distribution d = create_distribution(
        gdo ? &gdo->shape : nullptr, part ? &part->part : nullptr, order, *group, first, call);
    return std::make_shared<const DistributionImpl>(
        DistributionImpl{std::move(group), std::move(d)});
}

namespace {

void write_box(core::Writer& w, const core::Box& b) {
    w.vec(b.first);
    w.vec(b.last);
}

// Every member's boxes, as every member sees them: gathered from each
// member's own boxes (tagged with its group index, since the members'
// communicator numbers processes in another order), or dealt from the one
// list every member passed.
std::vector<std::vector<core::Box>> member_boxes(MPI_Comm comm, const GroupImpl& g,
                                                 const std::vector<core::Box>& boxes,
                                                 const std::vector<int>& owners, bool all,
                                                 int ndims, const std::string& call) {
    const auto members = g.ranks.size();
    std::vector<std::vector<core::Box>> lists(members);
    if (all) {
        core::Writer w;
        w.vec(owners);
        for (const core::Box& b : boxes)
            write_box(w, b);
        require_same(comm, w.str_bytes(),
                     "the processes of the group passed different box lists to " + call,
                     g.parent_rank);
        for (std::size_t k = 0; k < boxes.size(); ++k) {
            if (owners[k] < 0 || static_cast<std::size_t>(owners[k]) >= members)
                core::fail(Errc::arg, "the owner of box " + std::to_string(k) + " is " +
                                          std::to_string(owners[k]) + ", outside the group [0, " +
                                          std::to_string(members) + ")");
            lists[static_cast<std::size_t>(owners[k])].push_back(boxes[k]);
        }
        return lists;
    }
    core::Writer w;
    w.i64(g.my_index);
    w.i64(static_cast<Index>(boxes.size()));
    for (const core::Box& b : boxes)
        write_box(w, b);
    std::vector<Index> sizes;
    const std::vector<std::byte> got = allgather_bytes(comm, w.bytes(), sizes);
    core::Reader r(got.data(), got.size());
    for (std::size_t p = 0; p < members; ++p) {
        const auto index = static_cast<std::size_t>(r.i64());
        auto& list = lists.at(index);
        for (Index k = r.i64(); k > 0; --k) {
            core::Box b{r.vec<Index>(), r.vec<Index>()};
            if (b.first.size() != static_cast<std::size_t>(ndims))
                core::fail(Errc::internal, "corrupt box list");
            list.push_back(std::move(b));
        }
    }
    return lists;
}

} // namespace

std::shared_ptr<const DistributionImpl>
make_box_distribution(const GlobalDataImpl* gdo, std::shared_ptr<const GroupImpl> group,
                      const std::vector<core::Box>& boxes, const std::vector<int>& owners, bool all,
                      const Status& pre, const std::string& call) {
    require_initialized();
    if (!group) core::fail(Errc::handle, "distribution: invalid group");
    const GroupImpl& g = *group;
    require_member(g);
    Status first = pre;
    if (!first.failed() && !gdo) first = {Errc::handle, "distribution: invalid global data"};
    if (!first.failed() && all && owners.size() != boxes.size())
        first = {Errc::arg, "every box needs its owner"};
    for (std::size_t k = 0; k < boxes.size() && !first.failed() && gdo; ++k) {
        const auto nd = static_cast<std::size_t>(gdo->shape.ndims());
        if (boxes[k].first.size() != nd || boxes[k].last.size() != nd)
            first = {Errc::ndims,
                     "box " + std::to_string(k) + " has " + std::to_string(boxes[k].first.size()) +
                         " first and " + std::to_string(boxes[k].last.size()) +
                         " last indices, the data " + std::to_string(nd) + " dimensions"};
    }
    const ScopedComm comm(members_comm(g));
    agree_on_members(comm.get(), g, first, call);
    core::Writer w;
    core::write_shape_partition(w, gdo->shape, {});
    w.i64(all ? 1 : 0);
    require_same(comm.get(), w.str_bytes(),
                 "the processes of the group passed different global data or box scopes to " + call,
                 g.parent_rank);
    std::vector<std::vector<core::Box>> lists;
    agree_among(comm.get(), capture([&] {
                    lists =
                        member_boxes(comm.get(), g, boxes, owners, all, gdo->shape.ndims(), call);
                }),
                g.parent_rank);
    std::shared_ptr<const core::BoxPartition> bp;
    agree_among(comm.get(), capture([&] {
                    bp = std::make_shared<const core::BoxPartition>(gdo->shape, std::move(lists));
                }),
                g.parent_rank);
    return std::make_shared<const DistributionImpl>(
        DistributionImpl{std::move(group), core::Distribution(bp)});
}

core::BlockInfo block_info(const DistributionImpl& dist, const LayoutImpl& layout, int idx) {
    require_initialized();
    return core::block_info(dist.dist, layout.layout, idx);
}

} // namespace dri::detail
