// Messages of the message-based strategies (PACKED, P2P): how many bytes a
// peer's regions hold, packing them, which route one side of a message takes,
// and sending / receiving it with the large-count functions where MPI has them.
#pragma once

#include "core/plan.hpp"
#include "mpi/datatype.hpp"
#include "mpi/runtime/mpi_library.hpp"
#include "mpi/runtime/single_copy.hpp"
#include "mpi/strategies/scratch.hpp"

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace dri::detail {

core::Index total_bytes(const std::vector<core::Region>& regs, core::Index elem);

// Packs the sender side of the regions into one stream at out (`whole`: as
// for core::strided_copy, the bytes of the pair's messages over all pieces).
void pack_all(const std::byte* src, const std::vector<core::Region>& regs, core::Index elem,
              std::byte* out, core::Index whole = 0);
// Unpacks such a stream into the receiver side of the regions.
void unpack_all(const std::byte* in, const std::vector<core::Region>& regs, core::Index elem,
                std::byte* dst);

// One side of one message: where its bytes are when they travel.
enum class Route {
    direct,   // one contiguous run in the user's buffer, sent/received as bytes
    datatype, // long contiguous runs: a derived datatype on the user's buffer
    packed,   // through scratch memory, packed/unpacked by our kernels
};

// A run or size no message reaches: a RouteRule field that never applies.
constexpr core::Index never_run = core::Index{1} << 62;
// The smallest dense send that route_rule may pack into huge pages (Open
// MPI with CMA): below it the single-copy mechanism changes no route.
constexpr core::Index huge_send_from = core::Index{4} << 20;

// Which route each side of a message takes, per library (docs/concepts.md,
// "How P2P routes a side"). Runs are contiguous bytes after merging the
// side's own axes.
struct RouteRule {
    // From which run a side travels as an MPI datatype on the user's buffer
    // rather than packed by dri's kernels, per side.
    core::Index send_datatype_run;
    core::Index recv_datatype_run;
    // From which run a receiver side takes a datatype when the sender's side
    // is dense: the library then pipelines the message through its own
    // shared memory and unpacks it while it is in cache, rather than copy
    // it whole into scratch.
    core::Index recv_datatype_run_from_dense;
    // From how many bytes a dense sender side is still packed, into send
    // scratch in huge pages (send_scratch_pages), when the receiver takes the
    // message contiguous: the library's single copy reads huge pages faster
    // than the user's, even after the extra copy.
    core::Index send_dense_packed_from;
};
// False when the environment has DRI_HUGE_PAGES=off: then no scratch asks
// for huge pages and no dense send is packed for them, on a machine where
// huge pages stall and a frame time that holds steady matters more than a
// faster median (docs/concepts.md, "Which pages the send scratch lies in").
// Read at each commit.
bool huge_pages_allowed();
RouteRule route_rule(MpiLibrary lib, SingleCopy copy);

// The pages of scratch that packed messages leave from. Open MPI 4.1's
// shared-memory transport copies a large message once, the receiver
// reading the sender's memory with process_vm_readv, which pins each page
// it reads: from huge pages that copy ran 2.5x faster (8 MiB, 1.0 against
// 2.5 ms) and AUTO's corner turn 1.34x. MPICH 4.0 gained nothing, and
// huge pages make a commit in fresh memory slower, so it keeps the default
// (docs/concepts.md, "How P2P routes a side").
Pages send_scratch_pages(MpiLibrary lib);

// The route of one side of a message (is_send: the sender's side): direct
// when that side is one contiguous range, else by its shortest run, then
// adjusted to the other side's route by the rule's last two fields; for
// Route::direct, *offset is the range's offset in the user's buffer.
Route route_of(const std::vector<core::Region>& regs, core::Index elem, bool is_send,
               const RouteRule& rule, core::Index* offset);

// One message to or from a peer: `bytes` contiguous bytes at buf, or, when
// the message has a datatype, one element of it at buf. The datatype is the
// derived type of Route::datatype, or on MPI-3 a byte-range type for more
// than INT_MAX contiguous bytes (see needs_big); both are built at commit.
// A pair's messages of different pieces travel with the piece as their tag.
int send_bytes(const std::byte* buf, core::Index bytes, const Datatype& type, int peer,
               MPI_Comm comm, MPI_Request* req, int tag = 0);
int recv_bytes(std::byte* buf, core::Index bytes, const Datatype& type, int peer, MPI_Comm comm,
               MPI_Request* req, int tag = 0);

// True when `bytes` cannot be an int count of MPI_BYTE in this build.
bool needs_big(core::Index bytes);

// One message of the point-to-point executors (P2P, the reverse).
struct Message {
    int rank = 0;
    Route route = Route::packed;
    core::Index bytes = 0;
    core::Index offset = 0; // in the user's buffer (direct; 0 for datatype) or scratch (packed)
    Datatype type;          // Route::datatype, or a byte range above INT_MAX on MPI-3
    std::vector<core::Region> regions;
    int piece = 0;              // the sender's piece (core::PeerRegions)
    std::vector<int> lands;     // the receiver's pieces it lands in (received messages)
    core::Index pair_bytes = 0; // the pair's bytes over all its pieces (copies' `whole`)
};

// The message carrying p's regions to or from `rank` (is_send: this
// process's side is the regions' sender side) on the route route_of picks.
// `combined`: the receiver combines the message as it arrives, so receives
// it whole into scratch, which the sender's route must know too. A packed
// message's place in scratch is taken from *scratch (64-byte aligned),
// which grows.
Message plan_message(const core::PeerRegions& p, int rank, core::Index elem, bool is_send,
                     core::Index& scratch, bool combined = false);

} // namespace dri::detail
