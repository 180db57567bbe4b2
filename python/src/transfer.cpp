// dri.Transfer: a named reorganization over rings of NumPy arrays used in
// place. The transfer holds its arrays (and through them their memory) until
// it is closed: dri reads and writes them at every execute(). Also its
// reverse (dri.Combine), the one-call corner turn and dri.commit.
#include "binding.hpp"

#include <pybind11/stl.h>

#include <optional>
#include <string>

namespace dri::python {

namespace {

// Passed to the C++ reverse by a process that refuses it (a read-only array
// it would write into): the reverse's own agreement then fails on every
// process at once, before any of them plans or waits for the others. The
// Python enum dri.Combine cannot produce this value, so the refusal is
// recognised on the other processes by it.
constexpr int refused_op = -1;
const std::string refused_op_text = "unknown combine operation " + std::to_string(refused_op);

class PyTransfer {
  public:
    explicit PyTransfer(std::string name) : t_(Transfer(std::move(name))) {}
    // A transfer made whole by the library (a reverse, a corner turn) over
    // rings already checked.
    PyTransfer(Transfer t, py::tuple send, py::tuple recv, py::object send_comm,
               py::object recv_comm)
        : t_(std::move(t)), send_arrays_(std::move(send)), recv_arrays_(std::move(recv)),
          send_comm_(std::move(send_comm)), recv_comm_(std::move(recv_comm)) {}
    PyTransfer(PyTransfer&&) = default;
    PyTransfer& operator=(PyTransfer&&) = default;
    // The C++ transfer first, as close() does: its release may complete a
    // reorganization in flight, into arrays that must still be alive (and
    // whose memory NumPy, or dri.shared_arrays' cache, would hand out again).
    ~PyTransfer() { t_.reset(); }

    Transfer& get() {
        if (!t_) throw Error(Errc::handle, "the transfer was closed");
        return *t_;
    }

    // Checks every array, declares the role, and only then keeps the arrays:
    // a refused declaration leaves the transfer as it was.
    void declare(bool send, const PyDistribution& d, const Layout& layout, py::handle arrays) {
        Transfer& t = get();
        const std::string role = send ? "send" : "recv";
        const py::tuple ring = ring_of(arrays, role + " buffers");
        const BlockInfo b = block_of(d, layout, std::nullopt);
        std::vector<std::span<std::byte>> spans;
        for (std::size_t k = 0; k < ring.size(); ++k)
            spans.push_back(
                block_bytes(ring[k], b, d.dtype, !send, role + " buffer " + std::to_string(k)));
        const std::span<const std::span<std::byte>> bytes(spans);
        if (send)
            t.send(d.dist, layout, bytes);
        else
            t.recv(d.dist, layout, bytes);
        (send ? send_arrays_ : recv_arrays_) = ring;
        (send ? send_comm_ : recv_comm_) = d.comm_owner;
    }

    // The reverse writes into this transfer's send arrays, which send() took
    // read-only: each must be writable now. Collective (see refused_op).
    PyTransfer reverse(Combine op) {
        Transfer& t = get();
        std::optional<Error> mine;
        for (std::size_t k = 0; k < send_arrays_.size() && !mine; ++k)
            if (!send_arrays_[k].cast<py::array>().writeable())
                mine = Error(Errc::buffer,
                             "send buffer " + std::to_string(k) + " of transfer '" + t.name() +
                                 "' is read-only, and its reverse writes into the send buffers");
        try {
            py::gil_scoped_release release;
            Transfer r = t.reverse(mine ? static_cast<Combine>(refused_op) : op);
            py::gil_scoped_acquire acquire;
            return PyTransfer(std::move(r), recv_arrays_, send_arrays_, recv_comm_, send_comm_);
        } catch (const Error& e) {
            if (mine) throw *mine;
            const std::string what = e.what();
            const auto at = what.find("transfer '");
            if (e.code() == Errc::arg && what.find(refused_op_text) != std::string::npos)
                throw Error(Errc::buffer, what.substr(0, at) + "a send buffer of transfer '" +
                                              t.name() +
                                              "' is read-only there, and the reverse writes "
                                              "into the send buffers");
            throw;
        }
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

// dri::corner_turn_blocks as a pair (send, recv) with names.
struct CornerTurnPair {
    BlockInfo send, recv;
};

CornerTurnPair corner_turn_pair(const Comm& c, Index nrows, Index ncols, Type type) {
    py::gil_scoped_release release;
    CornerTurnBlocks b = corner_turn_blocks(c.handle, nrows, ncols, type);
    return {std::move(b.send), std::move(b.recv)};
}

// The arrays are checked against the blocks, which only the first collective
// (corner_turn_blocks) gives; agree() makes a refusal on one process a
// refusal on all of them before the second (corner_turn).
PyTransfer corner_turn_py(py::handle comm, Index nrows, Index ncols, py::handle dtype,
                          py::handle send, py::handle recv) {
    const Comm c = to_comm(comm);
    const Type type = element_type(dtype, "dri.corner_turn");
    const py::dtype dt = dtype_of(type);
    const CornerTurnPair blocks = corner_turn_pair(c, nrows, ncols, type);
    std::optional<Error> mine;
    py::tuple send_ring, recv_ring;
    std::vector<std::span<std::byte>> send_spans, recv_spans;
    try {
        send_ring = ring_of(send, "send buffers");
        recv_ring = ring_of(recv, "recv buffers");
        for (std::size_t k = 0; k < send_ring.size(); ++k)
            send_spans.push_back(block_bytes(send_ring[k], blocks.send, dt, false,
                                             "send buffer " + std::to_string(k)));
        for (std::size_t k = 0; k < recv_ring.size(); ++k)
            recv_spans.push_back(block_bytes(recv_ring[k], blocks.recv, dt, true,
                                             "recv buffer " + std::to_string(k)));
    } catch (const Error& e) {
        mine = e;
    }
    agree(c.handle, mine);
    py::gil_scoped_release release;
    Transfer t =
        corner_turn(c.handle, nrows, ncols, type, std::span<const std::span<std::byte>>(send_spans),
                    std::span<const std::span<std::byte>>(recv_spans));
    py::gil_scoped_acquire acquire;
    return PyTransfer(std::move(t), send_ring, recv_ring, c.owner, c.owner);
}

using Release = py::call_guard<py::gil_scoped_release>;

// Transfer.pieces: the three C++ overloads as one method (the split by
// count, by explicit bounds, and the query), so that a wrong combination of
// arguments is a dri.Error saying which rather than pybind11's TypeError
// listing overloads.
py::object pieces(PyTransfer& t, Role role, std::optional<int> dim, std::optional<int> count,
                  std::optional<std::vector<Index>> bounds) {
    Transfer& x = t.get();
    if (!dim && !count && !bounds) {
        const auto [d, c] = x.pieces(role);
        return py::make_tuple(d, c);
    }
    if (!dim)
        throw Error(Errc::arg, "pieces: a split needs its dimension: pieces(role, dim, count) or "
                               "pieces(role, dim, bounds=[...])");
    if (count && bounds) throw Error(Errc::arg, "pieces: give count or bounds, not both");
    if (!count && !bounds)
        throw Error(Errc::arg,
                    "pieces: dimension " + std::to_string(*dim) + " given without count or bounds");
    if (count)
        x.pieces(role, *dim, *count);
    else
        x.pieces(role, *dim, std::span<const Index>(*bounds));
    return py::none();
}

} // namespace

void bind_transfer(py::module_& m) {
    py::enum_<Combine>(m, "Combine",
                       "How a reverse transfer combines the copies of one sender element\n"
                       "(DRI_COMBINE_*): SUM adds every receiver's copy (the adjoint of the\n"
                       "forward transfer), MAX and MIN keep the largest and smallest, REPLACE\n"
                       "takes the owner's copy (not with several receiving sides). Records and\n"
                       "bytes allow REPLACE only, complex numbers SUM and REPLACE. Also how a\n"
                       "receiver combines arriving elements (Transfer.recv's combine=).")
        .value("SUM", Combine::sum)
        .value("MAX", Combine::max)
        .value("MIN", Combine::min)
        .value("REPLACE", Combine::replace);

    py::enum_<Role>(m, "Role",
                    "Which side of a transfer on this process (DRI_ROLE_*): SEND, the\n"
                    "block read from the send buffers, or RECV, the block written into the\n"
                    "receive buffers. Names the side Transfer.pieces() and piece() split.")
        .value("SEND", Role::send)
        .value("RECV", Role::recv);
    // The limit of Transfer.pieces' count, as in C.
    m.attr("MAX_PIECES") = DRI_MAX_PIECES;

    py::class_<PyTransfer>(
        m, "Transfer",
        "A named, planned reorganization between rings of NumPy arrays.\n\n"
        "    t = dri.Transfer(\"turn\")        # the same name on every process\n"
        "    t.send(by_rows, layout, src)    # src: a list or tuple of arrays\n"
        "    t.recv(by_cols, layout, dst)\n"
        "    t.commit()                      # collective: plan once\n"
        "    t.send_buffers[k][...] = x      # fill in place, never replace\n"
        "    t.execute()                     # both rings advance by one\n\n"
        "The arrays are used in place and held until close(). Senders and\n"
        "receivers of one name may be different processes; several receiving\n"
        "groups under one name (a fan-out) each get every element they ask for.\n"
        "A context manager: closes at the end of the block.")
        .def(py::init<std::string>(), py::arg("name"),
             "A transfer named `name`: the name matches the sending and receiving\n"
             "sides across processes at commit.")
        .def(
            "send",
            [](PyTransfer& t, const PyDistribution& d, const Layout& l, py::handle arrays) {
                t.declare(true, d, l, arrays);
            },
            py::arg("dist"), py::arg("layout"), py::arg("buffers"),
            "Declare this process's sender role: its block of `dist`, stored as\n"
            "`layout`, in a ring of arrays (a list or tuple; execute() uses them in\n"
            "turn). Each array must have the block's shape, strides and dtype\n"
            "(dist.empty(layout, n) allocates them); a wrong one is a dri.Error and\n"
            "nothing is declared. Send arrays are only read (a reverse writes them).")
        .def(
            "recv",
            [](PyTransfer& t, const PyDistribution& d, const Layout& l, py::handle arrays,
               Combine combine) {
                t.declare(false, d, l, arrays);
                t.get().combine(combine);
            },
            py::arg("dist"), py::arg("layout"), py::arg("buffers"),
            py::arg("combine") = Combine::replace,
            "Declare this process's receiver role, as send() but over writable arrays.\n"
            "`combine` (a dri.Combine): SUM, MAX or MIN combine each arriving element\n"
            "into the cell it lands in (C := A' + C with SUM) instead of storing it\n"
            "(REPLACE, the default); see combine().")
        .def(
            "combine", [](PyTransfer& t, Combine op) { t.get().combine(op); }, py::arg("op"),
            "Before commit, on a receiving process: how arriving elements meet the\n"
            "receive array's cells (a dri.Combine; DRI_Transfer_set_combine). Every\n"
            "process of a receiving side passes the same op; zero-padded edge cells\n"
            "combine the value 0. Records and bytes allow REPLACE only, complex\n"
            "numbers SUM and REPLACE (dri.Error ERR_TYPE at commit).")
        .def(
            "strategy", [](PyTransfer& t, Strategy s) { t.get().strategy(s); }, py::arg("strategy"),
            "Request a dri.Strategy before commit (default AUTO: the library picks).")
        .def(
            "learning", [](PyTransfer& t, Learning mode) { t.get().learning(mode); },
            py::arg("mode"),
            "Before commit: how much AUTO learns (a dri.Learning; default\n"
            "DRI_AUTO_LEARNING, else ON). Processes that ask differently get the\n"
            "least any asked.")
        .def(
            "freeze", [](PyTransfer& t, bool frozen) { t.get().freeze(frozen); },
            py::arg("frozen") = true, Release(),
            "Committed, between reorganizations, collective over the transfer's\n"
            "processes: stop exploring and keep the fastest route so far (True), or\n"
            "resume (False). Any process that freezes freezes all.")
        .def(
            "routes",
            [](PyTransfer& t) {
                py::list out;
                for (const dri::Route& r : t.get().routes())
                    out.append(py::make_tuple(r.strategy, r.seconds));
                return out;
            },
            "Committed: the routes held, [(dri.Strategy, seconds)], the static\n"
            "rule's first; seconds is the slowest process's median in the last\n"
            "decision that timed the route (-1: never timed).")
        .def(
            "learning_state",
            [](PyTransfer& t) {
                const dri::LearningState s = t.get().learning_state();
                py::dict d;
                d["state"] = s.state;
                d["calls"] = s.calls;
                d["explored"] = s.explored;
                d["switches"] = s.switches;
                return d;
            },
            "Committed: {'state': dri.RouteState, 'calls', 'explored', 'switches'}:\n"
            "the reorganizations completed while learning was possible, those spent\n"
            "exploring, and the changes of route since learning ended.")
        .def(
            "learned_file",
            [](PyTransfer& t, std::optional<std::string> path) {
                t.get().learned_file(path.value_or(""));
            },
            py::arg("path"),
            "Before commit: the learned file AUTO starts from (None: none, whatever\n"
            "DRI_AUTO_LEARNED says). A missing, damaged or foreign file is ignored\n"
            "with a warning.")
        .def(
            "save_learned",
            [](PyTransfer& t, const std::string& path) { t.get().save_learned(path); },
            py::arg("path"), Release(),
            "Committed, between reorganizations, collective as freeze(): write what\n"
            "the transfer learned to the file at `path`, keeping other transfers'\n"
            "entries.")
        .def(
            "learned_seeded", [](PyTransfer& t) { return t.get().learned_seeded(); },
            "Committed: whether the transfer started from a learned file.")
        .def("pieces", &pieces, py::arg("role"), py::arg("dim") = py::none(),
             py::arg("count") = py::none(), py::kw_only(), py::arg("bounds") = py::none(),
             "Split this process's block of `role` (a dri.Role) into pieces along\n"
             "dimension `dim` of the global array, so that a frame moves piece by\n"
             "piece (ready(), arrived(), wait_piece()). After send()/recv(), before\n"
             "commit. pieces(role, dim, count): `count` even pieces (1 to\n"
             "dri.MAX_PIECES); pieces(role, dim, bounds=[0, ..., extent]): piece k\n"
             "holds the local indices [bounds[k], bounds[k + 1]) along `dim`.\n"
             "Every process of a side splits along the same dim into the same count\n"
             "(ERR_INCONSISTENT at commit); the two sides choose independently.\n"
             "pieces(role) returns (dim, count): (-1, 1) when not split.")
        .def(
            "piece",
            [](PyTransfer& t, Role role, int k) {
                const auto [lo, hi] = t.get().piece(role, k);
                return py::make_tuple(lo, hi);
            },
            py::arg("role"), py::arg("k"),
            "Piece k of `role` on this process: (lo, hi), its local indices\n"
            "[lo, hi) along the split dimension of the block array, every index of\n"
            "the others. ERR_ARG for k outside [0, count).")
        .def(
            "ready", [](PyTransfer& t, int k) { t.get().ready(k); }, py::arg("k"), Release(),
            "Producer, after start(): piece k of the send array in flight is\n"
            "written and may leave. Each piece exactly once per frame, in any order;\n"
            "it must not be written again until the frame completes. ERR_STATE\n"
            "outside a started frame, on a send side never split (start() marked\n"
            "its one piece) or for a piece already marked, ERR_ARG for k out of\n"
            "range. execute() marks every piece itself.")
        .def(
            "arrived", [](PyTransfer& t, int k) { return t.get().arrived(k); }, py::arg("k"),
            Release(),
            "Consumer, after start(): True once piece k of the receive array in\n"
            "flight has arrived (it may then be read, not written, until wait()).\n"
            "Does not block; progresses the frame as test() does.")
        .def(
            "wait_piece", [](PyTransfer& t, int k) { t.get().wait_piece(k); }, py::arg("k"),
            Release(),
            "Consumer, after start(): block until piece k of the receive array in\n"
            "flight has arrived. Mark first the send pieces it needs (on one thread:\n"
            "every one of them), else it waits forever. wait() still completes the\n"
            "frame.")
        .def(
            "commit", [](PyTransfer& t) { t.get().commit(); }, Release(),
            "Plan the transfer: collective over the parent communicator of its\n"
            "groups. dri.commit(comm, [t1, t2]) commits several at once.")
        .def(
            "execute", [](PyTransfer& t) { t.get().execute(); }, Release(),
            "One reorganization, from the current send array into the current\n"
            "receive array; then both sides advance to the next array of their ring.\n"
            "Marks every piece ready itself.")
        .def(
            "start", [](PyTransfer& t) { t.get().start(); },
            "Start one reorganization (as execute(), completed by wait() or test()).\n"
            "The arrays in flight must not be touched until then, but for the send\n"
            "pieces not yet marked by ready(); the other arrays may.")
        .def(
            "wait", [](PyTransfer& t) { t.get().wait(); }, Release(),
            "Complete the started reorganization; the rings advance. With a split\n"
            "send role: ERR_STATE, changing nothing, while a piece is not ready().")
        .def(
            "test", [](PyTransfer& t) { return t.get().test(); },
            "True when the started reorganization has completed (the rings then\n"
            "advance), False while it is in flight. ERR_STATE as wait().")
        .def("reverse", &PyTransfer::reverse, py::arg("op"),
             "The reverse of this committed transfer, committed: each execute()\n"
             "brings the receivers' arrays back into the senders' arrays and combines\n"
             "the copies of each element with `op` (a dri.Combine; SUM makes it the\n"
             "adjoint: <T x, y> = <x, T^T y>). It runs over this transfer's rings\n"
             "swapped (its send_buffers are this one's recv_buffers), with its own\n"
             "cursor; the two may not run on one array at once. Collective over the\n"
             "transfer's processes; the send arrays must be writable.")
        .def("close", &PyTransfer::close,
             "Destroy the transfer now (completing a reorganization in flight) and\n"
             "release its arrays. Later calls raise dri.Error (ERR_HANDLE).")
        .def(
            "__enter__", [](py::object self) { return self; }, "Returns the transfer.")
        .def(
            "__exit__", [](PyTransfer& t, py::args) { t.close(); }, "close().")
        .def_property_readonly(
            "committed", [](PyTransfer& t) { return t.get().committed(); },
            "True once commit() has planned the transfer.")
        .def_property_readonly(
            "name", [](PyTransfer& t) { return t.get().name(); }, "The transfer's name.")
        .def_property_readonly(
            "chosen_strategy", [](PyTransfer& t) { return t.get().chosen_strategy(); },
            "The dri.Strategy the next reorganization runs: what commit chose\n"
            "(AUTO and MEASURE resolve to one), or the route AUTO runs now.")
        .def_property_readonly(
            "current_send_buffer", [](PyTransfer& t) { return t.get().current_send_buffer(); },
            "Index in send_buffers of the array the next execute() sends (-1: no\n"
            "sender role here).")
        .def_property_readonly(
            "current_recv_buffer", [](PyTransfer& t) { return t.get().current_recv_buffer(); },
            "Index in recv_buffers of the array the next execute() fills (-1: no\n"
            "receiver role here).")
        .def_property_readonly(
            "send_buffers", &PyTransfer::send_arrays,
            "The send ring: a tuple of the arrays in use, so that no element can be\n"
            "replaced (dri would go on reading the old memory). Fill the next one in\n"
            "place: t.send_buffers[t.current_send_buffer][...] = x.")
        .def_property_readonly("recv_buffers", &PyTransfer::recv_arrays,
                               "The receive ring: a tuple of the arrays in use, read in place.");
    m.def("commit", &commit_all, py::arg("comm"), py::arg("transfers"),
          "Commit several transfers at once, collective over comm: every process\n"
          "passes the transfers it declared (those without a role pass []); names\n"
          "are matched across processes. On error every process raises and nothing\n"
          "is committed.");

    py::class_<CornerTurnPair>(m, "CornerTurnBlocks",
                               "This process's two blocks of dri.corner_turn: `send` (rows,\n"
                               "C order) and `recv` (columns, column-major). Unpacks as\n"
                               "send, recv = dri.corner_turn_blocks(...).")
        .def_readonly("send", &CornerTurnPair::send,
                      "The row block (dri.BlockInfo): send arrays are np.empty(b.shape, dtype).")
        .def_readonly("recv", &CornerTurnPair::recv,
                      "The column block (dri.BlockInfo): receive arrays are\n"
                      "np.empty(b.shape[::-1], dtype).T.")
        .def(
            "__iter__",
            [](const CornerTurnPair& p) { return py::iter(py::make_tuple(p.send, p.recv)); },
            "Iterates send, recv.");
    m.def(
        "corner_turn_blocks",
        [](py::handle comm, Index nrows, Index ncols, py::handle dtype) {
            return corner_turn_pair(to_comm(comm), nrows, ncols,
                                    element_type(dtype, "dri.corner_turn_blocks"));
        },
        py::arg("comm"), py::arg("nrows"), py::arg("ncols"), py::arg("dtype"),
        "The blocks of dri.corner_turn of an nrows x ncols matrix over every\n"
        "process of comm (a dri.CornerTurnBlocks: .send, .recv). Collective; an\n"
        "error is raised on every process or none. dtype: a dri.Type or a numeric\n"
        "NumPy dtype.");
    m.def("corner_turn", &corner_turn_py, py::arg("comm"), py::arg("nrows"), py::arg("ncols"),
          py::arg("dtype"), py::arg("send_buffers"), py::arg("recv_buffers"),
          "A committed dri.Transfer: the corner turn of an nrows x ncols matrix\n"
          "over every process of comm, from row blocks (rows contiguous) in\n"
          "send_buffers to column blocks (columns contiguous) in recv_buffers, two\n"
          "rings (lists or tuples) of the same count. Every process sends and\n"
          "receives. Collective; an error (a wrong array on one process included)\n"
          "is raised on every process.\n\n"
          "    send, recv = dri.corner_turn_blocks(dri.COMM_WORLD, n, m, np.float32)\n"
          "    src = [np.empty(send.shape, np.float32) for _ in range(2)]\n"
          "    dst = [np.empty(recv.shape[::-1], np.float32).T for _ in range(2)]\n"
          "    t = dri.corner_turn(dri.COMM_WORLD, n, m, np.float32, src, dst)");
}

} // namespace dri::python
