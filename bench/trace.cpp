#include "trace.hpp"

#include "message_count.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <vector>

namespace dri::bench {

namespace {

// The kernel's counters of direct compaction (a fault waits while memory
// is compacted), of huge pages given at a fault, and of huge pages
// khugepaged made from small ones in the background.
constexpr const char* vmstat_names[3] = {"compact_stall", "thp_fault_alloc", "thp_collapse_alloc"};

void read_vmstat(long long out[3]) {
    for (int i = 0; i < 3; ++i)
        out[i] = -1;
    std::FILE* f = std::fopen("/proc/vmstat", "r");
    if (!f) return;
    char name[64];
    long long value = 0;
    while (std::fscanf(f, "%63s %lld", name, &value) == 2)
        for (int i = 0; i < 3; ++i)
            if (std::strcmp(name, vmstat_names[i]) == 0) out[i] = value;
    std::fclose(f);
}

// Clock ticks the hypervisor ran something else while this machine's CPUs
// wanted to run (the steal column of /proc/stat's first line), -1 unknown.
long long read_steal() {
    std::FILE* f = std::fopen("/proc/stat", "r");
    if (!f) return -1;
    long long v[8] = {0, 0, 0, 0, 0, 0, 0, -1};
    const int got = std::fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1],
                                &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
    std::fclose(f);
    return got == 8 ? v[7] : -1;
}

} // namespace

Trace::Trace(const std::string& path, MPI_Comm comm) : on_(!path.empty()), comm_(comm) {
    if (!on_) return;
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    int opened = 1;
    if (rank_ == 0) {
        file_ = std::fopen(path.c_str(), "w");
        opened = file_ != nullptr;
        if (file_)
            std::fprintf(file_, "method,rep,rank,ms,before_first_wait_ms,in_mpi_ms,after_ms,"
                                "minor_faults,voluntary_switches,involuntary_switches,"
                                "compact_stall,thp_fault_alloc,thp_collapse_alloc,steal_ms\n");
    }
    MPI_Bcast(&opened, 1, MPI_INT, 0, comm);
    if (!opened) throw std::runtime_error("--trace: cannot write " + path);
    dri_mpi_trace_enable(1);
}

Trace::~Trace() {
    if (!on_) return;
    dri_mpi_trace_enable(0);
    if (file_) std::fclose(file_);
}

std::array<long long, Trace::counters> Trace::read_counters() const {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    std::array<long long, counters> c{u.ru_minflt, u.ru_nvcsw, u.ru_nivcsw, 0, 0, 0, read_steal()};
    read_vmstat(&c[3]);
    return c;
}

void Trace::begin() {
    if (on_) before_ = read_counters();
}

void Trace::start() {
    if (on_) dri_mpi_trace_reset();
}

void Trace::end(const std::string& method, int rep, double seconds) {
    if (!on_) return;
    dri_mpi_trace t{};
    dri_mpi_trace_get(&t);
    const std::array<long long, counters> after = read_counters();
    // Without a completion call (a blocking collective) everything outside
    // MPI came before it.
    const double before = t.to_first_completion < 0
                              ? seconds - t.in_mpi
                              : t.to_first_completion - t.in_mpi_before_completion;
    std::vector<double> row{seconds, before, t.in_mpi, seconds - before - t.in_mpi};
    for (int i = 0; i < counters; ++i)
        row.push_back(before_[static_cast<std::size_t>(i)] < 0 ||
                              after[static_cast<std::size_t>(i)] < 0
                          ? -1.0
                          : static_cast<double>(after[static_cast<std::size_t>(i)] -
                                                before_[static_cast<std::size_t>(i)]));
    std::vector<double> all(rank_ == 0 ? row.size() * static_cast<std::size_t>(size_) : 0);
    MPI_Gather(row.data(), static_cast<int>(row.size()), MPI_DOUBLE, all.data(),
               static_cast<int>(row.size()), MPI_DOUBLE, 0, comm_);
    if (rank_ != 0) return;
    for (int r = 0; r < size_; ++r) {
        const double* v = all.data() + static_cast<std::size_t>(r) * row.size();
        std::fprintf(file_, "%s,%d,%d,%.4f,%.4f,%.4f,%.4f", method.c_str(), rep, r, v[0] * 1e3,
                     v[1] * 1e3, v[2] * 1e3, v[3] * 1e3);
        for (int i = 0; i < counters - 1; ++i)
            std::fprintf(file_, ",%.0f", v[4 + i]);
        const double steal = v[4 + counters - 1];
        std::fprintf(file_, ",%.0f", steal < 0 ? -1.0 : steal * 1e3 / static_cast<double>(ticks_));
        std::fprintf(file_, "\n");
    }
}

} // namespace dri::bench
