// Error codes and the exception type of the planning core.
//
// The numeric values are the ones of the C binding's DRI_ERR_* macros
// (include/dri/dri.h); the C layer checks that they agree at compile time.
#pragma once

#include <stdexcept>
#include <string>

namespace dri::core {

enum class Errc : int {
    success = 0,
    arg = 1,              // an argument is invalid (generic)
    null_pointer = 2,     // a required pointer argument is NULL
    handle = 3,           // null, stale or wrong-kind handle
    ndims = 4,            // number of dimensions out of range [1, 8]
    extent = 5,           // zero, negative or inconsistent extent
    overflow = 6,         // a 64-bit size or offset computation overflows
    type = 7,             // invalid element type or element size
    partition = 8,        // malformed partition
    overlap = 9,          // overlap negative or larger than the data allows
    minmax = 10,          // min block extent > max block extent, or negative
    grid = 11,            // no process grid satisfies the partition
    layout = 12,          // malformed layout (order, padding, strides)
    not_disjoint = 13,    // sending partition has elements owned twice
    not_covering = 14,    // sending partition leaves elements unowned
    mismatch = 15,        // the two sides disagree on shape or element type
    no_partner = 16,      // a transfer name has no partner at commit
    duplicate = 17,       // a role or name was declared twice
    buffer = 18,          // NULL buffer
    buffer_size = 19,     // buffer smaller than required
    buffer_count = 20,    // wrong number of buffers
    state = 21,           // object in the wrong state for this call
    not_initialized = 22, // call before DRI_Init or after DRI_Finalize
    group = 23,           // invalid process set
    inconsistent = 24,    // ranks passed different arguments to a collective
    mpi = 25,             // an MPI call failed
    no_memory = 26,       // allocation failed
    internal = 27,        // a library invariant was violated (a bug)
};

inline constexpr int errc_count = 28;

// Short stable name of a code, e.g. "DRI_ERR_OVERLAP".
const char* errc_name(Errc c) noexcept;
// One-line description of what a code means.
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
