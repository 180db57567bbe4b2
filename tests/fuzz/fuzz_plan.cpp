// libFuzzer target over the planning core's inputs: shapes, element types,
// partitions (every kind, overlap, edge policies, min/max, explicit ranges),
// layouts (orders, padding, explicit strides) and process counts, valid or
// not. Invalid input must end in a core::Error, never a crash or undefined
// behaviour (the target is built with ASan and UBSan); every reorganization
// the core accepts is planned for every process and run through the
// in-memory oracle (programs/simulate.hpp), which checks every byte.
//
// Build and run: tools/fuzz.sh [seconds] [more libFuzzer flags]
#include "random_case.hpp"
#include "simulate.hpp"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace {

using namespace dri::core;
using dri::test::Index;

// Mostly small extents, sometimes the values validation must refuse or
// survive: 0, negative, near the 63-bit limit, beyond 2^31.
Index extent(FuzzedDataProvider& in) {
    const int mode = in.ConsumeIntegralInRange(0, 15);
    switch (mode) {
    case 0:
        return 0;
    case 1:
        return -in.ConsumeIntegralInRange<Index>(1, 5);
    case 2:
        return std::numeric_limits<Index>::max() - in.ConsumeIntegralInRange<Index>(0, 3);
    case 3:
        return (Index{1} << 31) + in.ConsumeIntegralInRange<Index>(-1, 1);
    default:
        return in.ConsumeIntegralInRange<Index>(1, 13);
    }
}

Index small(FuzzedDataProvider& in, Index lo, Index hi) {
    return in.ConsumeIntegralInRange<Index>(lo, hi);
}

DimPartition dim_partition(FuzzedDataProvider& in, int procs) {
    DimPartition d;
    d.kind = static_cast<PartKind>(in.ConsumeIntegralInRange(0, 4)); // 4 is not a kind
    d.left = small(in, -1, 6);
    d.right = small(in, -1, 6);
    d.edge = static_cast<EdgePolicy>(in.ConsumeIntegralInRange(0, 4)); // 4 is not a policy
    if (in.ConsumeBool()) {
        d.min_block = small(in, -1, 6);
        d.max_block = in.ConsumeBool() ? unbounded : small(in, -1, 9);
    }
    d.block_size = small(in, -1, 5);
    d.nprocs = in.ConsumeBool() ? 0 : in.ConsumeIntegralInRange(-1, procs + 1);
    if (d.kind == PartKind::ranges) {
        const int n = in.ConsumeIntegralInRange(0, procs + 1);
        for (int i = 0; i < n; ++i) {
            const Index first = small(in, -1, 12);
            d.ranges.push_back({first, first + small(in, -2, 6)});
        }
    }
    return d;
}

Layout layout(FuzzedDataProvider& in, int nd) {
    const int mode = in.ConsumeIntegralInRange(0, 3);
    if (mode == 3) { // explicit strides, possibly overlapping or negative
        std::vector<Index> strides;
        for (int d = 0; d < nd; ++d)
            strides.push_back(small(in, -1, 200));
        return Layout::strided(std::move(strides));
    }
    std::vector<int> order;
    for (int d = 0; d < nd; ++d)
        order.push_back(d);
    for (int d = nd - 1; d > 0; --d) // Fisher-Yates from the input, sometimes a repeat
        std::swap(order[static_cast<std::size_t>(d)],
                  order[static_cast<std::size_t>(in.ConsumeIntegralInRange(0, d))]);
    if (nd > 1 && in.ConsumeIntegralInRange(0, 31) == 0) order[0] = order[1];
    std::vector<Index> pad;
    if (mode == 2)
        for (int d = 0; d < nd; ++d)
            pad.push_back(small(in, -1, 3));
    return Layout::ordered(std::move(order), std::move(pad));
}

ElementType element_type(FuzzedDataProvider& in) {
    const int k = in.ConsumeIntegralInRange(0, 16);
    if (k >= 14) return ElementType::record(small(in, -1, 9));
    return ElementType::predefined(static_cast<ElemKind>(k)); // some values are no kind
}

// Bytes of a side's buffers over all its processes (stops counting past 1 MiB).
Index total_bytes(const Distribution& d, const Layout& l) {
    Index sum = 0;
    for (int p = 0; p < d.nprocs(); ++p) {
        sum += bind_layout(l, d.local_extents(p), d.shape().elem_size()).bytes;
        if (sum > (Index{1} << 20)) return sum;
    }
    return sum;
}

// A bound on the regions of one pair of processes: every region holds at
// least one cell in each dimension, so the product over the dimensions of
// the most cells any process of either side stores along them bounds them. Block-cyclic
// splits with replicated overlap make one run per stored cell, so 8-D
// cyclic(1) cases are legitimate plans of millions of regions and seconds of
// planning: the fuzzer leaves those at the validation checks.
Index plan_size_bound(const Distribution& d) {
    Index bound = 1;
    for (int k = 0; k < d.ndims(); ++k) {
        Index most = 1;
        for (int c = 0; c < d.grid()[static_cast<std::size_t>(k)]; ++c)
            most = std::max(most, d.local_extent(k, c));
        const Index cap = Index{1} << 40; // saturate instead of overflowing
        bound = most > cap / bound ? cap : bound * most;
    }
    return bound;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    try {
        const int nd = in.ConsumeIntegralInRange(0, 9); // 0 and 9 are out of range
        std::vector<Index> ext;
        for (int d = 0; d < nd; ++d)
            ext.push_back(extent(in));
        const Shape shape(ext, element_type(in));
        const int ps = in.ConsumeIntegralInRange(0, 7), pr = in.ConsumeIntegralInRange(0, 7);
        const bool shared = in.ConsumeBool();
        Partition sp, rp;
        for (int d = 0; d < nd; ++d)
            sp.push_back(dim_partition(in, ps));
        for (int d = 0; d < nd; ++d)
            rp.push_back(dim_partition(in, pr));
        const Layout sl = layout(in, nd), rl = layout(in, nd);
        const Distribution sd(shape, sp, ps), rd(shape, rp, pr);
        const Side send{&sd, sl}, recv{&rd, rl};
        check_sides(send, recv);
        if (std::min(plan_size_bound(sd), plan_size_bound(rd)) > (Index{1} << 16)) return 0;
        // Accepted: plan every process and check every byte, when the
        // buffers are small enough to simulate; otherwise plan one process
        // of each side (planning must not depend on buffer memory).
        if (shape.elements() > 20000 || total_bytes(sd, sl) > (Index{1} << 20) ||
            total_bytes(rd, rl) > (Index{1} << 20)) {
            (void)plan_local(send, recv, 0, shared ? 0 : -1);
            (void)plan_local(send, recv, -1, pr - 1);
            return 0;
        }
        const dri::test::SimResult res =
            dri::test::simulate(send, recv, dri::test::make_roles(ps, pr, shared));
        if (!res.ok) {
            std::fprintf(stderr, "oracle mismatch: %s\n", res.error.c_str());
            std::abort();
        }
    } catch (const Error&) {
        // Refused with a code and a message: what invalid input must get.
    }
    return 0;
}
