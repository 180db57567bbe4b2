#include "spec_options.hpp"

#include "core/box_partition.hpp"
#include "core/spec.hpp"

#include <CLI/CLI.hpp>

#include <fstream>
#include <memory>
#include <numeric>

namespace dri::tools {

void add_spec_options(CLI::App& app, SpecOptions& o, const std::string& send_default,
                      const std::string& recv_default) {
    const std::string spec = "Reorganization";
    app.add_option("--shape", o.shape, "global extents, e.g. 4096x4096 or 256x256x256")
        ->group(spec);
    app.add_option("--type", o.type,
                   "element type: float double cfloat cdouble int8..uint64 byte recordN")
        ->capture_default_str()
        ->group(spec);
    app.add_option("--send", o.send,
                   "sending partition, one item per dimension, e.g. block,whole; item := whole | "
                   "block | block[min:max] | cyclic(b) | ranges(f:l|f:l...), followed by "
                   "/nprocs and ~left:right[:truncate|zero|replicate|wrap]; dri-plan also takes "
                   "boxes per process: boxes:0:3,0:5;4:7,0:2/4:7,3:5 (processes separated by /, "
                   "their boxes by ;) or boxes@FILE (one process per line)")
        ->group(spec);
    app.add_option("--recv", o.recv, "receiving partition, e.g. whole,block~2:2:wrap")->group(spec);
    app.add_option("--send-procs", o.send_procs,
                   "processes on the sending side (default " + send_default + ")")
        ->check(CLI::Range(1, 1000000000))
        ->group(spec);
    app.add_option("--recv-procs", o.recv_procs,
                   "processes on the receiving side (default " + recv_default + ")")
        ->check(CLI::Range(1, 1000000000))
        ->group(spec);
    app.add_option("--send-order", o.send_order,
                   "layout order, slowest dimension first (default 0,1,...)")
        ->group(spec);
    app.add_option("--recv-order", o.recv_order, "e.g. 1,0 stores dimension 0 contiguously")
        ->group(spec);
    app.add_option("--send-pad", o.send_pad, "extra elements per dimension (padding)")->group(spec);
    app.add_option("--recv-pad", o.recv_pad)->group(spec);
    app.add_option("--send-strides", o.send_strides,
                   "explicit element strides instead of order and padding")
        ->group(spec);
    app.add_option("--recv-strides", o.recv_strides)->group(spec);
}

core::Layout make_layout(int ndims, const std::string& order, const std::string& pad,
                         const std::string& strides) {
    if (!strides.empty()) return core::Layout::strided(core::parse_list(strides));
    std::vector<int> o;
    for (core::Index v : core::parse_list(order))
        o.push_back(static_cast<int>(v));
    if (o.empty()) {
        if (pad.empty()) return core::Layout::packed(ndims);
        o.resize(static_cast<std::size_t>(ndims));
        std::iota(o.begin(), o.end(), 0); // row-major order, padded
    }
    return core::Layout::ordered(o, core::parse_list(pad));
}

namespace {

// A box file as inline text: one member per line, comments and blank lines
// dropped.
std::string box_text_of(const std::string& text) {
    if (text.rfind("boxes@", 0) != 0) return text;
    const std::string file = text.substr(6);
    std::ifstream in(file);
    if (!in) core::fail(core::Errc::arg, "cannot read the box file '" + file + "'");
    std::string line, out = "boxes:";
    bool first = true;
    while (std::getline(in, line)) {
        line = line.substr(0, line.find('#'));
        std::string kept;
        for (char c : line)
            if (c != ' ' && c != '\t' && c != '\r') kept += c;
        if (kept.empty()) continue;
        out += (first ? "" : "/") + kept;
        first = false;
    }
    return out;
}

bool is_boxes(const std::string& text) {
    return core::is_box_text(text) || text.rfind("boxes@", 0) == 0;
}

} // namespace

int implied_procs(const std::string& text) {
    return is_boxes(text) ? static_cast<int>(core::parse_boxes(box_text_of(text)).size()) : 0;
}

core::Distribution make_distribution(const core::Shape& shape, const std::string& text, int procs,
                                     core::GridOrder order) {
    if (!is_boxes(text))
        return core::Distribution(shape, core::parse_partition(text), procs, order);
    auto bp =
        std::make_shared<const core::BoxPartition>(shape, core::parse_boxes(box_text_of(text)));
    if (procs != 0 && procs != bp->nprocs())
        core::fail(core::Errc::arg, "the box partition has " + std::to_string(bp->nprocs()) +
                                        " processes, not " + std::to_string(procs));
    return core::Distribution(std::move(bp));
}

} // namespace dri::tools
