#pragma once

#include "core/checked.hpp"
#include "core/error.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

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

class ScratchArena;

// Scratch memory for packed messages, 64-byte aligned so the kernels can use
// aligned (non-temporal) stores (2 MiB aligned in huge pages). Allocated and
// touched at commit, never in DRI_Do: touching maps every page now, so the
// first DRI_Do does not pay one page fault per 4 KiB (2.5 GiB of fresh
// scratch cost seconds of faults). Or a part of an arena that the routes
// of an adaptive transfer share (ScratchArena below).
class Scratch {
  public:
    Scratch() = default;
    // Reserved in `arena` when there is one, else allocated now. A part of
    // an arena is usable once the arena is allocated: get() is null before.
    Scratch(const std::shared_ptr<ScratchArena>& arena, core::Index bytes,
            Pages pages = Pages::normal);
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
    Scratch(Scratch&& o) noexcept
        : p_(o.p_), bytes_(o.bytes_), huge_(o.huge_), arena_(std::move(o.arena_)),
          offset_(o.offset_) {
        o.p_ = nullptr;
        o.bytes_ = 0;
        o.huge_ = false;
    }
    Scratch& operator=(Scratch&& o) noexcept {
        std::swap(p_, o.p_);
        std::swap(bytes_, o.bytes_);
        std::swap(huge_, o.huge_);
        std::swap(arena_, o.arena_);
        std::swap(offset_, o.offset_);
        return *this;
    }
    Scratch(const Scratch&) = delete;
    ~Scratch() {
        std::free(p_);
        scratch_bytes_held() -= bytes_;
        if (huge_) huge_scratch_bytes_held() -= bytes_;
    }
    std::byte* get() const;
    static constexpr std::size_t huge_page = std::size_t{2} << 20;

  private:
    std::byte* p_ = nullptr;
    core::Index bytes_ = 0;
    bool huge_ = false;
    std::shared_ptr<const ScratchArena> arena_;
    core::Index offset_ = 0;
};

// The scratch of the routes an adaptive transfer holds (strategies/
// adaptive.hpp): one route runs at a time, so each route's buffers start
// at offset 0 of one allocation, as large as the largest route kept needs,
// instead of one allocation per route.
class ScratchArena {
  public:
    // The next route's reservations start at offset 0.
    void begin_route() { routes_.push_back(0); }
    // Reserves `bytes` for the current route: their offset (64-byte aligned,
    // 2 MiB for huge pages, so the part can fill whole huge pages).
    core::Index reserve(core::Index bytes, Pages pages) {
        if (routes_.empty()) begin_route();
        const core::Index align = pages == Pages::huge ? Scratch::huge_page : 64;
        core::Index& end = routes_.back();
        const core::Index at = (end + align - 1) / align * align;
        end = core::checked_add(at, bytes, "scratch size");
        huge_ = huge_ || pages == Pages::huge;
        return at;
    }
    std::size_t routes() const { return routes_.size(); }
    core::Index route_bytes(std::size_t k) const { return k < routes_.size() ? routes_[k] : 0; }
    // Allocates (and touches) the bytes of the largest route kept.
    void allocate(const std::vector<bool>& kept) {
        core::Index most = 0;
        for (std::size_t k = 0; k < routes_.size(); ++k)
            if (kept.at(k)) most = std::max(most, routes_[k]);
        mem_ = Scratch(most, huge_ ? Pages::huge : Pages::normal);
    }
    std::byte* base() const { return mem_.get(); }

  private:
    std::vector<core::Index> routes_;
    bool huge_ = false;
    Scratch mem_;
};

inline Scratch::Scratch(const std::shared_ptr<ScratchArena>& arena, core::Index bytes,
                        Pages pages) {
    if (!arena) {
        *this = Scratch(bytes, pages);
        return;
    }
    if (bytes <= 0) return;
    offset_ = arena->reserve(bytes, pages);
    arena_ = arena;
}

inline std::byte* Scratch::get() const {
    if (!arena_) return p_;
    std::byte* base = arena_->base();
    return base ? base + offset_ : nullptr;
}

} // namespace dri::detail
