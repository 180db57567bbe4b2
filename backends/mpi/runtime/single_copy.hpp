// How the MPI library copies a large message between two processes of one
// node, where it says so: Open MPI's shared-memory transport names its single
// copy mechanism in a control variable of the MPI tool interface (MPI_T).
// With CMA the receiver reads the sender's pages with process_vm_readv,
// which pins each page, so the pages a message leaves from matter
// (messages.hpp, route_rule).
#pragma once

#include <string_view>

namespace dri::detail {

enum class SingleCopy {
    unknown, // the library does not say (MPICH, one process, no MPI_T)
    none,    // copied through shared-memory buffers, twice
    cma,     // read across processes with process_vm_readv
    other,   // XPMEM, KNEM or an emulation
};

// The mechanism from the name of its value (pure: unit of the probe).
SingleCopy single_copy_from_name(std::string_view name);

// The running library's mechanism; asked once, after MPI_Init.
SingleCopy single_copy();

} // namespace dri::detail
