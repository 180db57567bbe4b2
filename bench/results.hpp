// The results of one run (one problem, one communicator) and of a whole
// invocation, and how they are written: a table on stdout, JSON, CSV.
#pragma once

#include "environment.hpp"
#include "measure.hpp"
#include "message_counts.hpp"
#include "options.hpp"
#include "stats.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dri::bench {

struct MethodResult {
    std::string name, kind, note, error;
    Stats stats;
    std::vector<double> times;
    double first = 0, setup = 0, gbps = 0;
    long long heap = -1, rss = -1;
    std::optional<double> ratio;           // best baseline's median over this median
    bool checked = false;                  // compared with the oracle before timing
    std::optional<MessageCounts> messages; // --count-messages: one call, all processes
};

struct RunResult {
    std::string label; // the scenario's name or "custom"
    tools::SpecOptions spec;
    std::vector<int> send_ranks, recv_ranks;
    Environment env; // of the run's communicator
    long long bytes = 0;
    std::vector<MethodResult> methods;
    std::vector<Skipped> skipped;
    bool wrong = false;
    // What was timed: "forward" (the spec's transfer) or "reverse_sum" (its
    // reverse with SUM: the receivers' copies added back into the senders),
    // or a scenario's own operation (pipeline_latency, ...).
    std::string operation = "forward";
    // What a scenario derives beyond the statistics (the pipeline's frames
    // per second, overhead per piece and kernel), written as the run's
    // "extra" in the JSON when not null.
    nlohmann::json extra = nlohmann::json();
};

RunResult summarise(const std::string& label, const Problem& pb, const Environment& env,
                    const std::vector<Method>& methods, const std::vector<Timings>& timings,
                    const std::vector<Skipped>& skipped);

void print_header(const Options& o, const Environment& env);
void print_run(const RunResult& r);
nlohmann::json to_json(const Options& o, const Environment& env,
                       const std::vector<RunResult>& runs);
// Throw std::runtime_error when the file cannot be written.
void write_json(const std::string& file, const nlohmann::json& doc);
void write_csv(const std::string& file, const std::vector<RunResult>& runs);

} // namespace dri::bench
