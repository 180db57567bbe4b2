// Segments of other processes of this node, mapped read-only into this one:
// how a receiver of the single copy reaches its sender's buffers.
//
// A reader opens the owner's memory file through /proc/<pid>/fd/<fd> (the
// kernel allows it to the owner's user only), checks that it is the file
// the owner published, maps it and closes the descriptor. Each segment is
// mapped once per process and shared by every transfer that reads it; it is
// unmapped when the last of them is destroyed.
#pragma once

#include "mpi/shared_memory.hpp"

#include <memory>

namespace dri::detail {

class RemoteSegment {
  public:
    RemoteSegment(const std::byte* base, core::Index bytes) : base_(base), bytes_(bytes) {}
    ~RemoteSegment();
    RemoteSegment(const RemoteSegment&) = delete;
    RemoteSegment& operator=(const RemoteSegment&) = delete;
    const std::byte* base() const { return base_; }
    core::Index bytes() const { return bytes_; }

  private:
    const std::byte* base_;
    core::Index bytes_;
};

// The segment `id` names, in this address space; null when it cannot be
// mapped (not shareable, another PID namespace, no /proc, a descriptor that
// no longer names the published file): the pair then moves data by messages.
std::shared_ptr<const RemoteSegment> map_remote(const SegmentId& id);

} // namespace dri::detail
