#include "core/route_learner.hpp"

#include <algorithm>

namespace dri::core {

double median_of(std::vector<double> v) {
    if (v.empty()) return -1;
    std::sort(v.begin(), v.end());
    const std::size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

RouteLearner::RouteLearner(const LearnerConfig& cfg) : cfg_(cfg) {
    cfg_.routes = std::clamp(cfg_.routes, 1, max_routes);
    report_.routes = cfg_.routes;
    if (cfg_.routes == 1 || cfg_.mode == Learning::off) return; // phase single, route 0
    phase_ = RouteReport::Phase::learning;
    for (int k = 0; k < cfg_.routes; ++k)
        active_[static_cast<std::size_t>(k)] = true;
    start_round();
}

// Each round runs every route still in the race once, starting one route
// later than the round before: a route that runs after another finds the
// caches as that one left them, and rotating spreads that over all.
void RouteLearner::start_round() {
    queue_.clear();
    for (int i = 0; i < cfg_.routes; ++i) {
        const int k = (i + round_) % cfg_.routes;
        if (active_[static_cast<std::size_t>(k)]) queue_.push_back(k);
    }
    next_ = queue_.front();
}

void RouteLearner::record(double seconds) {
    ++report_.calls;
    if (phase_ == RouteReport::Phase::single || frozen_) return;
    if (phase_ == RouteReport::Phase::learning) {
        ++report_.explored;
        ++learning_calls_;
        if (round_ >= cfg_.warmup_rounds) mine_[static_cast<std::size_t>(next_)].push_back(seconds);
        queue_.erase(queue_.begin());
        if (!queue_.empty()) {
            next_ = queue_.front();
            return;
        }
        end_round();
        return;
    }
    if (rechecking_ < 0) {
        ++steady_;
        schedule();
        return;
    }
    // A re-check alternates the route being re-checked with the current
    // one, call by call, and compares the two sets of calls: each pair saw
    // the machine in the same state. Compared with the current route's
    // earlier calls instead, a burst that met a quiet moment looked faster
    // than it was, and a false switch then held until the next re-check
    // (150 calls at 2%).
    if (next_ == rechecking_) {
        ++report_.explored;
        burst_.push_back(seconds);
        next_ = current_;
        return;
    }
    paired_.push_back(seconds);
    if (paired_.size() < static_cast<std::size_t>(cfg_.burst)) {
        next_ = rechecking_;
        return;
    }
    local_.fill(-1);
    local_[static_cast<std::size_t>(rechecking_)] = median_of(burst_);
    local_[static_cast<std::size_t>(current_)] = median_of(paired_);
    due_ = true;
}

// The end of a learning round. The processes agree (each its own median of
// each route's timed calls so far, the slowest process's counting) where a
// decision follows: from the third timed round on, when a route may leave
// the race, and at the end. Other rounds follow one another without talking.
void RouteLearner::end_round() {
    ++round_;
    const bool last = round_ >= cfg_.warmup_rounds + cfg_.timed_rounds;
    if (!last && round_ < cfg_.warmup_rounds + min_rounds_to_prune) {
        start_round();
        return;
    }
    local_.fill(-1);
    for (int k = 0; k < cfg_.routes; ++k) {
        const auto u = static_cast<std::size_t>(k);
        if (active_[u]) local_[u] = median_of(mine_[u]);
    }
    due_ = true;
}

void RouteLearner::agreed(std::span<const double> reduced) {
    due_ = false;
    ++report_.decisions;
    if (phase_ != RouteReport::Phase::learning) {
        end_recheck(reduced);
        return;
    }
    double best = -1;
    for (int k = 0; k < cfg_.routes; ++k) {
        const auto u = static_cast<std::size_t>(k);
        if (!active_[u]) continue;
        agreed_[u] = reduced[u];
        report_.seconds[u] = reduced[u];
        if (reduced[u] >= 0 && (best < 0 || reduced[u] < best)) best = reduced[u];
    }
    // A route 1.5 times slower than the best, by the slowest process's
    // median over three timed rounds or more, cannot win (noise only adds
    // time): it leaves the race, and is re-checked later less often. A
    // route's first calls can be slow for reasons that pass (first touch, a
    // collective's first schedule, another job's burst): medians over
    // three calls keep one such call from dropping it.
    for (int k = 0; k < cfg_.routes; ++k) {
        const auto u = static_cast<std::size_t>(k);
        if (active_[u] && best > 0 && agreed_[u] > far_behind * best) {
            active_[u] = false;
            backoff_[u] = cfg_.max_backoff;
        }
    }
    const auto racing = std::count(active_.begin(), active_.end(), true);
    if (round_ >= cfg_.warmup_rounds + cfg_.timed_rounds || racing <= 1)
        end_learning();
    else
        start_round();
}

// The route of lowest agreed median over the timed rounds; the static
// rule's choice (route 0) unless another beats it by the margin.
int RouteLearner::best_by_median() const {
    int best = -1;
    for (int k = 0; k < cfg_.routes; ++k) {
        const auto u = static_cast<std::size_t>(k);
        if (!active_[u] || agreed_[u] < 0) continue;
        if (best < 0 || agreed_[u] < agreed_[static_cast<std::size_t>(best)]) best = k;
    }
    if (best < 0) return 0;
    if (active_[0] && agreed_[0] >= 0 &&
        agreed_[static_cast<std::size_t>(best)] >= (1 - cfg_.margin) * agreed_[0])
        return 0;
    return best;
}

void RouteLearner::end_learning() {
    current_ = best_by_median();
    next_ = current_;
    phase_ = RouteReport::Phase::settled;
    // Routes that left the race wait their back-off before a re-check.
    for (int k = 0; k < cfg_.routes; ++k) {
        const auto u = static_cast<std::size_t>(k);
        if (active_[u] || backoff_[u] != cfg_.max_backoff) continue;
        active_[u] = true;
        wait_turns(u);
    }
    if (cfg_.mode == Learning::once) frozen_ = true;
}

// Route k is not re-checked for its back-off times the calls between two
// re-checks at the explored share.
void RouteLearner::wait_turns(std::size_t k) {
    const double interval = cfg_.burst / cfg_.explore_share;
    not_before_[k] = report_.calls + static_cast<std::int64_t>(backoff_[k] * interval);
}

// After a call of the current route: whether the next call starts
// re-checking another. Only after `window` calls of the current route since
// learning ended or the last switch (a switch is not questioned at once), when the
// burst keeps the re-checks within their share of the calls since learning
// ended (plus `early_rechecks` bursts right after it: the learning saw a
// few calls only, and a machine that changed since should not cost a
// thousand calls), and when a route's back-off has run out. The route
// whose last agreed time is lowest goes first: it is the likeliest to win.
void RouteLearner::schedule() {
    next_ = current_;
    if (frozen_ || steady_ < cfg_.window) return;
    const double after = static_cast<double>(report_.calls - learning_calls_ + cfg_.burst);
    const auto rechecks = static_cast<double>(report_.explored - learning_calls_ + cfg_.burst);
    if (rechecks > cfg_.explore_share * after + cfg_.early_rechecks * cfg_.burst) return;
    int pick = -1;
    for (int k = 0; k < cfg_.routes; ++k) {
        const auto u = static_cast<std::size_t>(k);
        if (k == current_ || !active_[u] || report_.calls < not_before_[u]) continue;
        const double t = report_.seconds[u];
        if (pick < 0 || t < report_.seconds[static_cast<std::size_t>(pick)]) pick = k;
    }
    if (pick < 0) return;
    recheck(pick);
    next_ = pick;
}

// Starts re-checking route k, or ends the re-check (-1): its calls so far
// are forgotten either way.
void RouteLearner::recheck(int k) {
    rechecking_ = k;
    burst_.clear();
    paired_.clear();
}

void RouteLearner::end_recheck(std::span<const double> reduced) {
    const auto j = static_cast<std::size_t>(rechecking_);
    const auto c = static_cast<std::size_t>(current_);
    report_.seconds[j] = reduced[j];
    report_.seconds[c] = reduced[c];
    recheck(-1);
    if (reduced[j] < (1 - cfg_.margin) * reduced[c]) {
        // Every route may be re-checked again at once (the old one among
        // them, were the burst a fluke).
        ++report_.switches;
        current_ = static_cast<int>(j);
        backoff_.fill(1);
        not_before_.fill(0);
        steady_ = 0;
    } else {
        backoff_[j] =
            reduced[j] > far_behind * reduced[c] ? std::min(2 * backoff_[j], cfg_.max_backoff) : 1;
        wait_turns(j);
    }
    next_ = current_;
}

void RouteLearner::freeze(bool on) {
    if (phase_ == RouteReport::Phase::single || on == frozen_) return;
    frozen_ = on;
    if (on) {
        // Frozen while learning: the learning ends here, as it would have
        // (the routes that left the race come back for when it resumes).
        if (phase_ == RouteReport::Phase::learning) end_learning();
        recheck(-1);
        next_ = current_;
        return;
    }
    if (cfg_.mode == Learning::once) cfg_.mode = Learning::on;
    schedule();
}

void RouteLearner::seed(int current, std::span<const double> seconds) {
    if (phase_ != RouteReport::Phase::learning || report_.calls > 0) return;
    if (current < 0 || current >= cfg_.routes) return;
    phase_ = RouteReport::Phase::settled;
    report_.seeded = true;
    queue_.clear();
    current_ = next_ = current;
    for (int k = 0; k < cfg_.routes; ++k) {
        const auto u = static_cast<std::size_t>(k);
        active_[u] = true;
        agreed_[u] = report_.seconds[u] = u < seconds.size() ? seconds[u] : -1;
    }
    // As at the end of learning, a route the file found 1.5 times slower
    // than the current one waits its full back-off: a seeded run should not
    // spend its first calls on a route known to be far behind.
    const double best = agreed_[static_cast<std::size_t>(current)];
    for (int k = 0; k < cfg_.routes; ++k) {
        const auto u = static_cast<std::size_t>(k);
        if (k == current || best <= 0 || agreed_[u] <= far_behind * best) continue;
        backoff_[u] = cfg_.max_backoff;
        wait_turns(u);
    }
    if (cfg_.mode == Learning::once) frozen_ = true;
}

RouteReport RouteLearner::report() const {
    RouteReport r = report_;
    r.phase = frozen_ ? RouteReport::Phase::frozen : phase_;
    r.current = current_;
    return r;
}

} // namespace dri::core
