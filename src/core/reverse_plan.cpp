#include "core/reverse_plan.hpp"

#include <utility>

namespace dri::core {

Region swapped(const Region& r) {
    Region out{r.r_off, r.s_off, r.axes};
    for (Axis& a : out.axes)
        std::swap(a.s, a.r);
    return out;
}

LocalPlan reverse_plan(const LocalPlan& forward) {
    LocalPlan rev;
    rev.elem_size = forward.elem_size;
    rev.send_layout = forward.recv_layout;
    rev.recv_layout = forward.send_layout;
    const auto swap_all = [](const std::vector<PeerRegions>& from, std::vector<PeerRegions>& to) {
        for (const PeerRegions& p : from) {
            to.push_back({p.peer, p.elements, {}, 0, {}});
            for (const Region& r : p.regions)
                to.back().regions.push_back(swapped(r));
        }
    };
    swap_all(forward.recvs, rev.sends);
    swap_all(forward.sends, rev.recvs);
    for (const Region& r : forward.self)
        rev.self.push_back(swapped(r));
    return rev;
}

} // namespace dri::core
