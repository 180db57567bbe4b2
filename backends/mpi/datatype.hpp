// MPI derived datatypes built from plan regions. Offsets go inside the
// datatypes (MPI_Aint / MPI_Count displacements), never into the int
// displacement arrays of MPI_Alltoallw. Counts above INT_MAX use MPI-4's
// large-count constructors, or a chunked construction on MPI-3.
#pragma once

#include "plan.hpp"

#include <mpi.h>

#include <vector>

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

} // namespace dri::detail
