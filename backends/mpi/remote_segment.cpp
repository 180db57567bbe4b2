#include "mpi/remote_segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

namespace dri::detail {

namespace {

std::mutex mutex;

// By file identity (device, inode), unique while any process maps the file
// (a mapping held here keeps it alive), and access.
using Key = std::tuple<std::int64_t, std::int64_t, Access>;
std::map<Key, std::weak_ptr<const RemoteSegment>>& mapped() {
    static std::map<Key, std::weak_ptr<const RemoteSegment>> m;
    return m;
}

// Opens the owner's file, or -1; only when it is the file that was published.
int open_published(const SegmentId& id, Access access) {
    const std::string path = "/proc/" + std::to_string(id.pid) + "/fd/" + std::to_string(id.fd);
    const int fd = open(path.c_str(), (access == Access::write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st {};
    if (fstat(fd, &st) != 0 || static_cast<std::int64_t>(st.st_dev) != id.dev ||
        static_cast<std::int64_t>(st.st_ino) != id.ino || st.st_uid != getuid() ||
        st.st_size < id.bytes) {
        close(fd);
        return -1;
    }
    return fd;
}

std::shared_ptr<const RemoteSegment> map_new(const SegmentId& id, Access access) {
    const int fd = open_published(id, access);
    if (fd < 0) return nullptr;
    const int prot = access == Access::write ? PROT_READ | PROT_WRITE : PROT_READ;
    void* p = mmap(nullptr, static_cast<std::size_t>(id.bytes), prot, MAP_SHARED, fd, 0);
    close(fd); // the mapping keeps the file
    if (p == MAP_FAILED) return nullptr;
    return std::make_shared<const RemoteSegment>(static_cast<std::byte*>(p), id.bytes, id.pid,
                                                 access == Access::write);
}

} // namespace

RemoteSegment::~RemoteSegment() {
    munmap(base_, static_cast<std::size_t>(bytes_));
}

std::shared_ptr<const RemoteSegment> map_remote(const SegmentId& id, Access access) {
    if (id.fd < 0 || id.bytes <= 0) return nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    std::erase_if(mapped(), [](const auto& kv) { return kv.second.expired(); });
    std::weak_ptr<const RemoteSegment>& slot = mapped()[{id.dev, id.ino, access}];
    if (std::shared_ptr<const RemoteSegment> seg = slot.lock(); seg && seg->bytes() >= id.bytes)
        return seg;
    std::shared_ptr<const RemoteSegment> seg = map_new(id, access);
    if (seg) slot = seg;
    return seg;
}

std::vector<std::int64_t> remote_segment_owners() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<std::int64_t> out;
    for (const auto& [key, weak] : mapped())
        if (std::shared_ptr<const RemoteSegment> seg = weak.lock()) out.push_back(seg->owner());
    return out;
}

} // namespace dri::detail
