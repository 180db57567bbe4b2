// Random box partitions for the property tests (in memory and over MPI):
// the array cut by random recursive bisection, the pieces dealt to random
// members (some get none, some several), empty boxes slipped in and, for a
// receiving side that need not cover, some pieces left out.
#pragma once

#include "core/box_partition.hpp"
#include "core/distribution.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

namespace dri::test {

inline std::vector<std::vector<core::Box>>
random_box_lists(std::mt19937_64& rng, const core::Shape& shape, int procs, bool covering) {
    using core::Index;
    auto uniform = [&](Index lo, Index hi) {
        return std::uniform_int_distribution<Index>(lo, hi)(rng);
    };
    const auto nd = static_cast<std::size_t>(shape.ndims());
    core::Box whole;
    for (std::size_t d = 0; d < nd; ++d) {
        whole.first.push_back(0);
        whole.last.push_back(shape.extent(static_cast<int>(d)) - 1);
    }
    std::vector<core::Box> pieces{whole};
    const Index target = uniform(1, 14);
    for (int tries = 0; static_cast<Index>(pieces.size()) < target && tries < 100; ++tries) {
        core::Box& b = pieces[static_cast<std::size_t>(uniform(0, Index(pieces.size()) - 1))];
        const auto d = static_cast<std::size_t>(uniform(0, Index(nd) - 1));
        if (b.last[d] <= b.first[d]) continue;
        const Index cut = uniform(b.first[d] + 1, b.last[d]);
        core::Box hi = b;
        hi.first[d] = cut;
        b.last[d] = cut - 1;
        pieces.push_back(hi);
    }
    std::shuffle(pieces.begin(), pieces.end(), rng);
    std::vector<std::vector<core::Box>> lists(static_cast<std::size_t>(procs));
    for (const core::Box& b : pieces) {
        if (!covering && uniform(0, 4) == 0) continue;
        lists[static_cast<std::size_t>(uniform(0, procs - 1))].push_back(b);
    }
    for (int k = static_cast<int>(uniform(0, 2)); k > 0; --k) {
        core::Box e = whole;
        const auto d = static_cast<std::size_t>(uniform(0, Index(nd) - 1));
        e.first[d] = uniform(0, shape.extent(static_cast<int>(d)));
        e.last[d] = e.first[d] - 1;
        auto& l = lists[static_cast<std::size_t>(uniform(0, procs - 1))];
        l.insert(l.begin() + static_cast<std::ptrdiff_t>(uniform(0, Index(l.size()))), e);
    }
    return lists;
}

inline std::unique_ptr<core::Distribution>
random_box_distribution(std::mt19937_64& rng, const core::Shape& shape, int procs, bool covering) {
    return std::make_unique<core::Distribution>(std::make_shared<const core::BoxPartition>(
        shape, random_box_lists(rng, shape, procs, covering)));
}

// A dimension order, no padding: the layouts a box side accepts.
inline core::Layout random_box_layout(std::mt19937_64& rng, int ndims) {
    std::vector<int> order(static_cast<std::size_t>(ndims));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    return core::Layout::ordered(order);
}

inline std::string describe_boxes(const core::Distribution& d) {
    std::string s;
    for (int m = 0; m < d.nprocs(); ++m) {
        s += " member " + std::to_string(m) + ":";
        for (const core::Box& b : d.boxes()->boxes(m))
            s += " [" + core::to_string(b) + "]";
    }
    return s;
}

} // namespace dri::test
