// Segments of other processes of this node, mapped into this one: how a
// receiver of the single copy reaches its sender's buffers (read-only), and
// how the processes of a node under NODES reach their leader's aggregates.
//
// A process opens the owner's memory file through /proc/<pid>/fd/<fd> (the
// kernel allows it to the owner's user only), checks that it is the file
// the owner published, maps it and closes the descriptor. Each segment is
// mapped once per process and access, and shared by every transfer that
// uses it; it is unmapped when the last of them is destroyed.
#pragma once

#include "mpi/shared_memory.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace dri::detail {

class RemoteSegment {
  public:
    RemoteSegment(std::byte* base, core::Index bytes, std::int64_t owner, bool writable)
        : base_(base), bytes_(bytes), owner_(owner), writable_(writable) {}
    ~RemoteSegment();
    RemoteSegment(const RemoteSegment&) = delete;
    RemoteSegment& operator=(const RemoteSegment&) = delete;
    const std::byte* base() const { return base_; }
    // The same bytes for writing, or null when mapped read-only.
    std::byte* writable_base() const { return writable_ ? base_ : nullptr; }
    core::Index bytes() const { return bytes_; }
    std::int64_t owner() const { return owner_; } // the owner's process id

  private:
    std::byte* base_;
    core::Index bytes_;
    std::int64_t owner_;
    bool writable_;
};

// How a segment is mapped: read-only (a single copy's reader), or for
// writing too (NODES' processes packing into their leader's aggregates).
enum class Access { read, write };

// The segment `id` names, in this address space; null when it cannot be
// mapped (not shareable, another PID namespace, no /proc, a descriptor that
// no longer names the published file): the pair then moves data by messages.
std::shared_ptr<const RemoteSegment> map_remote(const SegmentId& id, Access access = Access::read);

// The owners' process ids of the segments mapped now, one per mapping (for
// tests: each segment is mapped once, only from processes of this node).
std::vector<std::int64_t> remote_segment_owners();

} // namespace dri::detail
