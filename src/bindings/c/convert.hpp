// Conversions between the C binding's argument forms and the core's, with
// the checks a C caller's raw pointers and counts need.
#pragma once

#include "dri/dri.h"

#include "mpi/interface.hpp"

#include <span>
#include <vector>

namespace dri::capi {

void check_ndims(int ndims);
// The ndims values at `values` (`what` names the argument in messages).
std::vector<core::Index> array_of(int ndims, const DRI_Index* values, const char* what);
core::DimPartition dim_from_c(const DRI_Dimpart& p, int d);
std::vector<std::span<std::byte>> buffers_of(int nbuf, void* const* buffers,
                                             const DRI_Index* sizes);
// A block description in the C binding's form.
DRI_Blockinfo to_c(const core::BlockInfo& b);
// A predefined element type (records are created by their own call).
core::ElementType predefined_type(const DRI_Datatype& type);

} // namespace dri::capi
