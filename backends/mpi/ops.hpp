// The operations behind both public APIs. They take implementation objects,
// throw core::Error, and are wrapped by the C++ classes (dri::Error) and by
// the C binding (DRI_ERR_* codes).
#pragma once

#include "objects.hpp"
#include "runtime.hpp"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace dri::detail {

std::shared_ptr<const GlobalDataImpl> make_globaldata(std::vector<core::Index> extents,
                                                      core::ElementType type);
std::shared_ptr<const PartitionImpl> make_partition(core::Partition part);
// ranks empty: every process of parent.
std::shared_ptr<const GroupImpl> make_group(MPI_Comm parent, std::vector<int> ranks);
std::shared_ptr<const LayoutImpl> make_layout(core::Layout layout);

// Collective over the group's processes. `pre` carries an error this process
// found before the call (e.g. a bad handle): the call still takes part in the
// collective steps, and every member fails with the same error.
std::shared_ptr<const DistributionImpl> make_distribution(const GlobalDataImpl* gdo,
                                                          const PartitionImpl* part,
                                                          std::shared_ptr<const GroupImpl> group,
                                                          const Status& pre = {});

BlockInfo block_info(const DistributionImpl& dist, const LayoutImpl& layout, int index);

std::shared_ptr<TransferImpl> make_transfer(std::string name);
enum class RoleKind { send, recv };
void declare_role(TransferImpl& t, RoleKind kind, std::shared_ptr<const DistributionImpl> dist,
                  const LayoutImpl& layout, std::span<const std::span<std::byte>> buffers);
void set_strategy(TransferImpl& t, Strategy s);

// Collective over comm; see commit.hpp.
void commit(MPI_Comm comm, std::span<TransferImpl* const> xfers, const Status& pre = {});

// The common case in one collective call over comm (every process of comm
// sends and receives): an nrows x ncols matrix held in row blocks with rows
// contiguous is turned into column blocks with columns contiguous. Declares
// and commits a transfer (buffer rings as given); `pre` as for
// make_distribution. Every process fails with the same error or none does.
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

void execute(TransferImpl& t);
void start(TransferImpl& t);
void wait(TransferImpl& t);
bool test(TransferImpl& t);

} // namespace dri::detail
