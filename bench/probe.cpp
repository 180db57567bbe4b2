#include "probe.hpp"

#include <mpi.h>

#include <cstdio>
#include <malloc.h>
#include <unistd.h>

namespace dri::bench {

long long heap_in_use() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    const struct mallinfo2 m = mallinfo2();
    return static_cast<long long>(m.uordblks + m.hblkhd);
#else
    return -1;
#endif
}

long long resident() {
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f) return -1;
    long long size = 0, pages = -1;
    if (std::fscanf(f, "%lld %lld", &size, &pages) != 2) pages = -1;
    std::fclose(f);
    return pages < 0 ? -1 : pages * static_cast<long long>(sysconf(_SC_PAGESIZE));
}

Probe::Probe() : t0_(MPI_Wtime()), heap0_(heap_in_use()), rss0_(resident()) {}

double Probe::seconds() const {
    return MPI_Wtime() - t0_;
}

long long Probe::heap_growth() const {
    const long long h = heap_in_use();
    return h < 0 || heap0_ < 0 ? -1 : h - heap0_;
}

long long Probe::rss_growth() const {
    const long long r = resident();
    return r < 0 || rss0_ < 0 ? -1 : r - rss0_;
}

} // namespace dri::bench
