#include "mpi/runtime/kernel_tuning.hpp"

#include "core/error.hpp"
#include "kernels/tune.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace dri::detail {

namespace {

// A measurement takes about 0.2 s on a quiet host; the budget bounds it on
// a busy one.
constexpr double default_budget = 0.3;

std::mutex mutex;
std::string how = "not chosen yet: the first commit (or DRI_Kernel_tuning) chooses them";
bool done = false;

// The job's processes on this node, as the launcher tells them (Open MPI,
// MPICH's Hydra, PMI), or 0 when it does not.
long local_processes() {
    for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE"})
        if (const char* v = std::getenv(name)) return std::strtol(v, nullptr, 10);
    return 0;
}

// The CPUs the job's processes on this node may use. A launcher that binds
// each process to cores of its own (Open MPI does, by default, up to as
// many processes as cores) leaves each a mask smaller than the node's: then
// the node's online CPUs count, else two bound processes would each see one
// CPU for two processes and never measure. A mask that confines the whole
// job (taskset, a container's cpuset) looks the same from one process; the
// measurement then times a shared CPU, whose noise its every-round rule
// does not take for a win.
long usable_cores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    const long mask = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    return mask > 0 && online > mask ? online : mask;
}

// Transposes larger than this process's share of the last-level cache
// (twice it, 4 to 32 MiB), as the large copies the parameters are for.
core::Index data_bytes() {
    const core::Index cache = core::last_level_cache();
    const long procs = std::max(1L, local_processes());
    if (cache <= 0) return core::Index{32} << 20;
    return std::clamp<core::Index>(2 * cache / procs, core::Index{4} << 20, core::Index{32} << 20);
}

// Why the parameters are not measured here, or empty.
std::string reason_not_to_measure() {
    const char* mode = std::getenv("DRI_KERNEL_TUNING");
    if (mode && std::strcmp(mode, "off") == 0) return "DRI_KERNEL_TUNING=off";
    const long procs = local_processes(), cores = usable_cores();
    if (procs > 0 && cores > 0 && procs > cores)
        return std::to_string(procs) + " processes on this node share " + std::to_string(cores) +
               " cores";
    return {};
}

std::string choose() {
    if (const char* pinned = std::getenv("DRI_KERNEL_PARAMS")) {
        try {
            core::set_kernel_params(core::parse_kernel_params(pinned));
            return "set by DRI_KERNEL_PARAMS";
        } catch (const core::Error& e) {
            std::fprintf(stderr, "dri: DRI_KERNEL_PARAMS ignored: %s\n", e.what());
        }
    }
    if (const std::string why = reason_not_to_measure(); !why.empty())
        return "defaults, not measured: " + why;
    const core::KernelTuning t = core::measure_kernel_params(default_budget, data_bytes());
    core::set_kernel_params(t.params);
    char took[64];
    std::snprintf(took, sizeof took, "%.0f ms", t.seconds * 1e3);
    if (t.detail.empty()) return std::string("defaults, not measured: out of time after ") + took;
    return std::string("measured in ") + took + " (" + t.detail + ")";
}

} // namespace

void tune_kernels_once() noexcept {
    std::lock_guard<std::mutex> lock(mutex);
    if (done) return;
    done = true;
    try {
        how = choose();
    } catch (const std::exception& e) {
        how = std::string("defaults: the measurement failed: ") + e.what();
    }
}

std::string kernel_tuning_report() {
    std::lock_guard<std::mutex> lock(mutex);
    return core::to_string(core::kernel_params()) + ": " + how;
}

} // namespace dri::detail
