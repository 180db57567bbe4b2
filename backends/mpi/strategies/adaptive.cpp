#include "mpi/strategies/adaptive.hpp"

#include "mpi/runtime/handles.hpp"

#include <atomic>

namespace dri::detail {

namespace {

std::atomic<RouteTimeHook> time_hook{nullptr};
std::atomic<const core::LearnerConfig*> schedule_set{nullptr};

} // namespace

void set_route_time_hook(RouteTimeHook hook) {
    time_hook.store(hook);
}

void set_learning_schedule(const core::LearnerConfig* schedule) {
    schedule_set.store(schedule);
}

core::LearnerConfig learning_schedule() {
    const core::LearnerConfig* s = schedule_set.load();
    return s ? *s : core::LearnerConfig{};
}

AdaptiveExecutor::AdaptiveExecutor(std::vector<Route> routes, MPI_Comm comm,
                                   const core::LearnerConfig& cfg, FileIdentity id)
    : routes_(std::move(routes)), comm_(comm), learner_(cfg),
      local_(static_cast<std::size_t>(core::max_routes), -1),
      reduced_(static_cast<std::size_t>(core::max_routes), -1), id_(id) {}

AdaptiveExecutor::~AdaptiveExecutor() {
    release();
}

// The agreement started by the last exploring call, if any, is finished
// first: every process started it when that call completed, so this waits
// at most for the slowest process to complete the same call.
void AdaptiveExecutor::finish_agreement() {
    if (agreement_ == MPI_REQUEST_NULL) return;
    check_mpi(MPI_Wait(&agreement_, MPI_STATUS_IGNORE), "MPI_Wait");
    learner_.agreed(reduced_);
}

void AdaptiveExecutor::begin_frame() {
    finish_agreement();
    running_ = learner_.next();
    started_ = MPI_Wtime();
}

// The call's time on this process, from its start to its completion, as
// the user sees it (with whatever the caller did between start and wait).
void AdaptiveExecutor::end_frame() {
    double seconds = MPI_Wtime() - started_;
    if (const RouteTimeHook hook = time_hook.load())
        seconds = hook(routes_[static_cast<std::size_t>(running_)].kind, seconds);
    learner_.record(seconds);
    if (!learner_.agreement_due()) return;
    const std::span<const double> mine = learner_.local();
    std::copy(mine.begin(), mine.end(), local_.begin());
    check_mpi(MPI_Iallreduce(local_.data(), reduced_.data(), core::max_routes, MPI_DOUBLE, MPI_MAX,
                             comm_, &agreement_),
              "MPI_Iallreduce");
}

void AdaptiveExecutor::run(const std::byte* send, std::byte* recv) {
    begin_frame();
    routes_[static_cast<std::size_t>(running_)].exec->run(send, recv);
    end_frame();
}

void AdaptiveExecutor::start(const std::byte* send, std::byte* recv) {
    begin_frame();
    routes_[static_cast<std::size_t>(running_)].exec->start(send, recv);
}

void AdaptiveExecutor::wait() {
    routes_[static_cast<std::size_t>(running_)].exec->wait();
    end_frame();
}

bool AdaptiveExecutor::test() {
    if (!routes_[static_cast<std::size_t>(running_)].exec->test()) return false;
    end_frame();
    return true;
}

// Every route of a transfer with a split side moves pieces (the table's
// rows for it do); for one without, the route in flight answers.
bool AdaptiveExecutor::moves_pieces() const {
    return routes_[static_cast<std::size_t>(running_)].exec->moves_pieces();
}

void AdaptiveExecutor::piece_ready(int k) {
    routes_[static_cast<std::size_t>(running_)].exec->piece_ready(k);
}

bool AdaptiveExecutor::piece_arrived(int k, bool block) {
    return routes_[static_cast<std::size_t>(running_)].exec->piece_arrived(k, block);
}

// An agreement in flight is finished before the communicator goes: the
// other processes completed the same call and started it too.
void AdaptiveExecutor::release() noexcept {
    if (agreement_ != MPI_REQUEST_NULL && mpi_alive()) MPI_Wait(&agreement_, MPI_STATUS_IGNORE);
    agreement_ = MPI_REQUEST_NULL;
    for (Route& r : routes_)
        if (r.exec) r.exec->release();
    free_comm(comm_);
}

// After an MPI failure an agreement may never complete (a process may be
// gone): it is forgotten, not waited for. A non-blocking collective's
// request may not be freed or cancelled (the MPI standard forbids it), so
// it leaks, as the reorganization abandoned does.
void AdaptiveExecutor::abandon() noexcept {
    agreement_ = MPI_REQUEST_NULL;
    routes_[static_cast<std::size_t>(running_)].exec->abandon();
}

Strategy AdaptiveExecutor::current() const {
    return routes_[static_cast<std::size_t>(learner_.report().current)].kind;
}

std::vector<Strategy> AdaptiveExecutor::kinds() const {
    std::vector<Strategy> k;
    for (const Route& r : routes_)
        k.push_back(r.kind);
    return k;
}

void AdaptiveExecutor::freeze(bool on) {
    finish_agreement();
    int any = on ? 1 : 0;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, comm_), "MPI_Allreduce");
    learner_.freeze(any != 0);
}

} // namespace dri::detail
