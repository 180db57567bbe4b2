// Adaptive AUTO's decisions (docs/concepts.md, "AUTO keeps learning"): which
// of a transfer's committed routes runs each call, from the times of its
// own calls. Pure logic, without MPI: the backend (strategies/adaptive.cpp)
// times each call, reduces the values local() gives with MAX over the
// pair's processes when agreement_due(), and passes the result to agreed().
// Every decision reads only agreed values and call counts, so every process
// runs the same route at the same call.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace dri::core {

// How much a transfer learns; processes that ask differently get the least
// of what they asked (the values are ordered for a MIN over them).
enum class Learning : int {
    off = 0,  // the static rule's route only (today's AUTO)
    once = 1, // learn during the first calls, then keep the winner (frozen)
    on = 2,   // learn, then re-check now and then and follow the fastest
};

// The most routes a transfer holds: the static rule's first choice and the
// next two that apply.
inline constexpr int max_routes = 3;

struct LearnerConfig {
    int routes = 1; // candidates, 1..max_routes; 0 is the static rule's choice
    Learning mode = Learning::on;
    int warmup_rounds = 1;       // untimed: first touch, connections
    int timed_rounds = 5;        // rounds whose median decides
    double explore_share = 0.02; // re-checks: at most this share of the calls after learning,
    int early_rechecks = 3;      // plus this many bursts right after it
    int burst = 3;  // calls of the route being re-checked, each paired with one of the current
    int window = 8; // calls of the current route between two re-checks, at least
    double margin = 0.03; // a route replaces the current one when this much faster
    int max_backoff = 16; // a route far behind is re-checked this many turns less often
};

// What the learner has decided so far, for DRI_Transfer_learning and its faces.
struct RouteReport {
    enum class Phase { single, learning, settled, frozen };
    Phase phase = Phase::single;
    int routes = 1;
    int current = 0;
    // Each route's time in the last decision that timed it (the slowest
    // process's median, seconds); -1 where it was never timed.
    std::array<double, max_routes> seconds{-1, -1, -1};
    std::int64_t calls = 0;     // reorganizations completed
    std::int64_t explored = 0;  // of those, spent learning or re-checking
    std::int64_t switches = 0;  // changes of route after learning
    std::int64_t decisions = 0; // agreements applied
    bool seeded = false;        // started from a learned file (seed())
};

class RouteLearner {
  public:
    explicit RouteLearner(const LearnerConfig& cfg);

    // The route the next call runs.
    int next() const { return next_; }
    // After that call: its time on this process.
    void record(double seconds);
    // Whether the call just recorded ends a stage that needs the processes'
    // agreement: local() then holds one value per route (-1: not timed) to
    // reduce with MAX, and agreed() must get the result before next() is
    // read again.
    bool agreement_due() const { return due_; }
    std::span<const double> local() const { return local_; }
    void agreed(std::span<const double> reduced);
    // Between calls, on every process at the same call (the backend makes
    // it collective): stop exploring and keep the best route so far, or
    // resume.
    void freeze(bool on);
    // Before the first call, on every process alike: start as if learning
    // had just ended on `current`, with these agreed times (a learned file's,
    // core/learned_routes.hpp). The re-checks right after learning then
    // time each other route within 1.5 times the current one's once, so a
    // machine that changed since the file was written costs a few calls, not
    // the learning's; routes further behind wait their full back-off.
    void seed(int current, std::span<const double> seconds);
    RouteReport report() const;

  private:
    void start_round();
    void end_round();
    void end_learning();
    void schedule();
    void recheck(int k);
    void end_recheck(std::span<const double> reduced);
    int best_by_median() const;
    void wait_turns(std::size_t k);

    static constexpr int min_rounds_to_prune = 3;
    // A route this many times slower than the best is far behind: it leaves
    // the learning's race, and waits longer before its next re-check.
    static constexpr double far_behind = 1.5;
    LearnerConfig cfg_;
    RouteReport::Phase phase_ = RouteReport::Phase::single;
    bool frozen_ = false;
    int next_ = 0;
    int current_ = 0;
    // Learning: the round, the routes still in it and the calls left in it;
    // each route's agreed times over the timed rounds.
    int round_ = 0;
    std::array<bool, max_routes> active_{};
    std::vector<int> queue_; // routes of this stage still to run, the next first
    // Each route's timed calls on this process, and the last agreement on
    // them: the slowest process's median (-1: none yet).
    std::array<std::vector<double>, max_routes> mine_;
    std::array<double, max_routes> agreed_{-1, -1, -1};
    std::int64_t learning_calls_ = 0;
    // Settled: the current route's calls outside re-checks since learning
    // ended or the last switch, the route being re-checked (-1: none), its
    // burst's local times and those of the current route's calls paired with
    // them, each route's back-off (in re-check intervals) and the call
    // before which it is not re-checked.
    std::int64_t steady_ = 0;
    int rechecking_ = -1;
    std::vector<double> burst_, paired_;
    std::array<int, max_routes> backoff_{1, 1, 1};
    std::array<std::int64_t, max_routes> not_before_{};
    bool due_ = false;
    std::array<double, max_routes> local_{-1, -1, -1};
    RouteReport report_;
};

// The median of a few values (copied; empty: -1).
double median_of(std::vector<double> v);

} // namespace dri::core
