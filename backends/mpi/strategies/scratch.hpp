#pragma once

#include "core/checked.hpp"
#include "core/error.hpp"

#include <sys/mman.h>

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

// Of those, the bytes asked to lie in transparent huge pages (Pages::huge).
inline std::atomic<core::Index>& huge_scratch_bytes_held() {
    static std::atomic<core::Index> held{0};
    return held;
}

// Which pages back a scratch buffer: the kernel's default (4 KiB), or
// transparent huge pages (2 MiB), asked for with madvise before the first
// touch. Huge pages make an MPI library's single copy from the buffer
// cheaper (messages.hpp, send_scratch_pages); where the kernel has none,
// the advice changes nothing.
enum class Pages { normal, huge };

// Scratch memory for packed messages, 64-byte aligned so the kernels can use
// aligned (non-temporal) stores (2 MiB aligned in huge pages). Allocated and
// touched at commit, never in DRI_Do: touching maps every page now, so the
// first DRI_Do does not pay one page fault per 4 KiB (2.5 GiB of fresh
// scratch cost seconds of faults).
class Scratch {
  public:
    Scratch() = default;
    explicit Scratch(core::Index bytes, Pages pages = Pages::normal) {
        if (bytes <= 0) return;
        // A buffer smaller than one huge page could not fill one.
        huge_ = pages == Pages::huge && bytes >= static_cast<core::Index>(huge_page);
        const std::size_t align = huge_ ? huge_page : 64;
        const auto rounded = (static_cast<std::size_t>(bytes) + align - 1) / align * align;
        p_ = static_cast<std::byte*>(std::aligned_alloc(align, rounded));
        if (!p_)
            core::fail(core::Errc::no_memory,
                       "cannot allocate " + std::to_string(bytes) + " bytes of scratch");
        if (huge_) madvise(p_, rounded, MADV_HUGEPAGE); // advice: failing is harmless
        std::memset(p_, 0, rounded);
        bytes_ = static_cast<core::Index>(rounded);
        scratch_bytes_held() += bytes_;
        if (huge_) huge_scratch_bytes_held() += bytes_;
    }
    Scratch(Scratch&& o) noexcept : p_(o.p_), bytes_(o.bytes_), huge_(o.huge_) {
        o.p_ = nullptr;
        o.bytes_ = 0;
        o.huge_ = false;
    }
    Scratch& operator=(Scratch&& o) noexcept {
        std::swap(p_, o.p_);
        std::swap(bytes_, o.bytes_);
        std::swap(huge_, o.huge_);
        return *this;
    }
    Scratch(const Scratch&) = delete;
    ~Scratch() {
        std::free(p_);
        scratch_bytes_held() -= bytes_;
        if (huge_) huge_scratch_bytes_held() -= bytes_;
    }
    std::byte* get() const { return p_; }

  private:
    static constexpr std::size_t huge_page = std::size_t{2} << 20;
    std::byte* p_ = nullptr;
    core::Index bytes_ = 0;
    bool huge_ = false;
};

} // namespace dri::detail
