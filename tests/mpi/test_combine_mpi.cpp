// Combine on receive (DRI_Transfer_set_combine) over MPI: every cell of every
// receive buffer checked exactly against an oracle that combines, with the
// side's operation, the cell's value before the transfer and the element the
// plan delivers to it (the value 0 for a zero-padded edge cell), and every
// byte outside the cells left as it was. Every operation on every element
// type the combine kernels define it on, with every strategy, blocking and
// non-blocking (start/wait and start/test), on a clique with overlap and
// zero-padded edges (self copies), between disjoint groups with a receiving
// side that leaves elements out, on a fan-out whose sides combine
// differently, and the reverse of a combining transfer; the refusals of
// undefined operations and mismatched ones (the same error on every rank).
#include "core/plan.hpp"
#include "nodes.hpp"
#include "sides.hpp"
#include "simulate.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <span>
#include <type_traits>

using namespace dri::test;
namespace core = dri::core;
using core::Index;

namespace {

template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};

// Small integers, halves as floating values: every sum below is exact.
template <class T>
T value_of(long long v) {
    if constexpr (is_complex<T>::value)
        return T(static_cast<typename T::value_type>(v) / 2,
                 static_cast<typename T::value_type>(v % 5));
    else if constexpr (std::is_floating_point_v<T>)
        return static_cast<T>(v) / 2;
    else
        return static_cast<T>(v);
}

// The element with global index g in frame f, and a receiver cell's value
// before frame f (by its side, group index and place in the block).
template <class T>
T element(Index g, int f) {
    return value_of<T>((g * 37 + f * 11) % 41 - 20);
}
template <class T>
T before(std::size_t side, int r, Index cell, int f) {
    return value_of<T>((static_cast<Index>(side) * 13 + r * 7 + cell * 29 + f * 5) % 37 - 18);
}

template <class T>
T combined(dri::Combine op, T cell, T arriving) {
    if constexpr (is_complex<T>::value) {
        return op == dri::Combine::sum ? cell + arriving : arriving;
    } else {
        switch (op) {
        case dri::Combine::sum:
            if constexpr (std::is_integral_v<T>) // wraps, as the kernels do
                return static_cast<T>(static_cast<std::make_unsigned_t<T>>(cell) +
                                      static_cast<std::make_unsigned_t<T>>(arriving));
            else
                return cell + arriving;
        case dri::Combine::max:
            return std::max(cell, arriving);
        case dri::Combine::min:
            return std::min(cell, arriving);
        case dri::Combine::replace:
            return arriving;
        }
        return arriving;
    }
}

template <class T>
T load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
template <class T>
void store(std::byte* p, T v) {
    std::memcpy(p, &v, sizeof v);
}

// One stored cell of a block: its byte offset, its global linear index (-1:
// zero-padded edge cell), whether it is owned, its place in the block.
struct Cell {
    Index off = 0, g = -1;
    bool own = false;
    Index local = 0;
};

std::vector<Cell> cells_of(const core::Distribution& dist, const core::Layout& layout, int index) {
    const core::LocalLayout ll =
        core::bind_layout(layout, dist.local_extents(index), dist.shape().elem_size());
    const std::vector<int> c = dist.coords(index);
    const auto nd = static_cast<std::size_t>(dist.ndims());
    std::vector<Cell> cells;
    for_each_cell(ll.extents, [&](const std::vector<Index>& li) {
        std::vector<Index> g(nd);
        bool zero = false, own = true;
        for (std::size_t d = 0; d < nd; ++d) {
            const auto s = source_index(dist, static_cast<int>(d), c[d], li[d]);
            own = own && owned(dist, static_cast<int>(d), c[d], li[d]);
            zero = zero || !s;
            if (s) g[d] = *s;
        }
        cells.push_back({ll.offset(li), zero ? -1 : linear_index(dist.shape().extents(), g), own,
                         static_cast<Index>(cells.size())});
    });
    return cells;
}

struct CombineCase {
    std::string shape, type;
    SideSpec send;
    std::vector<SideSpec> recv;    // disjoint groups
    std::vector<dri::Combine> ops; // per receiving side
    dri::Strategy strategy = dri::Strategy::p2p;
    bool shared_memory = false; // the send ring in DRI shared memory
    bool reverse = false;       // then a REPLACE reverse brings the owners' cells back
};

struct Outcome {
    dri::Errc commit = dri::Errc::success;
    std::string error;   // this process's first mismatch
    bool applies = true; // the forced strategy can apply to every receiving side
};

// How frame f completes: DRI_Do, start/wait, start/test.
void run_frame(dri::Transfer& t, int f) {
    if (f % 3 == 0) return t.execute();
    t.start();
    if (f % 3 == 1) return t.wait();
    while (!t.test()) {
    }
}

// Bytes and records: no arithmetic, only the refusal at commit is checked.
struct Opaque {};

template <class T>
void check_frames(const CombineCase& cc, dri::Transfer& t, std::vector<SideRun>& sides,
                  std::size_t mine, Outcome& out);

// Collective over world(): commits the case and checks 3 frames over rings
// of 2 buffers, then, with `reverse`, the reverse.
template <class T>
Outcome run_case(const CombineCase& cc) {
    const core::Shape shape(core::parse_shape(cc.shape), core::parse_type(cc.type));
    std::vector<SideRun> sides;
    sides.emplace_back(shape, cc.send);
    for (const SideSpec& s : cc.recv)
        sides.emplace_back(shape, s);
    sides[0].make_ring(2, cc.shared_memory); // collective when in shared memory
    dri::Transfer t("combine");
    t.strategy(cc.strategy);
    SideRun& snd = sides[0];
    if (snd.api) t.send(*snd.api, to_api(snd.layout), snd.ring);
    std::size_t mine = 0;
    for (std::size_t k = 1; k < sides.size(); ++k)
        if (sides[k].api) {
            mine = k;
            sides[k].make_ring(2, false);
            t.recv(*sides[k].api, to_api(sides[k].layout), sides[k].ring);
            t.combine(cc.ops[k - 1]);
        }
    Outcome out;
    for (std::size_t k = 1; k < sides.size(); ++k)
        if (!forced_applies(cc.strategy,
                            pairs_by_node({&sides[0].dist, sides[0].layout},
                                          {&sides[k].dist, sides[k].layout}, cc.send.ranks,
                                          cc.recv[k - 1].ranks),
                            cc.shared_memory))
            out.applies = false;
    std::vector<dri::Transfer*> mine_to_commit;
    if (snd.api || mine) mine_to_commit.push_back(&t);
    try {
        dri::commit(world(), mine_to_commit);
    } catch (const dri::Error& e) {
        out.commit = e.code();
        return out;
    }
    if constexpr (std::is_same_v<T, Opaque>) {
        out.error = "an operation that is not defined on " + cc.type + " was accepted";
        return out;
    } else {
        if (snd.api || mine) check_frames<T>(cc, t, sides, mine, out);
        return out;
    }
}

// The three frames, then the reverse (see run_case).
template <class T>
void check_frames(const CombineCase& cc, dri::Transfer& t, std::vector<SideRun>& sides,
                  std::size_t mine, Outcome& out) {
    const core::Shape& shape = sides[0].dist.shape();
    SideRun& snd = sides[0];
    const std::vector<Cell> scells =
        snd.api ? cells_of(snd.dist, snd.layout, snd.group.index()) : std::vector<Cell>{};
    SideRun* rs = mine ? &sides[mine] : nullptr;
    const int ri = rs ? rs->group.index() : -1;
    const std::vector<Cell> rcells = rs ? cells_of(rs->dist, rs->layout, ri) : std::vector<Cell>{};
    const auto note = [&](const std::string& what) {
        if (out.error.empty()) out.error = what;
    };
    for (int f = 0; f < 3; ++f) {
        const auto b = static_cast<std::size_t>(f % 2);
        if (snd.api) {
            std::byte* s = snd.ring[b].data();
            std::fill(snd.ring[b].begin(), snd.ring[b].end(), std::byte{send_poison});
            for (const Cell& c : scells)
                if (c.own) store(s + c.off, element<T>(c.g, f));
        }
        std::vector<std::byte> untouched;
        if (rs) {
            std::byte* r = rs->ring[b].data();
            std::fill(rs->ring[b].begin(), rs->ring[b].end(), std::byte{recv_poison});
            for (const Cell& c : rcells)
                store(r + c.off, before<T>(mine, ri, c.local, f));
            untouched.assign(rs->ring[b].begin(), rs->ring[b].end());
        }
        run_frame(t, f);
        if (!rs) continue;
        const std::byte* r = rs->ring[b].data();
        const dri::Combine op = cc.ops[mine - 1];
        std::vector<char> cell_byte(untouched.size(), 0);
        for (const Cell& c : rcells) {
            const T arriving = c.g < 0 ? T{} : element<T>(c.g, f);
            const T want = combined(op, before<T>(mine, ri, c.local, f), arriving);
            const T got = load<T>(r + c.off);
            if (std::memcmp(&want, &got, sizeof(T)) != 0)
                note("frame " + std::to_string(f) + ": cell " + std::to_string(c.local) +
                     " (element " + std::to_string(c.g) + ") is wrong");
            std::fill_n(cell_byte.begin() + c.off, sizeof(T), 1);
        }
        for (std::size_t i = 0; i < untouched.size(); ++i)
            if (!cell_byte[i] && r[i] != untouched[i])
                note("frame " + std::to_string(f) + ": byte " + std::to_string(i) +
                     " outside every cell was written");
    }
    if (!cc.reverse) return;
    // The reverse's cursors start at buffer 0, which frame 2 used: each
    // owned sender element becomes its owner's combined cell of frame 2.
    dri::Transfer back = t.reverse(dri::Combine::replace);
    back.execute();
    if (snd.api) {
        std::vector<T> want(static_cast<std::size_t>(shape.elements()));
        const SideRun& rside = sides[1];
        for (int r = 0; r < rside.dist.nprocs(); ++r)
            for (const Cell& c : cells_of(rside.dist, rside.layout, r))
                if (c.own && c.g >= 0)
                    want[static_cast<std::size_t>(c.g)] =
                        combined(cc.ops[0], before<T>(1, r, c.local, 2), element<T>(c.g, 2));
        for (const Cell& c : scells) {
            const T got = load<T>(snd.ring[0].data() + c.off);
            if (c.own && std::memcmp(&want[static_cast<std::size_t>(c.g)], &got, sizeof(T)) != 0)
                note("reverse: element " + std::to_string(c.g) + " is wrong");
        }
    }
}

Outcome run_typed(const CombineCase& cc) {
    using K = core::ElemKind;
    switch (core::parse_type(cc.type).kind) {
    case K::int8:
        return run_case<std::int8_t>(cc);
    case K::uint8:
        return run_case<std::uint8_t>(cc);
    case K::int16:
        return run_case<std::int16_t>(cc);
    case K::uint16:
        return run_case<std::uint16_t>(cc);
    case K::int32:
        return run_case<std::int32_t>(cc);
    case K::uint32:
        return run_case<std::uint32_t>(cc);
    case K::int64:
        return run_case<std::int64_t>(cc);
    case K::uint64:
        return run_case<std::uint64_t>(cc);
    case K::float32:
        return run_case<float>(cc);
    case K::float64:
        return run_case<double>(cc);
    case K::complex_float:
        return run_case<std::complex<float>>(cc);
    case K::complex_double:
        return run_case<std::complex<double>>(cc);
    default: // bytes and records: no operation but REPLACE, refused at commit
        return run_case<Opaque>(cc);
    }
}

std::vector<int> ranks_from(int first, int last) {
    std::vector<int> r;
    for (int i = first; i <= last; ++i)
        r.push_back(i);
    return r;
}

const char* const real_types[] = {"int8",   "uint8", "int16",  "uint16", "int32",
                                  "uint32", "int64", "uint64", "float",  "double"};

using S = dri::Strategy;
const S strategies[] = {S::p2p,    S::alltoallw, S::packed,    S::shared,
                        S::hybrid, S::nodes,     S::automatic, S::measure};

// Whether the forced strategy may not apply to this world: SHARED needs
// every pair on one node, HYBRID a pair of distinct processes on one node
// (which of them apply is test_transfer_mpi's business; here, when one
// applies, it must combine).
bool may_refuse(S s) {
    return (s == S::hybrid && world_size() == 1) || (s == S::shared && node_count() > 1) ||
           (s == S::hybrid && node_count() == world_size());
}

// Runs the case with every strategy (SHARED and HYBRID over a send ring in
// shared memory), checking the data, or the refusal `refused` on every rank.
void check_strategies(CombineCase cc, std::span<const S> which = strategies) {
    for (S s : which) {
        cc.strategy = s;
        cc.shared_memory = s == S::shared || s == S::hybrid;
        CAPTURE(static_cast<int>(s));
        const Outcome o = run_typed(cc);
        CHECK(same_everywhere(static_cast<int>(o.commit)));
        // (HYBRID, say, on a receiving side without a pair on one node.)
        if (o.commit == dri::Errc::strategy && (may_refuse(s) || !o.applies)) continue;
        CHECK(o.commit == dri::Errc::success);
        CHECK_MESSAGE(o.error.empty(), o.error);
        CHECK(same_everywhere(o.error.empty() ? 0 : 1));
    }
}

// "RxC" with at least `rows` rows and `cols` columns, and at least one row
// and one column for every rank.
std::string grown_shape(int rows, int cols) {
    const int w = world_size();
    return std::to_string(std::max(rows, w)) + "x" + std::to_string(std::max(cols, w));
}

} // namespace

TEST_CASE("combine: every operation and type, every strategy, on a clique with halos") {
    // Every process sends and receives (self copies); receivers store one
    // row of overlap each side, zero-padded at the edges, and one wrapped
    // column: overlap copies and zero fills combine too. The whole matrix
    // up to 2 ranks; from 3 ranks (oversubscribed on 2 cores, each commit
    // costs a second) every strategy on 2 types and every type under AUTO
    // (from 4 ranks, SUM only): the strategy decides where arrivals are
    // combined, the type only which kernel does it.
    if (!std::getenv("DRI_MEASURE_REPS")) setenv("DRI_MEASURE_REPS", "3", 1);
    const int w = world_size();
    CombineCase cc;
    cc.shape = grown_shape(9, 7);
    cc.send = {"block,whole", core::Layout::packed(2), ranks_from(0, w - 1)};
    cc.recv = {{"whole~0:1:wrap,block~1:1:zero", core::Layout::ordered({1, 0}, {0, 1}),
                ranks_from(0, w - 1)}};
    const S autos[] = {S::automatic};
    const auto which = [&](const std::string& type) {
        const bool every = w <= 2 || type == "int16" || type == "cdouble";
        return every ? std::span<const S>(strategies) : std::span<const S>(autos);
    };
    for (const char* type : real_types)
        for (dri::Combine op : {dri::Combine::sum, dri::Combine::max, dri::Combine::min}) {
            const std::span<const S> ss = which(type);
            if (w > 3 && ss.size() == 1 && op != dri::Combine::sum) continue;
            cc.type = type;
            cc.ops = {op};
            CAPTURE(type);
            CAPTURE(static_cast<int>(op));
            check_strategies(cc, ss);
        }
    for (const char* type : {"cfloat", "cdouble"}) {
        cc.type = type;
        CAPTURE(type);
        cc.ops = {dri::Combine::sum};
        check_strategies(cc, which(type));
    }
}

TEST_CASE("combine: disjoint groups, a receiving side that leaves elements out") {
    const int w = world_size();
    if (w < 2) return;
    CombineCase cc;
    // A column for every sender, from 11 x 6 up.
    cc.shape = "11x" + std::to_string(std::max(6, w / 2));
    cc.type = "double";
    cc.send = {"whole,block", core::Layout::packed(2), ranks_from(0, w / 2 - 1)};
    // Rows 2..4 and 7..9 only, over the other processes.
    const int nr = w - w / 2;
    std::string ranges = "ranges(2:4";
    for (int i = 1; i < nr; ++i)
        ranges += i == 1 ? "|7:9" : "|10:9"; // the others hold nothing
    cc.recv = {
        {ranges + ")[0:]~1:1:zero,whole", core::Layout::packed(2), ranks_from(w / 2, w - 1)}};
    for (dri::Combine op : {dri::Combine::sum, dri::Combine::max, dri::Combine::min}) {
        if (w > 3 && op != dri::Combine::sum) break; // the clique case has them
        cc.ops = {op};
        CAPTURE(static_cast<int>(op));
        check_strategies(cc);
    }
}

TEST_CASE("combine: a fan-out whose receiving sides combine differently") {
    const int w = world_size();
    CombineCase cc;
    // A row for every sender and a cyclic block of 2 rows for every odd
    // process, a column for every even one, from 10 x 8 up.
    cc.shape = grown_shape(10, 8);
    cc.type = "int32";
    cc.send = {"block,whole", core::Layout::packed(2), ranks_from(0, w - 1)};
    std::vector<int> even, odd;
    for (int r = 0; r < w; ++r)
        (r % 2 ? odd : even).push_back(r);
    cc.recv = {{"whole,block~1:0:replicate", core::Layout::ordered({1, 0}), even}};
    cc.ops = {dri::Combine::sum};
    if (!odd.empty()) {
        cc.recv.push_back({"cyclic(2)~1:1:zero,whole", core::Layout::packed(2), odd});
        cc.ops.push_back(dri::Combine::max);
    }
    check_strategies(cc);
    // The same side with REPLACE beside a combining one.
    cc.ops.back() = dri::Combine::replace;
    check_strategies(cc);
}

TEST_CASE("combine: the reverse of a combining transfer") {
    const int w = world_size();
    CombineCase cc;
    cc.shape = grown_shape(14, 9);
    cc.type = "int64";
    cc.send = {"block,whole", core::Layout::packed(2), ranks_from(0, w - 1)};
    cc.recv = {{"whole,block", core::Layout::ordered({1, 0}), ranks_from(0, w - 1)}};
    cc.ops = {dri::Combine::sum};
    cc.reverse = true;
    for (S s : {S::p2p, S::alltoallw, S::packed, S::nodes}) {
        cc.strategy = s;
        CAPTURE(static_cast<int>(s));
        const Outcome o = run_typed(cc);
        CHECK(o.commit == dri::Errc::success);
        CHECK_MESSAGE(o.error.empty(), o.error);
    }
}

TEST_CASE("combine: undefined operations are refused at commit on every rank") {
    const int w = world_size();
    CombineCase cc;
    cc.shape = grown_shape(14, 8);
    cc.send = {"block,whole", core::Layout::packed(2), ranks_from(0, w - 1)};
    cc.recv = {{"whole,block", core::Layout::packed(2), ranks_from(0, w - 1)}};
    cc.strategy = S::p2p;
    for (const char* type : {"cfloat", "cdouble", "byte", "record3"})
        for (dri::Combine op : {dri::Combine::sum, dri::Combine::max, dri::Combine::min}) {
            const bool complex = type[0] == 'c';
            if (complex && op == dri::Combine::sum) continue;
            cc.type = type;
            cc.ops = {op};
            CAPTURE(type);
            CAPTURE(static_cast<int>(op));
            const Outcome o = run_typed(cc);
            CHECK(o.commit == dri::Errc::type);
            CHECK(same_everywhere(static_cast<int>(o.commit)));
        }
}

TEST_CASE("combine: the receivers of a side must agree; calls at the wrong time are refused") {
    const int w = world_size();
    // A row and a column for every rank, from 14 x 8 up.
    const core::Shape shape({std::max(14, w), std::max(8, w)}, core::parse_type("float"));
    SideRun snd(shape, {"block,whole", core::Layout::packed(2), ranks_from(0, w - 1)});
    SideRun rcv(shape, {"whole,block", core::Layout::packed(2), ranks_from(0, w - 1)});
    snd.make_ring(1, false);
    rcv.make_ring(1, false);
    {
        dri::Transfer t("ops differ");
        t.send(*snd.api, to_api(snd.layout), snd.ring);
        try {
            t.combine(dri::Combine::sum);
            FAIL("a sender alone chose a combine operation");
        } catch (const dri::Error& e) {
            CHECK(e.code() == dri::Errc::state);
        }
        t.recv(*rcv.api, to_api(rcv.layout), rcv.ring);
        try {
            t.combine(static_cast<dri::Combine>(7));
            FAIL("an unknown combine operation was accepted");
        } catch (const dri::Error& e) {
            CHECK(e.code() == dri::Errc::arg);
        }
        // The last process differs (with one process, nothing differs).
        t.combine(world_rank() == w - 1 && w > 1 ? dri::Combine::max : dri::Combine::sum);
        dri::Errc code = dri::Errc::success;
        try {
            t.commit();
        } catch (const dri::Error& e) {
            code = e.code();
        }
        CHECK(code == (w > 1 ? dri::Errc::inconsistent : dri::Errc::success));
        CHECK(same_everywhere(static_cast<int>(code)));
    }
    dri::Transfer t("after commit");
    t.send(*snd.api, to_api(snd.layout), snd.ring);
    t.recv(*rcv.api, to_api(rcv.layout), rcv.ring);
    t.combine(dri::Combine::min);
    t.commit();
    try {
        t.combine(dri::Combine::sum);
        FAIL("a committed transfer changed its combine operation");
    } catch (const dri::Error& e) {
        CHECK(e.code() == dri::Errc::state);
    }
}
