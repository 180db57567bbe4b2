// Test helper: the error code (and message) a callable throws.
#pragma once

#include "core/error.hpp"

#include <string>

namespace dri::test {

struct Thrown {
    core::Errc code = core::Errc::success;
    std::string message;
};

template <class F>
Thrown thrown_by(F&& f) {
    try {
        f();
    } catch (const core::Error& e) {
        return {e.code(), e.what()};
    }
    return {};
}

template <class F>
core::Errc code_of(F&& f) {
    return thrown_by(f).code;
}

} // namespace dri::test
