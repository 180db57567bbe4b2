#include "message_counts.hpp"

#include "message_count.h"

namespace dri::bench {

std::vector<MessageCounts> count_messages(std::vector<Method>& methods, const Problem& pb) {
    std::vector<MessageCounts> out;
    for (Method& m : methods) {
        MPI_Barrier(pb.comm);
        dri_message_count_reset();
        const int was = dri_message_count_enable(1);
        m.run(0);
        dri_message_count_enable(was);
        dri_message_counts c{};
        dri_message_count_get(&c);
        long long v[4] = {c.intra_messages, c.intra_bytes, c.inter_messages, c.inter_bytes};
        MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_LONG_LONG, MPI_SUM, pb.comm);
        out.push_back({v[0], v[1], v[2], v[3]});
    }
    return out;
}

} // namespace dri::bench
