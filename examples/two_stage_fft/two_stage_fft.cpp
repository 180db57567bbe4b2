// Two-stage parallel 2-D FFT: FFTs along rows on a row distribution, a DRI
// corner turn into a column distribution stored column-contiguously, FFTs
// along columns. The result is the 2-D DFT, distributed by columns.
//
//   mpiexec.mpich -n 2 build/examples/two_stage_fft/two_stage_fft --n 1024 --m 1024 --frames 40
//
// --precision float|double, --mode clique (every rank does both stages) or
// bipartite (the first half of the ranks do stage 1, the others stage 2),
// --buffers 2..3. Both schedules run in the same process: non-pipelined
// (stage 1, transfer, stage 2, one frame at a time) and pipelined (stage 1
// of frame k+1 and stage 2 of frame k-1 while frame k's corner turn is in
// flight, polling it between chunks of FFTs). The last frame of each
// schedule is gathered on rank 0 and compared with a serial FFTW 2-D FFT.
#include <dri/dri.hpp>

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Options {
    long long n = 256, m = 192;
    int frames = 20, buffers = 2;
    bool dbl = false, bipartite = false;
};

[[noreturn]] void usage(int rank) {
    if (rank == 0)
        std::fprintf(stderr,
                     "usage: two_stage_fft [--n ROWS] [--m COLS] [--frames F] [--buffers 2|3] "
                     "[--precision float|double] [--mode clique|bipartite]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
    std::exit(2);
}

Options parse(int argc, char** argv, int rank) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) usage(rank);
        const std::string v = argv[++i];
        if (a == "--n")
            o.n = std::atoll(v.c_str());
        else if (a == "--m")
            o.m = std::atoll(v.c_str());
        else if (a == "--frames")
            o.frames = std::atoi(v.c_str());
        else if (a == "--buffers")
            o.buffers = std::atoi(v.c_str());
        else if (a == "--precision" && (v == "float" || v == "double"))
            o.dbl = v == "double";
        else if (a == "--mode" && (v == "clique" || v == "bipartite"))
            o.bipartite = v == "bipartite";
        else
            usage(rank);
    }
    if (o.n < 1 || o.m < 1 || o.frames < 1 || o.buffers < 2 || o.buffers > 3) usage(rank);
    return o;
}

// FFTW's float and double interfaces behind one name.
template <class T>
struct Fftw;
template <>
struct Fftw<float> {
    using plan = fftwf_plan;
    using cpx = fftwf_complex;
    static void* alloc(std::size_t bytes) { return fftwf_malloc(bytes); }
    static void free(void* p) { fftwf_free(p); }
    static plan many(int n, int howmany, cpx* a) {
        return fftwf_plan_many_dft(1, &n, howmany, a, nullptr, 1, n, a, nullptr, 1, n, FFTW_FORWARD,
                                   FFTW_ESTIMATE | FFTW_UNALIGNED);
    }
    static plan two_d(int n0, int n1, cpx* a) {
        return fftwf_plan_dft_2d(n0, n1, a, a, FFTW_FORWARD, FFTW_ESTIMATE);
    }
    static void run(plan p, cpx* a) { fftwf_execute_dft(p, a, a); }
    static void destroy(plan p) { fftwf_destroy_plan(p); }
    static constexpr double tolerance = 1e-4;
    static constexpr dri::Type type = dri::Type::complex_float;
};
template <>
struct Fftw<double> {
    using plan = fftw_plan;
    using cpx = fftw_complex;
    static void* alloc(std::size_t bytes) { return fftw_malloc(bytes); }
    static void free(void* p) { fftw_free(p); }
    static plan many(int n, int howmany, cpx* a) {
        return fftw_plan_many_dft(1, &n, howmany, a, nullptr, 1, n, a, nullptr, 1, n, FFTW_FORWARD,
                                  FFTW_ESTIMATE | FFTW_UNALIGNED);
    }
    static plan two_d(int n0, int n1, cpx* a) {
        return fftw_plan_dft_2d(n0, n1, a, a, FFTW_FORWARD, FFTW_ESTIMATE);
    }
    static void run(plan p, cpx* a) { fftw_execute_dft(p, a, a); }
    static void destroy(plan p) { fftw_destroy_plan(p); }
    static constexpr double tolerance = 1e-10;
    static constexpr dri::Type type = dri::Type::complex_double;
};

// Deterministic input in [-1, 1) for element (i, j) of frame k.
template <class T>
std::complex<T> input(long long i, long long j, int k) {
    unsigned long long x =
        static_cast<unsigned long long>((i * 1000003 + j) * 7919 + k * 104729) + 1;
    x ^= x >> 31;
    x *= 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    const double re = static_cast<double>(x & 0xFFFFF) / 524288.0 - 1.0;
    const double im = static_cast<double>((x >> 20) & 0xFFFFF) / 524288.0 - 1.0;
    return {static_cast<T>(re), static_cast<T>(im)};
}

// An FFTW-aligned array of complex numbers.
template <class T>
struct Buffer {
    std::complex<T>* p = nullptr;
    std::size_t n = 0;
    explicit Buffer(std::size_t count)
        : p(static_cast<std::complex<T>*>(
              Fftw<T>::alloc(std::max<std::size_t>(1, count) * sizeof(std::complex<T>)))),
          n(count) {
        if (!p) throw std::bad_alloc();
        std::fill(p, p + n, std::complex<T>{});
    }
    Buffer(Buffer&& o) noexcept : p(o.p), n(o.n) { o.p = nullptr; }
    Buffer(const Buffer&) = delete;
    ~Buffer() {
        if (p) Fftw<T>::free(p);
    }
    std::span<std::complex<T>> span() const { return {p, n}; }
    typename Fftw<T>::cpx* fftw() const { return reinterpret_cast<typename Fftw<T>::cpx*>(p); }
};

template <class T>
int run(const Options& o, int rank, int size) {
    using F = Fftw<T>;
    const int n = static_cast<int>(o.n), m = static_cast<int>(o.m);
    std::vector<int> stage1, stage2;
    for (int r = 0; r < size; ++r) {
        if (!o.bipartite || r < size / 2) stage1.push_back(r);
        if (!o.bipartite || r >= size / 2) stage2.push_back(r);
    }
    const dri::GlobalData matrix({o.n, o.m}, F::type);
    const dri::Group g1(MPI_COMM_WORLD, stage1), g2(MPI_COMM_WORLD, stage2);
    const dri::Layout rows_contiguous = dri::Layout::packed(2),
                      cols_contiguous = dri::Layout::ordered({1, 0});

    dri::Transfer turn("two-stage fft");
    std::vector<Buffer<T>> in, out;
    dri::BlockInfo ib, ob;
    typename F::plan p1{}, p2{}, p1_one{}, p2_one{}; // chunk plans and single-transform plans
    const auto nb = static_cast<std::size_t>(o.buffers);
    if (g1.contains_me()) {
        const dri::Distribution by_rows(
            matrix, dri::Partition({dri::DimPart::block(), dri::DimPart::whole()}), g1);
        ib = by_rows.block(rows_contiguous);
        for (std::size_t b = 0; b < nb; ++b)
            in.emplace_back(static_cast<std::size_t>(ib.elements()));
        std::vector<std::span<std::complex<T>>> spans;
        for (auto& b : in)
            spans.push_back(b.span());
        turn.send(by_rows, rows_contiguous, spans);
        // Row FFTs, planned once, in chunks so the transfer can be polled between them.
        p1 = F::many(m, static_cast<int>(std::max<dri::Index>(1, ib.local_extent[0] / 8)),
                     in[0].fftw());
        p1_one = F::many(m, 1, in[0].fftw());
    }
    if (g2.contains_me()) {
        const dri::Distribution by_cols(
            matrix, dri::Partition({dri::DimPart::whole(), dri::DimPart::block()}), g2);
        ob = by_cols.block(cols_contiguous);
        for (std::size_t b = 0; b < nb; ++b)
            out.emplace_back(static_cast<std::size_t>(ob.elements()));
        std::vector<std::span<std::complex<T>>> spans;
        for (auto& b : out)
            spans.push_back(b.span());
        turn.recv(by_cols, cols_contiguous, spans);
        p2 = F::many(n, static_cast<int>(std::max<dri::Index>(1, ob.local_extent[1] / 8)),
                     out[0].fftw());
        p2_one = F::many(n, 1, out[0].fftw());
    }
    turn.commit();

    const long long rows = in.empty() ? 0 : ib.local_extent[0],
                    row0 = in.empty() ? 0 : ib.owned_first[0];
    const long long cols = out.empty() ? 0 : ob.local_extent[1];
    const long long rchunk = std::max<long long>(1, rows / 8),
                    cchunk = std::max<long long>(1, cols / 8);
    // `poll` is called between chunks of FFTs; it returns true once the
    // transfer in flight (if any) has completed.
    auto fft_rows = [&](int k, auto&& poll) {
        Buffer<T>& b = in[static_cast<std::size_t>(k % o.buffers)];
        for (long long i = 0; i < rows; ++i)
            for (long long j = 0; j < m; ++j)
                b.p[i * m + j] = input<T>(row0 + i, j, k);
        long long i = 0;
        for (; i + rchunk <= rows; i += rchunk) {
            F::run(p1, reinterpret_cast<typename F::cpx*>(b.p + i * m));
            poll();
        }
        for (; i < rows; ++i)
            F::run(p1_one, reinterpret_cast<typename F::cpx*>(b.p + i * m)); // remainder
    };
    auto fft_cols = [&](int k, auto&& poll) {
        Buffer<T>& b = out[static_cast<std::size_t>(k % o.buffers)];
        long long j = 0;
        for (; j + cchunk <= cols; j += cchunk) {
            F::run(p2, reinterpret_cast<typename F::cpx*>(b.p + j * n));
            poll();
        }
        for (; j < cols; ++j)
            F::run(p2_one, reinterpret_cast<typename F::cpx*>(b.p + j * n)); // remainder
    };

    // Gathers the result of frame k (in out[k % B]) on rank 0 and compares
    // it with a serial 2-D FFT of the whole input.
    auto verify = [&](int k) {
        std::vector<int> counts(static_cast<std::size_t>(size)),
            displs(static_cast<std::size_t>(size));
        const int mine = static_cast<int>(cols * n * 2);
        MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
        int total = 0;
        for (int r = 0; r < size; ++r)
            displs[static_cast<std::size_t>(r)] = total,
            total += counts[static_cast<std::size_t>(r)];
        std::vector<std::complex<T>> all(
            rank == 0 ? static_cast<std::size_t>(n) * static_cast<std::size_t>(m) : 0);
        const MPI_Datatype real = sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
        MPI_Gatherv(out.empty() ? nullptr : out[static_cast<std::size_t>(k % o.buffers)].p, mine,
                    real, all.data(), counts.data(), displs.data(), real, 0, MPI_COMM_WORLD);
        double err = 0;
        if (rank == 0) {
            // Consumers are in rank order and own consecutive column blocks,
            // so `all` is the transposed result: all[j * n + i] = X[i][j].
            Buffer<T> ref(static_cast<std::size_t>(n) * static_cast<std::size_t>(m));
            typename F::plan p = F::two_d(n, m, ref.fftw());
            for (long long i = 0; i < n; ++i)
                for (long long j = 0; j < m; ++j)
                    ref.p[i * m + j] = input<T>(i, j, k);
            F::run(p, ref.fftw());
            F::destroy(p);
            double maxref = 0, maxdiff = 0;
            for (long long i = 0; i < n; ++i)
                for (long long j = 0; j < m; ++j) {
                    maxref = std::max(maxref, static_cast<double>(std::abs(ref.p[i * m + j])));
                    maxdiff = std::max(
                        maxdiff, static_cast<double>(std::abs(
                                     ref.p[i * m + j] - all[static_cast<std::size_t>(j * n + i)])));
                }
            err = maxref > 0 ? maxdiff / maxref : maxdiff;
        }
        MPI_Bcast(&err, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        return err;
    };

    auto no_poll = [] { return false; };
    // Non-pipelined: one frame at a time.
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int k = 0; k < o.frames; ++k) {
        if (!in.empty()) fft_rows(k, no_poll);
        turn.execute();
        if (!out.empty()) fft_cols(k, no_poll);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const double plain = MPI_Wtime() - t0;
    const double err_plain = verify(o.frames - 1);

    // Pipelined: transfer k in flight while stage 1 of k+1 and stage 2 of
    // k-1 run; the FFT loops poll it so MPI makes progress. Frame numbers
    // continue from the first schedule, as does the transfer's buffer ring.
    const int first = o.frames, last = 2 * o.frames - 1;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    bool done = false;
    auto poll = [&] { return done || (done = turn.test()); };
    if (!in.empty()) fft_rows(first, no_poll);
    turn.start();
    for (int k = first; k <= last; ++k) {
        if (k > first && !out.empty()) fft_cols(k - 1, poll);
        if (k < last && !in.empty()) fft_rows(k + 1, poll);
        if (!done) turn.wait();
        done = false;
        if (k < last) turn.start();
    }
    if (!out.empty()) fft_cols(last, no_poll);
    MPI_Barrier(MPI_COMM_WORLD);
    const double piped = MPI_Wtime() - t0;
    const double err_piped = verify(last);

    if (!in.empty()) F::destroy(p1), F::destroy(p1_one);
    if (!out.empty()) F::destroy(p2), F::destroy(p2_one);
    const double err = std::max(err_plain, err_piped);
    const bool ok = err <= F::tolerance;
    if (rank == 0) {
        std::printf("two_stage_fft: %d x %d complex %s, %d ranks (%s), %d frames, %d buffers\n", n,
                    m, sizeof(T) == 4 ? "float" : "double", size,
                    o.bipartite ? "bipartite" : "clique", o.frames, o.buffers);
        std::printf("max relative error: %.3e (tolerance %.0e) %s\n", err, F::tolerance,
                    ok ? "verified" : "FAILED");
        std::printf("non-pipelined: %.1f frames/s\npipelined:     %.1f frames/s\npipelined / "
                    "non-pipelined: %.2f\n",
                    o.frames / plain, o.frames / piped, plain / piped);
    }
    return ok ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const Options o = parse(argc, argv, rank);
    if (o.bipartite && size < 2) {
        if (rank == 0)
            std::fprintf(stderr, "two_stage_fft: bipartite mode needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    int rc = 0;
    try {
        dri::Session session;
        rc = o.dbl ? run<double>(o, rank, size) : run<float>(o, rank, size);
    } catch (const dri::Error& e) {
        std::fprintf(stderr, "rank %d: dri error %d: %s\n", rank, static_cast<int>(e.code()),
                     e.what());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return rc;
}
