#include "error.hpp"

namespace dri::core {

namespace {
struct Entry {
    const char* name;
    const char* description;
};

constexpr Entry entries[errc_count] = {
    {"DRI_SUCCESS", "no error"},
    {"DRI_ERR_ARG", "invalid argument"},
    {"DRI_ERR_NULL", "required pointer argument is NULL"},
    {"DRI_ERR_HANDLE", "null, stale or wrong-kind handle"},
    {"DRI_ERR_NDIMS", "number of dimensions out of range"},
    {"DRI_ERR_EXTENT", "invalid extent"},
    {"DRI_ERR_OVERFLOW", "size or offset overflows 64 bits"},
    {"DRI_ERR_TYPE", "invalid element type or size"},
    {"DRI_ERR_PARTITION", "malformed partition"},
    {"DRI_ERR_OVERLAP", "invalid overlap"},
    {"DRI_ERR_MINMAX", "invalid min/max block extents"},
    {"DRI_ERR_GRID", "no process grid satisfies the partition"},
    {"DRI_ERR_LAYOUT", "malformed layout"},
    {"DRI_ERR_NOT_DISJOINT", "sending partition is not disjoint"},
    {"DRI_ERR_NOT_COVERING", "sending partition does not cover the array"},
    {"DRI_ERR_MISMATCH", "the two sides disagree on shape or element type"},
    {"DRI_ERR_NO_PARTNER", "transfer has no partner"},
    {"DRI_ERR_DUPLICATE", "duplicate role or name"},
    {"DRI_ERR_BUFFER", "NULL buffer"},
    {"DRI_ERR_BUFFER_SIZE", "buffer too small"},
    {"DRI_ERR_BUFFER_COUNT", "wrong number of buffers"},
    {"DRI_ERR_STATE", "object in the wrong state for this call"},
    {"DRI_ERR_NOT_INITIALIZED", "DRI is not initialized"},
    {"DRI_ERR_GROUP", "invalid process set"},
    {"DRI_ERR_INCONSISTENT", "ranks passed inconsistent arguments to a collective call"},
    {"DRI_ERR_MPI", "an MPI call failed"},
    {"DRI_ERR_NO_MEMORY", "out of memory"},
    {"DRI_ERR_INTERNAL", "internal error"},
};
} // namespace

const char* errc_name(Errc c) noexcept {
    int i = static_cast<int>(c);
    return (i >= 0 && i < errc_count) ? entries[i].name : "DRI_ERR_UNKNOWN";
}

const char* errc_description(Errc c) noexcept {
    int i = static_cast<int>(c);
    return (i >= 0 && i < errc_count) ? entries[i].description : "unknown error code";
}

void fail(Errc code, const std::string& what) {
    throw Error(code, what);
}

} // namespace dri::core
