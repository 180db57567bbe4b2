// The typed loops of the hand-written baselines move elements as
// trivially-copyable values of the element's size.
#pragma once

#include "core/shape.hpp"

#include <cstddef>

namespace dri::bench {

template <std::size_t N>
struct Bytes {
    alignas(N <= 16 ? N : 16) std::byte b[N];
};

// Calls f(Bytes<n>{}) for element sizes 1, 2, 4, 8 and 16; false otherwise.
template <class F>
bool with_elem_type(core::Index elem, F&& f) {
    switch (elem) {
    case 1:
        f(Bytes<1>{});
        return true;
    case 2:
        f(Bytes<2>{});
        return true;
    case 4:
        f(Bytes<4>{});
        return true;
    case 8:
        f(Bytes<8>{});
        return true;
    case 16:
        f(Bytes<16>{});
        return true;
    default:
        return false;
    }
}

inline bool supported_elem(core::Index elem) {
    return with_elem_type(elem, [](auto) {});
}

} // namespace dri::bench
