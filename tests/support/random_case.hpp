// Random reorganization cases for the property tests (in memory and over MPI)
// and the fuzz target: 1-4 dimensions, extents including 1 and primes, every
// partition kind with overlap and edge policies, row- and column-major
// process grids, permuted, padded and strided layouts, 1-7 processes per side.
#pragma once

#include "core/distribution.hpp"
#include "core/layout.hpp"
#include "core/plan.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace dri::test {

using core::Index;

inline std::uint64_t mix_seed(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

struct RandomCase {
    core::Shape shape{{1}, core::ElementType::predefined(core::ElemKind::byte)};
    core::Partition send_part, recv_part;
    int send_procs = 1, recv_procs = 1;
    core::GridOrder send_order = core::GridOrder::row_major,
                    recv_order = core::GridOrder::row_major;
    bool shared = false; // process i is sender i and receiver i
    std::unique_ptr<core::Distribution> send_dist, recv_dist;
    core::Layout send_layout = core::Layout::packed(1), recv_layout = core::Layout::packed(1);

    // When not empty, each process's own layout (send_layout and recv_layout
    // then go unused by the plan).
    std::vector<core::Layout> send_layouts, recv_layouts;

    core::Side send() const { return {send_dist.get(), send_layout, send_layouts}; }
    core::Side recv() const { return {recv_dist.get(), recv_layout, recv_layouts}; }

    std::string describe() const {
        std::string s = "shape " + core::to_string(shape) + "\n  send " +
                        std::to_string(send_procs) + " procs, " + core::to_string(send_order) +
                        " grid:";
        for (const auto& dp : send_part)
            s += " [" + core::to_string(dp) + "]";
        for (const core::Layout& l : send_layouts)
            s += " own layout " + core::to_string(l);
        s += " layout " + core::to_string(send_layout) + "\n  recv " + std::to_string(recv_procs) +
             " procs, " + core::to_string(recv_order) + " grid:";
        for (const auto& dp : recv_part)
            s += " [" + core::to_string(dp) + "]";
        for (const core::Layout& l : recv_layouts)
            s += " own layout " + core::to_string(l);
        s += " layout " + core::to_string(recv_layout) +
             (shared ? "\n  shared processes" : "\n  disjoint processes");
        return s;
    }
};

class CaseGenerator {
  public:
    explicit CaseGenerator(std::uint64_t seed, int max_procs = 7, Index max_elements = 3000)
        : rng_(seed), max_procs_(max_procs), max_elements_(max_elements) {}

    RandomCase draw() {
        for (;;) {
            try {
                return attempt();
            } catch (const core::Error& e) {
                // Unlucky combination (no grid fits): draw again.
                if (e.code() != core::Errc::grid) throw;
            }
        }
    }

    // One more receiving side for c's data (a fan-out): its own process
    // count, partition, distribution and layout.
    struct Receiver {
        int procs = 1;
        core::GridOrder order = core::GridOrder::row_major;
        core::Partition part;
        std::unique_ptr<core::Distribution> dist;
        core::Layout layout = core::Layout::packed(1);
        core::Side side() const { return {dist.get(), layout}; }
    };
    Receiver another_receiver(const RandomCase& c) {
        for (;;) {
            Receiver r;
            r.procs = static_cast<int>(uniform(1, max_procs_));
            const auto g = factor(r.procs, c.shape.ndims());
            for (int d = 0; d < c.shape.ndims(); ++d)
                r.part.push_back(
                    dim_partition(c.shape.extent(d), g[static_cast<std::size_t>(d)], false));
            try {
                r.order = grid_order();
                r.dist = std::make_unique<core::Distribution>(c.shape, r.part, r.procs, r.order);
            } catch (const core::Error& e) {
                if (e.code() != core::Errc::grid) throw;
                continue;
            }
            r.layout = layout(*r.dist);
            return r;
        }
    }

  private:
    std::mt19937_64 rng_;
    int max_procs_;
    Index max_elements_;

    Index uniform(Index lo, Index hi) { return std::uniform_int_distribution<Index>(lo, hi)(rng_); }
    bool chance(int percent) { return uniform(1, 100) <= percent; }
    template <class T>
    const T& pick(const std::vector<T>& v) {
        return v[static_cast<std::size_t>(uniform(0, static_cast<Index>(v.size()) - 1))];
    }

    core::GridOrder grid_order() {
        return chance(50) ? core::GridOrder::column_major : core::GridOrder::row_major;
    }

    // Random factorization of p into nd factors.
    std::vector<int> factor(int p, int nd) {
        std::vector<int> g(static_cast<std::size_t>(nd), 1);
        int rest = p;
        for (int f = 2; f <= rest;) {
            if (rest % f == 0) {
                g[static_cast<std::size_t>(uniform(0, nd - 1))] *= f;
                rest /= f;
            } else {
                ++f;
            }
        }
        return g;
    }

    core::DimPartition dim_partition(Index n, int g, bool sender) {
        using core::DimPartition;
        core::DimPartition dp;
        const int kind = static_cast<int>(uniform(0, 3));
        if (g == 1 && kind == 0) {
            dp = DimPartition::whole();
        } else if (kind <= 1) {
            dp = DimPartition::block(chance(50) ? g : 0);
            if (g > n) dp.min_block = 0;
            if (chance(15)) dp.min_block = 0;
            if (chance(15)) dp.max_block = core::ceil_div(n, g) + uniform(0, 2);
        } else if (kind == 2) {
            dp = DimPartition::cyclic(uniform(1, 4), chance(50) ? g : 0);
            if (g > core::ceil_div(n, dp.block_size) || chance(10)) dp.min_block = 0;
        } else {
            std::vector<core::Range> rs;
            if (sender) {
                // g disjoint ranges covering [0, n), some possibly empty, in random order.
                std::vector<Index> cuts{0, n};
                for (int i = 1; i < g; ++i)
                    cuts.push_back(uniform(0, n));
                std::sort(cuts.begin(), cuts.end());
                for (int i = 0; i < g; ++i)
                    rs.push_back({cuts[static_cast<std::size_t>(i)],
                                  cuts[static_cast<std::size_t>(i) + 1] - 1});
                std::shuffle(rs.begin(), rs.end(), rng_);
            } else {
                // Arbitrary ranges: they may overlap, leave gaps or be empty.
                for (int i = 0; i < g; ++i) {
                    const Index a = uniform(0, n - 1);
                    const Index b = chance(10) ? a - 1 : uniform(a, n - 1);
                    rs.push_back({a, b});
                }
            }
            dp = DimPartition::explicit_ranges(std::move(rs));
        }
        // Overlap: always meaningful on receivers; on senders it is storage only.
        if (chance(sender ? 20 : 50)) {
            const Index cap = chance(10) ? n : std::min<Index>(n, 3);
            dp.left = uniform(0, cap);
            dp.right = uniform(0, cap);
            dp.edge = static_cast<core::EdgePolicy>(uniform(0, 3));
        }
        return dp;
    }

    core::Layout layout(const core::Distribution& dist) {
        const int nd = dist.ndims();
        std::vector<int> order(static_cast<std::size_t>(nd));
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng_);
        if (chance(20)) {
            // Explicit strides that fit every process, with some slack.
            std::vector<Index> maxext(static_cast<std::size_t>(nd), 1);
            for (int p = 0; p < dist.nprocs(); ++p) {
                const auto e = dist.local_extents(p);
                for (int d = 0; d < nd; ++d)
                    maxext[static_cast<std::size_t>(d)] = std::max(
                        maxext[static_cast<std::size_t>(d)], e[static_cast<std::size_t>(d)]);
            }
            std::vector<Index> strides(static_cast<std::size_t>(nd));
            Index stride = uniform(1, 2);
            for (int k = nd; k-- > 0;) {
                const auto d = static_cast<std::size_t>(order[static_cast<std::size_t>(k)]);
                strides[d] = stride;
                stride *= maxext[d] + uniform(0, 2);
            }
            return core::Layout::strided(std::move(strides));
        }
        std::vector<Index> pad(static_cast<std::size_t>(nd), 0);
        if (chance(30))
            for (auto& p : pad)
                p = uniform(0, 2);
        return core::Layout::ordered(std::move(order), std::move(pad));
    }

    RandomCase attempt() {
        static const std::vector<Index> extents{1, 2, 3, 4, 5, 6, 7, 8, 11, 13, 16, 17, 23, 31};
        static const std::vector<core::ElementType> types{
            core::ElementType::predefined(core::ElemKind::float32),
            core::ElementType::predefined(core::ElemKind::float64),
            core::ElementType::predefined(core::ElemKind::complex_float),
            core::ElementType::predefined(core::ElemKind::complex_double),
            core::ElementType::predefined(core::ElemKind::byte),
            core::ElementType::predefined(core::ElemKind::int16),
            core::ElementType::record(3),
            core::ElementType::record(7)};
        const int nd = static_cast<int>(uniform(1, 4));
        std::vector<Index> ext(static_cast<std::size_t>(nd));
        Index total = 1;
        for (auto& e : ext) {
            do {
                e = pick(extents);
            } while (total * e > max_elements_ && e > 1);
            total *= e;
        }
        RandomCase c;
        c.shape = core::Shape(ext, pick(types));
        c.send_procs = static_cast<int>(uniform(1, max_procs_));
        c.recv_procs = chance(30) ? c.send_procs : static_cast<int>(uniform(1, max_procs_));
        c.shared = chance(50);
        const auto gs = factor(c.send_procs, nd), gr = factor(c.recv_procs, nd);
        for (int d = 0; d < nd; ++d) {
            const auto du = static_cast<std::size_t>(d);
            c.send_part.push_back(dim_partition(ext[du], gs[du], true));
            c.recv_part.push_back(dim_partition(ext[du], gr[du], false));
        }
        c.send_order = grid_order();
        c.recv_order = grid_order();
        c.send_dist =
            std::make_unique<core::Distribution>(c.shape, c.send_part, c.send_procs, c.send_order);
        c.recv_dist =
            std::make_unique<core::Distribution>(c.shape, c.recv_part, c.recv_procs, c.recv_order);
        c.send_layout = layout(*c.send_dist);
        c.recv_layout = layout(*c.recv_dist);
        // Each process its own layout: orders, padding and strides differ.
        if (chance(30))
            for (int p = 0; p < c.send_procs; ++p)
                c.send_layouts.push_back(layout(*c.send_dist));
        if (chance(30))
            for (int p = 0; p < c.recv_procs; ++p)
                c.recv_layouts.push_back(layout(*c.recv_dist));
        return c;
    }
};

} // namespace dri::test
