// Seeded randomized property tests of the planning core against the in-memory
// oracle, and of the text notation against the random cases. DRI_SEED=<n>
// replays a run, DRI_CASE=<i> one case of it, DRI_CASES=<n> sets the number of
// cases (default 2500).
#include "random_case.hpp"
#include "simulate.hpp"

#include "core/spec.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <iostream>
#include <random>

namespace {
std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

// Every part spelled out, defaults included, `inf` or nothing for an unbounded
// maximum: accepted text that is not canonical.
std::string verbose(const dri::core::DimPartition& dp, bool inf) {
    using namespace dri::core;
    std::string s = to_string(dp.kind);
    if (dp.kind == PartKind::cyclic || dp.block_size != 0)
        s += "(" + std::to_string(dp.block_size) + ")";
    if (!dp.ranges.empty()) {
        s += "(";
        for (const Range& r : dp.ranges)
            s += std::to_string(r.first) + ":" + std::to_string(r.last) + "|";
        s.back() = ')';
    }
    const std::string max = dp.max_block != unbounded ? std::to_string(dp.max_block)
                            : inf                     ? "inf"
                                                      : "";
    return s + "[" + std::to_string(dp.min_block) + ":" + max + "]/" + std::to_string(dp.nprocs) +
           "~" + std::to_string(dp.left) + ":" + std::to_string(dp.right) + ":" +
           to_string(dp.edge);
}

// What is wrong with the notation of one partition, empty when nothing.
std::string notation_fault(const dri::core::Partition& part, bool inf) {
    using namespace dri::core;
    const std::string text = to_string(part);
    if (parse_partition(text) != part) return "\"" + text + "\" parses to another partition";
    std::string loose;
    for (const DimPartition& dp : part)
        loose += (loose.empty() ? "" : ",") + verbose(dp, inf);
    const Partition back = parse_partition(loose);
    if (back != part) return "\"" + loose + "\" parses to another partition";
    if (to_string(back) != text) return "\"" + loose + "\" prints as \"" + to_string(back) + "\"";
    return {};
}

std::string shape_fault(const dri::core::Shape& shape) {
    using namespace dri::core;
    const std::string type = to_string(shape.type());
    if (parse_type(type) != shape.type()) return "\"" + type + "\" parses to another type";
    const std::string text = to_string(shape);
    const std::size_t space = text.find(' ');
    const Shape back(parse_shape(text.substr(0, space)), parse_type(text.substr(space + 1)));
    return back == shape ? std::string() : "\"" + text + "\" parses to another shape";
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

// A fan-out is planned as one plan per (sending side, receiving side) pair:
// every pair's plan must deliver every cell of its receiving side exactly,
// from the same sender buffers, with 1-3 receiving sides of their own
// process counts, partitions and layouts.
TEST_CASE("property: fan-outs to 1-3 receiving sides deliver every cell of every side") {
    const std::uint64_t seed = env_u64("DRI_SEED", std::random_device{}());
    const std::uint64_t cases = env_u64("DRI_CASES", 2500) / 3;
    std::cout << "fan-out property test: seed " << seed << ", cases " << cases << '\n';
    std::uint64_t failures = 0;
    long long cells = 0;
    for (std::uint64_t i = 0; i < cases && failures < 5; ++i) {
        dri::test::CaseGenerator gen(dri::test::mix_seed(seed ^ dri::test::mix_seed(~i)));
        const dri::test::RandomCase c = gen.draw();
        std::vector<dri::test::CaseGenerator::Receiver> more;
        for (std::uint64_t k = 0; k < i % 3; ++k)
            more.push_back(gen.another_receiver(c));
        std::string fault;
        for (std::size_t k = 0; k <= more.size() && fault.empty(); ++k) {
            const bool first = k == 0;
            const int procs = first ? c.recv_procs : more[k - 1].procs;
            const auto roles = dri::test::make_roles(c.send_procs, procs, first && c.shared);
            try {
                const auto res =
                    dri::test::simulate(c.send(), first ? c.recv() : more[k - 1].side(), roles);
                if (!res.ok) fault = "receiving side " + std::to_string(k) + ": " + res.error;
                cells += res.cells_checked;
            } catch (const std::exception& e) {
                fault = std::string("exception: ") + e.what();
            }
        }
        if (!fault.empty()) {
            ++failures;
            FAIL_CHECK("case " << i << " failed: " << fault << "\n  " << c.describe()
                               << "\n  replay: DRI_SEED=" << seed);
        }
    }
    std::cout << "fan-out property test: checked " << cells << " receive cells\n";
    CHECK(failures == 0);
}

TEST_CASE("property: printed partitions, types and shapes parse back, canonically") {
    const std::uint64_t seed = env_u64("DRI_SEED", std::random_device{}());
    const std::uint64_t cases = env_u64("DRI_CASES", 2500);
    const char* only = std::getenv("DRI_CASE");
    const std::uint64_t first = only ? env_u64("DRI_CASE", 0) : 0;
    const std::uint64_t last = only ? first + 1 : cases;
    std::cout << "notation property test: seed " << seed << ", cases " << first << ".." << last - 1
              << '\n';
    std::uint64_t failures = 0;
    for (std::uint64_t i = first; i < last && failures < 5; ++i) {
        dri::test::CaseGenerator gen(dri::test::mix_seed(seed ^ dri::test::mix_seed(i)));
        const dri::test::RandomCase c = gen.draw();
        std::string fault;
        try {
            fault = notation_fault(c.send_part, i % 2 == 0) +
                    notation_fault(c.recv_part, i % 2 == 1) + shape_fault(c.shape);
        } catch (const std::exception& e) {
            fault = std::string("exception: ") + e.what();
        }
        if (!fault.empty()) {
            ++failures;
            FAIL_CHECK("case " << i << ": " << fault << "\n  " << c.describe()
                               << "\n  replay: DRI_SEED=" << seed << " DRI_CASE=" << i);
        }
    }
    CHECK(failures == 0);
}

// The node model counts the pieces of every process without building their
// regions: the counts must be plan_local's, pair for pair, box sides
// included.
TEST_CASE("property: send_elements gives plan_local's element count for every pair") {
    const std::uint64_t seed = env_u64("DRI_SEED", std::random_device{}());
    for (std::uint64_t i = 0; i < 1000; ++i) {
        dri::test::CaseGenerator gen(dri::test::mix_seed(seed ^ dri::test::mix_seed(i)));
        const dri::test::RandomCase c = gen.draw();
        const dri::core::Side send = c.send(), recv = c.recv();
        for (int s = 0; s < send.dist->nprocs(); ++s) {
            std::vector<dri::core::PeerElements> planned;
            for (const dri::core::PeerRegions& p : dri::core::plan_local(send, recv, s, -1).sends)
                planned.push_back({p.peer, p.elements});
            const bool same = dri::core::send_elements(send, recv, s) == planned;
            CHECK_MESSAGE(same, "sender " << s << " of " << c.describe()
                                          << "\n  replay: DRI_SEED=" << seed);
            if (!same) return;
        }
    }
}
