// What the two hand-written pack + MPI_Alltoallv baselines (naive and
// expert) share around their own packing: when they apply, and how they
// join the catalogue.
#pragma once

#include "elem_types.hpp"
#include "method.hpp"
#include "probe.hpp"

#include <mpi.h>

#include <memory>
#include <string>

namespace dri::bench {

// Adds baseline M (built from the problem; M::fits false where a rank's
// counts exceed MPI's int, `too_big` then says why on every rank), or the
// reason it cannot apply.
template <class M>
void add_pack_baseline(Catalog& cat, const Problem& pb, Rings& rings, const std::string& name,
                       const std::string& too_big) {
    if (!cat.wants(name)) return;
    if (const std::string why = pb.baseline_limit(); !why.empty()) return cat.skip(name, why);
    if (!supported_elem(pb.elem()))
        return cat.skip(name,
                        "element size " + std::to_string(pb.elem()) + " (1, 2, 4, 8, 16 only)");
    Probe probe;
    auto m = std::make_shared<M>(pb);
    int fits = m->fits ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_MIN, pb.comm);
    if (!fits) return cat.skip(name, too_big);
    Method out{name, Kind::baseline, nullptr, true, "", 0, -1, -1};
    out.run = ring_runner(m, rings);
    cat.add(std::move(out), probe);
}

} // namespace dri::bench
