// Node shared memory: what DRI_Alloc_mem hands out, so that the single-copy
// strategy lets a receiver read straight from its sender's buffer.
//
// Each allocation belongs to one process and is made by it alone, like
// MPI_Alloc_mem: an anonymous memory file (memfd_create) mapped into its
// address space. The file has no name anywhere in the file system, so a
// process killed at any moment leaves nothing behind; its pages go when the
// last process mapping it lets go. A commit publishes each sender's segment
// (segment_id) to its receivers on the same node, which map it read-only
// (remote_segment.hpp). Where memory files are unavailable, an allocation is
// ordinary anonymous memory that no other process can map: transfers then
// move its data by messages.
#pragma once

#include "core/checked.hpp"

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace dri::detail {

// What another process of the node needs to map a segment: the owner's
// process id and descriptor (opened through /proc/<pid>/fd/<fd>), and the
// file's identity, checked after opening so that a reused descriptor or a
// process of another PID namespace is never mistaken for the owner's file.
struct SegmentId {
    std::int64_t pid = 0;
    std::int64_t fd = -1; // -1: not shareable
    std::int64_t dev = 0;
    std::int64_t ino = 0;
    core::Index bytes = 0; // mapped length (whole pages)
};

// One allocation of this process.
struct SharedBlock {
    std::byte* base = nullptr; // page aligned
    core::Index size = 0;      // bytes asked for
    SegmentId id;              // id.fd < 0: ordinary memory, not shareable
    int users = 0;             // committed transfers relying on it
    bool doomed = false;       // freed by its owner while in use: goes at users == 0
    // Allocated by the library for a ring it owns (shared_ring): only that
    // owner frees it; DRI_Free_mem and the C++ and Python releases refuse
    // or ignore it, as they would any address DRI_Alloc_mem did not return.
    bool library_owned = false;
};

// True when [p, p + bytes) lies inside [base, base + size).
bool within(const std::byte* p, core::Index bytes, const std::byte* base, core::Index size);

// Local: `bytes` (0 allowed) of page-aligned memory other processes of the
// node can map. Throws Errc::arg / overflow / no_memory.
void* shared_alloc(core::Index bytes);
// Local: frees an allocation. Refused (Errc::state) while a committed
// transfer uses it; Errc::arg when `base` is not one, is already freed, or
// is a buffer of a ring the library owns.
void shared_free(void* base);
// Who releases an allocation: its user, or the library object that owns a
// ring (the only one that may release that ring's buffers).
enum class Releaser { user, library };
// For owners that cannot report an error (the C++ allocator, Python arrays,
// library-owned rings): frees now, or, while a committed transfer uses it,
// when the last one lets go. Unknown addresses, and the user's release of a
// library-owned buffer, are ignored.
void shared_free_when_unused(void* base, Releaser who = Releaser::user) noexcept;

// Owns one allocation of a library-owned ring; frees it as
// shared_free_when_unused does.
struct SharedDeleter {
    void operator()(std::byte* p) const noexcept { shared_free_when_unused(p, Releaser::library); }
};
using SharedBuffer = std::unique_ptr<std::byte, SharedDeleter>;
// One allocation a library object owns (library_owned).
SharedBuffer shared_owned(core::Index bytes);
// Rings a library object allocates for its user (transfer-owned rings,
// DRI-1.0 reorganizations): n buffers of `bytes` each.
std::vector<SharedBuffer> shared_ring(int n, core::Index bytes);
// The ring's buffers as the spans a role declares.
std::vector<std::span<std::byte>> spans_of(const std::vector<SharedBuffer>& ring,
                                           core::Index bytes);

// The allocation of this process holding [p, p + bytes), or null.
SharedBlock* shared_find_own(const std::byte* p, core::Index bytes);
// Counts a transfer that relies on the block (+1) or no longer does (-1).
void shared_use(SharedBlock* b, int delta) noexcept;

} // namespace dri::detail
