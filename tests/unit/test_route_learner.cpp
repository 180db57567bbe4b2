// Adaptive AUTO's decisions (core/route_learner.hpp), without MPI: the
// processes are simulated learners whose local values are reduced with MAX,
// as the backend's MPI_Iallreduce does.
#include "core/route_learner.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <vector>

using namespace dri::core;

namespace {

// Time of route k at call n on process p.
using Clock = std::function<double(int p, int k, std::int64_t n)>;

// Runs `calls` calls on `procs` learners. Every process must run the same
// route at every call; returns the route of each call.
std::vector<int> drive(std::vector<RouteLearner>& procs, std::int64_t calls, const Clock& clock) {
    std::vector<int> ran;
    for (std::int64_t n = 0; n < calls; ++n) {
        const int k = procs[0].next();
        for (RouteLearner& l : procs)
            REQUIRE(l.next() == k);
        ran.push_back(k);
        for (std::size_t p = 0; p < procs.size(); ++p)
            procs[p].record(clock(static_cast<int>(p), k, n));
        const bool due = procs[0].agreement_due();
        for (RouteLearner& l : procs)
            REQUIRE(l.agreement_due() == due);
        if (!due) continue;
        std::vector<double> reduced(max_routes, -1);
        for (RouteLearner& l : procs)
            for (int r = 0; r < max_routes; ++r)
                reduced[static_cast<std::size_t>(r)] = std::max(
                    reduced[static_cast<std::size_t>(r)], l.local()[static_cast<std::size_t>(r)]);
        for (RouteLearner& l : procs)
            l.agreed(reduced);
    }
    return ran;
}

std::vector<RouteLearner> learners(int procs, int routes, Learning mode = Learning::on) {
    LearnerConfig cfg;
    cfg.routes = routes;
    cfg.mode = mode;
    return std::vector<RouteLearner>(static_cast<std::size_t>(procs), RouteLearner(cfg));
}

Clock fixed(std::vector<double> t) {
    return [t](int, int k, std::int64_t) { return t[static_cast<std::size_t>(k)]; };
}

// Calls spent learning: one warm-up and five timed rounds of three routes.
constexpr std::int64_t learning_calls = 18;

} // namespace

TEST_CASE("one route, or learning off: route 0 always, no agreement") {
    for (auto [routes, mode] : {std::pair{1, Learning::on}, std::pair{3, Learning::off}}) {
        auto p = learners(2, routes, mode);
        const std::vector<int> ran = drive(p, 500, fixed({2, 1, 1}));
        CHECK(std::count(ran.begin(), ran.end(), 0) == 500);
        CHECK(p[0].report().phase == RouteReport::Phase::single);
        CHECK(p[0].report().decisions == 0);
        CHECK(p[0].report().explored == 0);
    }
}

TEST_CASE("learning times every route in turn, then runs the fastest") {
    auto p = learners(2, 3);
    const std::vector<int> ran = drive(p, learning_calls, fixed({1.2e-3, 1e-3, 1.1e-3}));
    for (int k = 0; k < 3; ++k)
        CHECK(std::count(ran.begin(), ran.end(), k) == 6);
    const RouteReport r = p[0].report();
    CHECK(r.phase == RouteReport::Phase::settled);
    CHECK(r.current == 1);
    CHECK(p[0].next() == 1);
    CHECK(r.explored == learning_calls);
    CHECK(r.switches == 0);
    CHECK(r.seconds[0] == doctest::Approx(1.2e-3));
    CHECK(r.seconds[1] == doctest::Approx(1e-3));
}

TEST_CASE("a route whose best round is 1.5 times the best median leaves the race") {
    auto p = learners(1, 3);
    // After the warm-up and three timed rounds, routes 0 and 2 are out.
    const std::vector<int> ran = drive(p, 12, fixed({3, 1, 2}));
    CHECK(p[0].report().phase == RouteReport::Phase::settled);
    CHECK(p[0].report().current == 1);
    CHECK(p[0].report().explored == 12);
    CHECK(std::count(ran.begin(), ran.end(), 0) == 4);
    // One slow sample does not drop a route: route 1 is twice as slow in
    // the warm-up and the first timed round, then the fastest.
    auto q = learners(1, 3);
    const Clock clock = [](int, int k, std::int64_t n) {
        if (k == 1) return n < 6 ? 4.0 : 1.0;
        return k == 0 ? 2.0 : 2.1;
    };
    drive(q, 18, clock);
    CHECK(q[0].report().current == 1);
}

TEST_CASE("the static rule's route stays unless another beats it by the margin") {
    auto p = learners(1, 3);
    drive(p, learning_calls, fixed({1.0, 0.99, 2.0}));
    CHECK(p[0].report().current == 0);
    auto q = learners(1, 3);
    drive(q, learning_calls, fixed({1.0, 0.9, 2.0}));
    CHECK(q[0].report().current == 1);
}

TEST_CASE("a route far behind leaves the learning after three timed rounds") {
    auto p = learners(1, 3);
    // Route 2 takes 10 times route 0's time: it runs in the warm-up and
    // three timed rounds only.
    const std::vector<int> ran = drive(p, 200, fixed({1, 1.2, 10}));
    CHECK(std::count(ran.begin(), ran.end(), 2) == 4);
    CHECK(p[0].report().current == 0);
}

TEST_CASE("processes that time differently still agree, on the slowest process's times") {
    // Process 0 sees route 1 fastest, process 1 sees route 2 fastest; the
    // slowest process's times decide: route 1 (max 2) against route 2 (max 3).
    auto p = learners(2, 3);
    const Clock clock = [](int proc, int k, std::int64_t) {
        static const double t[2][3] = {{4, 1, 3}, {4, 2, 1}};
        return t[proc][k];
    };
    drive(p, 5000, clock);
    CHECK(p[0].report().current == 1);
    CHECK(p[1].report().current == 1);
    CHECK(p[0].report().switches == p[1].report().switches);
}

TEST_CASE("re-checks: three right after learning, then at most 2% of the calls") {
    auto p = learners(1, 3);
    drive(p, 20000, fixed({1, 1.1, 1.2}));
    const RouteReport r = p[0].report();
    CHECK(r.calls == 20000);
    CHECK(r.explored - learning_calls <= 0.02 * (20000 - learning_calls) + 9);
    CHECK(r.explored - learning_calls >= 0.02 * (20000 - learning_calls) - 3);
    CHECK(r.switches == 0);
    // Right after learning each other route is re-checked once, within 40
    // calls (each after the window of 8 calls fills), the likelier first;
    // then neither for about 150 calls.
    auto q = learners(1, 3);
    const std::vector<int> ran = drive(q, learning_calls + 40, fixed({1, 1.2, 1.1}));
    CHECK(q[0].report().explored == learning_calls + 6);
    const auto first =
        std::find_if(ran.begin() + learning_calls, ran.end(), [](int k) { return k != 0; });
    REQUIRE(first != ran.end());
    CHECK(*first == 2);
    CHECK(std::count(ran.begin() + learning_calls, ran.end(), 1) >= 3);
    drive(q, 100, fixed({1, 1.2, 1.1}));
    CHECK(q[0].report().explored == learning_calls + 6);
}

TEST_CASE("AUTO follows a change of the fastest route, on every process at once") {
    // Route 0 is fastest, until the machine changes and route 2 is.
    auto p = learners(2, 3);
    const auto clock = [](bool changed) -> Clock {
        return [changed](int proc, int k, std::int64_t) {
            const double before[3] = {1, 1.3, 1.2}, after[3] = {1, 1.3, 0.6};
            return (changed ? after : before)[k] * (1 + 0.01 * proc);
        };
    };
    drive(p, 4000, clock(false));
    CHECK(p[0].report().current == 0);
    CHECK(p[0].report().switches == 0);
    std::int64_t calls = 0;
    while (p[0].report().current != 2 && calls < 5000) {
        drive(p, 10, clock(true));
        calls += 10;
    }
    // Found within two re-check turns (150 calls each at 2%).
    CHECK(calls <= 320);
    drive(p, 4000, clock(true));
    CHECK(p[0].report().current == 2);
    CHECK(p[1].report().current == 2);
    CHECK(p[0].report().switches == 1);
}

TEST_CASE("a re-check pairs its calls with the current route's: a machine that speeds up "
          "as it starts does not switch to a slower route") {
    // Route 1 is always 1.2 times route 0. The machine runs everything 1.5
    // times slower until the first re-check starts: compared with the
    // current route's calls before it, the re-checked route would look 20%
    // faster.
    auto p = learners(2, 2);
    bool quiet = false;
    const Clock clock = [&quiet](int, int k, std::int64_t n) {
        if (k == 1 && n >= 12) quiet = true; // 12: two routes' learning calls
        return (k == 0 ? 1.0 : 1.2) * (quiet ? 1.0 : 1.5);
    };
    drive(p, 400, clock);
    CHECK(quiet);
    CHECK(p[0].report().switches == 0);
    CHECK(p[0].report().current == 0);
    // Paired calls still see a route that became faster.
    auto q = learners(2, 2);
    drive(q, 400, [](int, int k, std::int64_t n) { return k == 0 ? 1.0 : (n < 12 ? 1.2 : 0.8); });
    CHECK(q[0].report().switches == 1);
    CHECK(q[0].report().current == 1);
}

TEST_CASE("a slow route is re-checked less often, and again often after a switch") {
    auto p = learners(1, 2);
    drive(p, 40000, fixed({1, 1.8}));
    const RouteReport slow = p[0].report();
    auto q = learners(1, 2);
    drive(q, 40000, fixed({1, 1.1}));
    const RouteReport close = q[0].report();
    CHECK(slow.explored < close.explored / 4);
}

TEST_CASE("freezing stops exploring; resuming starts again") {
    auto p = learners(2, 3);
    drive(p, 100, fixed({2, 1, 3}));
    for (RouteLearner& l : p)
        l.freeze(true);
    const std::int64_t explored = p[0].report().explored;
    const std::vector<int> ran = drive(p, 20000, fixed({2, 1, 3}));
    CHECK(std::count(ran.begin(), ran.end(), 1) == 20000);
    CHECK(p[0].report().explored == explored);
    CHECK(p[0].report().phase == RouteReport::Phase::frozen);
    for (RouteLearner& l : p)
        l.freeze(false);
    drive(p, 20000, fixed({2, 1, 3}));
    CHECK(p[0].report().explored > explored);
}

TEST_CASE("freezing during learning keeps the best route timed so far") {
    auto p = learners(1, 3);
    // Four rounds of three: three timed rounds have route 2 fastest.
    drive(p, 12, fixed({1.2, 1.3, 1}));
    CHECK(p[0].report().phase == RouteReport::Phase::learning);
    p[0].freeze(true);
    CHECK(p[0].report().current == 2);
    const std::vector<int> ran = drive(p, 50, fixed({1.2, 1.3, 1}));
    CHECK(std::count(ran.begin(), ran.end(), 2) == 50);
    // Before any timed round, the static rule's route.
    auto q = learners(1, 3);
    drive(q, 2, fixed({2, 3, 1}));
    q[0].freeze(true);
    CHECK(q[0].report().current == 0);
}

TEST_CASE("learning once freezes after the first calls") {
    auto p = learners(1, 3, Learning::once);
    const std::vector<int> ran = drive(p, 5000, fixed({1.2, 1, 1.3}));
    CHECK(p[0].report().phase == RouteReport::Phase::frozen);
    CHECK(p[0].report().explored == learning_calls);
    CHECK(std::count(ran.begin() + learning_calls, ran.end(), 1) == 5000 - learning_calls);
}

TEST_CASE("a seeded learner skips learning, and its first re-checks correct a stale seed") {
    const std::vector<double> seconds{1.2, 1, 3};
    // The seed is right: route 1 runs from the first call; route 0, close
    // behind, is re-checked once in a burst of three, and nothing changes;
    // route 2, three times slower, waits its full back-off.
    auto p = learners(2, 3);
    for (RouteLearner& l : p)
        l.seed(1, seconds);
    CHECK(p[0].report().seeded);
    CHECK(p[0].report().phase == RouteReport::Phase::settled);
    CHECK(p[0].report().seconds[2] == 3);
    std::vector<int> ran = drive(p, 150, fixed({1.2, 1, 3}));
    CHECK(ran.front() == 1);
    CHECK(p[0].report().explored == 3);
    CHECK(p[0].report().switches == 0);
    CHECK(std::count(ran.begin(), ran.end(), 2) == 0);
    CHECK(std::count(ran.begin(), ran.end(), 1) == 147);
    // The machine changed since: route 0 is fastest now; the first
    // re-check finds it within a few dozen calls, not after a learning.
    auto q = learners(2, 3);
    for (RouteLearner& l : q)
        l.seed(1, seconds);
    ran = drive(q, 60, fixed({0.5, 1, 3}));
    CHECK(q[0].report().switches == 1);
    CHECK(ran.back() == 0);
    // Learning once: the seed is frozen at once.
    auto r = learners(1, 3, Learning::once);
    r[0].seed(2, seconds);
    ran = drive(r, 100, fixed({1, 1, 3}));
    CHECK(r[0].report().phase == RouteReport::Phase::frozen);
    CHECK(std::count(ran.begin(), ran.end(), 2) == 100);
    // A seed after the first call, or of a route not held, changes nothing.
    auto s = learners(1, 3);
    drive(s, 1, fixed({1, 1, 1}));
    s[0].seed(1, seconds);
    CHECK_FALSE(s[0].report().seeded);
    auto u = learners(1, 2);
    u[0].seed(2, seconds);
    CHECK(u[0].report().phase == RouteReport::Phase::learning);
}
