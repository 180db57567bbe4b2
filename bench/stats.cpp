#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dri::bench {

namespace {

double nearest_rank(const std::vector<double>& sorted, double p) {
    const auto n = static_cast<double>(sorted.size());
    const auto k = static_cast<std::size_t>(std::max(1.0, std::ceil(p * n)));
    return sorted[std::min(k, sorted.size()) - 1];
}

} // namespace

Stats Stats::of(std::vector<double> t) {
    Stats s;
    if (t.empty()) return s;
    std::sort(t.begin(), t.end());
    const std::size_t n = t.size();
    s.median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
    s.min = t.front();
    s.max = t.back();
    s.p90 = nearest_rank(t, 0.90);
    s.p99 = nearest_rank(t, 0.99);
    s.mean = std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(n);
    return s;
}

} // namespace dri::bench
