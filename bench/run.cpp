#include "run.hpp"

#include "core/spec.hpp"

namespace dri::bench {

namespace {

std::vector<int> rank_list(const std::string& text) {
    std::vector<int> out;
    for (core::Index v : core::parse_list(text))
        out.push_back(static_cast<int>(v));
    return out;
}

} // namespace

tools::SpecOptions resolve_spec(const Options& o, const std::string& shape, int size) {
    if (o.scenario.empty()) {
        tools::SpecOptions s = o.spec;
        if (!shape.empty()) s.shape = shape;
        if (s.shape.empty()) core::fail(core::Errc::arg, "--shape is required with --send/--recv");
        return s;
    }
    tools::SpecOptions s = scenario_spec(o.scenario, shape.empty() ? o.spec.shape : shape,
                                         o.spec.type, size, o.halo, o.grid, o.nb);
    s.send_procs = o.spec.send_procs;
    s.recv_procs = o.spec.recv_procs;
    return s;
}

RunResult run_once(const Options& o, const tools::SpecOptions& spec, MPI_Comm comm) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    const bool ptrans = o.scenario == "ptrans";
    const auto [grid_p, grid_q] = ptrans ? ptrans_grid(o.grid, size) : std::pair<int, int>{1, 1};
    const Problem pb(spec, rank_list(o.send_ranks),
                     ptrans ? ptrans_recv_ranks(grid_p, grid_q) : rank_list(o.recv_ranks), comm);
    const Environment env = environment(comm);
    Rings rings(pb, o.buffers, o.memory);
    Catalog cat;
    cat.wanted = o.methods;
    const bool reverse = is_reverse_scenario(o.scenario);
    if (reverse) {
        add_reverse_halo_methods(cat, pb, rings);
    } else if (ptrans) {
        add_ptrans_methods(cat, pb, rings, grid_p, grid_q, o.nb);
    } else {
        add_dri_methods(cat, pb, rings, o.strategies, o.memory == "owned", o.combine);
    }
    // The reverse and PTRANS scenarios bring their own methods and oracles.
    if (!reverse && !ptrans && o.combine != "none") {
        cat.skip("baselines", "they store what arrives; --combine times the DRI strategies only");
    } else if (!reverse && !ptrans) {
        add_subarray_method(cat, pb, rings);
        add_naive_method(cat, pb, rings);
        add_expert_method(cat, pb, rings);
        add_scalapack_method(cat, pb, rings);
        add_memcpy_bound(cat, pb, rings);
    }
    const MeasureOptions mo{o.reps, o.warmup, o.sweep == "none", o.trace, o.rotate};
    const std::vector<Timings> t = measure(cat.methods, pb, rings, mo);
    RunResult r =
        summarise(o.scenario.empty() ? "custom" : o.scenario, pb, env, cat.methods, t, cat.skipped);
    if (o.count_messages) {
        const std::vector<MessageCounts> counts = count_messages(cat.methods, pb);
        for (std::size_t i = 0; i < counts.size(); ++i)
            r.methods[i].messages = counts[i];
    }
    r.spec = spec;
    if (reverse) r.operation = "reverse_sum";
    if (ptrans) r.operation = "ptrans";
    if (o.combine != "none") r.operation = "forward_combine_" + o.combine;
    return r;
}

std::vector<std::string> sweep_shapes(const std::string& shape, int steps) {
    const std::vector<core::Index> ext = core::parse_shape(shape);
    std::vector<std::string> out;
    for (int k = steps - 1; k >= 0; --k) {
        std::string s;
        for (core::Index e : ext)
            s += (s.empty() ? "" : "x") + std::to_string(std::max<core::Index>(1, e >> k));
        if (out.empty() || out.back() != s) out.push_back(s);
    }
    return out;
}

} // namespace dri::bench
