// dri_bench: one redistribution scenario, every method, in the same process.
//
//   mpiexec.mpich -n 2 build/bench/dri_bench --scenario corner_turn --size 4096x4096 --type cfloat
//   --reps 15
//
// Methods, interleaved rep by rep after a warm-up (each is checked once for
// exact data against the oracle before it is timed):
//   dri_alltoallw, dri_packed, dri_p2p,  every DRI strategy, forced (dri_shared:
//   dri_shared                           receivers copy straight from the senders'
//                                        buffers in node shared memory)
//   mpi_alltoallw_subarray               the textbook MPI_Alltoallw with subarray types
//   hand_pack_alltoallv                  user loops packing per peer, MPI_Alltoallv, unpack
//   scalapack_pxgemr2d                   ScaLAPACK's redistribution (2-D scenarios, if built)
//   memcpy_bound                         a local memcpy of the rank's bytes (not a redistribution)
// Every method reads the same send buffer, allocated by DRI_Alloc_mem (the
// shared strategy needs it there; for the others it is ordinary memory) and
// writes the same receive buffer. Times are the slowest rank's; GB/s is the global array's bytes
// over the median time; "vs best MPI" is the best non-DRI median over the method's.
#include <dri/dri.hpp>

#include "core/plan.hpp"
#include "core/spec.hpp"
#include "simulate.hpp"
#include "to_api.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <malloc.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#ifdef DRI_HAVE_SCALAPACK
extern "C" {
void Cblacs_pinfo(int* rank, int* nprocs);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int rows, int cols);
void Cblacs_gridexit(int context);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb,
               const int* irsrc, const int* icsrc, const int* ictxt, const int* lld, int* info);
void psgemr2d_(const int* m, const int* n, const void* a, const int* ia, const int* ja,
               const int* desca, void* b, const int* ib, const int* jb, const int* descb,
               const int* ictxt);
void pdgemr2d_(const int* m, const int* n, const void* a, const int* ia, const int* ja,
               const int* desca, void* b, const int* ib, const int* jb, const int* descb,
               const int* ictxt);
void pcgemr2d_(const int* m, const int* n, const void* a, const int* ia, const int* ja,
               const int* desca, void* b, const int* ib, const int* jb, const int* descb,
               const int* ictxt);
void pzgemr2d_(const int* m, const int* n, const void* a, const int* ia, const int* ja,
               const int* desca, void* b, const int* ib, const int* jb, const int* descb,
               const int* ictxt);
}
#endif

namespace {

using dri::core::Index;
namespace core = dri::core;

int rank_ = 0, size_ = 1;
int nodes_ = 1;                    // nodes as MPI_COMM_TYPE_SHARED sees them
std::vector<std::string> skipped_; // methods that do not apply here, and why

// Nodes of MPI_COMM_WORLD (simulated ones too: MPIR_CVAR_NUM_CLIQUES).
int count_nodes() {
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int node_rank = 0;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_free(&node);
    int leaders = node_rank == 0 ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &leaders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return leaders;
}

[[noreturn]] void die(const std::string& msg) {
    if (rank_ == 0) std::fprintf(stderr, "dri_bench: %s\n", msg.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
    std::exit(2);
}

struct Options {
    std::string scenario = "corner_turn", size = "4096x4096", type = "cfloat", json, methods;
    int reps = 10;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help")
            die("usage: dri_bench --scenario corner_turn|pencil|cyclic|halo --size AxB[xC] "
                "--type float|cfloat|double|cdouble --reps N [--json FILE] [--methods a,b,...]");
        if (i + 1 >= argc) die("missing value for " + a);
        const std::string v = argv[++i];
        if (a == "--scenario")
            o.scenario = v;
        else if (a == "--size")
            o.size = v;
        else if (a == "--type")
            o.type = v;
        else if (a == "--reps")
            o.reps = std::atoi(v.c_str());
        else if (a == "--json")
            o.json = v;
        else if (a == "--methods")
            o.methods = "," + v + ",";
        else
            die("unknown option " + a);
    }
    if (o.reps < 1) die("--reps must be >= 1");
    return o;
}

// The two sides of the scenario in core terms (for the oracle and for the
// MPI alternatives) and in API terms.
struct Setup {
    std::unique_ptr<core::Distribution> sd, rd;
    core::Layout sl = core::Layout::packed(1), rl = core::Layout::packed(1);
    core::Shape shape{{1}, core::ElementType::predefined(core::ElemKind::byte)};
};

Setup make_setup(const Options& o) {
    Setup s;
    const std::vector<Index> ext = core::parse_shape(o.size);
    const std::string t =
        o.type == "float" || o.type == "double" || o.type == "cfloat" || o.type == "cdouble"
            ? o.type
            : (die("unknown --type " + o.type), "");
    s.shape = core::Shape(ext, core::parse_type(t));
    core::Partition sp, rp;
    const int n = s.shape.ndims();
    if (o.scenario == "corner_turn") {
        if (n != 2) die("corner_turn needs --size AxB");
        sp = core::parse_partition("block,whole");
        rp = core::parse_partition("whole,block");
        s.sl = core::Layout::packed(2);
        s.rl = core::Layout::ordered({1, 0});
    } else if (o.scenario == "pencil") {
        if (n != 3) die("pencil needs --size AxBxC");
        // x-pencils (dim 2 whole and contiguous) on a p0 x p1 grid -> y-pencils
        // (dim 1 whole and contiguous) on p0 x p1, as in a 3-D FFT.
        int p0 = 1;
        for (int d = 1; d * d <= size_; ++d)
            if (size_ % d == 0) p0 = d;
        const int p1 = size_ / p0;
        sp = core::parse_partition("block/" + std::to_string(p0) + ",block/" + std::to_string(p1) +
                                   ",whole");
        rp = core::parse_partition("block/" + std::to_string(p0) + ",whole,block/" +
                                   std::to_string(p1));
        s.sl = core::Layout::packed(3);
        s.rl = core::Layout::ordered({0, 2, 1});
    } else if (o.scenario == "cyclic") {
        if (n != 2) die("cyclic needs --size AxB");
        sp = core::parse_partition("block,whole");
        rp = core::parse_partition("cyclic(64),whole");
        s.sl = core::Layout::packed(2);
        s.rl = core::Layout::packed(2);
    } else if (o.scenario == "halo") {
        if (n != 2) die("halo needs --size AxB");
        sp = core::parse_partition("block,whole");
        rp = core::parse_partition("block~8:8,whole");
        s.sl = core::Layout::packed(2);
        s.rl = core::Layout::packed(2);
    } else {
        die("unknown --scenario " + o.scenario);
    }
    s.sd = std::make_unique<core::Distribution>(s.shape, sp, size_);
    s.rd = std::make_unique<core::Distribution>(s.shape, rp, size_);
    return s;
}

// 64-byte aligned buffer.
struct Buf {
    std::byte* p = nullptr;
    std::size_t n = 0;
    explicit Buf(Index bytes) : n(static_cast<std::size_t>(bytes)) {
        p = static_cast<std::byte*>(
            std::aligned_alloc(64, std::max<std::size_t>(64, (n + 63) / 64 * 64)));
        if (!p) die("out of memory");
        std::memset(p, 0, n);
    }
    Buf(const Buf&) = delete;
    ~Buf() { std::free(p); }
};

// Local index of global g along d for coordinate c (sender: owned cells;
// receiver: stored cells).
Index local_of(const core::Distribution& d, int dim, int c, Index g, bool stored) {
    for (Index k = 0; k < d.segment_count(dim, c); ++k) {
        const core::Segment s = d.segment(dim, c, k);
        const Index lo = stored ? s.lo : s.own_lo, hi = stored ? s.hi : s.own_hi;
        if (g >= lo && g < hi) return s.local + (g - s.lo);
    }
    die("internal: global index outside the block");
}

// A box of global elements moved between two ranks, one piece of a pair.
struct Box {
    std::vector<Index> first, count;
};

// The boxes sender s sends to receiver r: products of per-dimension ranges.
std::vector<Box> boxes(const Setup& su, int s, int r) {
    const core::Side send{su.sd.get(), su.sl}, recv{su.rd.get(), su.rl};
    const auto ranges = core::pair_global_ranges(send, recv, s, r);
    std::vector<Box> out;
    if (ranges.empty()) return out;
    const std::size_t nd = ranges.size();
    std::vector<std::size_t> it(nd, 0);
    for (;;) {
        Box b;
        for (std::size_t d = 0; d < nd; ++d) {
            b.first.push_back(ranges[d][it[d]].first);
            b.count.push_back(ranges[d][it[d]].size());
        }
        out.push_back(b);
        std::size_t d = nd;
        while (d-- > 0) {
            if (++it[d] < ranges[d].size()) break;
            it[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1)) return out;
    }
}

// The textbook method: MPI_Type_create_subarray per box, one MPI_Alltoallw.
struct SubarrayMethod {
    std::vector<MPI_Datatype> stypes, rtypes;
    std::vector<int> scounts, rcounts, displs;
    SubarrayMethod(const Setup& su, Index elem) {
        MPI_Datatype etype;
        MPI_Type_contiguous(static_cast<int>(elem), MPI_BYTE, &etype);
        auto side_type = [&](const core::Distribution& d, const core::Layout& l, int idx,
                             const std::vector<Box>& bs, bool stored) {
            const core::LocalLayout ll = core::bind_layout(l, d.local_extents(idx), elem);
            const std::vector<int> c = d.coords(idx);
            // Both sides traverse each box in global row-major order, so the
            // elements match: a subarray where the layout is row-major, nested
            // vector types (a transposing type) otherwise.
            bool row_major = true;
            for (std::size_t k = 0; k < l.order().size(); ++k)
                row_major &= l.order()[k] == static_cast<int>(k);
            std::vector<MPI_Datatype> parts;
            std::vector<MPI_Aint> disps;
            for (const Box& b : bs) {
                MPI_Datatype t;
                if (row_major) {
                    std::vector<int> sizes, subs, starts;
                    for (int dim = 0; dim < d.ndims(); ++dim) {
                        const auto u = static_cast<std::size_t>(dim);
                        sizes.push_back(static_cast<int>(ll.extents[u]));
                        subs.push_back(static_cast<int>(b.count[u]));
                        starts.push_back(
                            static_cast<int>(local_of(d, dim, c[u], b.first[u], stored)));
                    }
                    MPI_Type_create_subarray(static_cast<int>(sizes.size()), sizes.data(),
                                             subs.data(), starts.data(), MPI_ORDER_C, etype, &t);
                    disps.push_back(0);
                } else {
                    MPI_Datatype inner = etype;
                    MPI_Aint off = 0;
                    for (int dim = d.ndims(); dim-- > 0;) {
                        const auto u = static_cast<std::size_t>(dim);
                        MPI_Datatype next;
                        MPI_Type_create_hvector(static_cast<int>(b.count[u]), 1,
                                                ll.strides[u] * elem, inner, &next);
                        if (inner != etype) MPI_Type_free(&inner);
                        inner = next;
                        off += local_of(d, dim, c[u], b.first[u], stored) * ll.strides[u] * elem;
                    }
                    t = inner;
                    disps.push_back(off);
                }
                parts.push_back(t);
            }
            MPI_Datatype all;
            std::vector<int> lens(parts.size(), 1);
            MPI_Type_create_struct(static_cast<int>(parts.size()), lens.data(), disps.data(),
                                   parts.data(), &all);
            MPI_Type_commit(&all);
            for (MPI_Datatype& t : parts)
                MPI_Type_free(&t);
            return all;
        };
        for (int p = 0; p < size_; ++p) {
            const auto sb = boxes(su, rank_, p), rb = boxes(su, p, rank_);
            stypes.push_back(sb.empty() ? MPI_BYTE : side_type(*su.sd, su.sl, rank_, sb, false));
            rtypes.push_back(rb.empty() ? MPI_BYTE : side_type(*su.rd, su.rl, rank_, rb, true));
            scounts.push_back(sb.empty() ? 0 : 1);
            rcounts.push_back(rb.empty() ? 0 : 1);
            displs.push_back(0);
        }
        MPI_Type_free(&etype);
    }
    ~SubarrayMethod() {
        for (auto* v : {&stypes, &rtypes})
            for (MPI_Datatype& t : *v)
                if (t != MPI_BYTE) MPI_Type_free(&t);
    }
    void run(const std::byte* s, std::byte* r) {
        MPI_Alltoallw(s, scounts.data(), displs.data(), stypes.data(), r, rcounts.data(),
                      displs.data(), rtypes.data(), MPI_COMM_WORLD);
    }
};

// What a user writes: loops packing each peer's boxes (innermost global
// dimension innermost), MPI_Alltoallv, loops unpacking.
struct HandPackMethod {
    struct Piece {
        std::vector<Index> outer_offsets; // local byte offset of each innermost line
        Index inner_count = 0, inner_stride = 0;
    };
    std::vector<std::vector<Piece>> spieces, rpieces; // per peer
    std::vector<int> scounts, rcounts, sdispls, rdispls;
    std::vector<std::byte> sbuf, rbuf;
    Index elem;

    static std::vector<Piece> pieces(const core::Distribution& d, const core::Layout& l, int idx,
                                     const std::vector<Box>& bs, bool stored, Index elem) {
        const core::LocalLayout ll = core::bind_layout(l, d.local_extents(idx), elem);
        const std::vector<int> c = d.coords(idx);
        const int nd = d.ndims();
        std::vector<Piece> out;
        for (const Box& b : bs) {
            Piece p;
            const auto last = static_cast<std::size_t>(nd - 1);
            p.inner_count = b.count[last];
            p.inner_stride = ll.strides[last] * elem;
            std::vector<Index> g(b.first);
            for (;;) {
                Index off = 0;
                for (int dim = 0; dim < nd; ++dim) {
                    const auto u = static_cast<std::size_t>(dim);
                    off += local_of(d, dim, c[u], g[u], stored) * ll.strides[u] * elem;
                }
                p.outer_offsets.push_back(off);
                int dim = nd - 1;
                while (dim-- > 0) {
                    const auto u = static_cast<std::size_t>(dim);
                    if (++g[u] < b.first[u] + b.count[u]) break;
                    g[u] = b.first[u];
                }
                if (dim < 0) break;
            }
            out.push_back(std::move(p));
        }
        return out;
    }

    HandPackMethod(const Setup& su, Index e) : elem(e) {
        int soff = 0, roff = 0;
        for (int p = 0; p < size_; ++p) {
            const auto sb = boxes(su, rank_, p), rb = boxes(su, p, rank_);
            spieces.push_back(pieces(*su.sd, su.sl, rank_, sb, false, e));
            rpieces.push_back(pieces(*su.rd, su.rl, rank_, rb, true, e));
            Index sbytes = 0, rbytes = 0;
            for (const Piece& pc : spieces.back())
                sbytes += static_cast<Index>(pc.outer_offsets.size()) * pc.inner_count * e;
            for (const Piece& pc : rpieces.back())
                rbytes += static_cast<Index>(pc.outer_offsets.size()) * pc.inner_count * e;
            if (soff + sbytes > INT32_MAX || roff + rbytes > INT32_MAX)
                die("hand_pack_alltoallv: more than 2 GiB");
            scounts.push_back(static_cast<int>(sbytes));
            rcounts.push_back(static_cast<int>(rbytes));
            sdispls.push_back(soff);
            rdispls.push_back(roff);
            soff += static_cast<int>(sbytes);
            roff += static_cast<int>(rbytes);
        }
        sbuf.resize(static_cast<std::size_t>(soff));
        rbuf.resize(static_cast<std::size_t>(roff));
    }

    template <class T>
    void typed(const std::byte* s, std::byte* r) {
        T* out = reinterpret_cast<T*>(sbuf.data());
        for (const auto& peer : spieces)
            for (const Piece& pc : peer) {
                const Index st = pc.inner_stride / static_cast<Index>(sizeof(T));
                for (Index off : pc.outer_offsets) {
                    const T* in = reinterpret_cast<const T*>(s + off);
                    for (Index i = 0; i < pc.inner_count; ++i)
                        *out++ = in[i * st];
                }
            }
        MPI_Alltoallv(sbuf.data(), scounts.data(), sdispls.data(), MPI_BYTE, rbuf.data(),
                      rcounts.data(), rdispls.data(), MPI_BYTE, MPI_COMM_WORLD);
        const T* in = reinterpret_cast<const T*>(rbuf.data());
        for (const auto& peer : rpieces)
            for (const Piece& pc : peer) {
                const Index st = pc.inner_stride / static_cast<Index>(sizeof(T));
                for (Index off : pc.outer_offsets) {
                    T* o = reinterpret_cast<T*>(r + off);
                    for (Index i = 0; i < pc.inner_count; ++i)
                        o[i * st] = *in++;
                }
            }
    }
    struct C16 {
        double re, im;
    };
    void run(const std::byte* s, std::byte* r) {
        switch (elem) {
        case 4:
            return typed<float>(s, r);
        case 8:
            return typed<double>(s, r);
        default:
            return typed<C16>(s, r);
        }
    }
};

struct Result {
    std::string name;
    std::vector<double> times;
    double median() const {
        std::vector<double> t = times;
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    }
    double min() const { return *std::min_element(times.begin(), times.end()); }
};

} // namespace

int main(int argc, char** argv) {
    // Keep freed memory in the heap: methods that allocate temporaries per
    // call (ScaLAPACK's pxgemr2d: about 100 MB per call here) would otherwise
    // pay page faults each time and slow down the method timed after them.
    // DRI allocates at commit and is not affected either way.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    nodes_ = count_nodes();
    const Options o = parse(argc, argv);
    int bad = 0;
    std::vector<Result> results;
    Index global_bytes = 0;
    {
        dri::Session session;
        const Setup su = make_setup(o);
        const Index elem = su.shape.elem_size();
        global_bytes = su.shape.bytes();
        const Index sbytes = core::bind_layout(su.sl, su.sd->local_extents(rank_), elem).bytes;
        const Index rbytes = core::bind_layout(su.rl, su.rd->local_extents(rank_), elem).bytes;
        dri::SharedMemory send_mem(MPI_COMM_WORLD, static_cast<std::size_t>(sbytes));
        std::memset(send_mem.data(), 0, send_mem.size());
        const struct {
            std::byte* p;
            std::size_t n;
        } send{send_mem.data(), send_mem.size()};
        Buf recv(rbytes);
        dri::test::fill_sender(*su.sd, su.sl, rank_, send.p, sbytes);

        struct Method {
            std::string name;
            std::function<void()> run;
            bool check = true; // compare recv with the oracle after the warm-up
        };
        std::vector<Method> methods;

        // DRI, one transfer per strategy.
        const dri::GlobalData gd = dri::test::to_api(su.shape);
        const dri::Group all(MPI_COMM_WORLD);
        const dri::Distribution dsd(gd, dri::test::to_api(su.sd->partition()), all);
        const dri::Distribution drd(gd, dri::test::to_api(su.rd->partition()), all);
        const dri::Layout dsl = dri::test::to_api(su.sl), drl = dri::test::to_api(su.rl);
        std::vector<std::unique_ptr<dri::Transfer>> transfers;
        const std::pair<const char*, dri::Strategy> strategies[] = {
            {"dri_alltoallw", dri::Strategy::alltoallw},
            {"dri_packed", dri::Strategy::packed},
            {"dri_p2p", dri::Strategy::p2p},
            {"dri_shared", dri::Strategy::shared},
            {"dri_hybrid", dri::Strategy::hybrid}};
        for (const auto& [name, strategy] : strategies) {
            auto t = std::make_unique<dri::Transfer>(name);
            t->strategy(strategy);
            const std::span<std::byte> sb(send.p, send.n), rb(recv.p, recv.n);
            t->send(dsd, dsl, std::vector<std::span<std::byte>>{sb});
            t->recv(drd, drl, std::vector<std::span<std::byte>>{rb});
            try {
                t->commit();
            } catch (const dri::Error& e) {
                // SHARED and HYBRID depend on the node layout: say why not.
                if (e.code() != dri::Errc::buffer) throw;
                skipped_.push_back(std::string(name) + ": " + e.what());
                continue;
            }
            dri::Transfer* tp = t.get();
            methods.push_back({name, [tp] { tp->execute(); }, true});
            transfers.push_back(std::move(t));
        }
        auto sub = std::make_shared<SubarrayMethod>(su, elem);
        methods.push_back({"mpi_alltoallw_subarray", [&, sub] { sub->run(send.p, recv.p); }, true});
        auto hand = std::make_shared<HandPackMethod>(su, elem);
        methods.push_back({"hand_pack_alltoallv", [&, hand] { hand->run(send.p, recv.p); }, true});

#ifdef DRI_HAVE_SCALAPACK
        // ScaLAPACK: same global matrix, row blocks on a P x 1 grid -> column
        // blocks on a 1 x P grid. Its local storage is column-major, so A is
        // filled for it; B (columns contiguous) is checked like the others.
        std::shared_ptr<Buf> sa;
        int ctx_a = -1, ctx_b = -1, ctx_all = -1;
        int desca[9], descb[9];
        const bool even = su.shape.ndims() == 2 && su.shape.extent(0) % size_ == 0 &&
                          su.shape.extent(1) % size_ == 0;
        if (o.scenario == "corner_turn" && even) {
            const int m = static_cast<int>(su.shape.extent(0)),
                      n = static_cast<int>(su.shape.extent(1));
            const int mb = m / size_, nb = n / size_, zero = 0;
            Cblacs_get(0, 0, &ctx_a);
            Cblacs_gridinit(&ctx_a, "R", size_, 1);
            Cblacs_get(0, 0, &ctx_b);
            Cblacs_gridinit(&ctx_b, "R", 1, size_);
            Cblacs_get(0, 0, &ctx_all);
            Cblacs_gridinit(&ctx_all, "R", 1, size_);
            int info = 0;
            descinit_(desca, &m, &n, &mb, &n, &zero, &zero, &ctx_a, &mb, &info);
            descinit_(descb, &m, &n, &m, &nb, &zero, &zero, &ctx_b, &m, &info);
            sa = std::make_shared<Buf>(sbytes);
            // A: local rows [rank*mb, +mb) x all columns, column-major.
            for (Index i = 0; i < mb; ++i)
                for (Index j = 0; j < n; ++j)
                    std::memcpy(sa->p + (j * mb + i) * elem, send.p + (i * n + j) * elem,
                                static_cast<std::size_t>(elem));
            auto fn = o.type == "float"    ? psgemr2d_
                      : o.type == "double" ? pdgemr2d_
                      : o.type == "cfloat" ? pcgemr2d_
                                           : pzgemr2d_;
            methods.push_back({"scalapack_pxgemr2d",
                               [=, &recv] {
                                   const int one = 1;
                                   fn(&m, &n, sa->p, &one, &one, desca, recv.p, &one, &one, descb,
                                      &ctx_all);
                               },
                               true});
        }
#endif
        // The bound: glibc's memcpy is up to ten times slower on AMD Zen when the
        // destination sits slightly after the source modulo 4 KiB (a slow path
        // of rep movsb), so the copy is placed half a page away: the fast case.
        auto copy = std::make_shared<Buf>(sbytes + 4096);
        const auto gap = (reinterpret_cast<std::uintptr_t>(send.p) -
                          reinterpret_cast<std::uintptr_t>(copy->p) + 2048) %
                         4096;
        std::byte* const copy_dst = copy->p + gap;
        methods.push_back({"memcpy_bound",
                           [&, copy, copy_dst] { std::memcpy(copy_dst, send.p, send.n); }, false});

        if (!o.methods.empty())
            std::erase_if(methods, [&](const Method& m) {
                return o.methods.find("," + m.name + ",") == std::string::npos;
            });
        // Warm-up and check every method once.
        for (Method& m : methods) {
            std::memset(recv.p, dri::test::recv_poison, recv.n);
            m.run();
            m.run();
            if (!m.check) continue;
            std::memset(recv.p, dri::test::recv_poison, recv.n);
            m.run();
            const std::string err = dri::test::check_receiver(*su.rd, su.rl, rank_, recv.p, rbytes);
            if (!err.empty()) {
                std::fprintf(stderr, "rank %d: %s delivered wrong data: %s\n", rank_,
                             m.name.c_str(), err.c_str());
                bad = 1;
            }
        }
        // Timed, interleaved.
        results.resize(methods.size());
        for (std::size_t k = 0; k < methods.size(); ++k)
            results[k].name = methods[k].name;
        for (int rep = 0; rep < o.reps; ++rep) {
            if (rank_ == 0 && o.reps >= 10 && rep % (o.reps / 5) == 0)
                std::fprintf(stderr, "dri_bench: rep %d/%d\n", rep, o.reps);
            for (std::size_t k = 0; k < methods.size(); ++k) {
                MPI_Barrier(MPI_COMM_WORLD);
                const double t0 = MPI_Wtime();
                methods[k].run();
                double t = MPI_Wtime() - t0;
                MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                results[k].times.push_back(t);
            }
        }
#ifdef DRI_HAVE_SCALAPACK
        if (ctx_a >= 0) {
            Cblacs_gridexit(ctx_a);
            Cblacs_gridexit(ctx_b);
            Cblacs_gridexit(ctx_all);
        }
#endif
        methods.clear();
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank_ == 0) {
        double best_mpi = 1e300;
        for (const Result& r : results)
            if (r.name.rfind("dri", 0) != 0 && r.name != "memcpy_bound")
                best_mpi = std::min(best_mpi, r.median());
        std::printf("dri_bench: %s %s %s, %d ranks on %d node(s), %d reps, %.1f MiB%s\n",
                    o.scenario.c_str(), o.size.c_str(), o.type.c_str(), size_, nodes_, o.reps,
                    static_cast<double>(global_bytes) / 1048576.0,
                    bad ? " -- WRONG DATA, see stderr" : "");
        for (const std::string& why : skipped_)
            std::printf("skipped %s\n", why.c_str());
        std::printf("%-24s %12s %12s %9s %12s\n", "method", "median ms", "min ms", "GB/s",
                    "vs best MPI");
        FILE* js = o.json.empty() ? nullptr : std::fopen(o.json.c_str(), "a");
        for (const Result& r : results) {
            const double gbps = static_cast<double>(global_bytes) / r.median() / 1e9;
            // Without a non-DRI method in the run there is no ratio (JSON: null).
            const bool ratio = best_mpi < 1e300;
            char rtext[32] = "-";
            if (ratio) std::snprintf(rtext, sizeof rtext, "%.2fx", best_mpi / r.median());
            char rjson[32] = "null";
            if (ratio) std::snprintf(rjson, sizeof rjson, "%.6g", best_mpi / r.median());
            std::printf("%-24s %12.4f %12.4f %9.2f %12s\n", r.name.c_str(), r.median() * 1e3,
                        r.min() * 1e3, gbps, rtext);
            if (js)
                std::fprintf(js,
                             "{\"scenario\":\"%s\",\"size\":\"%s\",\"type\":\"%s\",\"method\":\"%"
                             "s\",\"ranks\":%d,"
                             "\"bytes\":%lld,\"reps\":%d,\"seconds_median\":%.9g,\"seconds_min\":%."
                             "9g,\"gbps\":%.6g,"
                             "\"ratio_vs_best_mpi\":%s}\n",
                             o.scenario.c_str(), o.size.c_str(), o.type.c_str(), r.name.c_str(),
                             size_, static_cast<long long>(global_bytes), o.reps, r.median(),
                             r.min(), gbps, rjson);
        }
        if (js) std::fclose(js);
    }
    MPI_Finalize();
    return bad;
}
