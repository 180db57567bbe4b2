// The reverse of a plan, for reverse (adjoint) transfers: the regions of a
// reorganization walked from the receivers' buffers back into the senders'.
#pragma once

#include "core/plan.hpp"

namespace dri::core {

// A region walked the other way: its receiver side becomes its sender side.
Region swapped(const Region& r);

// The reverse of a plan: the same regions from the receivers' buffers back
// into the senders' buffers. Sends and receives trade places (a peer index
// in rev.sends is a forward sender's, in rev.recvs a forward receiver's),
// the self part is swapped, and there are no fills. Where the forward plan
// copies one sender element to several receiver cells (overlap, wrapped or
// replicated edges), the reverse brings every copy back to that element;
// the executor combines them.
LocalPlan reverse_plan(const LocalPlan& forward);

} // namespace dri::core
