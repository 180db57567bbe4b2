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

#include <cstdint>
#include <memory>
#include <vector>

namespace dri::detail {

class RemoteSegment {
  public:
    RemoteSegment(const std::byte* base, core::Index bytes, std::int64_t owner)
        : base_(base), bytes_(bytes), owner_(owner) {}
    ~RemoteSegment();
    RemoteSegment(const RemoteSegment&) = delete;
    RemoteSegment& operator=(const RemoteSegment&) = delete;
    const std::byte* base() const { return base_; }
    core::Index bytes() const { return bytes_; }
    std::int64_t owner() const { return owner_; } // the owner's process id

  private:
    const std::byte* base_;
    core::Index bytes_;
    std::int64_t owner_;
};

// The segment `id` names, in this address space; null when it cannot be
// mapped (not shareable, another PID namespace, no /proc, a descriptor that
// no longer names the published file): the pair then moves data by messages.
std::shared_ptr<const RemoteSegment> map_remote(const SegmentId& id);

// The owners' process ids of the segments mapped now, one per mapping (for
// tests: each segment is mapped once, only from processes of this node).
std::vector<std::int64_t> remote_segment_owners();

} // namespace dri::detail
