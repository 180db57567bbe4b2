// The blocks of node shared memory dri.shared_arrays hands NumPy, and the
// cache of those NumPy freed.
//
// Why a cache. A fresh block is a fresh memory file whose pages fault in one
// at a time at their first write: np.empty + first write + free measured
// 20-70x NumPy's default from 64 KiB to 16 MiB (2 vCPU EPYC VM: 1 MiB
// 0.55-0.9 ms vs 0.012-0.019 ms, 16 MiB 10-16 ms vs 0.2-0.7), whose heap
// hands memory back already faulted in. NumPy code makes its temporaries in
// loops, of one size again and again (b = a * 2 at every step of a solver):
// a block kept mapped when NumPy frees it, pages and descriptor with it,
// serves the next one at malloc's price. Measured with the cache
// (2026-11-28): 1 MiB 0.013 ms, 16 MiB 0.23-0.29 ms (NumPy 0.22-0.43), and
// b = a * 2 on 16 MiB 1.1-1.35 ms against NumPy's 0.8-1.1 ms, a gap that is
// the transparent huge pages NumPy asks for its own arrays of 4 MiB and more
// (memory files get none here; without them NumPy too takes 1.1-1.2 ms).
//
// Which block: the smallest cached one of at least the page-rounded size and
// at most 1/8 more (of equals, the most recently freed). A loop of
// temporaries finds its exact size; arrays that differ by a row or a padded
// line (the slices of a stencil, the halves of a real FFT) take one
// another's blocks rather than miss, for at most 1/8 more memory while the
// array lives. Blocks are allocated in whole pages, so that dri's record of
// a block (the bytes it was asked for) covers every array it later holds.
//
// The cap: 256 MiB by default, in at most 256 blocks (each holds a
// descriptor). That keeps the few temporaries alive at once of arrays up to
// 64 MiB, where a fresh block costs 10 ms and more, and bounds the memory
// held idle: cached blocks are the process's memory (shared memory of its
// node, one cache per rank). Beyond it the least recently freed blocks go;
// a block larger than the cap is never kept; 0 turns the cache off.
//
// Reuse and transfers. A dri.Transfer holds its arrays, and through them
// their blocks (a view holds its base), until it is closed and its C++
// transfer destroyed (transfer.cpp destroys the C++ transfer first): a block
// a committed transfer uses is never freed, hence never cached or reused,
// while the transfer lives. A reused block keeps its memory file
// (descriptor, inode): a transfer committed over it publishes it as it would
// a fresh one. The one way around that is NumPy's resize(refcheck=False) of
// an array a transfer holds, which frees its memory under the transfer (dri
// would defer that release, the cache cannot know): NumPy documents
// refcheck=False as unsafe while other references exist.
//
// Fork. A child shares every block alive or cached at the fork (MAP_SHARED):
// reused in one process, a block would alias memory the other still uses.
// Blocks from before the latest fork are never cached or reused, in either
// process; stale cached ones are released at the next call.
//
// Exit. Blocks cached when the interpreter exits stay mapped for the system
// to reclaim: the registry is never destroyed (arrays die after the static
// destructors), and nothing here makes MPI calls.
#include "shared_block_cache.hpp"

#include <dri/dri.hpp>

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace dri::python::shared_blocks {

namespace {

constexpr std::size_t none = SIZE_MAX;

struct Live {
    std::size_t bytes;    // asked for
    std::size_t capacity; // mapped: whole pages
    unsigned fork;        // forks seen when it was made
};

struct Cached {
    std::byte* base;
    std::size_t capacity;
    unsigned fork;
    std::uint64_t freed; // when: the least recent goes first
};

// Forks of this process so far, counted in parent and child alike.
std::atomic<unsigned> forks{0};

// Every member under `mutex`; the cache is scanned whole (256 blocks at
// most), by best fit and by age, without allocating once reserved.
struct Registry {
    std::mutex mutex;
    std::map<const std::byte*, Live> live;
    std::vector<Cached> cache; // at most max_cached_blocks
    std::size_t cap = default_cache_bytes;
    std::size_t cached_bytes = 0;
    std::uint64_t clock = 0;
    std::int64_t live_bytes = 0, allocated = 0, reused = 0;

    Registry() { cache.reserve(max_cached_blocks); }

    Cached unlink(std::size_t k) {
        const Cached c = cache[k];
        cache[k] = cache.back();
        cache.pop_back();
        cached_bytes -= c.capacity;
        return c;
    }
    std::size_t best_fit(std::size_t capacity, unsigned now) const {
        std::size_t best = none;
        for (std::size_t k = 0; k < cache.size(); ++k) {
            const Cached& c = cache[k];
            if (c.fork != now || c.capacity < capacity || c.capacity - capacity > capacity / 8)
                continue;
            if (best == none || c.capacity < cache[best].capacity ||
                (c.capacity == cache[best].capacity && c.freed > cache[best].freed))
                best = k;
        }
        return best;
    }
    std::size_t least_recent() const {
        std::size_t k = none;
        for (std::size_t i = 0; i < cache.size(); ++i)
            if (k == none || cache[i].freed < cache[k].freed) k = i;
        return k;
    }
    // A cached block to release now: one from before a fork, else the least
    // recently freed while over the cap; `none` when none.
    std::size_t victim(unsigned now) const {
        for (std::size_t k = 0; k < cache.size(); ++k)
            if (cache[k].fork != now) return k;
        return cached_bytes > cap ? least_recent() : none;
    }
};

Registry& registry() {
    static Registry* const r = [] {
        auto* created = new Registry;
        // The mutex is held across fork, so that the child's is not left
        // locked by a thread it does not have.
        pthread_atfork([] { registry().mutex.lock(); },
                       [] {
                           ++forks;
                           registry().mutex.unlock();
                       },
                       [] {
                           ++forks;
                           registry().mutex.unlock();
                       });
        return created;
    }();
    return *r;
}

std::size_t page_size() {
    static const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return page;
}

// Releases, outside the mutex, what victim() picks, one at a time.
void release_victims(Registry& r) noexcept {
    for (;;) {
        std::byte* doomed = nullptr;
        {
            std::lock_guard<std::mutex> lock(r.mutex);
            const std::size_t k = r.victim(forks.load());
            if (k == none) return;
            doomed = r.unlink(k).base;
        }
        dri::SharedMemory::deallocate(doomed);
    }
}

// Fresh shared memory (a memory file's pages, or dri's private fallback)
// reads as zeros.
void* fresh(Registry& r, std::size_t bytes, std::size_t capacity) noexcept {
    void* p = nullptr;
    try {
        p = dri::SharedMemory::allocate(capacity);
        std::lock_guard<std::mutex> lock(r.mutex);
        r.live.emplace(static_cast<const std::byte*>(p), Live{bytes, capacity, forks.load()});
        r.live_bytes += static_cast<std::int64_t>(bytes);
        ++r.allocated;
        return p;
    } catch (...) {
        if (p) dri::SharedMemory::deallocate(p);
        return nullptr;
    }
}

} // namespace

void* take(std::size_t bytes, bool zero) noexcept {
    const std::size_t page = page_size();
    if (bytes > SIZE_MAX - page) return nullptr;
    const std::size_t capacity = bytes == 0 ? page : (bytes + page - 1) / page * page;
    Registry& r = registry();
    std::byte* p = nullptr;
    {
        std::lock_guard<std::mutex> lock(r.mutex);
        const unsigned now = forks.load();
        const std::size_t k = r.best_fit(capacity, now);
        if (k != none) {
            try {
                r.live.emplace(r.cache[k].base, Live{bytes, r.cache[k].capacity, now});
            } catch (...) {
                return nullptr;
            }
            p = r.unlink(k).base;
            r.live_bytes += static_cast<std::int64_t>(bytes);
            ++r.allocated;
            ++r.reused;
        }
    }
    if (p) {
        if (zero) std::memset(p, 0, bytes); // it held another array's data
        return p;
    }
    release_victims(r);
    void* q = fresh(r, bytes, capacity);
    if (!q && trim() > 0) q = fresh(r, bytes, capacity); // out of memory: cached blocks go first
    return q;
}

bool give_back(void* p) noexcept {
    Registry& r = registry();
    auto* base = static_cast<std::byte*>(p);
    std::byte* doomed = base;
    {
        std::lock_guard<std::mutex> lock(r.mutex);
        const auto it = r.live.find(base);
        if (it == r.live.end()) return false;
        const Live b = it->second;
        r.live.erase(it);
        r.live_bytes -= static_cast<std::int64_t>(b.bytes);
        const unsigned now = forks.load();
        if (b.fork == now && b.capacity <= r.cap) {
            // A full cache makes room by its least recently freed block.
            doomed = r.cache.size() < max_cached_blocks ? nullptr : r.unlink(r.least_recent()).base;
            r.cache.push_back({base, b.capacity, now, ++r.clock});
            r.cached_bytes += b.capacity;
        }
    }
    if (doomed) dri::SharedMemory::deallocate(doomed);
    release_victims(r); // over the cap, or stale after a fork
    return true;
}

bool size_of(const void* p, std::size_t& bytes) noexcept {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    const auto it = r.live.find(static_cast<const std::byte*>(p));
    if (it == r.live.end()) return false;
    bytes = it->second.bytes;
    return true;
}

bool holds(const std::byte* lo, const std::byte* hi) noexcept {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.live.upper_bound(lo);
    if (it == r.live.begin()) return false;
    --it;
    const std::byte* end = it->first + it->second.bytes;
    return lo < end ? hi <= end : lo == hi && lo == it->first;
}

Stats stats() noexcept {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    Stats s;
    s.live = static_cast<std::int64_t>(r.live.size());
    s.live_bytes = r.live_bytes;
    s.allocated = r.allocated;
    s.reused = r.reused;
    s.cached = static_cast<std::int64_t>(r.cache.size());
    s.cached_bytes = static_cast<std::int64_t>(r.cached_bytes);
    return s;
}

std::size_t set_cache_bytes(std::size_t cap) noexcept {
    Registry& r = registry();
    std::size_t previous = 0;
    {
        std::lock_guard<std::mutex> lock(r.mutex);
        previous = r.cap;
        r.cap = cap;
    }
    release_victims(r);
    return previous;
}

std::size_t cache_bytes() noexcept {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    return r.cap;
}

std::size_t trim() noexcept {
    Registry& r = registry();
    std::size_t released = 0;
    for (;;) {
        Cached c{};
        {
            std::lock_guard<std::mutex> lock(r.mutex);
            if (r.cache.empty()) return released;
            c = r.unlink(r.cache.size() - 1);
        }
        dri::SharedMemory::deallocate(c.base);
        released += c.capacity;
    }
}

} // namespace dri::python::shared_blocks
