#include "mpi/remote_segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace dri::detail {

namespace {

std::mutex mutex;

// By file identity (device, inode): unique while any process maps the file,
// and a mapping held here keeps it alive.
std::map<std::pair<std::int64_t, std::int64_t>, std::weak_ptr<const RemoteSegment>>& mapped() {
    static std::map<std::pair<std::int64_t, std::int64_t>, std::weak_ptr<const RemoteSegment>> m;
    return m;
}

// Opens the owner's file, or -1; only when it is the file that was published.
int open_published(const SegmentId& id) {
    const std::string path = "/proc/" + std::to_string(id.pid) + "/fd/" + std::to_string(id.fd);
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
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

std::shared_ptr<const RemoteSegment> map_new(const SegmentId& id) {
    const int fd = open_published(id);
    if (fd < 0) return nullptr;
    void* p = mmap(nullptr, static_cast<std::size_t>(id.bytes), PROT_READ, MAP_SHARED, fd, 0);
    close(fd); // the mapping keeps the file
    if (p == MAP_FAILED) return nullptr;
    return std::make_shared<const RemoteSegment>(static_cast<const std::byte*>(p), id.bytes,
                                                 id.pid);
}

} // namespace

RemoteSegment::~RemoteSegment() {
    munmap(const_cast<std::byte*>(base_), static_cast<std::size_t>(bytes_));
}

std::shared_ptr<const RemoteSegment> map_remote(const SegmentId& id) {
    if (id.fd < 0 || id.bytes <= 0) return nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    std::erase_if(mapped(), [](const auto& kv) { return kv.second.expired(); });
    std::weak_ptr<const RemoteSegment>& slot = mapped()[{id.dev, id.ino}];
    if (std::shared_ptr<const RemoteSegment> seg = slot.lock(); seg && seg->bytes() >= id.bytes)
        return seg;
    std::shared_ptr<const RemoteSegment> seg = map_new(id);
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
