// The C binding of box distributions (include/dri/dri.h, "box
// distributions"): their collective creation and the query of a member's
// boxes.
#include "bindings/c/convert.hpp"
#include "bindings/c/registry.hpp"
#include "core/checked.hpp"

#include <algorithm>
#include <climits>

using namespace dri::capi;
using dri::core::Index;
namespace detail = dri::detail;
namespace core = dri::core;

namespace {

using DistP = std::shared_ptr<const detail::DistributionImpl>;

// The boxes in the C arrays (checked before the collective steps).
std::vector<core::Box> boxes_of(int ndims, int nboxes, const DRI_Index* first,
                                const DRI_Index* last) {
    if (nboxes < 0) core::fail(core::Errc::arg, "nboxes is " + std::to_string(nboxes));
    if (nboxes > 0) {
        need_ptr(first, "first");
        need_ptr(last, "last");
    }
    std::vector<core::Box> out;
    const auto nd = static_cast<std::size_t>(ndims);
    for (std::size_t k = 0; k < static_cast<std::size_t>(nboxes); ++k)
        out.push_back({std::vector<Index>(first + k * nd, first + (k + 1) * nd),
                       std::vector<Index>(last + k * nd, last + (k + 1) * nd)});
    return out;
}

} // namespace

extern "C" {

int DRI_Distribution_create_boxes(DRI_Globaldata gdo, DRI_Group group, int nboxes,
                                  const DRI_Index first[], const DRI_Index last[],
                                  DRI_Box_scope scope, const int owner[], DRI_Distribution* dist) {
    return api([&] {
        detail::require_initialized();
        // With a valid group, bad other arguments still take part in the
        // collective, so that every member fails instead of some hanging.
        const auto g = lookup<std::shared_ptr<const detail::GroupImpl>>(group, "group");
        std::shared_ptr<const detail::GlobalDataImpl> gp;
        std::vector<core::Box> boxes;
        std::vector<int> owners;
        const int sc = raw(scope); // any int from C
        const bool all = sc == DRI_BOXES_ALL;
        const detail::Status pre = detail::capture([&] {
            need_ptr(dist, "output handle");
            gp = lookup<std::shared_ptr<const detail::GlobalDataImpl>>(gdo, "global data");
            if (sc != DRI_BOXES_MINE && sc != DRI_BOXES_ALL)
                core::fail(core::Errc::arg, "box scope " + std::to_string(sc) +
                                                " is neither DRI_BOXES_MINE nor DRI_BOXES_ALL");
            boxes = boxes_of(gp->shape.ndims(), nboxes, first, last);
            if (all && nboxes > 0) {
                need_ptr(owner, "owner");
                owners.assign(owner, owner + nboxes);
            }
            if (!all && owner)
                core::fail(core::Errc::arg, "owner must be NULL with DRI_BOXES_MINE");
        });
        auto d = detail::make_box_distribution(gp.get(), g, boxes, owners, all, pre,
                                               "DRI_Distribution_create_boxes");
        *dist = add<DRI_Distribution>(std::move(d));
    });
}

int DRI_Distribution_boxes(DRI_Distribution dist, int index, int maxboxes, int* nboxes,
                           DRI_Index first[], DRI_Index last[], DRI_Index* cells) {
    return api([&] {
        detail::require_initialized();
        need_ptr(nboxes, "nboxes");
        const core::Distribution& d = lookup<DistP>(dist, "distribution")->dist;
        if (index < 0 || index >= d.nprocs())
            core::fail(core::Errc::arg, "process index " + std::to_string(index) +
                                            " outside the group [0, " + std::to_string(d.nprocs()) +
                                            ")");
        if (maxboxes < 0) core::fail(core::Errc::arg, "maxboxes is " + std::to_string(maxboxes));
        const std::vector<core::Box> boxes = core::owned_boxes(d, index);
        const std::size_t n = std::min(boxes.size(), static_cast<std::size_t>(maxboxes));
        if (n > 0) {
            need_ptr(first, "first");
            need_ptr(last, "last");
        }
        const auto nd = static_cast<std::size_t>(d.ndims());
        for (std::size_t k = 0; k < n; ++k)
            for (std::size_t i = 0; i < nd; ++i) {
                first[k * nd + i] = boxes[k].first[i];
                last[k * nd + i] = boxes[k].last[i];
            }
        *nboxes = static_cast<int>(std::min<std::size_t>(boxes.size(), INT_MAX));
        if (cells) {
            Index total = 0;
            for (const core::Box& b : boxes)
                total = core::checked_add(total, b.cells(), "cells");
            *cells = total;
        }
    });
}

} // extern "C"
