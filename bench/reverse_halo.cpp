// --scenario reverse_halo: the halo accumulation of particle deposition and
// adjoint codes. The forward transfer is the wrapped halo exchange of an
// N x M array of double in row blocks (block,whole -> block~H:H:wrap,whole,
// the same ranks on both sides); what is timed is its reverse with SUM:
// every receiver's copy of a row (its own rows and the H halo rows on each
// side) added back into the owner's element. Both methods read receive
// buffer k (the halo'd block, rows + 2H) and write send buffer k (the owned
// block): the DRI reverse transfer, and what an expert writes by hand with
// MPI_Irecv / MPI_Isend to the two neighbours. Each is checked against an
// oracle built from the distribution alone (small integers: every sum exact).
#include "core/error.hpp"
#include "method.hpp"
#include "probe.hpp"
#include "simulate.hpp"
#include "to_api.hpp"

#include <climits>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace dri::bench {

namespace {

// The value receiver q holds in its stored row lr, column j before the
// reverse: integers in [-100, 100], so any sum of a few copies is exact.
double halo_value(int q, Index lr, Index j) {
    return static_cast<double>((static_cast<long long>(q) * 131 + lr * 31 + j * 7) % 201 - 100);
}

// This rank's rows and the input, poison and oracle both methods share.
struct HaloRows {
    const Problem& pb;
    Rings& rings;
    Index rows = 0, cols = 0, h = 0, lo = 0; // owned rows [lo, lo + rows), halo rows per side

    HaloRows(const Problem& p, Rings& r) : pb(p), rings(r) {
        const auto fail = [](const std::string& why) {
            core::fail(core::Errc::arg, "reverse_halo: " + why);
        };
        if (!pb.is_clique()) fail("runs over every rank on both sides");
        if (pb.shape.ndims() != 2 || pb.elem() != static_cast<Index>(sizeof(double)))
            fail("needs a 2-D array of double");
        if (!(pb.sl == core::Layout::packed(2)) || !(pb.rl == core::Layout::packed(2)))
            fail("needs row-major packed blocks");
        h = pb.rd->partition()[0].left;
        cols = pb.shape.extent(1);
        // Each halo must lie within one neighbour's owned rows.
        for (int s = 0; s < pb.size; ++s)
            if (pb.sd->local_extents(s)[0] < h)
                fail("--halo " + std::to_string(h) + " exceeds the row block of rank " +
                     std::to_string(s) + " (" + std::to_string(pb.sd->local_extents(s)[0]) +
                     " rows): use at most N/P");
        rows = pb.sd->local_extents(pb.me_send)[0];
        lo = pb.sd->segment(0, pb.sd->coords(pb.me_send)[0], 0).own_lo;
        if (pb.rd->local_extents(pb.me_recv)[0] != rows + 2 * h)
            throw std::logic_error("dri-bench: reverse_halo: unexpected receiver block");
    }

    const double* input(int k) const {
        return reinterpret_cast<const double*>(rings.recv[static_cast<std::size_t>(k)].data());
    }
    double* output(int k) const {
        return reinterpret_cast<double*>(rings.send[static_cast<std::size_t>(k)].data());
    }

    // Receive buffer k: this rank's copies (halo rows included).
    void fill_input(int k) const {
        auto* in = reinterpret_cast<double*>(rings.recv[static_cast<std::size_t>(k)].data());
        for (Index lr = 0; lr < rows + 2 * h; ++lr)
            for (Index j = 0; j < cols; ++j)
                in[lr * cols + j] = halo_value(pb.me_recv, lr, j);
    }

    // Before the checked call: the input as set up, the output poisoned.
    void prepare(int k) const {
        fill_input(k);
        auto& out = rings.send[static_cast<std::size_t>(k)];
        std::memset(out.data(), test::recv_poison, out.size());
    }

    // Every owned element against the sum of every copy any receiver holds
    // of it, the rows found by a plain scan of the receivers' segments.
    std::string verify(int k) const {
        std::vector<double> want(static_cast<std::size_t>(rows * cols), 0.0);
        for (int q = 0; q < pb.size; ++q) {
            const int c = pb.rd->coords(q)[0];
            for (Index lr = 0; lr < pb.rd->local_extents(q)[0]; ++lr) {
                const auto g = test::source_index(*pb.rd, 0, c, lr);
                if (!g || *g < lo || *g >= lo + rows) continue;
                double* w = want.data() + (*g - lo) * cols;
                for (Index j = 0; j < cols; ++j)
                    w[j] += halo_value(q, lr, j);
            }
        }
        const double* got = output(k);
        for (Index i = 0; i < rows * cols; ++i)
            if (got[i] != want[static_cast<std::size_t>(i)])
                return "element (" + std::to_string(lo + i / cols) + ", " +
                       std::to_string(i % cols) + ") is " + std::to_string(got[i]) + ", expected " +
                       std::to_string(want[static_cast<std::size_t>(i)]);
        return "";
    }

    void hooks(Method& m, const std::shared_ptr<const HaloRows>& self) const {
        m.prepare = [self](int k) { self->prepare(k); };
        m.verify = [self](int k) { return self->verify(k); };
    }
};

// The hand-written accumulation: receive the H halo rows each neighbour
// holds of this rank's rows, send back the halo rows it holds of theirs
// (contiguous, row-major: no packing), copy the own rows meanwhile, then add
// what arrived. Up is rank - 1, down rank + 1, wrapping: at 1 rank both are
// this rank, at 2 ranks the same peer; the tag says which halo a message is.
struct HandHalo {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Datatype row = MPI_DATATYPE_NULL;
    int up = 0, down = 0, h = 0;
    std::size_t rows = 0, cols = 0;
    std::vector<double> from_up, from_down;
    bool fits = true;

    explicit HandHalo(const HaloRows& hr) {
        fits = hr.cols <= INT_MAX && hr.h <= INT_MAX;
        MPI_Comm_dup(hr.pb.comm, &comm);
        up = (hr.pb.rank + hr.pb.size - 1) % hr.pb.size;
        down = (hr.pb.rank + 1) % hr.pb.size;
        h = static_cast<int>(hr.h);
        rows = static_cast<std::size_t>(hr.rows);
        cols = static_cast<std::size_t>(hr.cols);
        if (!fits) return;
        MPI_Type_contiguous(static_cast<int>(cols), MPI_DOUBLE, &row);
        MPI_Type_commit(&row);
        from_up.resize(static_cast<std::size_t>(h) * cols);
        from_down.resize(static_cast<std::size_t>(h) * cols);
    }
    HandHalo(const HandHalo&) = delete;
    HandHalo& operator=(const HandHalo&) = delete;
    ~HandHalo() {
        if (row != MPI_DATATYPE_NULL) MPI_Type_free(&row);
        MPI_Comm_free(&comm);
    }

    void run(const double* in, double* out) {
        enum : int { to_up = 0, to_down = 1 }; // the neighbour a halo goes back to
        const std::size_t hc = static_cast<std::size_t>(h) * cols;
        MPI_Request req[4];
        // Up's bottom halo holds my first h rows; down's top halo my last h.
        MPI_Irecv(from_up.data(), h, row, up, to_down, comm, &req[0]);
        MPI_Irecv(from_down.data(), h, row, down, to_up, comm, &req[1]);
        MPI_Isend(in, h, row, up, to_up, comm, &req[2]);
        MPI_Isend(in + hc + rows * cols, h, row, down, to_down, comm, &req[3]);
        std::memcpy(out, in + hc, rows * cols * sizeof(double));
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        for (std::size_t i = 0; i < hc; ++i)
            out[i] += from_up[i];
        double* last = out + (rows - static_cast<std::size_t>(h)) * cols;
        for (std::size_t i = 0; i < hc; ++i)
            last[i] += from_down[i];
    }
};

void add_dri_reverse(Catalog& cat, const std::shared_ptr<const HaloRows>& hr) {
    const std::string name = "dri_reverse_sum";
    if (!cat.wants(name)) return;
    const Problem& pb = hr->pb;
    Rings& rings = hr->rings;
    Probe probe;
    const dri::GlobalData gd = test::to_api(pb.shape);
    const dri::Group group(pb.comm, pb.send_ranks); // the same ranks on both sides
    const dri::Distribution sd(gd, test::to_api(pb.sd->partition()), group);
    const dri::Distribution rd(gd, test::to_api(pb.rd->partition()), group);
    auto fwd = std::make_shared<dri::Transfer>("reverse_halo.forward");
    fwd->strategy(dri::Strategy::p2p);
    fwd->send(sd, test::to_api(pb.sl), rings.send);
    fwd->recv(rd, test::to_api(pb.rl), rings.recv);
    std::shared_ptr<dri::Transfer> rev;
    std::string why;
    try {
        dri::commit(pb.comm, {fwd.get()});
        rev = std::make_shared<dri::Transfer>(fwd->reverse(dri::Combine::sum));
    } catch (const dri::Error& e) {
        why = e.what();
    }
    int failed = why.empty() ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, pb.comm);
    if (failed)
        return cat.skip(name, why.empty() ? "the commit or reverse failed on another rank" : why);
    Method m{name,
             Kind::dri,
             nullptr,
             true,
             "Transfer::reverse(Combine::sum) of the committed halo exchange, one execute() per "
             "call; setup: forward commit + reverse planning",
             0,
             -1,
             -1};
    m.run = [fwd, rev](int k) {
        // The reverse cycles the rings itself; the driver's index must agree.
        if (rev->current_send_buffer() != k || rev->current_recv_buffer() != k)
            throw std::logic_error("dri-bench: ring out of step");
        rev->execute();
    };
    hr->hooks(m, hr);
    cat.add(std::move(m), probe);
}

void add_hand_halo(Catalog& cat, const std::shared_ptr<const HaloRows>& hr) {
    const std::string name = "expert_halo_isend_irecv";
    if (!cat.wants(name)) return;
    const Problem& pb = hr->pb;
    Probe probe;
    auto hand = std::make_shared<HandHalo>(*hr);
    int fits = hand->fits ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_MIN, pb.comm);
    if (!fits) return cat.skip(name, "a row or the halo exceeds MPI's int counts");
    Method m{name,
             Kind::baseline,
             nullptr,
             true,
             "MPI_Irecv + MPI_Isend of the halo rows with both neighbours, memcpy of the own "
             "rows, then the received rows added",
             0,
             -1,
             -1};
    m.run = [hand, hr](int k) { hand->run(hr->input(k), hr->output(k)); };
    hr->hooks(m, hr);
    cat.add(std::move(m), probe);
}

} // namespace

void add_reverse_halo_methods(Catalog& cat, const Problem& pb, Rings& rings) {
    const auto hr = std::make_shared<const HaloRows>(pb, rings);
    for (int k = 0; k < rings.count(); ++k)
        hr->fill_input(k);
    add_dri_reverse(cat, hr);
    add_hand_halo(cat, hr);
}

} // namespace dri::bench
