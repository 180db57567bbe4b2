#include "mpi/strategies/base.hpp"

#include "kernels/combine.hpp"
#include "kernels/copy.hpp"

namespace dri::detail {

Arrival::Arrival(const ExecutorContext& ctx)
    : op(ctx.combine), type(ctx.type), zero(static_cast<std::size_t>(ctx.type.size)) {}

void Arrival::region(const std::byte* src, std::byte* dst, const core::Region& r,
                     core::Index whole) const {
    if (combines())
        core::combine_region(src, dst, r, type, op);
    else
        core::copy_region(src, dst, r, type.size, whole);
}

void Arrival::unpack(const std::byte* in, const std::vector<core::Region>& regs, std::byte* dst,
                     core::Index whole) const {
    for (const core::Region& r : regs)
        in += combines() ? core::combine_unpack_region(in, r, type, op, dst)
                         : core::unpack_region(in, r, type.size, dst, whole);
}

void run_local(const core::LocalPlan& plan, const Arrival& arrival, const std::byte* send,
               std::byte* recv) {
    for (const core::Region& f : plan.fills)
        if (arrival.combines())
            core::combine_region(arrival.zero.data(), recv, f, arrival.type, arrival.op);
        else
            core::zero_region(recv, f, plan.elem_size);
    for (const core::Region& r : plan.self)
        if (arrival.combines())
            core::combine_region(send, recv, r, arrival.type, arrival.op);
        else
            core::copy_region(send, recv, r, plan.elem_size);
}

void Executor::piece_ready(int) {
    core::fail(core::Errc::internal, "piece_ready on an executor that does not move pieces");
}

bool Executor::piece_arrived(int, bool) {
    core::fail(core::Errc::internal, "piece_arrived on an executor that does not move pieces");
}

void RequestExecutor::wait_requests(const Progressable* self) {
    while (pending_ > 0) {
        const int index = wait_any_progressing(static_cast<int>(reqs_.size()), reqs_.data(), self);
        if (index == MPI_UNDEFINED) break;
        arrived(index);
    }
    pending_ = 0;
}

bool RequestExecutor::test_requests() {
    while (pending_ > 0) {
        int count = 0;
        check_mpi(MPI_Testsome(static_cast<int>(reqs_.size()), reqs_.data(), &count, done_.data(),
                               MPI_STATUSES_IGNORE),
                  "MPI_Testsome");
        if (count == MPI_UNDEFINED) pending_ = 0;
        if (count <= 0) break;
        for (int i = 0; i < count; ++i)
            arrived(done_[static_cast<std::size_t>(i)]);
    }
    return pending_ == 0;
}

} // namespace dri::detail
