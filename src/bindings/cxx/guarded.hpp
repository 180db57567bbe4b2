// What every file of the C++ binding shares: core errors turned into
// dri::Error, and the check of a moved-from object.
#pragma once

#include "dri/dri.hpp"

#include "core/error.hpp"

#include <memory>
#include <new>
#include <string>

namespace dri::cxx {

// Runs f, translating the core's errors into dri::Error.
template <class F>
auto guarded(F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const core::Error& e) {
        throw Error(static_cast<Errc>(static_cast<int>(e.code())), e.what());
    } catch (const std::bad_alloc&) {
        throw Error(Errc::no_memory, "out of memory");
    }
}

template <class P>
const P& need(const std::shared_ptr<P>& p, const char* what) {
    if (!p) throw Error(Errc::handle, std::string("use of a moved-from ") + what);
    return *p;
}

} // namespace dri::cxx
