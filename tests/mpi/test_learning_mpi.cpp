// AUTO that learns (strategies/adaptive.hpp, core/route_learner.hpp) over
// MPI: exact data on every route and across switches in the middle of a
// ring, blocking and non-blocking; the same route on every process at every
// call, whatever each process measures (a hook replaces the clock); freezing;
// the learning modes, from the environment and per transfer, the least of
// the processes' winning; the memory cap; the errors of the new calls.
#include "api_errors.hpp"
#include "core/learned_routes.hpp"
#include "dri/dri.hpp"
#include "mpi/learned_file.hpp"
#include "mpi/strategies/adaptive.hpp"
#include "mpi/strategies/scratch.hpp"
#include "mpi_world.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

using dri::test::world;
using dri::test::world_rank;
using dri::test::world_size;

namespace {

// Which route each process's clock says is fastest: the hook gives it 1 ms
// and every other route 2 ms, whatever was measured.
dri::detail::Strategy fastest_here = dri::detail::Strategy::p2p;

double hook(dri::detail::Strategy route, double) {
    return route == fastest_here ? 1e-3 : 2e-3;
}

struct HookScope {
    HookScope() { dri::detail::set_route_time_hook(hook); }
    ~HookScope() { dri::detail::set_route_time_hook(nullptr); }
};

// A schedule short enough that switches happen within a few calls.
struct QuickSchedule {
    dri::core::LearnerConfig cfg;
    QuickSchedule() {
        cfg.timed_rounds = 2;
        cfg.explore_share = 0.25;
        cfg.burst = 2;
        cfg.window = 2;
        dri::detail::set_learning_schedule(&cfg);
    }
    ~QuickSchedule() { dri::detail::set_learning_schedule(nullptr); }
};

struct EnvScope {
    const char* name;
    EnvScope(const char* n, const char* v) : name(n) { setenv(n, v, 1); }
    ~EnvScope() { unsetenv(name); }
};

int agreed_min(int v) {
    int lo = v;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, world());
    return lo;
}
int agreed_max(int v) {
    int hi = v;
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, world());
    return hi;
}

// Row blocks into column blocks of an ny x nx matrix of doubles over every
// process, rings of 3 buffers on each side; frame f holds f * 1e6 + the
// global index of each cell, checked on arrival.
class Turn {
  public:
    Turn(dri::Index ny, dri::Index nx, dri::Strategy s = dri::Strategy::automatic,
         std::optional<dri::Learning> mode = {})
        : nx_(nx), gd_({ny, nx}, dri::Type::float64), group_(world(), all()),
          send_(gd_, dri::Partition({dri::DimPart::whole(), dri::DimPart::block()}), group_),
          recv_(gd_, dri::Partition({dri::DimPart::block(), dri::DimPart::whole()}), group_),
          layout_(dri::Layout::packed(2)), t_("learning") {
        const dri::BlockInfo sb = send_.block(layout_), rb = recv_.block(layout_);
        sbuf_.assign(3, std::vector<double>(static_cast<std::size_t>(sb.elements())));
        rbuf_.assign(3, std::vector<double>(static_cast<std::size_t>(rb.elements())));
        t_.strategy(s);
        if (mode) t_.learning(*mode);
        t_.send(send_, layout_, sbuf_);
        t_.recv(recv_, layout_, rbuf_);
    }
    void commit() { t_.commit(); }
    dri::Transfer& transfer() { return t_; }

    // One frame, run as `how` says (0: DRI_Do, 1: start + wait, 2: start +
    // test until done, 3: start + the one receive piece's arrival + wait);
    // true when every received cell is right.
    bool frame(int how) {
        const int r = t_.current_recv_buffer();
        if (how == 0) {
            fill_send();
            t_.execute();
        } else {
            start_arrived(how == 3);
            if (how == 2)
                while (!t_.test()) {
                }
            else
                t_.wait();
        }
        const bool ok = rbuf_[static_cast<std::size_t>(r)] == expected(recv_.block(layout_));
        ++frame_;
        return ok;
    }
    // Starts a frame and, when `arrive`, completes it by waiting for the one
    // receive piece; true when every received cell is then right.
    bool start_arrived(bool arrive) {
        const int r = t_.current_recv_buffer();
        fill_send();
        t_.start();
        if (!arrive) return false;
        t_.wait_piece(0);
        return rbuf_[static_cast<std::size_t>(r)] == expected(recv_.block(layout_));
    }

  private:
    static std::vector<int> all() {
        std::vector<int> r(static_cast<std::size_t>(world_size()));
        std::iota(r.begin(), r.end(), 0);
        return r;
    }
    std::vector<double> expected(const dri::BlockInfo& b) const {
        std::vector<double> v;
        const dri::Index nx = nx_;
        for (dri::Index i = 0; i < b.local_extent[0]; ++i)
            for (dri::Index j = 0; j < b.local_extent[1]; ++j)
                v.push_back(
                    static_cast<double>(frame_) * 1e6 +
                    static_cast<double>((b.owned_first[0] + i) * nx + b.owned_first[1] + j));
        return v;
    }
    // In place: the transfer holds the buffer's address.
    void fill_send() {
        const std::vector<double> v = expected(send_.block(layout_));
        std::vector<double>& buf = sbuf_[static_cast<std::size_t>(t_.current_send_buffer())];
        std::copy(v.begin(), v.end(), buf.begin());
    }

    dri::Index nx_;
    dri::GlobalData gd_;
    dri::Group group_;
    dri::Distribution send_, recv_;
    dri::Layout layout_;
    dri::Transfer t_;
    std::vector<std::vector<double>> sbuf_, rbuf_;
    long frame_ = 0;
};

dri::detail::Strategy internal(dri::Strategy s) {
    return static_cast<dri::detail::Strategy>(static_cast<int>(s));
}

// The scratch this process holds while a transfer of the turn is committed
// with `s` (and learning as `mode`), and the routes it holds.
dri::Index scratch_of(dri::Strategy s, std::vector<dri::Route>* routes = nullptr) {
    Turn turn(96, 80, s);
    const dri::Index before = dri::detail::scratch_bytes_held();
    turn.commit();
    const dri::Index held = dri::detail::scratch_bytes_held() - before;
    if (routes) *routes = turn.transfer().routes();
    CHECK(turn.frame(0));
    return held;
}

} // namespace

TEST_CASE("every route moves exact data, across switches in the middle of a ring") {
    const QuickSchedule quick;
    const HookScope scoped;
    Turn turn(30, 22);
    turn.commit();
    const std::vector<dri::Route> routes = turn.transfer().routes();
    // Alone, no process reads from another: one route.
    if (world_size() == 1) {
        CHECK(routes.size() == 1);
        return;
    }
    REQUIRE(routes.size() == 3);
    // The static rule's choice first: what AUTO runs when it does not learn.
    Turn fixed(30, 22, dri::Strategy::automatic, dri::Learning::off);
    fixed.commit();
    CHECK(routes[0].strategy == fixed.transfer().chosen_strategy());
    int wrong = 0;
    std::vector<int> ran(8, 0);
    for (int n = 0; n < 600; ++n) {
        // The fastest route changes every 50 calls, on every process alike.
        fastest_here = internal(routes[static_cast<std::size_t>(n / 50 % 3)].strategy);
        ++ran[static_cast<std::size_t>(turn.transfer().chosen_strategy())];
        wrong += turn.frame(n % 3) ? 0 : 1;
        const int route = static_cast<int>(turn.transfer().chosen_strategy());
        REQUIRE(agreed_min(route) == agreed_max(route));
    }
    CHECK(wrong == 0);
    const dri::LearningState st = turn.transfer().learning_state();
    CHECK(st.state == dri::RouteState::settled);
    CHECK(st.calls == 600);
    CHECK(st.switches >= 4);
    CHECK(agreed_min(static_cast<int>(st.switches)) == agreed_max(static_cast<int>(st.switches)));
    for (const dri::Route& r : routes)
        CHECK(ran[static_cast<std::size_t>(r.strategy)] > 0);
}

// A frame completed by its receive piece's arrival is timed once: neither
// its DRI_Do_wait nor the transfer's end while it is in flight (which
// completes it) counts it again. Counted twice, the call that ends a
// learning round overran the round's queue.
TEST_CASE("a frame completed by its arriving piece counts once, also when the transfer ends") {
    const QuickSchedule quick;
    for (int before = 0; before < 10; ++before) {
        CAPTURE(before);
        Turn turn(14, 12);
        turn.commit();
        for (int n = 0; n < before; ++n)
            CHECK(turn.frame(n % 2 ? 3 : 0));
        if (world_size() > 1) CHECK(turn.transfer().learning_state().calls == before);
        CHECK(turn.start_arrived(true));
    }
}

TEST_CASE("processes that measure different routes fastest still run the same route") {
    if (world_size() == 1) return;
    const HookScope scoped;
    Turn turn(12, 10);
    turn.commit();
    const std::vector<dri::Route> routes = turn.transfer().routes();
    REQUIRE(routes.size() == 3);
    // Each process sees another route fastest; the slowest process's times
    // decide, and every process runs the route decided, at every call.
    fastest_here = internal(routes[static_cast<std::size_t>(world_rank() % 3)].strategy);
    for (int n = 0; n < 1500; ++n) {
        CHECK(turn.frame(0));
        const int route = static_cast<int>(turn.transfer().chosen_strategy());
        REQUIRE(agreed_min(route) == agreed_max(route));
    }
    const dri::LearningState st = turn.transfer().learning_state();
    CHECK(st.explored - 18 <= 0.02 * (1500 - 18) + 9);
    CHECK(agreed_min(static_cast<int>(st.explored)) == agreed_max(static_cast<int>(st.explored)));
    for (const dri::Route& r : turn.transfer().routes())
        CHECK(r.seconds > 0);
}

TEST_CASE("freezing stops exploring at once on every process; resuming follows the fastest again") {
    if (world_size() == 1) return;
    const QuickSchedule quick;
    const HookScope scoped;
    Turn turn(16, 16);
    turn.commit();
    const std::vector<dri::Route> routes = turn.transfer().routes();
    fastest_here = internal(routes[1].strategy);
    for (int n = 0; n < 40; ++n)
        CHECK(turn.frame(n % 3));
    CHECK(turn.transfer().chosen_strategy() == routes[1].strategy);
    // Only rank 0 asks to freeze: the processes' requests are joined.
    turn.transfer().freeze(world_rank() == 0);
    const dri::LearningState frozen = turn.transfer().learning_state();
    CHECK(frozen.state == dri::RouteState::frozen);
    fastest_here = internal(routes[2].strategy);
    for (int n = 0; n < 400; ++n)
        CHECK(turn.frame(n % 3));
    const dri::LearningState after = turn.transfer().learning_state();
    CHECK(after.explored == frozen.explored);
    CHECK(after.switches == frozen.switches);
    CHECK(turn.transfer().chosen_strategy() == routes[1].strategy);
    turn.transfer().freeze(false);
    for (int n = 0; n < 400; ++n)
        CHECK(turn.frame(n % 3));
    CHECK(turn.transfer().chosen_strategy() == routes[2].strategy);
    CHECK(turn.transfer().learning_state().switches > frozen.switches);
}

TEST_CASE("how much AUTO learns: DRI_AUTO_LEARNING, the transfer's setting, the least asked") {
    if (world_size() == 1) return;
    const HookScope scoped;
    {
        const EnvScope env("DRI_AUTO_LEARNING", "once");
        Turn turn(12, 12);
        turn.commit();
        for (int n = 0; n < 200; ++n)
            CHECK(turn.frame(0));
        const dri::LearningState st = turn.transfer().learning_state();
        CHECK(st.state == dri::RouteState::frozen);
        CHECK(st.explored < 20);
    }
    {
        const EnvScope env("DRI_AUTO_LEARNING", "off");
        Turn turn(12, 12);
        turn.commit();
        CHECK(turn.transfer().routes().size() == 1);
        CHECK(turn.frame(0));
        CHECK(turn.transfer().learning_state().state == dri::RouteState::one);
    }
    {
        // The transfer's setting overrides the environment's.
        const EnvScope env("DRI_AUTO_LEARNING", "off");
        Turn turn(12, 12, dri::Strategy::automatic, dri::Learning::on);
        turn.commit();
        CHECK(turn.transfer().routes().size() == 3);
    }
    {
        // One process asks for no learning: none learns.
        std::optional<dri::Learning> mode;
        if (world_rank() == world_size() - 1) mode = dri::Learning::off;
        Turn turn(12, 12, dri::Strategy::automatic, mode);
        turn.commit();
        CHECK(turn.transfer().routes().size() == 1);
        CHECK(turn.frame(1));
    }
    {
        // A forced strategy holds its one route.
        Turn turn(12, 12, dri::Strategy::packed);
        turn.commit();
        const std::vector<dri::Route> routes = turn.transfer().routes();
        REQUIRE(routes.size() == 1);
        CHECK(routes[0].strategy == dri::Strategy::packed);
        CHECK(routes[0].seconds == -1);
        turn.transfer().freeze(true); // nothing to freeze
        CHECK(turn.transfer().learning_state().state == dri::RouteState::one);
    }
}

TEST_CASE("the routes share one scratch arena: as much as the largest needs, within the cap") {
    if (world_size() == 1) return;
    std::vector<dri::Route> routes;
    const dri::Index adaptive = scratch_of(dri::Strategy::automatic, &routes);
    REQUIRE(routes.size() == 3);
    dri::Index most = 0, sum = 0, first = 0;
    for (const dri::Route& r : routes) {
        const dri::Index alone = scratch_of(r.strategy);
        if (&r == &routes.front()) first = alone;
        most = std::max(most, alone);
        sum += alone;
    }
    CAPTURE(sum);
    CHECK(adaptive == most);
    // With no memory to spare, AUTO holds only routes that need no more
    // scratch than the static rule's, on every process.
    const EnvScope env("DRI_AUTO_MEMORY", "0");
    std::vector<dri::Route> capped;
    CHECK(scratch_of(dri::Strategy::automatic, &capped) == first);
    CHECK(capped.front().strategy == routes.front().strategy);
    CHECK(agreed_min(static_cast<int>(capped.size())) ==
          agreed_max(static_cast<int>(capped.size())));
}

TEST_CASE("the calls of AUTO that learns refuse bad arguments and states") {
    Turn turn(8, 8);
    CHECK(dri::test::api_code_of([&] { turn.transfer().freeze(true); }) == dri::Errc::state);
    CHECK(dri::test::api_code_of([&] { (void)turn.transfer().routes(); }) == dri::Errc::state);
    CHECK(dri::test::api_code_of([&] { (void)turn.transfer().learning_state(); }) ==
          dri::Errc::state);
    CHECK(dri::test::api_code_of(
              [&] { turn.transfer().learning(static_cast<dri::Learning>(7)); }) == dri::Errc::arg);
    turn.commit();
    CHECK(dri::test::api_code_of([&] { turn.transfer().learning(dri::Learning::off); }) ==
          dri::Errc::state);
    turn.transfer().start();
    CHECK(dri::test::api_code_of([&] { turn.transfer().freeze(true); }) == dri::Errc::state);
    turn.transfer().wait();
}

namespace {

// A folder of its own for the learned files of one test, named by the first
// process and removed with whatever is left in it.
class Folder {
  public:
    Folder() {
        char name[64] = "/tmp/dri-learned-XXXXXX";
        if (world_rank() == 0 && !mkdtemp(name)) name[0] = '\0';
        MPI_Bcast(name, sizeof name, MPI_CHAR, 0, world());
        path_ = name;
        REQUIRE(!path_.empty());
    }
    ~Folder() {
        MPI_Barrier(world());
        if (world_rank() == 0) std::filesystem::remove_all(path_);
    }
    std::string file(const char* name) const { return path_ + "/" + name; }

  private:
    std::string path_;
};

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// On the first process: `path` holds `text` (the others wait for it).
void write_text(const std::string& path, const std::string& text) {
    if (world_rank() == 0) std::ofstream(path, std::ios::binary) << text;
    MPI_Barrier(world());
}

// A transfer of the turn that starts from `file` (unset: the environment's),
// and the route its first call runs; its data must be right on every call.
struct Started {
    bool seeded = false;
    dri::Strategy first{};
};

Started start_from(std::optional<std::string> file, dri::Index ny = 24) {
    Turn turn(ny, 20);
    if (file) turn.transfer().learned_file(*file);
    turn.commit();
    Started s{turn.transfer().learned_seeded(), turn.transfer().chosen_strategy()};
    for (int n = 0; n < 8; ++n)
        CHECK(turn.frame(n % 3));
    CHECK(agreed_min(s.seeded) == agreed_max(s.seeded));
    return s;
}

} // namespace

TEST_CASE("a learned file: a later transfer starts from it; damaged or foreign ones are ignored") {
    if (world_size() == 1) return;
    const QuickSchedule quick;
    const HookScope scoped;
    const Folder folder;
    const std::string path = folder.file("routes");
    dri::Strategy learned{};
    {
        Turn turn(24, 20);
        turn.commit();
        const std::vector<dri::Route> routes = turn.transfer().routes();
        fastest_here = internal(routes[2].strategy);
        learned = routes[2].strategy;
        for (int n = 0; n < 30; ++n)
            CHECK(turn.frame(n % 3));
        REQUIRE(turn.transfer().chosen_strategy() == learned);
        CHECK_FALSE(turn.transfer().learned_seeded());
        turn.transfer().save_learned(path);
    }
    // The next transfer runs the route learned from its first call on, and
    // spends no call learning; the others' entries are kept by a save.
    Started s = start_from(path);
    CHECK(s.seeded);
    CHECK(s.first == learned);
    CHECK_FALSE(start_from(path, 30).seeded); // another transfer: no entry
    {
        Turn other(30, 20);
        other.commit();
        for (int n = 0; n < 4; ++n)
            CHECK(other.frame(0));
        other.transfer().save_learned(path);
    }
    CHECK(start_from(path).seeded);
    CHECK(start_from(path, 30).seeded);
    {
        const EnvScope env("DRI_AUTO_LEARNED", path.c_str());
        CHECK(start_from({}).seeded);
        CHECK_FALSE(start_from(std::string()).seeded); // none, whatever the environment says
    }
    const std::string good = read_text(path);
    const dri::core::LearnedRead read =
        dri::core::parse_learned(good, dri::detail::learned_origin());
    CAPTURE(read.problem);
    CAPTURE(good);
    // Agreed, which also keeps the first process from damaging the file
    // below before every process has read it.
    REQUIRE(agreed_min(read.problem.empty() && read.entries.size() == 2) == 1);
    // Damaged: a byte changed (unit/test_learned_routes.cpp changes each
    // byte and cuts at each length).
    std::string damaged = good;
    damaged[good.size() / 2] = static_cast<char>(damaged[good.size() / 2] ^ 4);
    write_text(path, damaged);
    CHECK_FALSE(start_from(path).seeded);
    // Foreign: another dri (or MPI library: the unit test), another node
    // layout.
    dri::core::LearnedOrigin origin = dri::detail::learned_origin();
    origin.dri_version = "0.9.0";
    write_text(path, dri::core::format_learned(origin, read.entries));
    CHECK_FALSE(start_from(path).seeded);
    std::vector<dri::core::LearnedEntry> moved = read.entries;
    for (dri::core::LearnedEntry& e : moved)
        e.nodes ^= 1;
    write_text(path, dri::core::format_learned(dri::detail::learned_origin(), moved));
    CHECK_FALSE(start_from(path).seeded);
    CHECK_FALSE(start_from(folder.file("none")).seeded);
    // Saving over a foreign learned file replaces it.
    {
        Turn turn(24, 20);
        turn.commit();
        CHECK(turn.frame(0));
        turn.transfer().save_learned(path);
    }
    CHECK(start_from(path).seeded);
}

TEST_CASE("saving what was learned refuses bad paths and states alike on every process") {
    const Folder folder;
    Turn turn(12, 12);
    CHECK(dri::test::api_code_of([&] { turn.transfer().save_learned(folder.file("a")); }) ==
          dri::Errc::state);
    CHECK(dri::test::api_code_of([&] { turn.transfer().learned_file(folder.file("a")); }) ==
          dri::Errc::success);
    turn.commit();
    CHECK(dri::test::api_code_of([&] { turn.transfer().learned_file("x"); }) == dri::Errc::state);
    CHECK(turn.frame(0));
    // One process without a path: all fail.
    const std::string mine = world_rank() == world_size() - 1 ? "" : folder.file("a");
    CHECK(dri::test::api_code_of([&] { turn.transfer().save_learned(mine); }) == dri::Errc::arg);
    turn.transfer().start();
    CHECK(dri::test::api_code_of([&] { turn.transfer().save_learned(folder.file("a")); }) ==
          dri::Errc::state);
    turn.transfer().wait();
    if (world_size() == 1) return; // one route: nothing to save, nothing written
    // A folder that does not exist; a file that is no learned file: refused
    // on every process, nothing written, no temporary left behind.
    CHECK(dri::test::api_code_of([&] { turn.transfer().save_learned(folder.file("no/such")); }) ==
          dri::Errc::arg);
    write_text(folder.file("mine"), "the user's own data\n");
    CHECK(dri::test::api_code_of([&] { turn.transfer().save_learned(folder.file("mine")); }) ==
          dri::Errc::arg);
    CHECK(read_text(folder.file("mine")) == "the user's own data\n");
    CHECK(dri::test::api_code_of([&] { turn.transfer().save_learned(folder.file("a")); }) ==
          dri::Errc::success);
    MPI_Barrier(world());
    if (world_rank() == 0) {
        std::vector<std::string> names;
        for (const auto& f : std::filesystem::directory_iterator(folder.file("")))
            names.push_back(f.path().filename().string());
        std::sort(names.begin(), names.end());
        CHECK(names == std::vector<std::string>{"a", "mine"});
    }
}

// A fan-out (rows of every process to the whole array on the first process
// and to column blocks on the others) learns per receiving side; one save
// writes both sides' entries, and a later fan-out starts both from them.
TEST_CASE("a fan-out saves the learning of each receiving side, and starts from it") {
    if (world_size() < 3) return;
    const QuickSchedule quick;
    const HookScope scoped;
    const Folder folder;
    const std::string path = folder.file("fanout");
    const dri::Index ny = 18, nx = 15;
    const dri::GlobalData gd({ny, nx}, dri::Type::float64);
    std::vector<int> all(static_cast<std::size_t>(world_size())), others;
    std::iota(all.begin(), all.end(), 0);
    others.assign(all.begin() + 1, all.end());
    const dri::Group everyone(world(), all), first(world(), {0}), rest(world(), others);
    const dri::Distribution rows(gd, dri::Partition({dri::DimPart::block(), dri::DimPart::whole()}),
                                 everyone);
    const bool at_first = world_rank() == 0;
    const dri::Distribution mine =
        at_first
            ? dri::Distribution(gd, dri::Partition({dri::DimPart::whole(), dri::DimPart::whole()}),
                                first)
            : dri::Distribution(gd, dri::Partition({dri::DimPart::whole(), dri::DimPart::block()}),
                                rest);
    const dri::Layout layout = dri::Layout::packed(2);
    const dri::BlockInfo sb = rows.block(layout), rb = mine.block(layout);
    std::vector<std::vector<double>> sbuf(
        1, std::vector<double>(static_cast<std::size_t>(sb.elements())));
    std::vector<std::vector<double>> rbuf(
        1, std::vector<double>(static_cast<std::size_t>(rb.elements())));
    for (dri::Index i = 0; i < sb.local_extent[0]; ++i)
        for (dri::Index j = 0; j < nx; ++j)
            sbuf[0][static_cast<std::size_t>(i * nx + j)] =
                static_cast<double>((sb.owned_first[0] + i) * nx + j);
    auto right = [&] {
        for (dri::Index i = 0; i < rb.local_extent[0]; ++i)
            for (dri::Index j = 0; j < rb.local_extent[1]; ++j)
                if (rbuf[0][static_cast<std::size_t>(i * rb.local_extent[1] + j)] !=
                    static_cast<double>((rb.owned_first[0] + i) * nx + rb.owned_first[1] + j))
                    return false;
        return true;
    };
    auto fan_out = [&](bool from_file) {
        auto t = std::make_unique<dri::Transfer>("fan-out");
        t->send(rows, layout, sbuf);
        t->recv(mine, layout, rbuf);
        if (from_file) t->learned_file(path);
        dri::commit(world(), {t.get()});
        return t;
    };
    {
        const std::unique_ptr<dri::Transfer> t = fan_out(false);
        REQUIRE(t->routes().size() == 3);
        fastest_here = internal(t->routes()[1].strategy);
        for (int n = 0; n < 30; ++n) {
            std::fill(rbuf[0].begin(), rbuf[0].end(), -1.0);
            t->execute();
            CHECK(right());
        }
        t->save_learned(path);
    }
    const std::string text = read_text(path);
    const dri::core::LearnedRead read =
        dri::core::parse_learned(text, dri::detail::learned_origin());
    CAPTURE(text);
    CHECK(agreed_min(read.problem.empty() && read.entries.size() == 2) == 1);
    const std::unique_ptr<dri::Transfer> t = fan_out(true);
    CHECK(agreed_min(t->learned_seeded()) == 1);
    for (int n = 0; n < 10; ++n) {
        std::fill(rbuf[0].begin(), rbuf[0].end(), -1.0);
        t->execute();
        CHECK(right());
    }
}

// Saving is collective over the transfer's processes, not over the whole
// communicator its groups come from: a process with no role takes no part.
TEST_CASE("a process without a role in the transfer takes no part in saving it") {
    if (world_size() < 3) return;
    const HookScope scoped;
    const Folder folder;
    const dri::GlobalData gd({10, 8}, dri::Type::float64);
    const dri::Group pair(world(), {0, 1});
    const dri::Layout layout = dri::Layout::packed(2);
    dri::Transfer t("two of them");
    std::vector<std::vector<double>> sbuf, rbuf;
    std::optional<dri::Distribution> rows, cols;
    if (pair.contains_me()) {
        rows.emplace(gd, dri::Partition({dri::DimPart::block(), dri::DimPart::whole()}), pair);
        cols.emplace(gd, dri::Partition({dri::DimPart::whole(), dri::DimPart::block()}), pair);
        sbuf.assign(1,
                    std::vector<double>(static_cast<std::size_t>(rows->block(layout).elements())));
        rbuf.assign(1,
                    std::vector<double>(static_cast<std::size_t>(cols->block(layout).elements())));
        t.send(*rows, layout, sbuf);
        t.recv(*cols, layout, rbuf);
        dri::commit(world(), {&t});
    } else {
        dri::commit(world(), {});
    }
    if (pair.contains_me()) {
        for (int n = 0; n < 20; ++n)
            t.execute();
        REQUIRE(t.routes().size() == 3);
        t.save_learned(folder.file("pair"));
    }
    MPI_Barrier(world());
    if (world_rank() == 0) CHECK(!read_text(folder.file("pair")).empty());
}
