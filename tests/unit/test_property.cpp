// Seeded randomized property test of the planning core against the in-memory
// oracle. DRI_SEED=<n> replays a run, DRI_CASE=<i> one case of it,
// DRI_CASES=<n> sets the number of cases (default 2500).
#include "random_case.hpp"
#include "simulate.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <iostream>
#include <random>

namespace {
std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}
} // namespace

TEST_CASE("property: random reorganizations deliver every cell exactly") {
    const std::uint64_t seed = env_u64("DRI_SEED", std::random_device{}());
    const std::uint64_t cases = env_u64("DRI_CASES", 2500);
    const char* only = std::getenv("DRI_CASE");
    const std::uint64_t first = only ? env_u64("DRI_CASE", 0) : 0;
    const std::uint64_t last = only ? first + 1 : cases;
    std::cout << "property test: seed " << seed << ", cases " << first << ".." << last - 1 << '\n';
    long long cells = 0, messages = 0;
    std::uint64_t failures = 0;
    for (std::uint64_t i = first; i < last && failures < 5; ++i) {
        dri::test::CaseGenerator gen(dri::test::mix_seed(seed ^ dri::test::mix_seed(i)));
        const dri::test::RandomCase c = gen.draw();
        const auto roles = dri::test::make_roles(c.send_procs, c.recv_procs, c.shared);
        dri::test::SimResult res;
        try {
            res = dri::test::simulate(c.send(), c.recv(), roles);
        } catch (const std::exception& e) {
            res.ok = false;
            res.error = std::string("exception: ") + e.what();
        }
        if (!res.ok) {
            ++failures;
            FAIL_CHECK("case " << i << " failed: " << res.error << "\n  " << c.describe()
                               << "\n  replay: DRI_SEED=" << seed << " DRI_CASE=" << i);
        }
        cells += res.cells_checked;
        messages += res.messages;
    }
    std::cout << "property test: checked " << cells << " receive cells and " << messages
              << " messages\n";
    CHECK(failures == 0);
}
