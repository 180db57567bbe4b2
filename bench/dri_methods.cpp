// The DRI strategies, each forced on its own transfer over the same rings.
#include "method.hpp"
#include "probe.hpp"
#include "to_api.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

namespace dri::bench {

namespace {

const std::map<std::string, dri::Strategy>& strategy_names() {
    static const std::map<std::string, dri::Strategy> m{
        {"auto", dri::Strategy::automatic}, {"alltoallw", dri::Strategy::alltoallw},
        {"packed", dri::Strategy::packed},  {"p2p", dri::Strategy::p2p},
        {"shared", dri::Strategy::shared},  {"hybrid", dri::Strategy::hybrid},
        {"nodes", dri::Strategy::nodes},    {"measure", dri::Strategy::measure}};
    return m;
}

std::optional<dri::Combine> combine_op(const std::string& name) {
    if (name == "sum") return dri::Combine::sum;
    if (name == "max") return dri::Combine::max;
    if (name == "min") return dri::Combine::min;
    if (name == "none") return std::nullopt;
    throw std::invalid_argument("unknown combine operation " + name);
}

std::string chosen_name(dri::Strategy s) {
    for (const auto& [name, v] : strategy_names())
        if (v == s) return name;
    return "?";
}

// What AUTO that learns did over the runs: each route's time in its last
// decision, the route it runs now, the share of calls spent exploring and
// its switches; empty when it holds one route.
std::string learned(const dri::Transfer& t) {
    const std::vector<dri::Route> routes = t.routes();
    if (routes.size() < 2) return {};
    std::string s = "routes";
    char buf[96];
    for (const dri::Route& r : routes) {
        std::snprintf(buf, sizeof buf, " %s %.3f ms,", chosen_name(r.strategy).c_str(),
                      r.seconds * 1e3);
        s += r.seconds < 0 ? " " + chosen_name(r.strategy) + " untimed," : std::string(buf);
    }
    const dri::LearningState st = t.learning_state();
    static const char* const states[] = {"one route", "learning", "settled", "frozen"};
    std::snprintf(
        buf, sizeof buf, " running %s (%s); %lld of %lld calls explored (%.1f%%), %lld switch%s",
        chosen_name(t.chosen_strategy()).c_str(), states[static_cast<int>(st.state)],
        static_cast<long long>(st.explored), static_cast<long long>(st.calls),
        st.calls ? 100.0 * static_cast<double>(st.explored) / static_cast<double>(st.calls) : 0.0,
        static_cast<long long>(st.switches), st.switches == 1 ? "" : "es");
    return s + buf;
}

} // namespace

namespace {

// The transfer's own send ring (OwnedRing), holding what the shared rings hold.
void send_from_owned_ring(dri::Transfer& t, const dri::Distribution& d, const dri::Layout& l,
                          const Rings& rings) {
    t.send(d, l, dri::OwnedRing{rings.count()});
    for (int k = 0; k < rings.count(); ++k) {
        const std::span<std::byte> own = t.buffer(dri::Role::send, k);
        const std::span<std::byte> from = rings.send[static_cast<std::size_t>(k)];
        std::copy(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(own.size()),
                  own.begin());
    }
}

} // namespace

void add_dri_methods(Catalog& cat, const Problem& pb, Rings& rings,
                     const std::vector<std::string>& strategies, bool owned_rings,
                     const std::string& combine) {
    const std::optional<dri::Combine> op = combine_op(combine);
    const dri::GlobalData gd = test::to_api(pb.shape);
    const dri::Group sg(pb.comm, pb.send_ranks), rg(pb.comm, pb.recv_ranks);
    std::optional<dri::Distribution> sd, rd;
    if (sg.contains_me()) sd.emplace(gd, test::to_api(pb.sd->partition()), sg);
    if (rg.contains_me()) rd.emplace(gd, test::to_api(pb.rd->partition()), rg);
    const dri::Layout sl = test::to_api(pb.sl), rl = test::to_api(pb.rl);
    for (const std::string& s : strategies) {
        const auto it = strategy_names().find(s);
        if (it == strategy_names().end()) throw std::invalid_argument("unknown strategy " + s);
        const std::string name = "dri_" + s;
        if (!cat.wants(name)) continue;
        Probe probe;
        auto t = std::make_shared<dri::Transfer>(name);
        t->strategy(it->second);
        if (sd && owned_rings) send_from_owned_ring(*t, *sd, sl, rings);
        if (sd && !owned_rings) t->send(*sd, sl, rings.send);
        if (rd) t->recv(*rd, rl, rings.recv);
        if (rd && op) t->combine(*op);
        std::string why;
        try {
            if (sd || rd)
                dri::commit(pb.comm, {t.get()});
            else
                dri::commit(pb.comm, {});
        } catch (const dri::Error& e) {
            // SHARED and HYBRID depend on the node layout and on the buffers
            // (Errc::buffer); whatever the reason, the run goes on without
            // the strategy and prints why.
            why = e.what();
        }
        int failed = why.empty() ? 0 : 1; // ranks without a role agree too
        MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, pb.comm);
        if (failed) {
            cat.skip(name, why.empty() ? "the commit failed on another rank" : why);
            continue;
        }
        Method m{name, Kind::dri, nullptr, true, "", 0, -1, -1};
        const bool part = sd || rd, sends = sd.has_value(), recvs = rd.has_value();
        m.run = [t, part, sends, recvs](int k) {
            if (!part) return;
            // The transfer cycles its rings itself; the driver's index must agree.
            if ((sends && t->current_send_buffer() != k) ||
                (recvs && t->current_recv_buffer() != k))
                throw std::logic_error("dri-bench: ring out of step");
            t->execute();
        };
        if (part && (s == "auto" || s == "measure"))
            m.note = "chose " + chosen_name(t->chosen_strategy());
        if (part && s == "auto") m.after = [t] { return learned(*t); };
        if (op) {
            // The cells before the checked call are the poison: what the
            // combining oracle starts from.
            m.prepare = [&rings](int k) { rings.poison_recv(k); };
            m.verify = [&pb, &rings, o = *op](int k) {
                return pb.me_recv < 0
                           ? std::string()
                           : check_combined(pb, o, rings.recv[static_cast<std::size_t>(k)].data());
            };
        }
        cat.add(std::move(m), probe);
    }
}

} // namespace dri::bench
