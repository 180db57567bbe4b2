// The hand-written MPI baselines of --scenario pipeline and pipeline_turn:
// what an expert writes to send each piece as soon as its work is done.
// Both call MPI between pieces (MPI_Testall, MPI_Testsome) so that MPI moves
// the pieces already sent while the next one is made: without a call, MPICH
// and Open MPI progress a large (rendezvous) message only inside the next
// MPI call, and the pieces would leave together at the end.
#include "box_copy.hpp"
#include "elem_types.hpp"
#include "pipeline_methods.hpp"

#include <climits>
#include <cstring>
#include <map>

namespace dri::bench::pipe {

namespace {

std::vector<std::pair<Index, Index>> even_pieces(Index extent, int count) {
    std::vector<std::pair<Index, Index>> out;
    for (int k = 0; k < count; ++k)
        out.push_back(even_piece(extent, count, k));
    return out;
}

// pipeline: the producer sends piece p (rows [lo, hi) of the frame, dense
// in both blocks) as one message, tag p, right after making it; the
// consumer posts one receive per piece straight into its receive buffer
// and works on each piece as its receive completes, in order.
struct MpiRows {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Datatype row = MPI_DATATYPE_NULL; // one row of the frame
    Geometry geo;
    const Frames& frames;
    int producer = -1, consumer = -1;
    std::vector<std::pair<Index, Index>> pieces;
    std::vector<MPI_Request> sreq, rreq;
    int calls = 0;

    MpiRows(const Context& c, int count)
        : geo(c.geo), frames(c.frames), producer(c.pb.send_ranks.at(0)),
          consumer(c.pb.recv_ranks.at(0)), pieces(even_pieces(c.geo.rows, count)) {
        MPI_Comm_dup(c.pb.comm, &comm);
        MPI_Type_contiguous(static_cast<int>(geo.cols), MPI_C_FLOAT_COMPLEX, &row);
        MPI_Type_commit(&row);
    }
    MpiRows(const MpiRows&) = delete;
    MpiRows& operator=(const MpiRows&) = delete;
    ~MpiRows() {
        MPI_Type_free(&row);
        MPI_Comm_free(&comm);
    }

    int run(long long frame, const Kernel& k) {
        const int ring = calls++ % frames.count();
        const int n = static_cast<int>(pieces.size());
        const Index u = geo.cols;
        if (geo.recvs) {
            Cf* r = frames.recv_at(ring);
            rreq.assign(pieces.size(), MPI_REQUEST_NULL);
            for (int p = 0; p < n; ++p) {
                const auto [lo, hi] = pieces[static_cast<std::size_t>(p)];
                if (hi > lo)
                    MPI_Irecv(r + lo * u, static_cast<int>(hi - lo), row, producer, p, comm,
                              &rreq[static_cast<std::size_t>(p)]);
            }
        }
        if (geo.sends) {
            Cf* s = frames.send_at(ring);
            sreq.assign(pieces.size(), MPI_REQUEST_NULL);
            for (int p = 0; p < n; ++p) {
                const auto [lo, hi] = pieces[static_cast<std::size_t>(p)];
                produce(s + lo * u, (hi - lo) * u, lo * u, frame, k);
                if (hi > lo)
                    MPI_Isend(s + lo * u, static_cast<int>(hi - lo), row, consumer, p, comm,
                              &sreq[static_cast<std::size_t>(p)]);
                int done = 0;
                MPI_Testall(p + 1, sreq.data(), &done, MPI_STATUSES_IGNORE);
            }
            MPI_Waitall(n, sreq.data(), MPI_STATUSES_IGNORE);
        }
        if (geo.recvs) {
            const Cf* r = frames.recv_at(ring);
            for (int p = 0; p < n; ++p) {
                MPI_Wait(&rreq[static_cast<std::size_t>(p)], MPI_STATUS_IGNORE);
                const auto [lo, hi] = pieces[static_cast<std::size_t>(p)];
                consume(r + lo * u, frames.out() + lo * u, (hi - lo) * u, k);
            }
        }
        return geo.sends || geo.recvs ? ring : -1;
    }
};

// pipeline_turn (every rank produces its rows and consumes its columns),
// the expert baseline of docs/bench.md piece by piece: after making piece p
// of its rows, a rank packs the part of those rows in each peer q's columns
// (one memcpy per row) and sends it, one contiguous message (tag p), and
// copies its own part straight into its receive block with the expert's
// cache-blocked transpose (box_copy.hpp). Each message is received whole
// into scratch and transposed into the column-major receive block as it
// completes (MPI_Testsome between pieces, MPI_Waitsome after the last).
// Contiguous messages, not a vector datatype: MPICH 4.0 moves a large
// non-contiguous message between processes of a node several times slower
// (a vector type made this baseline's moves 3x slower than the packing).
// Every column needs every row, so the consumer starts once all messages
// are in.
struct MpiTurn {
    struct Incoming {
        int from = 0, piece = 0;
        Index row0 = 0, rows = 0, at = 0; // global first row, rows, offset in scratch
    };

    MPI_Comm comm = MPI_COMM_NULL;
    std::map<Index, MPI_Datatype> rows_of; // columns -> one row of that many elements
    Geometry geo;
    const Frames& frames;
    int me = 0, size = 1;
    std::vector<Index> col0, ncols; // per rank: its columns
    std::vector<std::pair<Index, Index>> send_pieces, recv_pieces;
    std::vector<Incoming> incoming;
    std::vector<Cf> scratch, packed;
    std::vector<Index> packed_at; // piece p for peer q: packed_at[p * size + q]
    std::vector<MPI_Request> sreq, rreq;
    std::vector<int> done;
    int calls = 0;

    MpiTurn(const Context& c, int count)
        : geo(c.geo), frames(c.frames), me(c.pb.rank), size(c.pb.size),
          send_pieces(even_pieces(c.geo.send_rows, count)),
          recv_pieces(even_pieces(c.geo.recv_cols, count)) {
        MPI_Comm_dup(c.pb.comm, &comm);
        for (int q = 0; q < size; ++q) {
            const auto [lo, n] = owned_range(*c.pb.rd, q, 1);
            col0.push_back(lo);
            ncols.push_back(n);
        }
        // Where each (piece, peer) part is packed: they are in flight at once.
        Index out = 0;
        for (const auto& [lo, hi] : send_pieces)
            for (int q = 0; q < size; ++q) {
                const Index nc = ncols[static_cast<std::size_t>(q)];
                packed_at.push_back(out);
                if (q != me && hi > lo && nc > 0) {
                    row_type(nc);
                    out += (hi - lo) * nc;
                }
            }
        packed.resize(static_cast<std::size_t>(out));
        if (geo.recv_cols > 0) row_type(geo.recv_cols);
        // What each peer sends this rank: its rows piece by piece, in this
        // rank's columns (none when this rank has no columns).
        Index at = 0;
        for (int q = 0; q < size && geo.recv_cols > 0; ++q) {
            if (q == me) continue;
            const auto [row0, nrows] = owned_range(*c.pb.sd, q, 0);
            for (int p = 0; p < count; ++p) {
                const auto [lo, hi] = even_piece(nrows, count, p);
                if (hi == lo) continue;
                incoming.push_back({q, p, row0 + lo, hi - lo, at});
                at += (hi - lo) * geo.recv_cols;
            }
        }
        scratch.resize(static_cast<std::size_t>(at));
        done.resize(incoming.size());
    }
    MpiTurn(const MpiTurn&) = delete;
    MpiTurn& operator=(const MpiTurn&) = delete;
    ~MpiTurn() {
        for (auto& [key, t] : rows_of)
            MPI_Type_free(&t);
        MPI_Comm_free(&comm);
    }

    MPI_Datatype row_type(Index cols) {
        auto [it, fresh] = rows_of.try_emplace(cols, MPI_DATATYPE_NULL);
        if (fresh) {
            MPI_Type_contiguous(static_cast<int>(cols), MPI_C_FLOAT_COMPLEX, &it->second);
            MPI_Type_commit(&it->second);
        }
        return it->second;
    }

    // rows x cols row-major at src (row stride ss) into the column-major
    // receive block at row `row0`, column `c` (column stride N).
    void transpose_in(const Cf* src, Index ss, Index rows, Index cols, Cf* dst) const {
        const BoxCopy b{{rows, cols}, {ss, 1}, {1, geo.rows}};
        copy_box(reinterpret_cast<const Bytes<8>*>(src), reinterpret_cast<Bytes<8>*>(dst), b);
    }

    // Unpacks the receives that completed: all of them when `all`.
    void drain(Cf* r, bool all) {
        const int n = static_cast<int>(rreq.size());
        for (;;) {
            int got = 0;
            if (all)
                MPI_Waitsome(n, rreq.data(), &got, done.data(), MPI_STATUSES_IGNORE);
            else
                MPI_Testsome(n, rreq.data(), &got, done.data(), MPI_STATUSES_IGNORE);
            if (got == MPI_UNDEFINED || got == 0) return;
            for (int i = 0; i < got; ++i) {
                const Incoming& in =
                    incoming[static_cast<std::size_t>(done[static_cast<std::size_t>(i)])];
                transpose_in(scratch.data() + in.at, geo.recv_cols, in.rows, geo.recv_cols,
                             r + in.row0);
            }
            if (!all) return;
        }
    }

    int run(long long frame, const Kernel& k) {
        const int ring = calls++ % frames.count();
        Cf* s = frames.send_at(ring);
        Cf* r = frames.recv_at(ring);
        const Index m = geo.cols;
        rreq.assign(incoming.size(), MPI_REQUEST_NULL);
        for (std::size_t i = 0; i < incoming.size(); ++i)
            MPI_Irecv(scratch.data() + incoming[i].at, static_cast<int>(incoming[i].rows),
                      row_type(geo.recv_cols), incoming[i].from, incoming[i].piece, comm, &rreq[i]);
        sreq.clear();
        for (std::size_t p = 0; p < send_pieces.size(); ++p) {
            const auto [lo, hi] = send_pieces[p];
            produce(s + lo * m, (hi - lo) * m, (geo.send_row0 + lo) * m, frame, k);
            if (hi == lo) continue;
            for (int q = 0; q < size; ++q) {
                const Index nc = ncols[static_cast<std::size_t>(q)];
                if (q == me || nc == 0) continue;
                Cf* out =
                    packed.data() +
                    packed_at[p * static_cast<std::size_t>(size) + static_cast<std::size_t>(q)];
                const Cf* in = s + lo * m + col0[static_cast<std::size_t>(q)];
                for (Index i = 0; i < hi - lo; ++i)
                    std::memcpy(out + i * nc, in + i * m,
                                static_cast<std::size_t>(nc) * sizeof(Cf));
                sreq.push_back(MPI_REQUEST_NULL);
                MPI_Isend(out, static_cast<int>(hi - lo), row_type(nc), q, static_cast<int>(p),
                          comm, &sreq.back());
            }
            if (geo.recv_cols > 0)
                transpose_in(s + lo * m + geo.recv_col0, m, hi - lo, geo.recv_cols,
                             r + geo.send_row0 + lo);
            drain(r, false);
        }
        drain(r, true);
        MPI_Waitall(static_cast<int>(sreq.size()), sreq.data(), MPI_STATUSES_IGNORE);
        for (const auto& [lo, hi] : recv_pieces)
            consume(r + lo * geo.rows, frames.out() + lo * geo.rows, (hi - lo) * geo.rows, k);
        return ring;
    }
};

} // namespace

void add_mpi_pieces(PipeCatalog& cat, const Context& c, int pieces) {
    const std::string name = "mpi_pieces_" + std::to_string(pieces);
    if (!cat.wants("mpi_pieces")) return;
    if (c.geo.rows > INT_MAX || c.geo.cols > INT_MAX)
        return cat.skipped.push_back({name, "an extent exceeds MPI's int counts"});
    if (c.geo.turn && !c.pb.is_clique())
        return cat.skipped.push_back({name, "the turn's baseline needs every rank on both sides"});
    Probe probe;
    PipeMethod pm{name, Kind::baseline, pieces, "", 0, -1, -1, nullptr};
    if (c.geo.turn) {
        auto m = std::make_shared<MpiTurn>(c, pieces);
        pm.run = [m](long long frame, const Kernel& k) { return m->run(frame, k); };
    } else {
        auto m = std::make_shared<MpiRows>(c, pieces);
        pm.run = [m](long long frame, const Kernel& k) { return m->run(frame, k); };
    }
    pm.setup_seconds = probe.seconds();
    pm.heap_bytes = probe.heap_growth();
    pm.rss_bytes = probe.rss_growth();
    cat.methods.push_back(std::move(pm));
}

} // namespace dri::bench::pipe
