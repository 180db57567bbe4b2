// The option vocabulary dri-plan and dri-bench share to describe one
// reorganization on the command line: the global array, each side's
// partition (docs/concepts.md notation), process count and layout.
#pragma once

#include "core/layout.hpp"

#include <CLI/CLI.hpp>

#include <string>

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

} // namespace dri::tools
