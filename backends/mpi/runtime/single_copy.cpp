#include "mpi/runtime/single_copy.hpp"

#include <mpi.h>

#include <array>
#include <string>

namespace dri::detail {

namespace {

// The control variables that hold the mechanism: Open MPI 4's vader
// transport, and the same transport under its Open MPI 5 name.
constexpr std::array<std::string_view, 2> mechanism_variables{"btl_vader_single_copy_mechanism",
                                                              "btl_sm_single_copy_mechanism"};

// The name of control variable `index`'s current value, when it is one of
// the mechanism variables and holds an enumerated value; else empty.
std::string mechanism_name(int index) {
    char name[256] = {}, desc[1024] = {}, item[256] = {};
    int name_len = sizeof name, desc_len = sizeof desc, verbosity = 0, bind = 0, scope = 0,
        count = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum values = MPI_T_ENUM_NULL;
    if (MPI_T_cvar_get_info(index, name, &name_len, &verbosity, &type, &values, desc, &desc_len,
                            &bind, &scope) != MPI_SUCCESS)
        return {};
    const std::string_view n(name);
    if (n != mechanism_variables[0] && n != mechanism_variables[1]) return {};
    if (values == MPI_T_ENUM_NULL || type != MPI_INT || bind != MPI_T_BIND_NO_OBJECT) return {};
    MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
    if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS) return {};
    int value = -1;
    const bool read = count == 1 && MPI_T_cvar_read(handle, &value) == MPI_SUCCESS;
    MPI_T_cvar_handle_free(&handle);
    if (!read) return {};
    int items = 0, enum_len = sizeof item;
    if (MPI_T_enum_get_info(values, &items, item, &enum_len) != MPI_SUCCESS) return {};
    for (int k = 0; k < items; ++k) {
        int v = 0, item_len = sizeof item;
        if (MPI_T_enum_get_item(values, k, &v, item, &item_len) == MPI_SUCCESS && v == value)
            return item;
    }
    return {};
}

SingleCopy ask_library() {
    int provided = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return SingleCopy::unknown;
    int count = 0;
    std::string found;
    if (MPI_T_cvar_get_num(&count) == MPI_SUCCESS)
        for (int i = 0; i < count && found.empty(); ++i)
            found = mechanism_name(i);
    MPI_T_finalize();
    return found.empty() ? SingleCopy::unknown : single_copy_from_name(found);
}

} // namespace

SingleCopy single_copy_from_name(std::string_view name) {
    if (name == "cma") return SingleCopy::cma;
    if (name == "none") return SingleCopy::none;
    return name.empty() ? SingleCopy::unknown : SingleCopy::other;
}

SingleCopy single_copy() {
    static const SingleCopy mechanism = ask_library();
    return mechanism;
}

} // namespace dri::detail
