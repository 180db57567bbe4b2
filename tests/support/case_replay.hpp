// What the random MPI tests (test_random_mpi, test_reverse_mpi,
// test_boxes_mpi) share to draw and replay their cases: a 64-bit value from
// the environment (DRI_SEED, DRI_MPI_CASES, ...) and a random choice of ranks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

namespace dri::test {

inline std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

// n distinct ranks of 0..world-1, in random order.
inline std::vector<int> random_ranks(std::mt19937_64& rng, int world, int n) {
    std::vector<int> all(static_cast<std::size_t>(world));
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    all.resize(static_cast<std::size_t>(n));
    return all;
}

} // namespace dri::test
