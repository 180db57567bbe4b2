// The node shared memory dri.shared_arrays hands NumPy (numpy_memory.cpp):
// its live blocks, by base, and a bounded cache of the blocks NumPy freed,
// kept mapped for the next allocation of their size. Process-wide, shared by
// every handler, thread and context; every call is thread safe and noexcept.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dri::python::shared_blocks {

// 256 MiB: what the cache holds at most unless dri.shared_arrays_cache says
// otherwise (the reasons are in shared_block_cache.cpp).
constexpr std::size_t default_cache_bytes = std::size_t{256} << 20;
// And at most this many blocks, each of which holds a descriptor: with the
// default threshold (1 MiB) the byte cap binds first.
constexpr std::size_t max_cached_blocks = 256;

struct Stats {
    std::int64_t live = 0;         // blocks NumPy holds
    std::int64_t live_bytes = 0;   // the bytes NumPy asked for them
    std::int64_t allocated = 0;    // blocks handed out so far, fresh or reused
    std::int64_t reused = 0;       // of which from the cache
    std::int64_t cached = 0;       // blocks in the cache
    std::int64_t cached_bytes = 0; // their mapped bytes (whole pages)
};

// `bytes` of node shared memory (private memory where dri falls back), from
// the cache when it holds a block that fits, else fresh; all zeros when
// `zero`. Null when there is none (NumPy's MemoryError).
void* take(std::size_t bytes, bool zero) noexcept;
// Takes back a block take() gave: into the cache, or released
// (dri::SharedMemory::deallocate). False, doing nothing, when `p` is not one.
bool give_back(void* p) noexcept;
// The bytes asked for the live block at `p`; false when `p` is not one.
bool size_of(const void* p, std::size_t& bytes) noexcept;
// Whether [lo, hi) lies inside one live block (an empty range: whether lo
// does, or is the base of an empty one).
bool holds(const std::byte* lo, const std::byte* hi) noexcept;
Stats stats() noexcept;
// Sets the cache's cap in bytes, releasing the least recently freed blocks
// beyond it; gives the previous cap.
std::size_t set_cache_bytes(std::size_t cap) noexcept;
std::size_t cache_bytes() noexcept;
// Releases every cached block; gives their bytes.
std::size_t trim() noexcept;

} // namespace dri::python::shared_blocks
