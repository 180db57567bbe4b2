#include "spec_options.hpp"

#include "core/spec.hpp"

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
                   "/nprocs and ~left:right[:truncate|zero|replicate|wrap]")
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

} // namespace dri::tools
