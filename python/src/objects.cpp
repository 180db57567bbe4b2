// The objects of a reorganization: global data, partitions, groups, layouts,
// distributions and their block information, plus dri's init/finalize.
#include "binding.hpp"

#include <pybind11/stl.h>

namespace dri::python {

namespace {

void bind_enums(py::module_& m) {
    py::enum_<Type>(m, "Type", "Element types (DRI_INT8 ... DRI_BYTE).")
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
    py::enum_<Edge>(m, "Edge", "What overlap past the global bounds holds (DRI_EDGE_*).")
        .value("TRUNCATE", Edge::truncate)
        .value("ZERO", Edge::zero)
        .value("REPLICATE", Edge::replicate)
        .value("WRAP", Edge::wrap);
    py::enum_<Strategy> strategy(m, "Strategy", "How a transfer moves data (DRI_STRATEGY_*).");
    strategy.value("AUTO", Strategy::automatic)
        .value("ALLTOALLW", Strategy::alltoallw)
        .value("PACKED", Strategy::packed)
        .value("P2P", Strategy::p2p)
        .value("MEASURE", Strategy::measure)
        .value("SHARED", Strategy::shared)
        .value("HYBRID", Strategy::hybrid);
}

void bind_global_data(py::module_& m) {
    py::class_<PyGlobalData>(m, "GlobalData", "Shape and element type of the whole array.")
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
            py::arg("extents"), py::arg("record_bytes"))
        .def_property_readonly("ndims", [](const PyGlobalData& g) { return g.data.ndims(); })
        .def_property_readonly(
            "extents", [](const PyGlobalData& g) { return py::tuple(py::cast(g.data.extents())); })
        .def_property_readonly("elem_size",
                               [](const PyGlobalData& g) { return g.data.elem_size(); })
        .def_readonly("dtype", &PyGlobalData::dtype);
}

void bind_partition(py::module_& m) {
    py::class_<DimPart>(m, "DimPart", "The partition of one dimension.")
        .def_static("whole", &DimPart::whole)
        .def_static("block", &DimPart::block, py::arg("nprocs") = 0)
        .def_static("block4", &DimPart::block4, py::arg("left"), py::arg("min_block"),
                    py::arg("max_block"), py::arg("right"), py::arg("edge") = Edge::truncate)
        .def_static("cyclic", &DimPart::cyclic, py::arg("block_size"), py::arg("nprocs") = 0)
        .def_static("ranges", &DimPart::explicit_ranges, py::arg("ranges"),
                    "One inclusive (first, last) range per process coordinate.")
        .def("overlap", &DimPart::overlap, py::arg("left"), py::arg("right"),
             py::arg("edge") = Edge::truncate, py::return_value_policy::reference_internal)
        .def_readwrite("left", &DimPart::left)
        .def_readwrite("right", &DimPart::right)
        .def_readwrite("min_block", &DimPart::min_block)
        .def_readwrite("max_block", &DimPart::max_block)
        .def_readwrite("block_size", &DimPart::block_size)
        .def_readwrite("nprocs", &DimPart::nprocs)
        .def_readwrite("edge", &DimPart::edge);
    py::class_<Partition>(m, "Partition",
                          "Per-dimension partition: a list of DimPart or the text notation.")
        .def(py::init([](const std::string& spec) { return Partition::parse(spec); }),
             py::arg("spec"))
        .def(py::init<std::vector<DimPart>>(), py::arg("dims"))
        .def_property_readonly("ndims", &Partition::ndims);
}

// A rank list names processes of COMM_WORLD; anything else is a communicator.
PyGroup make_group(py::handle comm, std::optional<std::vector<int>> ranks) {
    const Comm c = to_comm(comm);
    Group g = ranks ? Group(c.handle, *ranks) : Group(c.handle);
    return PyGroup{std::move(g), c.owner};
}

void bind_group(py::module_& m) {
    py::class_<PyGroup>(m, "Group", "An ordered set of processes of a parent communicator.")
        .def(py::init(&make_group), py::arg("comm") = Comm{MPI_COMM_WORLD, py::none()},
             py::arg("ranks") = py::none())
        .def_property_readonly("size", [](const PyGroup& g) { return g.group.size(); })
        .def_property_readonly("index", [](const PyGroup& g) { return g.group.index(); })
        .def_property_readonly("contains_me",
                               [](const PyGroup& g) { return g.group.contains_me(); })
        .def_property_readonly("ranks", [](const PyGroup& g) { return g.group.ranks(); });
}

void bind_layout(py::module_& m) {
    py::class_<Layout>(m, "Layout", "How one process stores its block.")
        .def_static("packed", &Layout::packed, py::arg("ndims"), "Row-major packed.")
        .def_static("ordered", &Layout::ordered, py::arg("order"),
                    py::arg("pad") = std::vector<Index>{},
                    "Dimensions slowest first ([1, 0]: dimension 0 contiguous), optional padding.")
        .def_static("strided", &Layout::strided, py::arg("strides"), "Element strides.")
        .def_property_readonly("ndims", &Layout::ndims);
}

void bind_block_info(py::module_& m) {
    py::class_<BlockInfo>(m, "BlockInfo", "One process's block under a layout.")
        .def_readonly("index", &BlockInfo::index)
        .def_readonly("coords", &BlockInfo::coords)
        .def_readonly("owned_first", &BlockInfo::owned_first)
        .def_readonly("owned_last", &BlockInfo::owned_last)
        .def_readonly("owned_count", &BlockInfo::owned_count)
        .def_readonly("stored_first", &BlockInfo::stored_first)
        .def_readonly("stored_last", &BlockInfo::stored_last)
        .def_readonly("segments", &BlockInfo::segments)
        .def_readonly("local_extent", &BlockInfo::local_extent)
        .def_readonly("strides", &BlockInfo::strides)
        .def_readonly("bytes", &BlockInfo::bytes)
        .def_property_readonly(
            "shape", [](const BlockInfo& b) { return py::tuple(py::cast(b.local_extent)); })
        .def_property_readonly("elements", &BlockInfo::elements)
        .def("__repr__", [](const BlockInfo& b) {
            return "<dri.BlockInfo index=" + std::to_string(b.index) +
                   " shape=" + py::str(py::tuple(py::cast(b.local_extent))).cast<std::string>() +
                   " bytes=" + std::to_string(b.bytes) + ">";
        });
}

PyDistribution distribute(const PyGlobalData& gdo, py::handle part, const PyGroup& g) {
    if (py::isinstance<py::str>(part)) {
        const Partition p = Partition::parse(part.cast<std::string>());
        return PyDistribution{Distribution(gdo.data, p, g.group), gdo.dtype, g.comm_owner};
    }
    return PyDistribution{Distribution(gdo.data, part.cast<const Partition&>(), g.group), gdo.dtype,
                          g.comm_owner};
}

// The group argument of a distribution: a Group, a communicator (all its
// processes) or a list of COMM_WORLD ranks.
PyDistribution make_distribution(const PyGlobalData& gdo, py::handle part, py::handle group) {
    if (py::isinstance<PyGroup>(group)) return distribute(gdo, part, group.cast<const PyGroup&>());
    if (py::isinstance<py::sequence>(group) && !py::isinstance<py::str>(group)) {
        const Comm world{MPI_COMM_WORLD, py::none()};
        return distribute(gdo, part, make_group(py::cast(world), group.cast<std::vector<int>>()));
    }
    return distribute(gdo, part, make_group(group, std::nullopt));
}

BlockInfo block_of(const PyDistribution& d, const Layout& layout, std::optional<int> index) {
    return index ? d.dist.block(layout, *index) : d.dist.block(layout);
}

// count None: one array; else a list of count arrays (a ring).
py::object new_blocks(const PyDistribution& d, const Layout& layout, std::optional<int> count,
                      bool zero) {
    const BlockInfo b = d.dist.block(layout);
    if (!count) return block_array(b, d.dtype, zero);
    if (*count < 1) throw Error(Errc::buffer_count, "count must be at least 1");
    py::list ring;
    for (int k = 0; k < *count; ++k)
        ring.append(block_array(b, d.dtype, zero));
    return ring;
}

void bind_distribution(py::module_& m) {
    py::class_<PyDistribution>(m, "Distribution",
                               "Global data + partition + group; collective over the group.")
        .def(py::init(&make_distribution), py::arg("data"), py::arg("partition"),
             py::arg("group") = Comm{MPI_COMM_WORLD, py::none()},
             "partition: a Partition or its text notation; group: a Group, a communicator "
             "(all its processes) or a list of COMM_WORLD ranks.")
        .def_property_readonly("grid", [](const PyDistribution& d) { return d.dist.grid(); })
        .def_property_readonly("size", [](const PyDistribution& d) { return d.dist.size(); })
        .def_property_readonly("index", [](const PyDistribution& d) { return d.dist.index(); })
        .def_readonly("dtype", &PyDistribution::dtype)
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

void bind_objects(py::module_& m) {
    m.def("init", &init, "dri's init (MPI must be initialized: see dri.Session).");
    m.def("finalize", &finalize, "Releases every dri object's MPI resources.");
    m.def("initialized", &initialized);
    bind_enums(m);
    bind_global_data(m);
    bind_partition(m);
    bind_group(m);
    bind_layout(m);
    bind_block_info(m);
    bind_distribution(m);
}

} // namespace dri::python
