#include "core/pieces.hpp"

#include "core/checked.hpp"
#include "core/error.hpp"

#include <string>

namespace dri::core {

std::pair<Index, Index> even_piece(Index extent, int count, int k) {
    // (extent * k) / count without the product, which may overflow.
    const auto at = [&](Index i) { return extent / count * i + extent % count * i / count; };
    return {at(k), at(k + 1)};
}

std::pair<Index, Index> PieceSplit::range(const Distribution& dist, int index, int k) const {
    const Index extent = dim < 0 ? 0 : dist.local_extents(index)[static_cast<std::size_t>(dim)];
    if (!split()) return {0, extent};
    const auto i = static_cast<std::size_t>(index);
    if (i < bounds.size() && !bounds[i].empty())
        return {bounds[i][static_cast<std::size_t>(k)], bounds[i][static_cast<std::size_t>(k) + 1]};
    return even_piece(extent, count, k);
}

void check_split(int ndims, int dim, int count, const std::vector<Index>& bounds, Index extent) {
    if (dim < 0 || dim >= ndims)
        fail(Errc::arg, "pieces along dimension " + std::to_string(dim) + " of an array of " +
                            std::to_string(ndims) + " dimensions");
    if (count < 1 || count > max_pieces)
        fail(Errc::arg, "a piece count of " + std::to_string(count) + ": it must lie in [1, " +
                            std::to_string(max_pieces) + "]");
    if (bounds.empty()) return;
    if (bounds.size() != static_cast<std::size_t>(count) + 1)
        fail(Errc::arg, std::to_string(count) + " pieces need " + std::to_string(count + 1) +
                            " boundaries, not " + std::to_string(bounds.size()));
    if (bounds.front() != 0 || bounds.back() != extent)
        fail(Errc::arg, "piece boundaries must run from 0 to the block's extent along the "
                        "dimension (" +
                            std::to_string(extent) + "), not from " +
                            std::to_string(bounds.front()) + " to " +
                            std::to_string(bounds.back()));
    for (std::size_t i = 1; i < bounds.size(); ++i)
        if (bounds[i] < bounds[i - 1])
            fail(Errc::arg, "piece boundaries must not decrease: boundary " + std::to_string(i) +
                                " is " + std::to_string(bounds[i]) + ", after " +
                                std::to_string(bounds[i - 1]));
}

} // namespace dri::core
