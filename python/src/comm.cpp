// Communicators from Python: dri.COMM_WORLD / dri.COMM_SELF, or an
// mpi4py.MPI.Comm when mpi4py runs on the same MPI library as this module.
// Also MPI's own initialization, which Python programs leave to dri.Session.
#include "binding.hpp"

#include <cctype>
#include <climits>

namespace dri::python {

namespace {

bool mpi_initialized() {
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
}

bool g_mpi_ours = false; // MPI_Init_thread was called by this module

void require_mpi() {
    if (!mpi_initialized())
        throw Error(Errc::not_initialized,
                    "MPI is not initialized: use dri.Session() or dri.init()");
}

void check_mpi(int rc, const char* call) {
    if (rc != MPI_SUCCESS) throw Error(Errc::mpi, std::string(call) + " failed");
}

std::string first_line(const std::string& s) {
    return s.substr(0, s.find('\n'));
}

// A library version as text: some MPIs count the terminating NUL (or
// newlines) in the length they return.
std::string trimmed(std::string s) {
    s = s.substr(0, s.find('\0'));
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
    return s;
}

// The handle inside an mpi4py communicator, refused (DRI_ERR_ARG) when
// mpi4py's MPI library is not this module's: the handle would be another
// library's object and MPI would crash on it.
MPI_Comm from_mpi4py(py::handle obj) {
    const py::module_ mpi = py::module_::import("mpi4py.MPI");
    const std::string theirs = trimmed(mpi.attr("Get_library_version")().cast<std::string>());
    const std::string ours = mpi_library_version();
    if (theirs != ours)
        throw Error(Errc::arg, "mpi4py communicator from another MPI library: mpi4py runs on \"" +
                                   first_line(theirs) + "\", dri on \"" + first_line(ours) +
                                   "\"; use dri.COMM_WORLD or an mpi4py built on dri's MPI");
    const auto address = mpi.attr("_addressof")(obj).cast<std::uintptr_t>();
    return *reinterpret_cast<const MPI_Comm*>(address);
}

// mpi4py.MPI loaded beside dri on another MPI library runs as a singleton:
// its MPI.COMM_WORLD has one process in every process and nothing fails, so
// code built on mpi4py computes the whole problem on every rank. Warned
// once, at the first use of a communicator after mpi4py.MPI appeared (mpi4py
// imported before dri is refused at import: dri/_interop.py).
void check_mpi4py() {
    static bool settled = false;
    if (settled) return;
    if (!py::module_::import("sys").attr("modules").contains("mpi4py.MPI")) return;
    settled = true; // before warning: a warning turned into an error is raised once too
    py::module_::import("dri._interop").attr("warn_if_foreign_mpi4py")(mpi_library_version());
}

bool is_mpi4py_comm(py::handle obj) {
    const py::object module = py::type::handle_of(obj).attr("__module__");
    if (!py::isinstance<py::str>(module) || module.cast<std::string>() != "mpi4py.MPI")
        return false;
    return py::isinstance(obj, py::module_::import("mpi4py.MPI").attr("Comm"));
}

double allreduce(const Comm& c, double value, const std::string& op) {
    require_mpi();
    check_mpi4py();
    MPI_Op mpi_op = MPI_SUM;
    if (op == "max")
        mpi_op = MPI_MAX;
    else if (op == "min")
        mpi_op = MPI_MIN;
    else if (op != "sum")
        throw Error(Errc::arg,
                    "allreduce: op must be \"sum\", \"max\" or \"min\", not \"" + op + "\"");
    double out = 0;
    check_mpi(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, mpi_op, c.handle), "MPI_Allreduce");
    return out;
}

int comm_query(const Comm& c, int (*query)(MPI_Comm, int*)) {
    require_mpi();
    check_mpi4py();
    int v = 0;
    check_mpi(query(c.handle, &v), "MPI_Comm_rank/size");
    return v;
}

} // namespace

std::string mpi_library_version() {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(version, &len);
    return trimmed(std::string(version, static_cast<std::size_t>(len)));
}

Comm to_comm(py::handle obj) {
    check_mpi4py();
    if (py::isinstance<Comm>(obj)) return obj.cast<Comm>();
    if (is_mpi4py_comm(obj)) return Comm{from_mpi4py(obj), py::reinterpret_borrow<py::object>(obj)};
    throw Error(Errc::arg,
                "expected a communicator (dri.COMM_WORLD, dri.COMM_SELF or an "
                "mpi4py.MPI.Comm), got " +
                    py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>());
}

void agree(MPI_Comm comm, const std::optional<Error>& mine) {
    int me = 0, first = INT_MAX;
    long long head[2] = {mine ? static_cast<long long>(mine->code()) : 0,
                         mine ? static_cast<long long>(std::string(mine->what()).size()) : 0};
    std::string message;
    {
        py::gil_scoped_release release;
        check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
        if (mine) first = me;
        check_mpi(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
        if (first == INT_MAX) return;
        check_mpi(MPI_Bcast(head, 2, MPI_LONG_LONG, first, comm), "MPI_Bcast");
        message = me == first ? std::string(mine->what())
                              : std::string(static_cast<std::size_t>(head[1]), ' ');
        check_mpi(MPI_Bcast(message.data(), static_cast<int>(head[1]), MPI_CHAR, first, comm),
                  "MPI_Bcast");
    }
    throw Error(static_cast<Errc>(head[0]), "rank " + std::to_string(first) + ": " + message);
}

void bind_comm(py::module_& m) {
    py::class_<Comm>(m, "Comm",
                     "An MPI communicator of the MPI library dri runs on: dri.COMM_WORLD or\n"
                     "dri.COMM_SELF. Wherever dri takes a communicator it also takes an\n"
                     "mpi4py.MPI.Comm built on that same library (dri.mpi4py_compatible()).")
        .def_property_readonly(
            "rank", [](const Comm& c) { return comm_query(c, MPI_Comm_rank); },
            "This process's rank in the communicator (MPI_Comm_rank).")
        .def_property_readonly(
            "size", [](const Comm& c) { return comm_query(c, MPI_Comm_size); },
            "The number of processes of the communicator (MPI_Comm_size).")
        .def(
            "barrier",
            [](const Comm& c) {
                require_mpi();
                check_mpi(MPI_Barrier(c.handle), "MPI_Barrier");
            },
            py::call_guard<py::gil_scoped_release>(),
            "MPI_Barrier over the communicator (collective).")
        .def("allreduce", &allreduce, py::arg("value"), py::arg("op") = "sum",
             "Sum, max or min (op \"sum\", \"max\", \"min\") of one float over the\n"
             "communicator, returned on every process (collective). For examples and\n"
             "checks, not for data: data moves with a dri.Transfer.")
        .def("__repr__", [](const Comm& c) {
            if (c.handle == MPI_COMM_WORLD) return std::string("dri.COMM_WORLD");
            if (c.handle == MPI_COMM_SELF) return std::string("dri.COMM_SELF");
            return std::string("<dri.Comm>");
        });
    m.attr("COMM_WORLD") = Comm{MPI_COMM_WORLD, py::none()};
    m.attr("COMM_SELF") = Comm{MPI_COMM_SELF, py::none()};

    m.def("_mpi_init", [] {
        if (mpi_initialized()) return;
        int provided = 0;
        check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided),
                  "MPI_Init_thread");
        g_mpi_ours = true;
    });
    m.def("_mpi_finalize", [] {
        if (g_mpi_ours && mpi_initialized()) MPI_Finalize();
        g_mpi_ours = false;
    });
    m.def("_mpi_initialized", &mpi_initialized);
    // Ends every process of the job (python -m dri): the others may be
    // waiting for this one in a collective call. Without MPI there is no
    // job to end, and the caller exits alone.
    m.def("_mpi_abort", [](int code) {
        if (mpi_initialized()) MPI_Abort(MPI_COMM_WORLD, code);
    });
    m.def("_check_mpi4py", &check_mpi4py);
    m.def("mpi_library_version", &mpi_library_version,
          "MPI_Get_library_version of the MPI library dri runs on (the whole text,\n"
          "several lines for some libraries). An mpi4py on the same library returns\n"
          "the same from mpi4py.MPI.Get_library_version().");
    m.def("_to_comm", [](py::handle obj) { return to_comm(obj); });
}

} // namespace dri::python
