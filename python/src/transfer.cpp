// dri.Transfer: a named reorganization over rings of NumPy arrays used in
// place. The transfer holds its arrays (and through them their memory) until
// it is closed: dri reads and writes them at every execute().
#include "binding.hpp"

#include <pybind11/stl.h>

namespace dri::python {

namespace {

class PyTransfer {
  public:
    explicit PyTransfer(std::string name) : t_(Transfer(std::move(name))) {}

    Transfer& get() {
        if (!t_) throw Error(Errc::handle, "the transfer was closed");
        return *t_;
    }

    // Checks every array, declares the role, and only then keeps the arrays:
    // a refused declaration leaves the transfer as it was.
    void declare(bool send, const PyDistribution& d, const Layout& layout, py::sequence arrays) {
        Transfer& t = get();
        const BlockInfo b = d.dist.block(layout);
        std::vector<std::span<std::byte>> spans;
        const char* role = send ? "send" : "recv";
        for (std::size_t k = 0; k < arrays.size(); ++k)
            spans.push_back(block_bytes(arrays[k], b, d.dtype, !send,
                                        std::string(role) + " buffer " + std::to_string(k)));
        const std::span<const std::span<std::byte>> ring(spans);
        if (send)
            t.send(d.dist, layout, ring);
        else
            t.recv(d.dist, layout, ring);
        (send ? send_arrays_ : recv_arrays_) = py::tuple(arrays);
        (send ? send_comm_ : recv_comm_) = d.comm_owner;
    }

    // Destroys the C++ transfer (completing a reorganization in flight) and
    // lets go of the arrays.
    void close() {
        t_.reset();
        send_arrays_ = recv_arrays_ = py::tuple();
        send_comm_ = recv_comm_ = py::none();
    }

    py::tuple send_arrays() const { return send_arrays_; }
    py::tuple recv_arrays() const { return recv_arrays_; }

  private:
    std::optional<Transfer> t_;
    py::tuple send_arrays_, recv_arrays_;
    py::object send_comm_ = py::none(), recv_comm_ = py::none(); // borrowed parents
};

// Collective commit of several transfers over `comm` (dri::commit).
void commit_all(py::handle comm, const std::vector<PyTransfer*>& transfers) {
    const Comm c = to_comm(comm);
    std::vector<Transfer*> ts;
    for (PyTransfer* t : transfers)
        ts.push_back(&t->get());
    py::gil_scoped_release release;
    commit(c.handle, std::span<Transfer* const>(ts));
}

using Release = py::call_guard<py::gil_scoped_release>;

} // namespace

void bind_transfer(py::module_& m) {
    py::class_<PyTransfer>(m, "Transfer", "A named, planned reorganization.")
        .def(py::init<std::string>(), py::arg("name"))
        .def(
            "send",
            [](PyTransfer& t, const PyDistribution& d, const Layout& l, py::sequence arrays) {
                t.declare(true, d, l, arrays);
            },
            py::arg("dist"), py::arg("layout"), py::arg("buffers"),
            "Declare the sender role over a ring of arrays (each shaped as the block).")
        .def(
            "recv",
            [](PyTransfer& t, const PyDistribution& d, const Layout& l, py::sequence arrays) {
                t.declare(false, d, l, arrays);
            },
            py::arg("dist"), py::arg("layout"), py::arg("buffers"),
            "Declare the receiver role over a ring of writable arrays.")
        .def(
            "strategy", [](PyTransfer& t, Strategy s) { t.get().strategy(s); }, py::arg("strategy"),
            "Request a strategy before commit.")
        .def(
            "commit", [](PyTransfer& t) { t.get().commit(); }, Release(),
            "Collective over the parent communicator: plan once.")
        .def(
            "execute", [](PyTransfer& t) { t.get().execute(); }, Release(),
            "One reorganization; both sides advance to their next buffer.")
        .def(
            "start", [](PyTransfer& t) { t.get().start(); }, "Start one reorganization.")
        .def(
            "wait", [](PyTransfer& t) { t.get().wait(); }, Release(),
            "Complete the started reorganization.")
        .def(
            "test", [](PyTransfer& t) { return t.get().test(); },
            "True when the started reorganization has completed.")
        .def("close", &PyTransfer::close, "Destroy the transfer now and release its arrays.")
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](PyTransfer& t, py::args) { t.close(); })
        .def_property_readonly("committed", [](PyTransfer& t) { return t.get().committed(); })
        .def_property_readonly("name", [](PyTransfer& t) { return t.get().name(); })
        .def_property_readonly("chosen_strategy",
                               [](PyTransfer& t) { return t.get().chosen_strategy(); })
        .def_property_readonly("current_send_buffer",
                               [](PyTransfer& t) { return t.get().current_send_buffer(); })
        .def_property_readonly("current_recv_buffer",
                               [](PyTransfer& t) { return t.get().current_recv_buffer(); })
        .def_property_readonly("send_buffers", &PyTransfer::send_arrays)
        .def_property_readonly("recv_buffers", &PyTransfer::recv_arrays);
    m.def("commit", &commit_all, py::arg("comm"), py::arg("transfers"),
          "Commit several transfers at once, collective over comm (processes without a role "
          "pass []).");
}

} // namespace dri::python
