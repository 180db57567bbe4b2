// What building a method costs this rank: wall time, heap bytes still
// allocated afterwards (glibc mallinfo2: what the plan holds, whether or not
// it has been touched yet) and resident-set growth (pages touched).
#pragma once

namespace dri::bench {

long long heap_in_use(); // bytes allocated by malloc now, -1 if unknown
long long resident();    // resident set size in bytes, -1 if unknown

class Probe {
  public:
    Probe();
    // Elapsed seconds, heap and RSS growth since construction.
    double seconds() const;
    long long heap_growth() const;
    long long rss_growth() const;

  private:
    double t0_;
    long long heap0_, rss0_;
};

} // namespace dri::bench
