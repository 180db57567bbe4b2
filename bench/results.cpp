#include "results.hpp"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace dri::bench {

RunResult summarise(const std::string& label, const Problem& pb, const Environment& env,
                    const std::vector<Method>& methods, const std::vector<Timings>& timings,
                    const std::vector<Skipped>& skipped) {
    RunResult r{label, {}, pb.send_ranks, pb.recv_ranks, env, pb.shape.bytes(), {}, skipped, false};
    double best = 0; // the best baseline's median (not the bound's)
    for (std::size_t i = 0; i < methods.size(); ++i) {
        const Timings& t = timings[i];
        std::string note = methods[i].note;
        if (methods[i].after) {
            const std::string later = methods[i].after();
            if (!later.empty()) note += (note.empty() ? "" : "; ") + later;
        }
        MethodResult m{methods[i].name,
                       kind_name(methods[i].kind),
                       note,
                       t.error,
                       Stats::of(t.reps),
                       t.reps,
                       t.first,
                       t.setup,
                       0,
                       t.heap,
                       t.rss,
                       {},
                       methods[i].check,
                       {}};
        m.gbps = m.stats.median > 0 ? static_cast<double>(r.bytes) / m.stats.median / 1e9 : 0;
        r.wrong |= !t.error.empty();
        if (methods[i].kind == Kind::baseline && (best == 0 || m.stats.median < best))
            best = m.stats.median;
        r.methods.push_back(std::move(m));
    }
    for (MethodResult& m : r.methods)
        if (best > 0 && m.stats.median > 0) m.ratio = best / m.stats.median;
    return r;
}

namespace {

const char* memory_name(const std::string& memory) {
    if (memory == "shared") return "shared (dri::SharedMemory)";
    if (memory == "allocator") return "shared (dri::allocator)";
    if (memory == "owned") return "rings the transfers own (others: heap)";
    if (memory == "vector") return "std::vector, receive buffers too";
    return "heap";
}

} // namespace

void print_header(const Options& o, const Environment& env) {
    std::printf("dri-bench: %s (MPI %s)\n", env.library.c_str(), env.standard.c_str());
    std::string rpn = std::to_string(env.min_per_node);
    if (env.max_per_node != env.min_per_node) rpn += "-" + std::to_string(env.max_per_node);
    std::printf("  %d ranks on %d node(s), %s ranks per node; buffers %d per ring, send memory "
                "%s; %d reps after %d warm-up call(s)\n",
                env.ranks, env.nodes, rpn.c_str(), o.buffers, memory_name(o.memory), o.reps,
                o.warmup);
}

namespace {

std::string ranks_text(const std::vector<int>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i == 8) return s + ",... (" + std::to_string(v.size()) + ")";
        s += (i ? "," : "") + std::to_string(v[i]);
    }
    return s;
}

std::string mib(long long bytes) {
    if (bytes < 0) return "-";
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", static_cast<double>(bytes) / 1048576.0);
    return b;
}

} // namespace

namespace {

// --count-messages: what one call asked MPI for, summed over all processes.
void print_messages(const std::vector<MethodResult>& methods) {
    bool any = false;
    for (const MethodResult& m : methods)
        any = any || m.messages.has_value();
    if (!any) return;
    std::printf("  messages of one call, all processes (a collective counts one per peer with "
                "data to send):\n");
    for (const MethodResult& m : methods)
        if (m.messages)
            std::printf("  %-24s within nodes %7lld (%lld B)  between nodes %7lld (%lld B)\n",
                        m.name.c_str(), m.messages->intra_messages, m.messages->intra_bytes,
                        m.messages->inter_messages, m.messages->inter_bytes);
}

} // namespace

void print_run(const RunResult& r) {
    std::printf("\n%s: %s %s, %.1f MiB, %d ranks on %d node(s)%s\n", r.label.c_str(),
                r.spec.shape.c_str(), r.spec.type.c_str(), static_cast<double>(r.bytes) / 1048576.0,
                r.env.ranks, r.env.nodes, r.wrong ? " -- WRONG DATA, see below" : "");
    std::printf("  spec: %s\n  senders: ranks %s; receivers: ranks %s\n",
                spec_flags(r.spec).c_str(), ranks_text(r.send_ranks).c_str(),
                ranks_text(r.recv_ranks).c_str());
    if (r.operation == "reverse_sum")
        std::printf("  timed: the REVERSE of this transfer with SUM (every receiver's copies, halo "
                    "cells included, added back into the senders' owned elements)\n");
    if (r.operation.rfind("forward_combine_", 0) == 0)
        std::printf("  timed: the receivers COMBINE what arrives into their buffers with %s "
                    "(DRI_Transfer_set_combine)\n",
                    r.operation.substr(16).c_str());
    for (const Skipped& s : r.skipped)
        std::printf("  skipped %s: %s\n", s.name.c_str(), s.reason.c_str());
    std::printf("  %-24s %9s %9s %9s %9s %9s %6s %7s %7s | %9s %9s %8s %8s\n", "method (ms)",
                "median", "min", "p90", "p99", "max", "jitter", "GB/s", "vs base", "first", "setup",
                "heap MiB", "rss MiB");
    for (const MethodResult& m : r.methods) {
        char ratio[16] = "-";
        if (m.ratio) std::snprintf(ratio, sizeof ratio, "%.2fx", *m.ratio);
        const Stats& s = m.stats;
        std::printf("  %-24s %9.3f %9.3f %9.3f %9.3f %9.3f %6.2f %7.2f %7s | %9.3f %9.3f %8s %8s\n",
                    m.name.c_str(), s.median * 1e3, s.min * 1e3, s.p90 * 1e3, s.p99 * 1e3,
                    s.max * 1e3, s.jitter(), m.gbps, ratio, m.first * 1e3, m.setup * 1e3,
                    mib(m.heap).c_str(), mib(m.rss).c_str());
    }
    std::string verified;
    for (const MethodResult& m : r.methods) {
        if (!m.note.empty()) std::printf("  %s: %s\n", m.name.c_str(), m.note.c_str());
        if (!m.error.empty())
            std::printf("  %s delivered WRONG DATA: %s\n", m.name.c_str(), m.error.c_str());
        else if (m.checked)
            verified += (verified.empty() ? "" : ", ") + m.name;
    }
    if (!verified.empty())
        std::printf("  verified (exact, every element on every rank, against the oracle): %s\n",
                    verified.c_str());
    print_messages(r.methods);
    std::fflush(stdout);
}

namespace {

nlohmann::json method_json(const MethodResult& m) {
    const Stats& s = m.stats;
    nlohmann::json j = {{"name", m.name},       {"kind", m.kind},
                        {"median_s", s.median}, {"min_s", s.min},
                        {"p90_s", s.p90},       {"p99_s", s.p99},
                        {"max_s", s.max},       {"mean_s", s.mean},
                        {"jitter", s.jitter()}, {"gbps", m.gbps},
                        {"first_s", m.first},   {"setup_s", m.setup},
                        {"times_s", m.times},   {"correct", m.error.empty()},
                        {"checked", m.checked}};
    j["ratio_vs_best_baseline"] = m.ratio ? nlohmann::json(*m.ratio) : nlohmann::json();
    j["heap_bytes"] = m.heap >= 0 ? nlohmann::json(m.heap) : nlohmann::json();
    j["rss_bytes"] = m.rss >= 0 ? nlohmann::json(m.rss) : nlohmann::json();
    if (!m.note.empty()) j["note"] = m.note;
    if (!m.error.empty()) j["error"] = m.error;
    if (m.messages)
        j["messages"] = {{"intra_node", m.messages->intra_messages},
                         {"intra_node_bytes", m.messages->intra_bytes},
                         {"inter_node", m.messages->inter_messages},
                         {"inter_node_bytes", m.messages->inter_bytes}};
    return j;
}

nlohmann::json run_json(const RunResult& r) {
    const tools::SpecOptions& s = r.spec;
    nlohmann::json j = {{"label", r.label},
                        {"operation", r.operation},
                        {"shape", s.shape},
                        {"type", s.type},
                        {"bytes", r.bytes},
                        {"spec",
                         {{"send", s.send},
                          {"recv", s.recv},
                          {"send_order", s.send_order},
                          {"recv_order", s.recv_order},
                          {"send_pad", s.send_pad},
                          {"recv_pad", s.recv_pad},
                          {"send_strides", s.send_strides},
                          {"recv_strides", s.recv_strides}}},
                        {"flags", spec_flags(s)},
                        {"send_ranks", r.send_ranks},
                        {"recv_ranks", r.recv_ranks},
                        {"ranks", r.env.ranks},
                        {"nodes", r.env.nodes},
                        {"ranks_per_node", r.env.max_per_node},
                        {"wrong_data", r.wrong},
                        {"methods", nlohmann::json::array()},
                        {"skipped", nlohmann::json::array()}};
    for (const MethodResult& m : r.methods)
        j["methods"].push_back(method_json(m));
    for (const Skipped& k : r.skipped)
        j["skipped"].push_back({{"name", k.name}, {"reason", k.reason}});
    if (!r.extra.is_null()) j["extra"] = r.extra;
    return j;
}

} // namespace

nlohmann::json to_json(const Options& o, const Environment& env,
                       const std::vector<RunResult>& runs) {
    std::string line;
    for (const std::string& a : o.argv)
        line += (line.empty() ? "" : " ") + a;
    nlohmann::json j = {{"tool", "dri-bench"},
                        {"command", o.argv},
                        {"command_line", line},
                        {"mpi", {{"library", env.library}, {"standard", env.standard}}},
                        {"ranks", env.ranks},
                        {"nodes", env.nodes},
                        {"ranks_per_node", {env.min_per_node, env.max_per_node}},
                        {"buffers", o.buffers},
                        {"memory", o.memory},
                        {"reps", o.reps},
                        {"warmup", o.warmup},
                        {"sweep", o.sweep},
                        {"runs", nlohmann::json::array()}};
    for (const RunResult& r : runs)
        j["runs"].push_back(run_json(r));
    return j;
}

void write_json(const std::string& file, const nlohmann::json& doc) {
    std::ofstream f(file);
    f << doc.dump(1) << '\n';
    if (!f) throw std::runtime_error("cannot write " + file);
}

void write_csv(const std::string& file, const std::vector<RunResult>& runs) {
    std::ofstream f(file);
    f << "label,shape,type,ranks,nodes,ranks_per_node,bytes,method,kind,median_s,min_s,p90_s,"
         "p99_s,max_s,jitter,gbps,ratio_vs_best_baseline,first_s,setup_s,heap_bytes,rss_bytes,"
         "correct\n";
    for (const RunResult& r : runs)
        for (const MethodResult& m : r.methods) {
            const Stats& s = m.stats;
            f << r.label << ',' << r.spec.shape << ',' << r.spec.type << ',' << r.env.ranks << ','
              << r.env.nodes << ',' << r.env.max_per_node << ',' << r.bytes << ',' << m.name << ','
              << m.kind << ',' << s.median << ',' << s.min << ',' << s.p90 << ',' << s.p99 << ','
              << s.max << ',' << s.jitter() << ',' << m.gbps << ','
              << (m.ratio ? std::to_string(*m.ratio) : "") << ',' << m.first << ',' << m.setup
              << ',' << (m.heap >= 0 ? std::to_string(m.heap) : "") << ','
              << (m.rss >= 0 ? std::to_string(m.rss) : "") << ',' << (m.error.empty() ? 1 : 0)
              << '\n';
        }
    if (!f) throw std::runtime_error("cannot write " + file);
}

} // namespace dri::bench
