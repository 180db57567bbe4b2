#include "mpi/shared_memory.hpp"

#include "core/error.hpp"

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace dri::detail {

using core::Errc;
using core::Index;

namespace {

std::mutex mutex;

// By base address.
std::map<const std::byte*, std::unique_ptr<SharedBlock>>& blocks() {
    static std::map<const std::byte*, std::unique_ptr<SharedBlock>> m;
    return m;
}

Index page_size() {
    static const Index page = sysconf(_SC_PAGESIZE);
    return page;
}

// Takes an allocation out of the table (under the mutex); the caller
// releases it after letting go of the mutex.
std::unique_ptr<SharedBlock>
detach(std::map<const std::byte*, std::unique_ptr<SharedBlock>>::iterator it) {
    std::unique_ptr<SharedBlock> b = std::move(it->second);
    blocks().erase(it);
    return b;
}

// DRI_SHARED_MEMORY=off makes every allocation ordinary memory, as on a
// system without memory files: a way to compare and to test the fallback.
bool memory_files_wanted() {
    const char* v = std::getenv("DRI_SHARED_MEMORY");
    return !(v && std::strcmp(v, "off") == 0);
}

// Each allocation holds a descriptor: the soft limit on open files (often
// 1024) is raised once to the hard one, as Go's runtime does, so that rings
// of many buffers stay shareable. Past the hard limit allocations are
// ordinary memory (memory_file fails with EMFILE).
void raise_descriptor_limit() {
    static const bool raised = [] {
        rlimit r{};
        if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur >= r.rlim_max) return false;
        r.rlim_cur = r.rlim_max;
        return setrlimit(RLIMIT_NOFILE, &r) == 0;
    }();
    (void)raised;
}

// An anonymous memory file of `bytes`, readable and writable by its owner's
// user only, or -1 where the system has none (or no descriptor is left).
int memory_file(Index bytes) {
    if (!memory_files_wanted()) return -1;
    raise_descriptor_limit();
    const int fd = memfd_create("dri", MFD_CLOEXEC);
    if (fd < 0) return -1;
    if (fchmod(fd, S_IRUSR | S_IWUSR) != 0 || ftruncate(fd, bytes) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

void fill_id(SharedBlock& b, int fd, Index mapped) {
    struct stat st {};
    if (fstat(fd, &st) != 0) return;
    b.id = {getpid(), fd, static_cast<std::int64_t>(st.st_dev),
            static_cast<std::int64_t>(st.st_ino), mapped};
}

std::unique_ptr<SharedBlock> allocate(Index bytes) {
    const Index page = page_size();
    const Index mapped = bytes == 0 ? page : (bytes + page - 1) / page * page;
    auto b = std::make_unique<SharedBlock>();
    b->size = bytes;
    const int fd = memory_file(mapped);
    void* p = fd >= 0 ? mmap(nullptr, static_cast<std::size_t>(mapped), PROT_READ | PROT_WRITE,
                             MAP_SHARED, fd, 0)
                      : mmap(nullptr, static_cast<std::size_t>(mapped), PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        const int err = errno;
        if (fd >= 0) close(fd);
        core::fail(Errc::no_memory, "DRI_Alloc_mem: cannot map " + std::to_string(mapped) +
                                        " bytes: " + std::strerror(err));
    }
    b->base = static_cast<std::byte*>(p);
    b->id.bytes = mapped;
    if (fd >= 0) fill_id(*b, fd, mapped);
    if (fd >= 0 && b->id.fd < 0) close(fd);
    return b;
}

void release(SharedBlock& b) noexcept {
    munmap(b.base, static_cast<std::size_t>(b.id.bytes));
    if (b.id.fd >= 0) close(static_cast<int>(b.id.fd));
}

} // namespace

bool within(const std::byte* p, Index bytes, const std::byte* base, Index size) {
    const auto a = reinterpret_cast<std::uintptr_t>(p), lo = reinterpret_cast<std::uintptr_t>(base);
    return bytes >= 0 && a >= lo &&
           static_cast<std::uintptr_t>(bytes) <= static_cast<std::uintptr_t>(size) &&
           a - lo <= static_cast<std::uintptr_t>(size - bytes);
}

namespace {

void* allocate_for(Index bytes, Releaser owner) {
    if (bytes < 0) core::fail(Errc::arg, "DRI_Alloc_mem: negative size " + std::to_string(bytes));
    if (bytes > INT64_MAX - page_size())
        core::fail(Errc::overflow, "DRI_Alloc_mem: " + std::to_string(bytes) + " bytes do not fit");
    std::unique_ptr<SharedBlock> b = allocate(bytes);
    b->library_owned = owner == Releaser::library;
    std::lock_guard<std::mutex> lock(mutex);
    std::byte* p = b->base;
    blocks()[p] = std::move(b);
    return p;
}

} // namespace

void* shared_alloc(Index bytes) {
    return allocate_for(bytes, Releaser::user);
}

void shared_free(void* base) {
    std::unique_ptr<SharedBlock> doomed;
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = blocks().find(static_cast<const std::byte*>(base));
        if (it == blocks().end() || it->second->doomed)
            core::fail(Errc::arg, "DRI_Free_mem: the address was not returned by DRI_Alloc_mem "
                                  "(or is already freed)");
        if (it->second->library_owned)
            core::fail(Errc::arg, "DRI_Free_mem: the address is a buffer of a ring the library "
                                  "allocated (a transfer declared with a ring length, or a "
                                  "DRI-1.0 reorganization); it lives as long as its owner");
        if (it->second->users > 0)
            core::fail(Errc::state, "DRI_Free_mem: a committed transfer still uses the memory; "
                                    "destroy it first");
        doomed = detach(it);
    }
    release(*doomed);
}

void shared_free_when_unused(void* base, Releaser who) noexcept {
    std::unique_ptr<SharedBlock> doomed;
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = blocks().find(static_cast<const std::byte*>(base));
        if (it == blocks().end()) return;
        if (it->second->library_owned && who != Releaser::library) return;
        if (it->second->users > 0) {
            it->second->doomed = true;
            return;
        }
        doomed = detach(it);
    }
    release(*doomed);
}

SharedBuffer shared_owned(Index bytes) {
    return SharedBuffer(static_cast<std::byte*>(allocate_for(bytes, Releaser::library)));
}

std::vector<SharedBuffer> shared_ring(int n, Index bytes) {
    std::vector<SharedBuffer> ring;
    for (int i = 0; i < n; ++i)
        ring.push_back(shared_owned(bytes));
    return ring;
}

std::vector<std::span<std::byte>> spans_of(const std::vector<SharedBuffer>& ring, Index bytes) {
    std::vector<std::span<std::byte>> spans;
    for (const SharedBuffer& b : ring)
        spans.emplace_back(b.get(), static_cast<std::size_t>(bytes));
    return spans;
}

SharedBlock* shared_find_own(const std::byte* p, Index bytes) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = blocks().upper_bound(p);
    if (it == blocks().begin()) return nullptr;
    --it;
    SharedBlock* b = it->second.get();
    return !b->doomed && within(p, bytes, b->base, b->size) ? b : nullptr;
}

void shared_use(SharedBlock* b, int delta) noexcept {
    std::unique_ptr<SharedBlock> doomed;
    {
        std::lock_guard<std::mutex> lock(mutex);
        b->users += delta;
        if (b->users > 0 || !b->doomed) return;
        doomed = detach(blocks().find(b->base));
    }
    release(*doomed);
}

} // namespace dri::detail
