#include "core/pair_strides.hpp"

namespace dri::core {

Strides byte_strides(const LocalLayout& sl, const LocalLayout& rl) {
    Strides st;
    for (std::size_t d = 0; d < sl.strides.size(); ++d) {
        st.s.push_back(checked_mul(sl.strides[d], sl.elem_size, "stride"));
        st.r.push_back(checked_mul(rl.strides[d], rl.elem_size, "stride"));
    }
    return st;
}

LocalLayout bind_side(const Side& side, int index) {
    return bind_layout(side.layout_of(index), side.dist->local_extents(index),
                       side.dist->shape().elem_size());
}

const Strides& PeerStrides::get(int peer) {
    std::vector<Index> ext = peers_.dist->local_extents(peer);
    const Layout* layout = &peers_.layout_of(peer);
    if (!valid_ || ext != extents_ || (layout != layout_ && !(*layout == *layout_))) {
        const LocalLayout other = bind_side(peers_, peer);
        strides_ = mine_sends_ ? byte_strides(mine_, other) : byte_strides(other, mine_);
        extents_ = std::move(ext);
        layout_ = layout;
        valid_ = true;
    }
    return strides_;
}

} // namespace dri::core
