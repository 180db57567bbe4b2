// The node model in dri-plan (--model): the network parameters on the
// command line, and per strategy the messages and modelled time of the
// real plan placed on nodes (core/node_model.hpp).
#pragma once

#include "core/node_model.hpp"
#include "core/plan.hpp"

#include <string>

namespace dri::plan_view {

// "alpha=2us,beta=12.5GB/s,copy=5GB/s,intra=0.5us": any of the keys, in
// any order, the others at their defaults; "defaults" takes them all.
// Times in s, ms, us or ns; bandwidths in B/s, KB/s, MB/s, GB/s, TB/s
// (powers of 1000) or KiB/s, MiB/s, GiB/s. Throws std::invalid_argument
// saying what is wrong.
dri::core::NetworkModel parse_network_model(const std::string& text);

// Places process i (as sender and receiver) on node i / per_node, plans
// every sender and prints the model of the pieces between processes.
void print_node_model(const dri::core::Side& send, const dri::core::Side& recv, int per_node,
                      const dri::core::NetworkModel& net);

} // namespace dri::plan_view
