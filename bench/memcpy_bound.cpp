// The bound: a local memcpy of the rank's send bytes. Not a redistribution
// (nothing crosses ranks, nothing is checked); it says what the memory
// system gives for the same bytes.
#include "method.hpp"
#include "probe.hpp"

#include <cstdint>
#include <cstring>
#include <memory>

namespace dri::bench {

void add_memcpy_bound(Catalog& cat, const Problem& pb, Rings& rings) {
    const std::string name = "memcpy_bound";
    if (!cat.wants(name)) return;
    Probe probe;
    auto copy = std::make_shared<AlignedBlock>(static_cast<std::size_t>(pb.send_bytes) + 4096);
    // glibc's memcpy is up to ten times slower on AMD Zen when the destination
    // sits slightly after the source modulo 4 KiB (a slow path of rep movsb),
    // so each copy is placed half a page away from its source: the fast case.
    std::vector<std::byte*> dst;
    for (const auto& s : rings.send) {
        const auto gap = (reinterpret_cast<std::uintptr_t>(s.data()) -
                          reinterpret_cast<std::uintptr_t>(copy->data()) + 2048) %
                         4096;
        dst.push_back(copy->data() + gap);
    }
    Method out{name, Kind::bound, nullptr, false, "a local copy of the rank's send bytes",
               0,    -1,          -1};
    out.run = [copy, dst, &rings](int k) {
        const auto& s = rings.send[static_cast<std::size_t>(k)];
        if (!s.empty()) std::memcpy(dst[static_cast<std::size_t>(k)], s.data(), s.size());
    };
    cat.add(std::move(out), probe);
}

} // namespace dri::bench
