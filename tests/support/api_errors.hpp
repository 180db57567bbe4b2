// Test helper for the public C++ API: the dri::Errc a callable throws
// (success if none). errors.hpp is its counterpart for the core.
#pragma once

#include <dri/dri.hpp>

namespace dri::test {

template <class F>
dri::Errc api_code_of(F&& f) {
    try {
        f();
    } catch (const dri::Error& e) {
        return e.code();
    }
    return dri::Errc::success;
}

} // namespace dri::test
