// Error codes and the exception type of the planning core.
//
// DRI_CORE_ERRC_TABLE below is the one list of the library's error codes:
// the numeric value, the Errc enumerator, the stable name (the C binding's
// macro, include/dri/dri.h) and the one-line description DRI_Error_string
// returns. Errc, errc_count, errc_table(), errc_name() and errc_description()
// are all made from it. tests/unit/test_error_table.cpp checks dri.h,
// dri.hpp and docs/errors.md against it; the C++ binding checks dri::Errc at
// compile time. Codes are stable: a new code is only ever added at the end.
#pragma once

#include <span>
#include <stdexcept>
#include <string>

// X(value, enumerator, name, description)
#define DRI_CORE_ERRC_TABLE(X)                                                                     \
    X(0, success, "DRI_SUCCESS", "no error")                                                       \
    X(1, arg, "DRI_ERR_ARG", "invalid argument")                                                   \
    X(2, null_pointer, "DRI_ERR_NULL", "required pointer argument is NULL")                        \
    X(3, handle, "DRI_ERR_HANDLE", "null, stale or wrong-kind handle")                             \
    X(4, ndims, "DRI_ERR_NDIMS", "number of dimensions out of range")                              \
    X(5, extent, "DRI_ERR_EXTENT", "invalid extent")                                               \
    X(6, overflow, "DRI_ERR_OVERFLOW", "size or offset overflows 64 bits")                         \
    X(7, type, "DRI_ERR_TYPE", "invalid element type or size")                                     \
    X(8, partition, "DRI_ERR_PARTITION", "malformed partition")                                    \
    X(9, overlap, "DRI_ERR_OVERLAP", "invalid overlap")                                            \
    X(10, minmax, "DRI_ERR_MINMAX", "invalid min/max block extents")                               \
    X(11, grid, "DRI_ERR_GRID", "no process grid satisfies the partition")                         \
    X(12, layout, "DRI_ERR_LAYOUT", "malformed layout")                                            \
    X(13, not_disjoint, "DRI_ERR_NOT_DISJOINT", "sending partition is not disjoint")               \
    X(14, not_covering, "DRI_ERR_NOT_COVERING", "sending partition does not cover the array")      \
    X(15, mismatch, "DRI_ERR_MISMATCH", "the two sides disagree on shape or element type")         \
    X(16, no_partner, "DRI_ERR_NO_PARTNER", "transfer has no partner")                             \
    X(17, duplicate, "DRI_ERR_DUPLICATE", "duplicate role or name")                                \
    X(18, buffer, "DRI_ERR_BUFFER", "unusable buffer")                                             \
    X(19, buffer_size, "DRI_ERR_BUFFER_SIZE", "buffer too small")                                  \
    X(20, buffer_count, "DRI_ERR_BUFFER_COUNT", "wrong number of buffers")                         \
    X(21, state, "DRI_ERR_STATE", "object in the wrong state for this call")                       \
    X(22, not_initialized, "DRI_ERR_NOT_INITIALIZED", "DRI is not initialized")                    \
    X(23, group, "DRI_ERR_GROUP", "invalid process set")                                           \
    X(24, inconsistent, "DRI_ERR_INCONSISTENT",                                                    \
      "ranks passed inconsistent arguments to a collective call")                                  \
    X(25, mpi, "DRI_ERR_MPI", "an MPI call failed")                                                \
    X(26, no_memory, "DRI_ERR_NO_MEMORY", "out of memory")                                         \
    X(27, internal, "DRI_ERR_INTERNAL", "internal error")                                          \
    X(28, strategy, "DRI_ERR_STRATEGY", "the requested strategy does not apply to this transfer")

namespace dri::core {

#define DRI_CORE_ERRC_ENUMERATOR(value, id, name, description) id = value,
enum class Errc : int { DRI_CORE_ERRC_TABLE(DRI_CORE_ERRC_ENUMERATOR) };
#undef DRI_CORE_ERRC_ENUMERATOR

// One row of the table.
struct ErrcInfo {
    int value;
    Errc code;
    const char* enumerator;  // spelling of the Errc enumerator, e.g. "overlap"
    const char* name;        // stable name, e.g. "DRI_ERR_OVERLAP"
    const char* description; // one line, e.g. "invalid overlap"
};

namespace detail {
#define DRI_CORE_ERRC_ROW(value, id, name, description) {value, Errc::id, #id, name, description},
inline constexpr ErrcInfo errc_rows[] = {DRI_CORE_ERRC_TABLE(DRI_CORE_ERRC_ROW)};
#undef DRI_CORE_ERRC_ROW

constexpr bool errc_rows_dense() {
    int i = 0;
    for (const ErrcInfo& row : errc_rows) {
        if (row.value != i || static_cast<int>(row.code) != i) return false;
        ++i;
    }
    return true;
}
} // namespace detail

// Number of codes; the codes are 0 .. errc_count - 1.
inline constexpr int errc_count = static_cast<int>(std::size(detail::errc_rows));

// errc_name and errc_description index the table by value.
static_assert(detail::errc_rows_dense(), "error codes must be 0, 1, 2, ... in table order");

// The table, in code order (row i is code i).
constexpr std::span<const ErrcInfo> errc_table() noexcept {
    return detail::errc_rows;
}

// Short stable name of a code, e.g. "DRI_ERR_OVERLAP"; "DRI_ERR_UNKNOWN"
// for a value that is no code.
const char* errc_name(Errc c) noexcept;
// One-line description of what a code means; "unknown error code" for a
// value that is no code.
const char* errc_description(Errc c) noexcept;

class Error : public std::runtime_error {
  public:
    Error(Errc code, const std::string& what) : std::runtime_error(what), code_(code) {}
    Errc code() const noexcept { return code_; }

  private:
    Errc code_;
};

[[noreturn]] void fail(Errc code, const std::string& what);

} // namespace dri::core
