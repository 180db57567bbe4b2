// Adaptive AUTO's executor: the routes (executors of different strategies)
// a transfer holds for one pair, of which each call runs one, as the
// learner (core/route_learner.hpp) decides from the times of the calls.
// The learner's agreements are non-blocking allreduces over a communicator
// of their own, started when an exploring call completes and finished when
// the next call starts (or at release), so a steady call has no collective
// and no allocation.
#pragma once

#include "core/route_learner.hpp"
#include "mpi/strategies/executor.hpp"
#include "mpi/strategy.hpp"

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace dri::detail {

struct Route {
    Strategy kind;
    std::unique_ptr<Executor> exec;
};

class AdaptiveExecutor final : public Executor {
  public:
    // What names the pair in a learned file (mpi/learned_file.hpp): its plan
    // on this process (core::plan_key), and the rank in the pair of the
    // first sending process, which every pair of a transfer shares and
    // which writes the file.
    struct FileIdentity {
        std::uint64_t plan_key = 0;
        int first_sender = 0;
    };
    // `comm`: the agreements' communicator over the pair (owned from now on).
    AdaptiveExecutor(std::vector<Route> routes, MPI_Comm comm, const core::LearnerConfig& cfg,
                     FileIdentity id);
    ~AdaptiveExecutor() override;

    void run(const std::byte* send, std::byte* recv) override;
    void start(const std::byte* send, std::byte* recv) override;
    void wait() override;
    bool test() override;
    bool moves_pieces() const override;
    void piece_ready(int k) override;
    bool piece_arrived(int k, bool block) override;
    void release() noexcept override;
    void abandon() noexcept override;

    // The route a call started now would run.
    Strategy current() const;
    std::vector<Strategy> kinds() const;
    core::RouteReport report() const { return learner_.report(); }
    // Collective over the pair, between reorganizations: stops exploring,
    // keeping the best route so far (true), or resumes (false). The
    // processes' requests are joined (any freeze freezes all).
    void freeze(bool on);
    // Before the first call, on every process alike: start from what a
    // learned file says (core::RouteLearner::seed).
    void seed(int current, std::span<const double> seconds) { learner_.seed(current, seconds); }
    const FileIdentity& file_identity() const { return id_; }
    MPI_Comm comm() const { return comm_; }

  private:
    void begin_frame();
    void end_frame();
    void finish_agreement();

    std::vector<Route> routes_;
    MPI_Comm comm_;
    core::RouteLearner learner_;
    int running_ = 0;    // the route of the reorganization in flight
    double started_ = 0; // when it started (MPI_Wtime)
    MPI_Request agreement_ = MPI_REQUEST_NULL;
    std::vector<double> local_, reduced_;
    FileIdentity id_;
};

// Tests only: replaces the time measured for each call of a route (a
// process may then see any route as the fastest); null restores the clock.
using RouteTimeHook = double (*)(Strategy route, double seconds);
void set_route_time_hook(RouteTimeHook hook);

// The learner's schedule (rounds, share, burst...) for transfers committed
// from now on; the routes and the mode come from each commit. Tests shorten
// it so that switches happen within a few calls; null restores the default.
void set_learning_schedule(const core::LearnerConfig* schedule);
core::LearnerConfig learning_schedule();

} // namespace dri::detail
