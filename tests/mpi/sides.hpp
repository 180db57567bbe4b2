// One side of a transfer in the MPI tests that declare several (fan-out,
// reverse): its description, and what one process builds of it.
#pragma once

#include "core/spec.hpp"
#include "mpi_world.hpp"
#include "to_api.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dri::test {

struct SideSpec {
    std::string part;
    core::Layout layout;
    std::vector<int> ranks;
    core::GridOrder order = core::GridOrder::row_major;
};

// One side as this process sees it: the oracle's distribution, the API
// objects when it is a member, and its ring.
struct SideRun {
    core::Distribution dist;
    std::vector<core::Layout> layouts; // each process's own, by group index, if not empty
    dri::Group group;
    core::Layout layout; // this process's own
    std::optional<dri::Distribution> api;
    std::vector<std::vector<std::byte>> plain;
    std::vector<dri::SharedMemory> shared;
    std::vector<std::span<std::byte>> ring;

    SideRun(const core::Shape& shape, const SideSpec& s)
        : dist(shape, core::parse_partition(s.part), static_cast<int>(s.ranks.size()), s.order),
          group(world(), s.ranks), layout(s.layout) {
        if (group.contains_me())
            api.emplace(to_api(shape), to_api(core::parse_partition(s.part)), group,
                        static_cast<dri::GridOrder>(s.order));
    }
    // Before make_ring: every process of the side stores in its own layout.
    void own_layouts(std::vector<core::Layout> all) {
        layouts = std::move(all);
        if (group.contains_me()) layout = layouts[static_cast<std::size_t>(group.index())];
    }
    const core::Layout& layout_of(int index) const {
        return layouts.empty() ? layout : layouts[static_cast<std::size_t>(index)];
    }
    std::size_t bytes() const {
        return static_cast<std::size_t>(api ? api->block(to_api(layout)).bytes : 0);
    }
    void make_ring(int n, bool in_shared_memory) {
        for (int i = 0; i < n; ++i) {
            if (in_shared_memory) { // collective over world()
                shared.emplace_back(bytes());
                ring.emplace_back(shared.back().data(), bytes());
            } else {
                plain.emplace_back(bytes());
                ring.emplace_back(plain.back());
            }
        }
    }
};

} // namespace dri::test
