#include "core/partition.hpp"

#include <algorithm>

namespace dri::core {

DimPartition DimPartition::whole(Index left, Index right, EdgePolicy edge) {
    DimPartition p;
    p.kind = PartKind::whole;
    p.left = left;
    p.right = right;
    p.edge = edge;
    return p;
}

DimPartition DimPartition::block(int nprocs) {
    DimPartition p;
    p.kind = PartKind::block;
    p.nprocs = nprocs;
    return p;
}

DimPartition DimPartition::block4(Index left, Index min_block, Index max_block, Index right,
                                  EdgePolicy edge) {
    DimPartition p;
    p.kind = PartKind::block;
    p.left = left;
    p.min_block = min_block;
    p.max_block = max_block;
    p.right = right;
    p.edge = edge;
    return p;
}

DimPartition DimPartition::cyclic(Index block_size, int nprocs) {
    DimPartition p;
    p.kind = PartKind::cyclic;
    p.block_size = block_size;
    p.nprocs = nprocs;
    return p;
}

DimPartition DimPartition::explicit_ranges(std::vector<Range> ranges) {
    DimPartition p;
    p.kind = PartKind::ranges;
    p.ranges = std::move(ranges);
    return p;
}

namespace {
std::string dim_name(std::size_t d) {
    return "dimension " + std::to_string(d);
}

// Range i of an explicit partition: not reversed (an empty range is
// [k, k-1]), and inside [0, extent - 1] when the extent is known.
void check_range(const Range& r, std::size_t i, const std::string& where,
                 std::optional<Index> extent) {
    const std::string text = "range " + std::to_string(i) + " [" + std::to_string(r.first) + ", " +
                             std::to_string(r.last) + "]";
    const bool empty = r.first > std::numeric_limits<Index>::min() && r.last == r.first - 1;
    if (!empty && r.last < r.first)
        fail(Errc::partition,
             where + text + " is reversed (first > last; an empty range is [k, k-1])");
    if (r.first < 0) fail(Errc::partition, where + text + " starts below 0");
    if (!extent) return;
    const Index n = *extent;
    if (r.first > n || (!empty && r.last >= n))
        fail(Errc::partition, where + text + " is not inside [0, " + std::to_string(n - 1) +
                                  "] (an empty range is [k, k-1])");
}
} // namespace

void validate_partition(const Shape& shape, const Partition& part) {
    if (part.size() != static_cast<std::size_t>(shape.ndims()))
        fail(Errc::partition, "partition has " + std::to_string(part.size()) +
                                  " dimensions but the global array has " +
                                  std::to_string(shape.ndims()));
    for (std::size_t d = 0; d < part.size(); ++d)
        validate_dim_partition(part[d], d, shape.extent(static_cast<int>(d)));
}

void validate_dim_partition(const DimPartition& dp, std::size_t d, std::optional<Index> extent) {
    const bool known = extent.has_value();
    const Index n = extent.value_or(0);
    {
        const std::string where =
            dim_name(d) + (known ? " (extent " + std::to_string(n) + "): " : std::string(": "));
        switch (dp.kind) {
        case PartKind::whole:
        case PartKind::block:
        case PartKind::cyclic:
        case PartKind::ranges:
            break;
        default:
            fail(Errc::partition,
                 where + "unknown partition kind " + std::to_string(static_cast<int>(dp.kind)));
        }
        switch (dp.edge) {
        case EdgePolicy::truncate:
        case EdgePolicy::zero:
        case EdgePolicy::replicate:
        case EdgePolicy::wrap:
            break;
        default:
            fail(Errc::partition,
                 where + "unknown edge policy " + std::to_string(static_cast<int>(dp.edge)));
        }
        if (dp.left < 0 || dp.right < 0)
            fail(Errc::overlap, where + "overlap must be >= 0, got left " +
                                    std::to_string(dp.left) + ", right " +
                                    std::to_string(dp.right));
        if (known && (dp.left > n || dp.right > n))
            fail(Errc::overlap, where + "overlap (left " + std::to_string(dp.left) + ", right " +
                                    std::to_string(dp.right) + ") exceeds the extent");
        // Stored ranges reach from -left to n + right: their lengths must fit.
        if (known)
            checked_add(checked_add(n, dp.left, "extent + overlap"), dp.right, "extent + overlap");
        if (dp.nprocs < 0)
            fail(Errc::partition, where + "process count must be >= 0 (0 = automatic), got " +
                                      std::to_string(dp.nprocs));
        switch (dp.kind) {
        case PartKind::whole:
            if (dp.nprocs > 1)
                fail(Errc::partition, where + "a whole dimension has exactly one process, got " +
                                          std::to_string(dp.nprocs));
            break;
        case PartKind::block:
            if (dp.min_block < 0 || dp.max_block < 1)
                fail(Errc::minmax, where + "block extents need min >= 0 and max >= 1, got min " +
                                       std::to_string(dp.min_block) + ", max " +
                                       std::to_string(dp.max_block));
            if (dp.min_block > dp.max_block)
                fail(Errc::minmax, where + "min block extent " + std::to_string(dp.min_block) +
                                       " > max block extent " + std::to_string(dp.max_block));
            if (known && dp.min_block > n)
                fail(Errc::minmax, where + "min block extent " + std::to_string(dp.min_block) +
                                       " exceeds the extent");
            break;
        case PartKind::cyclic:
            if (dp.block_size < 1)
                fail(Errc::partition, where + "block-cyclic block size must be >= 1, got " +
                                          std::to_string(dp.block_size));
            break;
        case PartKind::ranges:
            if (dp.ranges.empty())
                fail(Errc::partition, where + "explicit partition needs at least one range");
            if (dp.nprocs != 0 && static_cast<std::size_t>(dp.nprocs) != dp.ranges.size())
                fail(Errc::partition, where + "process count " + std::to_string(dp.nprocs) +
                                          " differs from the number of ranges " +
                                          std::to_string(dp.ranges.size()));
            if (dp.ranges.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
                fail(Errc::partition, where + "too many ranges");
            for (std::size_t i = 0; i < dp.ranges.size(); ++i)
                check_range(dp.ranges[i], i, where, extent);
            break;
        }
    }
}

bool dim_count_fits(Index n, const DimPartition& dp, Index p, std::string* why) {
    auto say = [&](const std::string& s) {
        if (why) *why = s;
        return false;
    };
    if (p < 1) return say("process count must be >= 1");
    switch (dp.kind) {
    case PartKind::whole:
        return p == 1 ? true : say("a whole dimension has exactly one process");
    case PartKind::block: {
        const Index lo = n / p;
        const Index hi = ceil_div(n, p);
        if (lo < dp.min_block)
            return say("blocks of " + std::to_string(lo) + " elements (" + std::to_string(n) +
                       " over " + std::to_string(p) + " processes) are below the minimum " +
                       std::to_string(dp.min_block));
        if (hi > dp.max_block)
            return say("blocks of " + std::to_string(hi) + " elements (" + std::to_string(n) +
                       " over " + std::to_string(p) + " processes) exceed the maximum " +
                       std::to_string(dp.max_block));
        return true;
    }
    case PartKind::cyclic: {
        const Index nblocks = ceil_div(n, dp.block_size);
        if (p > nblocks && dp.min_block > 0)
            return say(std::to_string(p) + " processes but only " + std::to_string(nblocks) +
                       " blocks of " + std::to_string(dp.block_size) +
                       " (set min block extent 0 to allow processes without data)");
        return true;
    }
    case PartKind::ranges:
        return p == static_cast<Index>(dp.ranges.size())
                   ? true
                   : say("an explicit partition has one process per range");
    }
    return say("unknown partition kind");
}

namespace {

std::vector<Index> divisors(Index q) {
    std::vector<Index> small, large;
    for (Index i = 1; i * i <= q; ++i) {
        if (q % i == 0) {
            small.push_back(i);
            if (i != q / i) large.push_back(q / i);
        }
    }
    small.insert(small.end(), large.rbegin(), large.rend());
    return small;
}

struct GridSearch {
    const Shape& shape;
    const Partition& part;
    std::vector<int> free_dims;
    std::vector<Index> divs;
    std::vector<Index> current, best;
    Index best_score = unbounded;

    void search(std::size_t k, Index remaining, Index score) {
        if (k == free_dims.size()) {
            if (remaining == 1 && score < best_score) {
                best_score = score;
                best = current;
            }
            return;
        }
        const int d = free_dims[k];
        const Index n = shape.extent(d);
        // Larger counts first, so that ties keep more processes in earlier dimensions.
        for (auto it = divs.rbegin(); it != divs.rend(); ++it) {
            const Index p = *it;
            if (p > remaining || remaining % p != 0) continue;
            if (k + 1 == free_dims.size() && p != remaining) continue;
            if (!dim_count_fits(n, part[static_cast<std::size_t>(d)], p)) continue;
            current[static_cast<std::size_t>(d)] = p;
            search(k + 1, remaining / p, score + ceil_div(n, p));
        }
    }
};

} // namespace

std::vector<int> choose_grid(const Shape& shape, const Partition& part, int nprocs) {
    validate_partition(shape, part);
    if (nprocs < 1)
        fail(Errc::group,
             "a distribution needs at least one process, got " + std::to_string(nprocs));
    const std::size_t nd = part.size();
    std::vector<Index> counts(nd, 0);
    Index fixed = 1;
    std::vector<int> free_dims;
    for (std::size_t d = 0; d < nd; ++d) {
        const DimPartition& dp = part[d];
        Index p = 0;
        if (dp.kind == PartKind::whole)
            p = 1;
        else if (dp.kind == PartKind::ranges)
            p = static_cast<Index>(dp.ranges.size());
        else
            p = dp.nprocs;
        if (p == 0) {
            free_dims.push_back(static_cast<int>(d));
            continue;
        }
        std::string why;
        if (!dim_count_fits(shape.extent(static_cast<int>(d)), dp, p, &why))
            fail(Errc::grid, "dimension " + std::to_string(d) + ": " + why);
        counts[d] = p;
        fixed = checked_mul(fixed, p, "process grid size");
    }
    auto grid_text = [&] {
        std::string s;
        for (std::size_t d = 0; d < nd; ++d) {
            if (d) s += " x ";
            s += counts[d] ? std::to_string(counts[d]) : std::string("?");
        }
        return s;
    };
    if (nprocs % fixed != 0 || (free_dims.empty() && fixed != nprocs))
        fail(Errc::grid, "the partition fixes a process grid of " + grid_text() + " = " +
                             std::to_string(fixed) +
                             " processes, which does not fit a process set of " +
                             std::to_string(nprocs));
    if (!free_dims.empty()) {
        GridSearch gs{shape, part, free_dims, divisors(nprocs / fixed), counts, {}, unbounded};
        gs.search(0, nprocs / fixed, 0);
        if (gs.best.empty()) {
            std::string detail;
            for (int d : free_dims) {
                std::string why;
                const Index n = shape.extent(d);
                if (!dim_count_fits(n, part[static_cast<std::size_t>(d)], nprocs / fixed, &why))
                    detail += "; dimension " + std::to_string(d) + " alone: " + why;
            }
            fail(Errc::grid, "no process grid " + grid_text() + " with " + std::to_string(nprocs) +
                                 " processes satisfies the min/max block constraints" + detail);
        }
        counts = gs.best;
    }
    return std::vector<int>(counts.begin(), counts.end());
}

std::string to_string(EdgePolicy e) {
    switch (e) {
    case EdgePolicy::truncate:
        return "truncate";
    case EdgePolicy::zero:
        return "zero";
    case EdgePolicy::replicate:
        return "replicate";
    case EdgePolicy::wrap:
        return "wrap";
    }
    return "unknown";
}

std::string to_string(PartKind k) {
    switch (k) {
    case PartKind::whole:
        return "whole";
    case PartKind::block:
        return "block";
    case PartKind::cyclic:
        return "cyclic";
    case PartKind::ranges:
        return "ranges";
    }
    return "unknown";
}

namespace {

std::string ranges_text(const std::vector<Range>& rs) {
    std::string s = "(";
    for (std::size_t i = 0; i < rs.size(); ++i)
        s += (i ? "|" : "") + std::to_string(rs[i].first) + ":" + std::to_string(rs[i].last);
    return s + ")";
}

std::string limits_text(const DimPartition& dp) {
    if (dp.min_block == 1 && dp.max_block == unbounded) return {};
    return "[" + std::to_string(dp.min_block) + ":" +
           (dp.max_block == unbounded ? std::string() : std::to_string(dp.max_block)) + "]";
}

std::string overlap_text(const DimPartition& dp) {
    if (dp.left == 0 && dp.right == 0 && dp.edge == EdgePolicy::truncate) return {};
    return "~" + std::to_string(dp.left) + ":" + std::to_string(dp.right) +
           (dp.edge == EdgePolicy::truncate ? std::string() : ":" + to_string(dp.edge));
}

} // namespace

// The canonical form of docs/concepts.md: every part that differs from its
// default is printed, even one the kind ignores (a block size on a block
// dimension), so that parse_partition gives back an equal DimPartition.
std::string to_string(const DimPartition& dp) {
    std::string s = to_string(dp.kind);
    if (dp.kind == PartKind::cyclic || dp.block_size != 0)
        s += "(" + std::to_string(dp.block_size) + ")";
    if (dp.kind == PartKind::ranges || !dp.ranges.empty()) s += ranges_text(dp.ranges);
    s += limits_text(dp);
    if (dp.nprocs != 0) s += "/" + std::to_string(dp.nprocs);
    return s + overlap_text(dp);
}

std::string to_string(const Partition& p) {
    std::string s;
    for (std::size_t d = 0; d < p.size(); ++d)
        s += (d ? "," : "") + to_string(p[d]);
    return s;
}

} // namespace dri::core
