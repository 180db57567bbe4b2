// dri-bench --count-messages: one more call of each method, after the timed
// ones, with the PMPI counter of message_count/ on: the messages all
// processes asked MPI for in that call, within and between nodes.
#pragma once

#include "method.hpp"

#include <vector>

namespace dri::bench {

struct MessageCounts {
    long long intra_messages = 0, intra_bytes = 0, inter_messages = 0, inter_bytes = 0;
};

// Collective over the problem's communicator; one entry per method, summed
// over its processes.
std::vector<MessageCounts> count_messages(std::vector<Method>& methods, const Problem& pb);

} // namespace dri::bench
