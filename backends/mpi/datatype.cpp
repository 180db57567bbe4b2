#include "mpi/datatype.hpp"

#include "mpi/runtime/collectives.hpp"
#include "mpi/runtime/init.hpp"

#include <climits>

namespace dri::detail {

using core::Index;

Datatype::Datatype(MPI_Datatype t) : t_(t) {
    if (t_ != MPI_DATATYPE_NULL) count_handle(+1);
}

void Datatype::reset() noexcept {
    if (t_ == MPI_DATATYPE_NULL) return;
    if (mpi_alive()) MPI_Type_free(&t_);
    t_ = MPI_DATATYPE_NULL;
    count_handle(-1);
}

namespace {

// Uncommitted intermediate type, freed when it goes out of scope.
struct Temp {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    Temp() = default;
    explicit Temp(MPI_Datatype x) : t(x) {}
    Temp(Temp&& o) noexcept : t(o.t) { o.t = MPI_DATATYPE_NULL; }
    Temp& operator=(Temp&& o) noexcept {
        std::swap(t, o.t);
        return *this;
    }
    ~Temp() {
        if (t != MPI_DATATYPE_NULL && !is_predefined()) MPI_Type_free(&t);
    }
    bool is_predefined() const { return t == MPI_BYTE; }
};

// Large-count constructions: MPI-4's _c constructors, or, on MPI-3 (and on
// request, so that tests exercise it on MPICH 4 as well), counts above
// INT_MAX become a vector of INT_MAX-sized chunks plus a remainder joined by
// a struct (BigMPI's construction). Displacements are MPI_Aint either way.
struct Builder {
    bool native = true;

    Temp structure(const std::vector<Index>& disps, const std::vector<MPI_Datatype>& types) const {
        MPI_Datatype t;
#if DRI_MPI_LARGE_COUNT
        if (native) {
            std::vector<MPI_Count> lens(types.size(), 1), d(disps.begin(), disps.end());
            check_mpi(MPI_Type_create_struct_c(static_cast<MPI_Count>(types.size()), lens.data(),
                                               d.data(), types.data(), &t),
                      "MPI_Type_create_struct_c");
            return Temp(t);
        }
#endif
        if (types.size() > static_cast<std::size_t>(INT_MAX))
            core::fail(core::Errc::overflow, "more than INT_MAX regions in one message");
        std::vector<int> lens(types.size(), 1);
        std::vector<MPI_Aint> d(disps.begin(), disps.end());
        check_mpi(MPI_Type_create_struct(static_cast<int>(types.size()), lens.data(), d.data(),
                                         types.data(), &t),
                  "MPI_Type_create_struct");
        return Temp(t);
    }

    Temp hvector(Index count, Index stride, MPI_Datatype old) const {
        if (stride == -1 && count > 1) return back_by_one_byte(count, old);
        MPI_Datatype t;
#if DRI_MPI_LARGE_COUNT
        if (native) {
            check_mpi(MPI_Type_create_hvector_c(count, 1, stride, old, &t),
                      "MPI_Type_create_hvector_c");
            return Temp(t);
        }
#endif
        if (count <= INT_MAX) {
            check_mpi(MPI_Type_create_hvector(static_cast<int>(count), 1, stride, old, &t),
                      "MPI_Type_create_hvector");
            return Temp(t);
        }
        const Index chunks = count / INT_MAX, rest = count % INT_MAX;
        const Temp chunk = hvector(INT_MAX, stride, old);
        Temp all_chunks = hvector(chunks, core::checked_mul(stride, INT_MAX, "stride"), chunk.t);
        if (rest == 0) return all_chunks;
        const Temp tail = hvector(rest, stride, old);
        return structure(
            {0, core::checked_mul(core::checked_mul(chunks, INT_MAX, "offset"), stride, "offset")},
            {all_chunks.t, tail.t});
    }

    // `count` copies of `old`, each one byte before the last: a stride of
    // -1 byte, which Open MPI 4.1 takes for the old type's extent (its
    // internal marker for "the extent of the type added"), so it sent
    // contiguous bytes instead of a reversed run. The same type map is built
    // from pairs (at 0 and -1, joined by a struct) two bytes apart, and the
    // odd last copy after them.
    Temp back_by_one_byte(Index count, MPI_Datatype old) const {
        const Temp pair = structure({0, -1}, {old, old});
        Temp pairs = hvector(count / 2, -2, pair.t);
        if (count % 2 == 0) return pairs;
        return structure({0, 1 - count}, {pairs.t, old});
    }

    Temp contiguous(Index count, MPI_Datatype old) const {
        MPI_Datatype t;
#if DRI_MPI_LARGE_COUNT
        if (native) {
            check_mpi(MPI_Type_contiguous_c(count, old, &t), "MPI_Type_contiguous_c");
            return Temp(t);
        }
#endif
        if (count <= INT_MAX) {
            check_mpi(MPI_Type_contiguous(static_cast<int>(count), old, &t), "MPI_Type_contiguous");
            return Temp(t);
        }
        MPI_Aint lb, extent;
        check_mpi(MPI_Type_get_extent(old, &lb, &extent), "MPI_Type_get_extent");
        return hvector(count, extent, old);
    }
};

// The strided box of one region on one side, starting at displacement 0.
Temp region_type(const Builder& b, const core::Region& reg, SideOf side, Index elem,
                 const Temp& element) {
    Temp t;
    bool have = false;
    for (std::size_t a = reg.axes.size(); a-- > 0;) {
        const core::Axis& ax = reg.axes[a];
        const Index stride = side == SideOf::sender ? ax.s : ax.r;
        const MPI_Datatype inner = have ? t.t : element.t;
        if (!have && stride == elem)
            t = b.contiguous(core::checked_mul(ax.n, elem, "region bytes"), MPI_BYTE);
        else
            t = b.hvector(ax.n, stride, inner);
        have = true;
    }
    if (!have) return b.contiguous(elem, MPI_BYTE);
    return t;
}

} // namespace

Datatype regions_datatype(const std::vector<core::Region>& regions, SideOf side, Index elem,
                          Construction how) {
    const Builder b{how == Construction::native};
    const Temp element = elem == 1 ? Temp(MPI_BYTE) : b.contiguous(elem, MPI_BYTE);
    std::vector<Temp> parts;
    std::vector<MPI_Datatype> types;
    std::vector<Index> disps;
    parts.reserve(regions.size());
    for (const core::Region& r : regions) {
        parts.push_back(region_type(b, r, side, elem, element));
        types.push_back(parts.back().t);
        disps.push_back(side == SideOf::sender ? r.s_off : r.r_off);
    }
    Temp all = b.structure(disps, types);
    MPI_Datatype t = all.t;
    check_mpi(MPI_Type_commit(&t), "MPI_Type_commit");
    all.t = MPI_DATATYPE_NULL; // ownership moves to the Datatype
    return Datatype(t);
}

Datatype byte_range_datatype(Index offset, Index bytes) {
    return regions_datatype({core::Region{offset, offset, {{bytes, 1, 1}}}}, SideOf::sender, 1);
}

} // namespace dri::detail
