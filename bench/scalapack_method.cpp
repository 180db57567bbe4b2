// ScaLAPACK's redistribution, PxGEMR2D, on the corner turn: row blocks on a
// P x 1 grid -> column blocks on a 1 x P grid. Its local storage is
// column-major, so it reads its own column-major copy of the send block (one
// buffer); the receive side is the corner turn's (columns contiguous) and is
// checked like the others.
#include "method.hpp"
#include "probe.hpp"

#include <cstring>
#include <memory>

#ifdef DRI_HAVE_SCALAPACK
extern "C" {
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);
void Cblacs_gridinit(int* context, const char* order, int rows, int cols);
void Cblacs_gridexit(int context);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb,
               const int* irsrc, const int* icsrc, const int* ictxt, const int* lld, int* info);
using Gemr2d = void(const int* m, const int* n, const void* a, const int* ia, const int* ja,
                    const int* desca, void* b, const int* ib, const int* jb, const int* descb,
                    const int* ictxt);
Gemr2d psgemr2d_, pdgemr2d_, pcgemr2d_, pzgemr2d_;
}
#endif

namespace dri::bench {

#ifdef DRI_HAVE_SCALAPACK
namespace {

struct Scalapack {
    int handle = -1, ctx_a = -1, ctx_b = -1, ctx_all = -1;
    int desca[9] = {}, descb[9] = {};
    int m = 0, n = 0;
    Gemr2d* fn = nullptr;
    std::unique_ptr<AlignedBlock> a;

    Scalapack(const Problem& pb, const std::byte* send, Gemr2d* f) : fn(f) {
        m = static_cast<int>(pb.shape.extent(0));
        n = static_cast<int>(pb.shape.extent(1));
        const int p = pb.size, mb = m / p, nb = n / p, zero = 0;
        handle = Csys2blacs_handle(pb.comm);
        ctx_a = ctx_b = ctx_all = handle;
        Cblacs_gridinit(&ctx_a, "R", p, 1);
        Cblacs_gridinit(&ctx_b, "R", 1, p);
        Cblacs_gridinit(&ctx_all, "R", 1, p);
        int info = 0;
        descinit_(desca, &m, &n, &mb, &n, &zero, &zero, &ctx_a, &mb, &info);
        descinit_(descb, &m, &n, &m, &nb, &zero, &zero, &ctx_b, &m, &info);
        const Index elem = pb.elem();
        a = std::make_unique<AlignedBlock>(static_cast<std::size_t>(pb.send_bytes));
        for (Index i = 0; i < mb; ++i) // local rows x all columns, column-major
            for (Index j = 0; j < n; ++j)
                std::memcpy(a->data() + (j * mb + i) * elem, send + (i * n + j) * elem,
                            static_cast<std::size_t>(elem));
    }
    Scalapack(const Scalapack&) = delete;
    Scalapack& operator=(const Scalapack&) = delete;
    ~Scalapack() {
        Cblacs_gridexit(ctx_a);
        Cblacs_gridexit(ctx_b);
        Cblacs_gridexit(ctx_all);
        Cfree_blacs_system_handle(handle);
    }
    void run(std::byte* recv) {
        const int one = 1;
        fn(&m, &n, a->data(), &one, &one, desca, recv, &one, &one, descb, &ctx_all);
    }
};

Gemr2d* gemr2d_for(const std::string& type) {
    if (type == "float") return psgemr2d_;
    if (type == "double") return pdgemr2d_;
    if (type == "cfloat") return pcgemr2d_;
    if (type == "cdouble") return pzgemr2d_;
    return nullptr;
}

} // namespace
#endif

void add_scalapack_method(Catalog& cat, const Problem& pb, Rings& rings) {
    const std::string name = "scalapack_pxgemr2d";
    if (!cat.wants(name)) return;
#ifndef DRI_HAVE_SCALAPACK
    (void)pb;
    (void)rings;
    cat.skip(name, "built without ScaLAPACK (libscalapack-mpich-dev)");
#else
    Gemr2d* fn = gemr2d_for(core::to_string(pb.shape.type()));
    if (!pb.is_corner_turn() || !pb.is_clique())
        return cat.skip(name, "expressed here for the corner turn only (block,whole -> "
                              "whole,block, column-major receiver, every rank both sides)");
    if (pb.shape.extent(0) % pb.size || pb.shape.extent(1) % pb.size)
        return cat.skip(name, "extents not divisible by the rank count");
    if (!fn) return cat.skip(name, "element type not float, double, cfloat or cdouble");
    Probe probe;
    auto m = std::make_shared<Scalapack>(pb, rings.send[0].data(), fn);
    Method out{name, Kind::baseline, nullptr, true, "reads its own column-major copy of A", 0, -1,
               -1};
    out.run = [m, &rings](int k) { m->run(rings.recv[static_cast<std::size_t>(k)].data()); };
    cat.add(std::move(out), probe);
#endif
}

} // namespace dri::bench
