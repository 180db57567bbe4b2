#pragma once

#include "core/checked.hpp"
#include "core/error.hpp"

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace dri::detail {

// Scratch memory for packed messages, 64-byte aligned so the kernels can use
// aligned (non-temporal) stores. Allocated and touched at commit, never in
// DRI_Do: touching maps every page now, so the first DRI_Do does not pay one
// page fault per 4 KiB (2.5 GiB of fresh scratch cost seconds of faults).
class Scratch {
  public:
    Scratch() = default;
    explicit Scratch(core::Index bytes) {
        if (bytes <= 0) return;
        const auto rounded = static_cast<std::size_t>((bytes + 63) / 64 * 64);
        p_ = static_cast<std::byte*>(std::aligned_alloc(64, rounded));
        if (!p_)
            core::fail(core::Errc::no_memory,
                       "cannot allocate " + std::to_string(bytes) + " bytes of scratch");
        std::memset(p_, 0, rounded);
    }
    Scratch(Scratch&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
    Scratch& operator=(Scratch&& o) noexcept {
        std::swap(p_, o.p_);
        return *this;
    }
    Scratch(const Scratch&) = delete;
    ~Scratch() { std::free(p_); }
    std::byte* get() const { return p_; }

  private:
    std::byte* p_ = nullptr;
};

} // namespace dri::detail
