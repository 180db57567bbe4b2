// The reverse of a plan in dri-plan: which sender element each receiver
// cell goes back into, and how (the owner's copy, a halo copy, a wrapped or
// replicated edge copy, or zero padding that gives nothing).
#pragma once

#include "core/plan.hpp"

#include <string>

namespace dri::plan_view {

// Prints the reverse of the pair, receiver by receiver.
void print_reverse(const dri::core::Side& send, const dri::core::Side& recv);

// Draws it: the senders' blocks, then each receiver's cells coloured by the
// sender they go back into, halo and wrapped copies marked.
void write_reverse_svg(const std::string& file, const dri::core::Side& send,
                       const dri::core::Side& recv);

} // namespace dri::plan_view
