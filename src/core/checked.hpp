// Checked 64-bit arithmetic: every size, extent product and byte offset of
// the library goes through these, so an overflow is a DRI_ERR_OVERFLOW error
// and never undefined behaviour.
#pragma once

#include "core/error.hpp"

#include <cstdint>
#include <string_view>

namespace dri::core {

using Index = std::int64_t;

inline Index checked_add(Index a, Index b, std::string_view what = "sum") {
    Index r;
    if (__builtin_add_overflow(a, b, &r))
        fail(Errc::overflow, std::string(what) + " overflows 64 bits");
    return r;
}

inline Index checked_sub(Index a, Index b, std::string_view what = "difference") {
    Index r;
    if (__builtin_sub_overflow(a, b, &r))
        fail(Errc::overflow, std::string(what) + " overflows 64 bits");
    return r;
}

inline Index checked_mul(Index a, Index b, std::string_view what = "product") {
    Index r;
    if (__builtin_mul_overflow(a, b, &r))
        fail(Errc::overflow, std::string(what) + " overflows 64 bits");
    return r;
}

// Ceiling division for a >= 0, b > 0.
constexpr Index ceil_div(Index a, Index b) {
    return a / b + (a % b != 0 ? 1 : 0);
}

// Floor modulo: result in [0, m) for m > 0.
constexpr Index floor_mod(Index a, Index m) {
    Index r = a % m;
    return r < 0 ? r + m : r;
}

} // namespace dri::core
