// One run: build the problem and its rings on a communicator, every
// method, measure, summarise; and the points of a sweep.
#pragma once

#include "results.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace dri::bench {

// The reorganization to run at `size` ranks with extents `shape` (empty:
// the options' shape, or the scenario's default).
tools::SpecOptions resolve_spec(const Options& o, const std::string& shape, int size);

// Collective over comm. Throws dri::core::Error / dri::Error when the spec
// does not apply (the same on every rank).
RunResult run_once(const Options& o, const tools::SpecOptions& spec, MPI_Comm comm);

// A size sweep's shapes, smallest first: each extent halved per step.
std::vector<std::string> sweep_shapes(const std::string& shape, int steps);

} // namespace dri::bench
