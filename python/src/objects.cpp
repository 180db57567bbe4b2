// The objects of a reorganization: global data, partitions, groups, layouts,
// distributions and their block information, plus dri's init/finalize.
#include "binding.hpp"

#include <pybind11/stl.h>

namespace dri::python {

namespace {

void bind_enums(py::module_& m) {
    py::enum_<Type>(m, "Type",
                    "Element types (DRI_INT8 ... DRI_BYTE). Wherever dri takes one, a NumPy\n"
                    "dtype of the same kind and size does too (np.complex64 is COMPLEX_FLOAT).")
        .value("INT8", Type::int8)
        .value("UINT8", Type::uint8)
        .value("INT16", Type::int16)
        .value("UINT16", Type::uint16)
        .value("INT32", Type::int32)
        .value("UINT32", Type::uint32)
        .value("INT64", Type::int64)
        .value("UINT64", Type::uint64)
        .value("FLOAT", Type::float32)
        .value("DOUBLE", Type::float64)
        .value("COMPLEX_FLOAT", Type::complex_float)
        .value("COMPLEX_DOUBLE", Type::complex_double)
        .value("BYTE", Type::byte);
    py::enum_<Edge>(m, "Edge",
                    "What overlap (halo) cells past the global bounds hold (DRI_EDGE_*):\n"
                    "TRUNCATE: not stored, ZERO: zeros, REPLICATE: the edge element, WRAP:\n"
                    "the other end (periodic).")
        .value("TRUNCATE", Edge::truncate)
        .value("ZERO", Edge::zero)
        .value("REPLICATE", Edge::replicate)
        .value("WRAP", Edge::wrap);
    py::enum_<GridOrder>(m, "GridOrder",
                         "How group indices number the process grid (DRI_GRID_*):\n"
                         "ROW_MAJOR (default): the last grid dimension varies fastest;\n"
                         "COLUMN_MAJOR: the first varies fastest, as BLACS 'C' order.")
        .value("ROW_MAJOR", GridOrder::row_major)
        .value("COLUMN_MAJOR", GridOrder::column_major);
    py::enum_<Strategy> strategy(m, "Strategy",
                                 "How a transfer moves data (DRI_STRATEGY_*), requested with\n"
                                 "Transfer.strategy() before commit. AUTO (default) picks one;\n"
                                 "MEASURE times the candidates at commit; SHARED copies through\n"
                                 "node shared memory; HYBRID combines it with messages between\n"
                                 "nodes; NODES sends one message per pair of nodes through each\n"
                                 "node's leader.");
    strategy.value("AUTO", Strategy::automatic)
        .value("ALLTOALLW", Strategy::alltoallw)
        .value("PACKED", Strategy::packed)
        .value("P2P", Strategy::p2p)
        .value("MEASURE", Strategy::measure)
        .value("SHARED", Strategy::shared)
        .value("HYBRID", Strategy::hybrid)
        .value("NODES", Strategy::nodes);
    py::enum_<Learning>(m, "Learning",
                        "How much AUTO learns (DRI_LEARNING_*), set with Transfer.learning()\n"
                        "before commit: ON (default) times its routes on the first calls,\n"
                        "runs the fastest and re-checks the others now and then; ONCE\n"
                        "stops after the first calls; OFF keeps the static rule's route.")
        .value("OFF", Learning::off)
        .value("ONCE", Learning::once)
        .value("ON", Learning::on);
    py::enum_<RouteState>(m, "RouteState",
                          "What AUTO that learns is doing (DRI_ROUTES_*):\n"
                          "Transfer.learning_state()['state'].")
        .value("ONE", RouteState::one)
        .value("LEARNING", RouteState::learning)
        .value("SETTLED", RouteState::settled)
        .value("FROZEN", RouteState::frozen);
}

void bind_global_data(py::module_& m) {
    py::class_<PyGlobalData>(m, "GlobalData",
                             "Shape and element type of the whole (global) array. Local: no\n"
                             "communication.")
        .def(py::init([](std::vector<Index> extents, py::handle type) {
                 GlobalData g = global_data(std::move(extents), type);
                 py::dtype dt =
                     py::isinstance<Type>(type)
                         ? dtype_of(type.cast<Type>())
                         : py::dtype::from_args(py::reinterpret_borrow<py::object>(type));
                 return PyGlobalData{std::move(g), std::move(dt)};
             }),
             py::arg("extents"), py::arg("dtype"),
             "extents: one per dimension; dtype: a dri.Type or a NumPy dtype (void or "
             "structured dtypes are records of their size).")
        .def_static(
            "record",
            [](std::vector<Index> extents, Index bytes) {
                GlobalData g = GlobalData::record(std::move(extents), bytes);
                return PyGlobalData{std::move(g), py::dtype("V" + std::to_string(bytes))};
            },
            py::arg("extents"), py::arg("record_bytes"),
            "Global data whose elements are records of `record_bytes` bytes (moved\n"
            "as they are; arrays of it have the void dtype V<record_bytes>).")
        .def_property_readonly(
            "ndims", [](const PyGlobalData& g) { return g.data.ndims(); }, "Number of dimensions.")
        .def_property_readonly(
            "extents", [](const PyGlobalData& g) { return py::tuple(py::cast(g.data.extents())); },
            "The global shape, a tuple.")
        .def_property_readonly(
            "elem_size", [](const PyGlobalData& g) { return g.data.elem_size(); },
            "Bytes per element.")
        .def_readonly("dtype", &PyGlobalData::dtype, "The NumPy dtype of the elements.");
}

void bind_partition(py::module_& m) {
    py::class_<DimPart>(m, "DimPart",
                        "The partition of one dimension (docs/concepts.md): made by whole(),\n"
                        "block(), block4(), cyclic() or ranges(), with overlap() for halos.")
        .def_static("whole", &DimPart::whole, "Not split: every process holds the whole extent.")
        .def_static("block", &DimPart::block, py::arg("nprocs") = 0,
                    "Contiguous blocks, the first N mod p one element larger; nprocs 0:\n"
                    "the process grid chooses.")
        .def_static("block4", &DimPart::block4, py::arg("left"), py::arg("min_block"),
                    py::arg("max_block"), py::arg("right"), py::arg("edge") = Edge::truncate,
                    "DRI's 4-tuple: blocks of min_block..max_block elements (max_block\n"
                    "2**63 - 1: no limit) with left/right overlap cells and an Edge.")
        .def_static("cyclic", &DimPart::cyclic, py::arg("block_size"), py::arg("nprocs") = 0,
                    "Blocks of block_size dealt to the processes in turn (block-cyclic).")
        .def_static("ranges", &DimPart::explicit_ranges, py::arg("ranges"),
                    "One inclusive (first, last) range per process coordinate (empty:\n"
                    "(k, k-1)).")
        .def("overlap", &DimPart::overlap, py::arg("left"), py::arg("right"),
             py::arg("edge") = Edge::truncate, py::return_value_policy::reference_internal,
             "Add left/right overlap (halo) cells with an Edge policy; returns self.")
        .def_readwrite("left", &DimPart::left, "Overlap cells before each block.")
        .def_readwrite("right", &DimPart::right, "Overlap cells after each block.")
        .def_readwrite("min_block", &DimPart::min_block, "Smallest block extent allowed.")
        .def_readwrite("max_block", &DimPart::max_block, "Largest block extent allowed.")
        .def_readwrite("block_size", &DimPart::block_size, "Block extent of cyclic().")
        .def_readwrite("nprocs", &DimPart::nprocs, "Processes along this dimension (0: chosen).")
        .def_readwrite("edge", &DimPart::edge, "The Edge policy of the overlap.");
    py::class_<Partition>(m, "Partition",
                          "How each dimension is split over the processes: the text notation\n"
                          "of docs/concepts.md (\"block,whole~0:2:wrap\") or a list of DimPart.")
        .def(py::init([](const std::string& spec) { return Partition::parse(spec); }),
             py::arg("spec"), "From the text notation, e.g. \"block,whole\".")
        .def(py::init<std::vector<DimPart>>(), py::arg("dims"), "From one DimPart per dimension.")
        .def_property_readonly("ndims", &Partition::ndims, "Number of dimensions.");
}

// A rank list names processes of COMM_WORLD; anything else is a communicator.
PyGroup make_group(py::handle comm, std::optional<std::vector<int>> ranks) {
    const Comm c = to_comm(comm);
    Group g = ranks ? Group(c.handle, *ranks) : Group(c.handle);
    return PyGroup{std::move(g), c.owner};
}

void bind_group(py::module_& m) {
    py::class_<PyGroup>(m, "Group",
                        "An ordered set of processes of a parent communicator. The order is\n"
                        "the order of the process grid: a distribution's process with group\n"
                        "index i has the grid coordinates of i in row-major order. Local.")
        .def(py::init(&make_group), py::arg("comm") = Comm{MPI_COMM_WORLD, py::none()},
             py::arg("ranks") = py::none(),
             "All processes of comm in rank order, or the processes `ranks` (ranks\n"
             "of comm) in the order given.")
        .def_property_readonly(
            "size", [](const PyGroup& g) { return g.group.size(); }, "Number of processes.")
        .def_property_readonly(
            "index", [](const PyGroup& g) { return g.group.index(); },
            "This process's index in the group, -1 if not a member.")
        .def_property_readonly(
            "contains_me", [](const PyGroup& g) { return g.group.contains_me(); },
            "True when this process is a member.")
        .def_property_readonly(
            "ranks", [](const PyGroup& g) { return g.group.ranks(); },
            "The members' ranks in the parent communicator, in group order.");
}

void bind_layout(py::module_& m) {
    py::class_<Layout>(m, "Layout",
                       "How one process stores its block in memory (its arrays' strides).\n"
                       "Local.")
        .def_static("packed", &Layout::packed, py::arg("ndims"),
                    "Row-major packed: C order, as np.empty(shape).")
        .def_static("ordered", &Layout::ordered, py::arg("order"),
                    py::arg("pad") = std::vector<Index>{},
                    "Dimensions slowest first ([1, 0]: dimension 0 contiguous, as\n"
                    "np.empty(shape[::-1]).T), with optional padding elements per dimension.")
        .def_static("strided", &Layout::strided, py::arg("strides"),
                    "Explicit element strides, one per dimension.")
        .def_property_readonly("ndims", &Layout::ndims, "Number of dimensions.");
}

void bind_block_info(py::module_& m) {
    py::class_<BlockInfo>(m, "BlockInfo",
                          "One process's block under a layout: which global elements it\n"
                          "owns and stores, and the shape and strides of its arrays.")
        .def_readonly("index", &BlockInfo::index, "The process's index in the group.")
        .def_readonly("coords", &BlockInfo::coords, "Its coordinates in the process grid.")
        .def_readonly("owned_first", &BlockInfo::owned_first,
                      "First global index it owns, per dimension.")
        .def_readonly("owned_last", &BlockInfo::owned_last,
                      "Last global index it owns (inclusive), per dimension.")
        .def_readonly("owned_count", &BlockInfo::owned_count, "Owned elements per dimension.")
        .def_readonly("stored_first", &BlockInfo::stored_first,
                      "First global index stored (overlap included), per dimension.")
        .def_readonly("stored_last", &BlockInfo::stored_last,
                      "Last global index stored (overlap included), per dimension.")
        .def_readonly("segments", &BlockInfo::segments,
                      "Owned blocks per dimension (more than 1 when block-cyclic).")
        .def_readonly("local_extent", &BlockInfo::local_extent,
                      "Stored cells per dimension (= shape).")
        .def_readonly("strides", &BlockInfo::strides,
                      "Element strides of the layout (NumPy's strides / itemsize).")
        .def_readonly("bytes", &BlockInfo::bytes,
                      "Bytes of memory an array of the block spans (padding included).")
        .def_property_readonly(
            "shape", [](const BlockInfo& b) { return py::tuple(py::cast(b.local_extent)); },
            "The shape of the block's arrays, a tuple.")
        .def_property_readonly("elements", &BlockInfo::elements, "Number of stored cells.")
        .def("__repr__", [](const BlockInfo& b) {
            return "<dri.BlockInfo index=" + std::to_string(b.index) +
                   " shape=" + py::str(py::tuple(py::cast(b.local_extent))).cast<std::string>() +
                   " bytes=" + std::to_string(b.bytes) + ">";
        });
}

PyDistribution distribute(const PyGlobalData& gdo, py::handle part, const PyGroup& g,
                          GridOrder order) {
    if (py::isinstance<py::str>(part)) {
        const Partition p = Partition::parse(part.cast<std::string>());
        return PyDistribution{Distribution(gdo.data, p, g.group, order), gdo.dtype, g.comm_owner};
    }
    return PyDistribution{Distribution(gdo.data, part.cast<const Partition&>(), g.group, order),
                          gdo.dtype, g.comm_owner};
}

// The group argument of a distribution: a Group, a communicator (all its
// processes) or a list of COMM_WORLD ranks.
PyDistribution make_distribution(const PyGlobalData& gdo, py::handle part, py::handle group,
                                 GridOrder order) {
    if (py::isinstance<PyGroup>(group))
        return distribute(gdo, part, group.cast<const PyGroup&>(), order);
    if (py::isinstance<py::sequence>(group) && !py::isinstance<py::str>(group)) {
        const Comm world{MPI_COMM_WORLD, py::none()};
        return distribute(gdo, part, make_group(py::cast(world), group.cast<std::vector<int>>()),
                          order);
    }
    return distribute(gdo, part, make_group(group, std::nullopt), order);
}

// count None: one array; else a list of count arrays (a ring).
py::object new_blocks(const PyDistribution& d, const Layout& layout, std::optional<int> count,
                      bool zero) {
    const BlockInfo b = block_of(d, layout, std::nullopt);
    if (!count) return block_array(b, d.dtype, zero);
    if (*count < 1) throw Error(Errc::buffer_count, "count must be at least 1");
    py::list ring;
    for (int k = 0; k < *count; ++k)
        ring.append(block_array(b, d.dtype, zero));
    return ring;
}

// A box as the pair of tuples (first, last), inclusive.
using PyBox = std::pair<std::vector<Index>, std::vector<Index>>;

PyDistribution boxes_over(const PyGlobalData& gdo, const std::vector<PyBox>& boxes,
                          const std::optional<std::vector<int>>& owners, const PyGroup& g) {
    std::vector<Box> bs;
    for (const PyBox& b : boxes)
        bs.push_back({b.first, b.second});
    Distribution d = owners ? Distribution::from_boxes(gdo.data, g.group, bs, *owners)
                            : Distribution::from_boxes(gdo.data, g.group, bs);
    return PyDistribution{std::move(d), gdo.dtype, g.comm_owner};
}

PyDistribution make_box_distribution(const PyGlobalData& gdo, const std::vector<PyBox>& boxes,
                                     py::handle group, std::optional<std::vector<int>> owners) {
    if (py::isinstance<PyGroup>(group))
        return boxes_over(gdo, boxes, owners, group.cast<const PyGroup&>());
    if (py::isinstance<py::sequence>(group) && !py::isinstance<py::str>(group)) {
        const Comm world{MPI_COMM_WORLD, py::none()};
        return boxes_over(gdo, boxes, owners,
                          make_group(py::cast(world), group.cast<std::vector<int>>()));
    }
    return boxes_over(gdo, boxes, owners, make_group(group, std::nullopt));
}

int member(const PyDistribution& d, std::optional<int> index) {
    if (index) return *index;
    if (d.dist.index() < 0)
        throw Error(Errc::group, "the calling process is not in the distribution's group");
    return d.dist.index();
}

void bind_distribution(py::module_& m) {
    py::class_<PyDistribution>(m, "Distribution",
                               "Global data split by a partition over a group of processes.\n"
                               "Created collectively by the group's processes, which pass the\n"
                               "same data and partition.")
        .def(py::init(&make_distribution), py::arg("data"), py::arg("partition"),
             py::arg("group") = Comm{MPI_COMM_WORLD, py::none()}, py::kw_only(),
             py::arg("grid_order") = GridOrder::row_major,
             "partition: a Partition or its text notation; group: a Group, a communicator "
             "(all its processes) or a list of COMM_WORLD ranks; grid_order: how group "
             "indices number the process grid (GridOrder).")
        .def_static("from_boxes", &make_box_distribution, py::arg("data"), py::arg("boxes"),
                    py::arg("group") = Comm{MPI_COMM_WORLD, py::none()},
                    py::arg("owners") = py::none(),
                    "A box distribution (docs/concepts.md, \"Box partitions\"), collective: "
                    "boxes is a list of (first, last) tuples per box, inclusive; without "
                    "owners they are this process's own boxes, with owners (the group index "
                    "of each box's owner) every member passes the same list of all boxes. "
                    "A member's block is one dimension: its boxes one after another, each "
                    "dense in the layout's order (see dri.box_views).")
        .def(
            "boxes",
            [](const PyDistribution& d, std::optional<int> index) {
                py::list out;
                for (const Box& b : d.dist.boxes(member(d, index)))
                    out.append(
                        py::make_tuple(py::tuple(py::cast(b.first)), py::tuple(py::cast(b.last))));
                return out;
            },
            py::arg("index") = py::none(),
            "The (first, last) boxes this process (or member index) owns; an ordinary "
            "distribution's owned blocks.")
        .def_property_readonly(
            "has_boxes", [](const PyDistribution& d) { return d.dist.has_boxes(); },
            "Whether this is a box distribution.")
        .def_property_readonly(
            "grid", [](const PyDistribution& d) { return d.dist.grid(); },
            "Processes per dimension (the process grid).")
        .def_property_readonly(
            "grid_order", [](const PyDistribution& d) { return d.dist.grid_order(); },
            "How group indices number the process grid (GridOrder).")
        .def_property_readonly(
            "size", [](const PyDistribution& d) { return d.dist.size(); },
            "Processes in the group.")
        .def_property_readonly(
            "index", [](const PyDistribution& d) { return d.dist.index(); },
            "This process's index in the group, -1 if not a member.")
        .def_readonly("dtype", &PyDistribution::dtype, "The NumPy dtype of the elements.")
        .def("block", &block_of, py::arg("layout"), py::arg("index") = py::none(),
             "The block of the calling process (or of group member `index`).")
        .def(
            "empty",
            [](const PyDistribution& d, const Layout& l, std::optional<int> count) {
                return new_blocks(d, l, count, false);
            },
            py::arg("layout"), py::arg("count") = py::none(),
            "A NumPy array shaped and strided for this process's block (overlap included), "
            "or a list of `count` of them (a ring).")
        .def(
            "zeros",
            [](const PyDistribution& d, const Layout& l, std::optional<int> count) {
                return new_blocks(d, l, count, true);
            },
            py::arg("layout"), py::arg("count") = py::none(), "As empty(), zero-filled.");
}

} // namespace

BlockInfo block_of(const PyDistribution& d, const Layout& layout, std::optional<int> index) {
    if (!d.dist.has_boxes()) return index ? d.dist.block(layout, *index) : d.dist.block(layout);
    BlockInfo b;
    b.index = member(d, index);
    const Index cells = d.dist.cells(b.index);
    b.local_extent = {cells};
    b.strides = {1};
    b.bytes = cells * static_cast<Index>(d.dtype.itemsize());
    return b;
}

void bind_objects(py::module_& m) {
    m.def("init", &init, "dri's init (MPI must be initialized: see dri.Session).");
    m.def("finalize", &finalize, "Releases every dri object's MPI resources.");
    m.def("initialized", &initialized, "True between dri.init() and dri.finalize().");
    bind_enums(m);
    bind_global_data(m);
    bind_partition(m);
    bind_group(m);
    bind_layout(m);
    bind_block_info(m);
    bind_distribution(m);
}

} // namespace dri::python
