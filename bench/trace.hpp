// dri-bench --trace FILE: each timed rep of each method, on each rank, as
// one CSV row: the rep's time on that rank split around its MPI calls
// (dri-message-count times them), the rank's page faults and context
// switches over the rep, the kernel's compaction and transparent huge-page
// counters (/proc/vmstat) and the time the hypervisor gave this machine's
// CPUs to others (steal, /proc/stat), both of the whole machine, over it.
// Slow reps are explained by the columns that move with them
// (docs/bench.md).
#pragma once

#include <mpi.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

namespace dri::bench {

class Trace {
  public:
    // Collective over comm; rank 0 opens `path` ("": no trace) and writes
    // the header.
    Trace(const std::string& path, MPI_Comm comm);
    ~Trace();
    Trace(const Trace&) = delete;
    Trace& operator=(const Trace&) = delete;
    bool on() const { return on_; }

    // Around one timed call: begin() before the barrier that starts it,
    // start() right before the call, end() right after it; end() is
    // collective (rank 0 writes every rank's row).
    void begin();
    void start();
    void end(const std::string& method, int rep, double seconds);

  private:
    // minflt, nvcsw, nivcsw, the three of vmstat, steal (clock ticks)
    static constexpr int counters = 7;
    std::array<long long, counters> read_counters() const;

    bool on_ = false;
    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0, size_ = 1;
    std::FILE* file_ = nullptr;
    std::array<long long, counters> before_{};
    long ticks_ = sysconf(_SC_CLK_TCK); // of /proc/stat
};

} // namespace dri::bench
