// The C binding's registry (see capi.cpp): handles are ids into a table of
// implementation objects; ids are never reused, so a destroyed or forged
// handle is detected (DRI_ERR_HANDLE) instead of being dereferenced. Ids
// below first_dynamic_id are the predefined objects of the DRI-1.0 layer.
#pragma once

#include "dri/dri.h"

#include "mpi/interface.hpp"

#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <variant>

namespace dri::capi {

using namespace dri;
using core::Index;

struct Reorg; // the DRI-1.0 reorganization object (dri10.cpp)

inline thread_local std::string last_error;

using Object = std::variant<
    std::shared_ptr<const detail::GlobalDataImpl>, std::shared_ptr<const detail::PartitionImpl>,
    std::shared_ptr<const detail::GroupImpl>, std::shared_ptr<const detail::DistributionImpl>,
    std::shared_ptr<const detail::LayoutImpl>, std::shared_ptr<detail::TransferImpl>,
    std::shared_ptr<Reorg>>;

using DistP = std::shared_ptr<const detail::DistributionImpl>;
using XferP = std::shared_ptr<detail::TransferImpl>;

inline constexpr std::uintptr_t first_dynamic_id = 0x1000;
inline std::mutex registry_mutex;
inline std::unordered_map<std::uintptr_t, Object>& registry() {
    static std::unordered_map<std::uintptr_t, Object> r;
    return r;
}
inline std::uintptr_t next_id = first_dynamic_id;

template <class H>
H add(Object obj) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    const std::uintptr_t id = next_id++;
    registry().emplace(id, std::move(obj));
    return reinterpret_cast<H>(id);
}

// Registers the DRI-1.0 predefined partitions and layouts if they are not
// there yet (first use after DRI_Init or dri::init, whichever came).
void ensure_predefined();

template <class P, class H>
P lookup(H h, const char* what) {
    if (h && reinterpret_cast<std::uintptr_t>(h) < first_dynamic_id) ensure_predefined();
    std::lock_guard<std::mutex> lock(registry_mutex);
    const auto it = registry().find(reinterpret_cast<std::uintptr_t>(h));
    if (!h || it == registry().end())
        core::fail(core::Errc::handle,
                   std::string(what) + " handle is " + (h ? "stale or invalid" : "NULL"));
    const P* p = std::get_if<P>(&it->second);
    if (!p) core::fail(core::Errc::handle, std::string("handle is not a ") + what);
    return *p;
}

template <class P, class H>
void remove(H* h, const char* what) {
    if (!h)
        core::fail(core::Errc::null_pointer,
                   std::string("pointer to the ") + what + " handle is NULL");
    lookup<P>(*h, what);
    if (reinterpret_cast<std::uintptr_t>(*h) < first_dynamic_id)
        core::fail(core::Errc::arg, std::string("a predefined ") + what + " cannot be destroyed");
    std::lock_guard<std::mutex> lock(registry_mutex);
    registry().erase(reinterpret_cast<std::uintptr_t>(*h));
    *h = nullptr;
}

// The value a C caller passed for a C enum. C allows any int there, but a
// C++ load of an enum object holding a value outside the enumeration's
// range is undefined: the bytes are read as the underlying integer instead.
template <class E>
int raw(const E& e) {
    static_assert(std::is_enum_v<E>);
    std::underlying_type_t<E> v;
    std::memcpy(&v, &e, sizeof v);
    return static_cast<int>(v);
}

template <class T>
void need_ptr(const T* p, const char* what) {
    if (!p) core::fail(core::Errc::null_pointer, std::string(what) + " is NULL");
}

// Every entry point: run f, return DRI_SUCCESS or the code, keep the message.
template <class F>
int api(F&& f) noexcept {
    try {
        f();
        return DRI_SUCCESS;
    } catch (const core::Error& e) {
        last_error = e.what();
        return static_cast<int>(e.code());
    } catch (const std::bad_alloc&) {
        last_error = "out of memory";
        return DRI_ERR_NO_MEMORY;
    } catch (const std::exception& e) {
        last_error = e.what();
        return DRI_ERR_INTERNAL;
    } catch (...) {
        last_error = "unknown exception";
        return DRI_ERR_INTERNAL;
    }
}

} // namespace dri::capi
