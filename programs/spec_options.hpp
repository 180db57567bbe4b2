// The option vocabulary dri-plan and dri-bench share to describe one
// reorganization on the command line: the global array, each side's
// partition (docs/concepts.md notation), process count and layout.
#pragma once

#include "core/distribution.hpp"
#include "core/layout.hpp"

#include <string>

// CLI11 is declared, not included: its header costs about 9 s of compile
// time at -O3 in every file that reads it, and most files that need a
// SpecOptions never parse a command line.
namespace CLI {
class App;
} // namespace CLI

namespace dri::tools {

struct SpecOptions {
    std::string shape, type = "float";
    std::string send, recv;                 // partitions, e.g. block,whole
    std::string send_order, recv_order;     // e.g. 1,0
    std::string send_pad, recv_pad;         // extra elements per dimension
    std::string send_strides, recv_strides; // explicit element strides
    int send_procs = 0, recv_procs = 0;     // 0: the tool's default
};

// Declares --shape --type --send --recv --send-procs --recv-procs
// --send-order --recv-order --send-pad --recv-pad --send-strides
// --recv-strides on `app`, writing into `o` (which must outlive the parse).
// `send_default` and `recv_default` describe the tool's default process
// counts in the help.
void add_spec_options(CLI::App& app, SpecOptions& o, const std::string& send_default,
                      const std::string& recv_default);

// The layout of one side from its order, padding and strides texts (empty:
// row-major packed). Throws dri::core::Error on malformed lists.
core::Layout make_layout(int ndims, const std::string& order, const std::string& pad,
                         const std::string& strides);

// One side's distribution from its --send/--recv text: a partition
// (block,whole) over `procs` processes, or a box partition, inline
// (boxes:0:3,0:5/4:7,0:5) or from a file (boxes@FILE: one member per line,
// its boxes separated by ';', "-" for a member without boxes, '#' starts a
// comment). A box partition has as many processes as members: `procs`, when
// not 0, must match; `order` numbers a partition's process grid (a box
// partition has no grid). Throws dri::core::Error.
core::Distribution make_distribution(const core::Shape& shape, const std::string& text, int procs,
                                     core::GridOrder order = core::GridOrder::row_major);
// The process count `text` implies (the members of a box partition), or 0.
int implied_procs(const std::string& text);

} // namespace dri::tools
