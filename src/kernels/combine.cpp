#include "kernels/combine.hpp"

#include "core/multi_index.hpp"
#include "kernels/copy.hpp"
#include "kernels/offsets.hpp"

#include <algorithm>
#include <array>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace dri::core {

namespace {

constexpr int max_axes = max_index_axes;

enum class Class { integer, floating, complex, other };

Class class_of(ElemKind kind) {
    switch (kind) {
    case ElemKind::int8:
    case ElemKind::uint8:
    case ElemKind::int16:
    case ElemKind::uint16:
    case ElemKind::int32:
    case ElemKind::uint32:
    case ElemKind::int64:
    case ElemKind::uint64:
        return Class::integer;
    case ElemKind::float32:
    case ElemKind::float64:
        return Class::floating;
    case ElemKind::complex_float:
    case ElemKind::complex_double:
        return Class::complex;
    case ElemKind::byte:
    case ElemKind::record:
        break;
    }
    return Class::other;
}

template <class T>
constexpr bool is_complex = false;
template <class T>
constexpr bool is_complex<std::complex<T>> = true;

// Calls f(T{}) with T the C++ type of a numeric kind; nothing for byte and record.
template <class F>
void with_type(ElemKind kind, F&& f) {
    switch (kind) {
    case ElemKind::int8:
        return f(std::int8_t{});
    case ElemKind::uint8:
        return f(std::uint8_t{});
    case ElemKind::int16:
        return f(std::int16_t{});
    case ElemKind::uint16:
        return f(std::uint16_t{});
    case ElemKind::int32:
        return f(std::int32_t{});
    case ElemKind::uint32:
        return f(std::uint32_t{});
    case ElemKind::int64:
        return f(std::int64_t{});
    case ElemKind::uint64:
        return f(std::uint64_t{});
    case ElemKind::float32:
        return f(float{});
    case ElemKind::float64:
        return f(double{});
    case ElemKind::complex_float:
        return f(std::complex<float>{});
    case ElemKind::complex_double:
        return f(std::complex<double>{});
    case ElemKind::byte:
    case ElemKind::record:
        break;
    }
}

template <CombineOp Op>
using OpTag = std::integral_constant<CombineOp, Op>;

// Calls f(OpTag<op>{}) for sum, max and min; nothing for replace.
template <class F>
void with_op(CombineOp op, F&& f) {
    switch (op) {
    case CombineOp::sum:
        return f(OpTag<CombineOp::sum>{});
    case CombineOp::max:
        return f(OpTag<CombineOp::max>{});
    case CombineOp::min:
        return f(OpTag<CombineOp::min>{});
    case CombineOp::replace:
        break;
    }
}

// Whether the template pair exists (combine_defined on the types of with_type).
template <class T, CombineOp Op>
constexpr bool defined = Op == CombineOp::sum || (Op != CombineOp::replace && !is_complex<T>);

// *d = op(*d, *s), loads and stores by memcpy (unaligned buffers).
template <class T, CombineOp Op>
inline void apply(std::byte* d, const std::byte* s) {
    T a, b;
    std::memcpy(&a, d, sizeof(T));
    std::memcpy(&b, s, sizeof(T));
    if constexpr (Op == CombineOp::sum && std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>; // wraps instead of overflowing
        a = static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else if constexpr (Op == CombineOp::sum) {
        a += b;
    } else if constexpr (Op == CombineOp::max) {
        a = std::max(a, b);
    } else {
        a = std::min(a, b);
    }
    std::memcpy(d, &a, sizeof(T));
}

// One line of n elements, strictly in order. Called with ss == ds ==
// sizeof(T) as constants for contiguous lines, which the compiler vectorises.
template <class T, CombineOp Op>
inline void line(const std::byte* s, std::byte* d, Index n, Index ss, Index ds) {
    for (Index i = 0; i < n; ++i)
        apply<T, Op>(d + i * ds, s + i * ss);
}

// An nx x ny transpose combined: source element (x, y) at s + x*e + y*sy
// combines into d + x*dx + y*e. Walking either side element by element
// touches a new cache line (and, in large arrays, a new page) per element:
// PTRANS's 8000^2 C := A' + C at 2 ranks took 2.2x the time of the same
// transfer without the add (1.3x with the tiles). So each tile is first
// transposed by strided_copy's cache-blocked kernel into a stack buffer laid
// out like the destination, then combined into it by contiguous, vectorised
// lines. A tile is one source cache line wide (64 / e columns) and up to
// 256 destination columns long: each source line is read once, and the
// destination is read in long runs, prefetched while the tile is transposed
// (a 2000^2 double transpose on one rank: 32 x 32 tiles took 1.13x the time
// of these without the prefetch, 1.03x with it).
template <class T, CombineOp Op>
void transpose_combine(const std::byte* s, std::byte* d, Index nx, Index ny, Index sy, Index dx) {
    constexpr auto e = static_cast<Index>(sizeof(T));
    constexpr Index tile_x = 64 / e, tile_y = 256;
    alignas(64) std::byte tmp[tile_x * tile_y * e];
    for (Index x0 = 0; x0 < nx; x0 += tile_x) {
        const Index tx = std::min(tile_x, nx - x0);
        for (Index y0 = 0; y0 < ny; y0 += tile_y) {
            const Index ty = std::min(tile_y, ny - y0);
            for (Index x = 0; x < tx; ++x) // the destination lines, wanted next
                for (Index b = 0; b < ty * e; b += 64)
                    __builtin_prefetch(d + (x0 + x) * dx + y0 * e + b, 1);
            const Axis ax[2] = {{tx, e, ty * e}, {ty, sy, e}};
            strided_copy(s + x0 * e + y0 * sy, tmp, ax, 2, e);
            for (Index x = 0; x < tx; ++x)
                line<T, Op>(tmp + x * ty * e, d + (x0 + x) * dx + y0 * e, ty, e, e);
        }
    }
}

// Whether no destination element repeats. A destination stride of 0 fixes
// the order of its combines (see the header), which tiles would change.
bool distinct_destination(const Axis* axes, int k) {
    for (int a = 0; a < k; ++a)
        if (axes[a].r == 0 && axes[a].n > 1) return false;
    return true;
}

// The walker: every element of `axes`, the innermost axis a line, or the
// tiles of a transpose. Strictly in axis order whenever a destination
// element repeats.
template <class T, CombineOp Op>
void walk(const std::byte* src, std::byte* dst, const Axis* axes, int k) {
    constexpr auto e = static_cast<Index>(sizeof(T));
    if (k == 0) return apply<T, Op>(dst, src);
    const Axis in = axes[k - 1];
    TransposeAxes t;
    if (in.s == e && in.r == e) {
        for_each_offset(axes, k - 1,
                        [&](Index so, Index ro) { line<T, Op>(src + so, dst + ro, in.n, e, e); });
    } else if (distinct_destination(axes, k) && split_transpose(axes, k, e, t)) {
        for_each_offset(t.rest.data(), t.nrest, [&](Index so, Index ro) {
            transpose_combine<T, Op>(src + so, dst + ro, t.x.n, t.y.n, t.y.s, t.x.r);
        });
    } else {
        for_each_offset(axes, k - 1, [&](Index so, Index ro) {
            line<T, Op>(src + so, dst + ro, in.n, in.s, in.r);
        });
    }
}

void require_defined(CombineOp op, const ElementType& t) {
    if (!combine_defined(op, t))
        fail(Errc::type, std::string("combine operation ") + to_string(op) +
                             " is not defined on element type " + to_string(t));
}

// combine_region on base pointers and axes, for sum, max and min.
void combine_axes(const std::byte* src, std::byte* dst, const Axis* axes, int k,
                  const ElementType& t, CombineOp op) {
    with_type(t.kind, [&]<class T>(T) {
        with_op(op, [&]<CombineOp Op>(OpTag<Op>) {
            if constexpr (defined<T, Op>) walk<T, Op>(src, dst, axes, k);
        });
    });
}

// replace: a copy. strided_copy may reorder the elements (a transpose is done
// in tiles), which only shows when a destination element repeats (a stride
// of 0): then the last source in axis order must win, element by element.
void replace_axes(const std::byte* src, std::byte* dst, const Axis* axes, int k, Index elem) {
    const bool repeats =
        std::any_of(axes, axes + k, [](const Axis& a) { return a.r == 0 && a.n > 1; });
    if (repeats)
        strided_copy_reference(src, dst, axes, k, elem);
    else
        strided_copy(src, dst, axes, k, elem);
}

template <class T, CombineOp Op>
T identity() {
    if constexpr (Op == CombineOp::sum)
        return T{};
    else if constexpr (std::numeric_limits<T>::has_infinity)
        return Op == CombineOp::max ? -std::numeric_limits<T>::infinity()
                                    : std::numeric_limits<T>::infinity();
    else
        return Op == CombineOp::max ? std::numeric_limits<T>::lowest()
                                    : std::numeric_limits<T>::max();
}

} // namespace

bool combine_defined(CombineOp op, const ElementType& t) {
    const Class c = class_of(t.kind);
    if (op == CombineOp::replace) return true;
    if (c == Class::other || t.size != predefined_size(t.kind)) return false;
    if (op == CombineOp::sum) return true;
    return (op == CombineOp::max || op == CombineOp::min) && c != Class::complex;
}

const char* to_string(CombineOp op) {
    switch (op) {
    case CombineOp::sum:
        return "SUM";
    case CombineOp::max:
        return "MAX";
    case CombineOp::min:
        return "MIN";
    case CombineOp::replace:
        return "REPLACE";
    }
    return "UNKNOWN";
}

void combine_region(const std::byte* src, std::byte* dst, const Region& reg, const ElementType& t,
                    CombineOp op) {
    require_defined(op, t);
    const int k = static_cast<int>(reg.axes.size());
    if (op == CombineOp::replace)
        replace_axes(src + reg.s_off, dst + reg.r_off, reg.axes.data(), k, t.size);
    else
        combine_axes(src + reg.s_off, dst + reg.r_off, reg.axes.data(), k, t, op);
}

Index combine_unpack_region(const std::byte* in, const Region& reg, const ElementType& t,
                            CombineOp op, std::byte* dst) {
    require_defined(op, t);
    // The region's axes with the source strides of the dense stream.
    Axis ax[max_axes];
    const int k = static_cast<int>(reg.axes.size());
    Index stride = t.size;
    for (int a = k; a-- > 0;) {
        ax[a] = reg.axes[static_cast<std::size_t>(a)];
        ax[a].s = stride;
        stride *= ax[a].n;
    }
    if (op == CombineOp::replace)
        replace_axes(in, dst + reg.r_off, ax, k, t.size);
    else
        combine_axes(in, dst + reg.r_off, ax, k, t, op);
    return reg.elements() * t.size;
}

void identity_region(std::byte* dst, const Region& reg, const ElementType& t, CombineOp op) {
    require_defined(op, t);
    // A copy from one element: every source stride 0.
    Axis ax[max_axes];
    const int k = static_cast<int>(reg.axes.size());
    for (int a = 0; a < k; ++a)
        ax[a] = {reg.axes[static_cast<std::size_t>(a)].n, 0,
                 reg.axes[static_cast<std::size_t>(a)].r};
    with_type(t.kind, [&]<class T>(T) {
        with_op(op, [&]<CombineOp Op>(OpTag<Op>) {
            if constexpr (defined<T, Op>) {
                const T value = identity<T, Op>();
                std::byte bytes[sizeof(T)];
                std::memcpy(bytes, &value, sizeof(T));
                strided_copy(bytes, dst + reg.r_off, ax, k, t.size);
            }
        });
    });
}

} // namespace dri::core
