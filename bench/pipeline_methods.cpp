// The dri methods of --scenario pipeline and pipeline_turn, and what every
// method of the scenario shares (geometry, buffers, agreement on errors).
#include "pipeline_methods.hpp"

#include "to_api.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace dri::bench::pipe {

std::pair<Index, Index> owned_range(const core::Distribution& d, int idx, int dim) {
    const auto u = static_cast<std::size_t>(dim);
    const int c = d.coords(idx)[u];
    const Index n = d.local_extents(idx)[u];
    if (n == 0 || d.segment_count(dim, c) == 0) return {0, 0};
    return {d.segment(dim, c, 0).own_lo, n};
}

Geometry geometry(const Problem& pb, bool turn) {
    Geometry g;
    g.turn = turn;
    g.rows = pb.shape.extent(0);
    g.cols = pb.shape.extent(1);
    g.sends = pb.me_send >= 0;
    g.recvs = pb.me_recv >= 0;
    if (g.sends) std::tie(g.send_row0, g.send_rows) = owned_range(*pb.sd, pb.me_send, 0);
    if (g.recvs) std::tie(g.recv_col0, g.recv_cols) = owned_range(*pb.rd, pb.me_recv, 1);
    if (g.sends && g.send_rows * g.cols != pb.send_bytes / pb.elem())
        throw std::logic_error("dri-bench: pipeline: the send block is not dense rows");
    if (g.recvs && g.recv_elems() != pb.recv_bytes / pb.elem())
        throw std::logic_error("dri-bench: pipeline: the receive block is not dense");
    return g;
}

std::pair<Index, Index> even_piece(Index e, int count, int k) {
    return {k * e / count, (k + 1) * e / count};
}

Frames::Frames(const Geometry& g, int buffers, bool shared_send) {
    const auto sbytes = static_cast<std::size_t>(g.sends ? g.send_elems() : 0) * sizeof(Cf);
    const auto rbytes = static_cast<std::size_t>(g.recvs ? g.recv_elems() : 0) * sizeof(Cf);
    shared.reserve(static_cast<std::size_t>(buffers));
    for (int k = 0; k < buffers; ++k) {
        if (shared_send && sbytes > 0) {
            shared.emplace_back(sbytes);
            // Touched once here, as the heap blocks are: page faults belong
            // to no frame.
            std::memset(shared.back().data(), 0, sbytes);
            send.emplace_back(shared.back().data(), sbytes);
        } else {
            heap.push_back(std::make_unique<AlignedBlock>(sbytes));
            send.emplace_back(heap.back()->data(), sbytes);
        }
        heap.push_back(std::make_unique<AlignedBlock>(rbytes));
        recv.emplace_back(heap.back()->data(), rbytes);
    }
    output = std::make_unique<AlignedBlock>(rbytes);
}

DriSides::DriSides(const Problem& pb)
    : gd(test::to_api(pb.shape)), sl(test::to_api(pb.sl)), rl(test::to_api(pb.rl)) {
    const dri::Group sg(pb.comm, pb.send_ranks), rg(pb.comm, pb.recv_ranks);
    if (sg.contains_me()) sd.emplace(gd, test::to_api(pb.sd->partition()), sg);
    if (rg.contains_me()) rd.emplace(gd, test::to_api(pb.rd->partition()), rg);
}

std::string first_error(const std::string& err, int rank, MPI_Comm comm) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    int first = err.empty() ? size : rank;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size) return "";
    std::string out = err;
    int len = static_cast<int>(out.size());
    MPI_Bcast(&len, 1, MPI_INT, first, comm);
    out.resize(static_cast<std::size_t>(len));
    MPI_Bcast(out.data(), len, MPI_CHAR, first, comm);
    return out.empty() ? "failed on rank " + std::to_string(first) : out;
}

bool PipeCatalog::wants(const std::string& family) const {
    return wanted.empty() || std::find(wanted.begin(), wanted.end(), family) != wanted.end();
}

std::shared_ptr<dri::Transfer> make_transfer(const Context& c, const std::string& name, int pieces,
                                             std::string& why) {
    const Problem& pb = c.pb;
    const DriSides& s = c.sides;
    auto t = std::make_shared<dri::Transfer>(name);
    // Declaring is local: a rank whose declaration fails must not leave the
    // others waiting in the commit.
    std::string err;
    try {
        t->strategy(dri::Strategy::automatic);
        if (s.sd) t->send(*s.sd, s.sl, c.frames.send);
        if (s.rd) t->recv(*s.rd, s.rl, c.frames.recv);
        if (s.sd && pieces > 0) t->pieces(dri::Role::send, 0, pieces);
        if (s.rd && pieces > 0) t->pieces(dri::Role::recv, c.geo.turn ? 1 : 0, pieces);
    } catch (const dri::Error& e) {
        err = std::string("declaring: ") + e.what();
    }
    if (why = first_error(err, pb.rank, pb.comm); !why.empty()) return nullptr;
    try {
        if (s.sd || s.rd)
            dri::commit(pb.comm, {t.get()});
        else
            dri::commit(pb.comm, {});
    } catch (const dri::Error& e) {
        err = e.what();
    }
    if (why = first_error(err, pb.rank, pb.comm); !why.empty()) return nullptr;
    return t;
}

namespace {

std::string strategy_name(dri::Strategy s) {
    switch (s) {
    case dri::Strategy::p2p:
        return "p2p";
    case dri::Strategy::shared:
        return "shared";
    case dri::Strategy::hybrid:
        return "hybrid";
    case dri::Strategy::nodes:
        return "nodes";
    case dri::Strategy::alltoallw:
        return "alltoallw";
    case dri::Strategy::packed:
        return "packed";
    default:
        return "?";
    }
}

// The pieces of one role of a committed transfer as dri reports them,
// checked against the documented even split: a difference is the library's
// bug, and every later number would be about other pieces than the ones
// the run says.
std::vector<std::pair<Index, Index>> piece_bounds(const dri::Transfer& t, dri::Role role,
                                                  Index extent, int count, std::string& err) {
    std::vector<std::pair<Index, Index>> out;
    for (int k = 0; k < count; ++k) {
        out.push_back(t.piece(role, k));
        const auto want = even_piece(extent, count, k);
        if (out.back() != want && err.empty())
            err = std::string(role == dri::Role::send ? "send" : "receive") + " piece " +
                  std::to_string(k) + " of " + std::to_string(count) + " is [" +
                  std::to_string(out.back().first) + ", " + std::to_string(out.back().second) +
                  "), the even split is [" + std::to_string(want.first) + ", " +
                  std::to_string(want.second) + ")";
    }
    return out;
}

// One frame through a transfer split into pieces: the producer makes each
// piece of the current send buffer and marks it ready; the consumer waits
// for each piece of the current receive buffer, in order, and works on it
// while the later ones are on their way; wait() ends the frame.
struct DriPieces {
    std::shared_ptr<dri::Transfer> t;
    Geometry geo;
    const Frames& frames;
    std::vector<std::pair<Index, Index>> send_pieces, recv_pieces;

    int run(long long frame, const Kernel& k) {
        if (!geo.sends && !geo.recvs) return -1;
        t->start();
        const int ks = geo.sends ? t->current_send_buffer() : -1;
        if (geo.sends) {
            Cf* s = frames.send_at(ks);
            const Index u = geo.send_unit(), g0 = geo.send_row0 * geo.cols;
            for (std::size_t p = 0; p < send_pieces.size(); ++p) {
                const auto [lo, hi] = send_pieces[p];
                produce(s + lo * u, (hi - lo) * u, g0 + lo * u, frame, k);
                t->ready(static_cast<int>(p));
            }
        }
        const int kr = geo.recvs ? t->current_recv_buffer() : -1;
        if (geo.recvs) {
            const Cf* r = frames.recv_at(kr);
            Cf* out = frames.out();
            const Index u = geo.recv_unit();
            for (std::size_t p = 0; p < recv_pieces.size(); ++p) {
                t->wait_piece(static_cast<int>(p));
                const auto [lo, hi] = recv_pieces[p];
                consume(r + lo * u, out + lo * u, (hi - lo) * u, k);
            }
        }
        t->wait();
        return geo.sends ? ks : kr;
    }
};

// One frame without pieces: produce all of it, one DRI_Do, consume all of it.
struct DriWhole {
    std::shared_ptr<dri::Transfer> t;
    Geometry geo;
    const Frames& frames;

    int run(long long frame, const Kernel& k) {
        if (!geo.sends && !geo.recvs) return -1;
        const int ks = geo.sends ? t->current_send_buffer() : -1;
        const int kr = geo.recvs ? t->current_recv_buffer() : -1;
        if (geo.sends)
            produce(frames.send_at(ks), geo.send_elems(), geo.send_row0 * geo.cols, frame, k);
        t->execute();
        if (geo.recvs) consume(frames.recv_at(kr), frames.out(), geo.recv_elems(), k);
        return geo.sends ? ks : kr;
    }
};

} // namespace

void add_dri_pieces(PipeCatalog& cat, const Context& c, int pieces) {
    const std::string name = "dri_pieces_" + std::to_string(pieces);
    if (!cat.wants("dri_pieces")) return;
    Probe probe;
    std::string why;
    const auto t = make_transfer(c, "pipeline." + name, pieces, why);
    if (!t) return cat.skipped.push_back({name, why});
    const double setup = probe.seconds();
    auto m = std::make_shared<DriPieces>(DriPieces{t, c.geo, c.frames, {}, {}});
    std::string err;
    if (c.geo.sends)
        m->send_pieces = piece_bounds(*t, dri::Role::send, c.geo.send_rows, pieces, err);
    if (c.geo.recvs)
        m->recv_pieces = piece_bounds(*t, dri::Role::recv, c.geo.recv_extent(), pieces, err);
    if (err = first_error(err, c.pb.rank, c.pb.comm); !err.empty())
        throw std::runtime_error("pipeline: " + name + ": " + err);
    PipeMethod pm{name,   Kind::dri, pieces, "", setup, probe.heap_growth(), probe.rss_growth(),
                  nullptr};
    if (c.geo.sends || c.geo.recvs) pm.note = "chose " + strategy_name(t->chosen_strategy());
    pm.run = [m](long long frame, const Kernel& k) { return m->run(frame, k); };
    cat.methods.push_back(std::move(pm));
}

void add_dri_whole(PipeCatalog& cat, const Context& c) {
    const std::string name = "dri_whole";
    if (!cat.wants(name)) return;
    Probe probe;
    std::string why;
    const auto t = make_transfer(c, "pipeline." + name, 0, why);
    if (!t) return cat.skipped.push_back({name, why});
    auto m = std::make_shared<DriWhole>(DriWhole{t, c.geo, c.frames});
    PipeMethod pm{
        name, Kind::dri, 0, "", probe.seconds(), probe.heap_growth(), probe.rss_growth(), nullptr};
    if (c.geo.sends || c.geo.recvs) pm.note = "chose " + strategy_name(t->chosen_strategy());
    pm.run = [m](long long frame, const Kernel& k) { return m->run(frame, k); };
    cat.methods.push_back(std::move(pm));
}

} // namespace dri::bench::pipe
