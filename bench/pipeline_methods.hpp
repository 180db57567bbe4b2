// What the methods of --scenario pipeline and pipeline_turn share: this
// rank's part of the frame, the buffers every method uses, and the methods
// themselves (dri with pieces, dri with the whole frame, hand-written MPI).
#pragma once

#include "method.hpp"
#include "pipeline_kernel.hpp"

#include <dri/dri.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dri::bench::pipe {

// This rank's part of the N x M frame. The producer's block is rows
// [send_row0, send_row0 + send_rows), row-major, its pieces splitting the
// rows. The consumer's block is the whole frame row-major, its pieces
// splitting the rows (pipeline), or columns [recv_col0, recv_col0 +
// recv_cols) column-major, its pieces splitting the columns (pipeline_turn).
// Either way a piece is one contiguous run of its block's elements.
struct Geometry {
    bool turn = false, sends = false, recvs = false;
    Index rows = 0, cols = 0; // N, M
    Index send_row0 = 0, send_rows = 0;
    Index recv_col0 = 0, recv_cols = 0;

    Index send_unit() const { return cols; } // elements per index along the split dimension
    Index recv_unit() const { return turn ? rows : cols; }
    Index recv_extent() const { return turn ? recv_cols : rows; }
    Index send_elems() const { return send_rows * cols; }
    Index recv_elems() const { return recv_extent() * recv_unit(); }
};

Geometry geometry(const Problem& pb, bool turn);

// The first global index and the number of indices that block `idx` of a
// block distribution owns along dimension dim ({0, 0} for an empty block).
std::pair<Index, Index> owned_range(const core::Distribution& d, int idx, int dim);

// Piece k of `count` over a block of extent e: [k*e/count, (k+1)*e/count),
// the even split dri documents (DRI_Transfer_set_pieces).
std::pair<Index, Index> even_piece(Index e, int count, int k);

// The rings every method reads and writes (call k of a method uses buffer
// k mod n on both sides, as in real use) and the consumer's output, where
// its kernel writes what it computes from each piece.
struct Frames {
    std::vector<dri::SharedMemory> shared;
    std::vector<std::unique_ptr<AlignedBlock>> heap;
    std::vector<std::span<std::byte>> send, recv;
    std::unique_ptr<AlignedBlock> output;

    Frames(const Geometry& g, int buffers, bool shared_send);
    int count() const { return static_cast<int>(recv.size()); }
    Cf* send_at(int k) const {
        return reinterpret_cast<Cf*>(send[static_cast<std::size_t>(k)].data());
    }
    Cf* recv_at(int k) const {
        return reinterpret_cast<Cf*>(recv[static_cast<std::size_t>(k)].data());
    }
    Cf* out() const { return reinterpret_cast<Cf*>(output->data()); }
};

// The public API's view of the frame's two sides, made once: creating a
// distribution is collective over its group.
struct DriSides {
    dri::GlobalData gd;
    std::optional<dri::Distribution> sd, rd; // where this rank has the role
    dri::Layout sl, rl;
    explicit DriSides(const Problem& pb);
};

struct Context {
    const Problem& pb;
    Geometry geo;
    Frames& frames;
    const DriSides& sides;
};

// The message of the lowest rank of comm whose `err` is not empty, on every
// rank ("" when every rank's is). Collective.
std::string first_error(const std::string& err, int rank, MPI_Comm comm);

struct PipeMethod {
    std::string name;
    Kind kind = Kind::dri;
    int pieces = 0;   // 0: the whole frame at once
    std::string note; // the strategy AUTO chose
    double setup_seconds = 0;
    long long heap_bytes = -1, rss_bytes = -1;
    // One frame, identified by `frame`: produce, move, consume, with the
    // kernel k. Returns the ring index it used, the same on both sides and
    // on every rank (-1 on a rank without a role).
    std::function<int(long long frame, const Kernel& k)> run;
};

struct PipeCatalog {
    std::vector<PipeMethod> methods;
    std::vector<Skipped> skipped;
    std::vector<std::string> wanted; // families: dri_pieces, dri_whole, mpi_pieces (empty: all)
    bool wants(const std::string& family) const;
};

// A committed transfer of the frame on AUTO, split into `pieces` on both
// sides (0: not split), or null and why it failed (the same on every rank).
std::shared_ptr<dri::Transfer> make_transfer(const Context& c, const std::string& name, int pieces,
                                             std::string& why);

// Builders: each adds its method, or a skip with the reason it cannot apply.
// Every rank adds the same names in the same order.
void add_dri_pieces(PipeCatalog& cat, const Context& c, int pieces);
void add_dri_whole(PipeCatalog& cat, const Context& c);
void add_mpi_pieces(PipeCatalog& cat, const Context& c, int pieces);

} // namespace dri::bench::pipe
