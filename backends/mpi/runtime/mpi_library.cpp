#include "mpi/runtime/mpi_library.hpp"

#include <mpi.h>

namespace dri::detail {

MpiLibrary library_from_version(std::string_view version) {
    // MPICH and the derivatives that name it (Cray MPICH) are one family:
    // the same datatype engine and shared-memory transport.
    if (version.find("Open MPI") != std::string_view::npos) return MpiLibrary::open_mpi;
    if (version.find("MPICH") != std::string_view::npos) return MpiLibrary::mpich;
    return MpiLibrary::other;
}

MpiLibrary mpi_library() {
    static const MpiLibrary lib = library_from_version(mpi_library_version());
    return lib;
}

std::string mpi_library_version() {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(text, &len);
    return std::string(text, static_cast<std::size_t>(len));
}

} // namespace dri::detail
