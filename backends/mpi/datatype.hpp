// MPI derived datatypes built from plan regions. Offsets go inside the
// datatypes (MPI_Aint / MPI_Count displacements), never into the int
// displacement arrays of MPI_Alltoallw. Counts above INT_MAX use MPI-4's
// large-count constructors, or a chunked construction on MPI-3.
#pragma once

#include "core/plan.hpp"

#include <mpi.h>

#include <vector>

// MPI-4's large-count (_c) functions, unless the build asks for the MPI-3 code
// paths (-DDRI_FORCE_MPI3=ON: tests cover them on MPICH 4 too).
#if MPI_VERSION >= 4 && !defined(DRI_FORCE_MPI3)
#define DRI_MPI_LARGE_COUNT 1
#else
#define DRI_MPI_LARGE_COUNT 0
#endif

namespace dri::detail {

// Owns one committed MPI datatype.
class Datatype {
  public:
    Datatype() = default;
    explicit Datatype(MPI_Datatype t); // takes ownership of a committed type
    Datatype(Datatype&& o) noexcept : t_(o.t_) { o.t_ = MPI_DATATYPE_NULL; }
    Datatype& operator=(Datatype&& o) noexcept {
        if (this != &o) {
            reset();
            t_ = o.t_;
            o.t_ = MPI_DATATYPE_NULL;
        }
        return *this;
    }
    Datatype(const Datatype&) = delete;
    Datatype& operator=(const Datatype&) = delete;
    ~Datatype() { reset(); }

    MPI_Datatype get() const { return t_; }
    void reset() noexcept;

  private:
    MPI_Datatype t_ = MPI_DATATYPE_NULL;
};

enum class SideOf { sender, receiver };

// How counts above INT_MAX are described: `native` uses MPI-4's large-count
// constructors when the MPI library has them; `mpi3` always uses the chunked
// MPI-3 construction (the only one on MPI-3; selectable so tests cover it).
enum class Construction { native, mpi3 };

// One committed datatype describing `regions` of one side of a message, in
// region order, with byte displacements relative to the buffer start.
Datatype regions_datatype(const std::vector<core::Region>& regions, SideOf side, core::Index elem,
                          Construction how = Construction::native);

// `bytes` contiguous bytes starting `offset` bytes into a buffer, as one
// datatype: how MPI-3 sends and receives more than INT_MAX bytes, or places
// data beyond an int displacement, with a count of 1.
Datatype byte_range_datatype(core::Index offset, core::Index bytes);

} // namespace dri::detail
