// The backend's interface to the bindings: the operations behind both public
// APIs. They take the objects of objects.hpp, throw core::Error, and are
// wrapped by the C++ classes (dri::Error) and by the C binding (DRI_ERR_*
// codes). The bindings include this header and objects.hpp, nothing else of
// the backend.
#pragma once

#include "core/block_info.hpp"
#include "core/box_partition.hpp"
#include "kernels/combine.hpp"
#include "mpi/objects.hpp"
#include "mpi/runtime/collectives.hpp"
#include "mpi/runtime/init.hpp"
#include "mpi/runtime/kernel_tuning.hpp"

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace dri::detail {

std::shared_ptr<const GlobalDataImpl> make_globaldata(std::vector<core::Index> extents,
                                                      core::ElementType type);
std::shared_ptr<const PartitionImpl> make_partition(core::Partition part);
// ranks empty: every process of parent; then all_count, the count the caller
// gave with no rank list, must be 0 or the parent's size.
std::shared_ptr<const GroupImpl> make_group(MPI_Comm parent, std::vector<int> ranks,
                                            int all_count = 0);
std::shared_ptr<const LayoutImpl> make_layout(core::Layout layout);

// Collective over the group's processes. `pre` carries an error this process
// found before the call (e.g. a bad handle): the call still takes part in the
// collective steps, and every member fails with the same error. `call` names
// the user's call in messages.
std::shared_ptr<const DistributionImpl>
make_distribution(const GlobalDataImpl* gdo, const PartitionImpl* part,
                  std::shared_ptr<const GroupImpl> group, const Status& pre = {},
                  const std::string& call = "the distribution's collective creation");
// The same with the grid numbered in `order` (every member must pass the
// same; a value outside GridOrder is refused on every member).
std::shared_ptr<const DistributionImpl>
make_distribution(const GlobalDataImpl* gdo, const PartitionImpl* part,
                  std::shared_ptr<const GroupImpl> group, core::GridOrder order,
                  const Status& pre = {},
                  const std::string& call = "the distribution's collective creation");

// Collective over the group's processes: a box distribution
// (core/box_partition.hpp). With `owners` empty, `boxes` are this process's
// own boxes; otherwise they are every member's, box k owned by group index
// owners[k], and every member passes the same list. `pre` as above.
std::shared_ptr<const DistributionImpl>
make_box_distribution(const GlobalDataImpl* gdo, std::shared_ptr<const GroupImpl> group,
                      const std::vector<core::Box>& boxes, const std::vector<int>& owners, bool all,
                      const Status& pre = {},
                      const std::string& call = "the box distribution's collective creation");

core::BlockInfo block_info(const DistributionImpl& dist, const LayoutImpl& layout, int index);

std::shared_ptr<TransferImpl> make_transfer(std::string name);
enum class RoleKind { send, recv };
void declare_role(TransferImpl& t, RoleKind kind, std::shared_ptr<const DistributionImpl> dist,
                  const LayoutImpl& layout, std::span<const std::span<std::byte>> buffers);
// Remembers that this process refused a declaration of the role for `e`
// (TransferImpl::refused): the declarations above do it themselves; a
// binding that refuses the role's arguments before calling them (a ring of
// no buffers, a negative size) does it too.
void remember_refusal(TransferImpl& t, RoleKind kind, std::shared_ptr<const DistributionImpl> dist,
                      const core::Error& e);
void set_strategy(TransferImpl& t, Strategy s);

// AUTO that learns (learning.cpp; docs/api.md, "AUTO that learns"). Before
// commit: how much this process asks AUTO to learn.
void set_learning(TransferImpl& t, core::Learning mode);
// Committed, between reorganizations; collective over the processes of
// every pair this process takes part in: stop exploring, keeping the
// fastest route so far (true), or resume (false).
void freeze_learning(TransferImpl& t, bool on);
// Committed: the route a reorganization started now would run.
Strategy route_in_use(const TransferImpl& t);
// Committed: the routes held (one when AUTO holds one or a strategy was
// asked for) and what the learner has seen, for the first pair this
// process takes part in.
struct LearningReport {
    std::vector<Strategy> routes;
    core::RouteReport report;
};
LearningReport learning_report(const TransferImpl& t);
// A learned file (learned_file.hpp; docs/api.md, "A learned file"). Before
// commit, local: the file this process asks the transfer to start from
// (null: none, whatever DRI_AUTO_LEARNED says).
void set_learned_file(TransferImpl& t, const char* path);
// Committed, between reorganizations; collective over the processes of
// every pair this process takes part in (as freezing is): writes what the
// transfer's adaptive pairs learned to `path` (the first sending process
// writes; its path counts).
void save_learned(TransferImpl& t, const char* path);
// Before commit, on a process with a receiving role: elements arriving there
// are combined into its cells with `op` (REPLACE: stored, the default).
void set_combine(TransferImpl& t, core::CombineOp op);

// Pieces (core/pieces.hpp, DRI_Transfer_set_pieces): before commit, on a
// process that declared the role, split its block along `dim` into `count`
// pieces, even or at `bounds` (count + 1 local boundaries; empty: even).
void set_pieces(TransferImpl& t, RoleKind kind, int dim, int count,
                std::vector<core::Index> bounds = {});
// A role's split: {dimension (-1: none), count}.
std::pair<int, int> pieces_of(const TransferImpl& t, RoleKind kind);
// Piece k's local range along the split dimension (the whole extent of the
// first dimension when not split, k = 0).
std::pair<core::Index, core::Index> piece_range(const TransferImpl& t, RoleKind kind, int k);
// During a started reorganization: send piece k is complete (thread-safe);
// whether receive piece k has arrived (block: wait for it).
void piece_ready(TransferImpl& t, int k);
bool piece_arrived(TransferImpl& t, int k, bool block);

// Collective over comm; see commit/commit.hpp.
void commit(MPI_Comm comm, std::span<TransferImpl* const> xfers, const Status& pre = {});
// Commits one transfer over the communicator of its groups (TransferImpl::parent).
void commit_alone(TransferImpl& t);

// The common case in one collective call over comm (every process of comm
// sends and receives): an nrows x ncols matrix held in row blocks with rows
// contiguous is turned into column blocks with columns contiguous. Declares
// and commits a transfer (buffer rings as given); `pre` as for
// make_distribution. Every process fails with the same error or none does.
struct CornerTurnBlocks {
    core::BlockInfo send, recv;
};
CornerTurnBlocks corner_turn_blocks(MPI_Comm comm, core::Index nrows, core::Index ncols,
                                    core::ElementType type, const Status& pre = {});
std::shared_ptr<TransferImpl> corner_turn(MPI_Comm comm, core::Index nrows, core::Index ncols,
                                          core::ElementType type,
                                          std::span<const std::span<std::byte>> send_buffers,
                                          std::span<const std::span<std::byte>> recv_buffers,
                                          const Status& pre = {});

// After an MPI failure in DRI_Do a transfer refuses further use: throws
// Errc::state naming the failure.
void require_no_mpi_failure(const TransferImpl& t);

// Collective over the processes of the committed transfer `forward` (its
// sending and receiving groups): its reverse, which combines every
// receiver's copies back into the senders' elements with `op`, over the
// forward rings swapped. See reverse.cpp. `pre` as for make_distribution;
// the processes must pass the same op (else Errc::inconsistent everywhere).
std::shared_ptr<TransferImpl> reverse_transfer(const TransferImpl& forward, core::CombineOp op,
                                               const Status& pre = {});

// The reverse runs over its forward's rings: neither may start on a buffer
// the other has in flight (DRI_ERR_STATE). Called when the reverse is made.
void join_family(const TransferImpl& forward, TransferImpl& reverse);

void execute(TransferImpl& t);
void start(TransferImpl& t);
void wait(TransferImpl& t);
bool test(TransferImpl& t);

// Node shared memory (DRI_Alloc_mem / DRI_Free_mem): the local calls of
// shared_memory.hpp (through objects.hpp).

// A role whose ring of nbuf buffers the transfer allocates in node shared
// memory, each the size of this process's block; freed with the transfer.
void declare_owned_role(TransferImpl& t, RoleKind kind,
                        std::shared_ptr<const DistributionImpl> dist, const LayoutImpl& layout,
                        int nbuf);
// Buffer k of a role's ring (Errc::state without that role, Errc::arg for k
// outside the ring).
std::span<std::byte> ring_buffer(const TransferImpl& t, RoleKind kind, int k);

} // namespace dri::detail
