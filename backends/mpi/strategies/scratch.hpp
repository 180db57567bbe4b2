#pragma once

#include "core/checked.hpp"
#include "core/error.hpp"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace dri::detail {

// Bytes of scratch this process holds now, over every executor: how the
// tests see that a side was sent or received without packing.
inline std::atomic<core::Index>& scratch_bytes_held() {
    static std::atomic<core::Index> held{0};
    return held;
}

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
        bytes_ = static_cast<core::Index>(rounded);
        scratch_bytes_held() += bytes_;
    }
    Scratch(Scratch&& o) noexcept : p_(o.p_), bytes_(o.bytes_) {
        o.p_ = nullptr;
        o.bytes_ = 0;
    }
    Scratch& operator=(Scratch&& o) noexcept {
        std::swap(p_, o.p_);
        std::swap(bytes_, o.bytes_);
        return *this;
    }
    Scratch(const Scratch&) = delete;
    ~Scratch() {
        std::free(p_);
        scratch_bytes_held() -= bytes_;
    }
    std::byte* get() const { return p_; }

  private:
    std::byte* p_ = nullptr;
    core::Index bytes_ = 0;
};

} // namespace dri::detail
