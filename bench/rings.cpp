#include "rings.hpp"

#include "simulate.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace dri::bench {

AlignedBlock::AlignedBlock(std::size_t bytes) : n_(bytes) {
    p_ = static_cast<std::byte*>(
        std::aligned_alloc(64, std::max<std::size_t>(64, (n_ + 63) / 64 * 64)));
    if (!p_) throw std::bad_alloc();
    std::memset(p_, 0, n_);
}

AlignedBlock::~AlignedBlock() {
    std::free(p_);
}

std::span<std::byte> Rings::heap_block(const std::string& memory, std::size_t bytes) {
    if (memory == "vector") {
        vectors_.emplace_back(std::max<std::size_t>(1, bytes)); // never a null data()
        return {vectors_.back().data(), bytes};
    }
    aligned_.push_back(std::make_unique<AlignedBlock>(bytes));
    return {aligned_.back()->data(), bytes};
}

Rings::Rings(const Problem& pb, int n, const std::string& memory) {
    const auto sbytes = static_cast<std::size_t>(pb.send_bytes);
    const auto rbytes = static_cast<std::size_t>(pb.recv_bytes);
    for (int k = 0; k < n; ++k) {
        if (memory == "shared") {
            shared_.emplace_back(sbytes);
            send.emplace_back(shared_.back().data(), sbytes);
        } else if (memory == "allocator") {
            allocated_.emplace_back(sbytes);
            send.emplace_back(allocated_.back().data(), sbytes);
        } else {
            send.push_back(heap_block(memory, sbytes));
        }
        recv.push_back(heap_block(memory, rbytes));
        // Every send buffer holds frame 0: any buffer checks against the oracle.
        if (pb.me_send < 0 || sbytes == 0) continue;
        if (k == 0)
            test::fill_sender(*pb.sd, pb.sl, pb.me_send, send.back().data(), pb.send_bytes);
        else
            std::memcpy(send.back().data(), send.front().data(), sbytes);
    }
}

void Rings::poison_recv(int k) {
    auto& b = recv[static_cast<std::size_t>(k)];
    std::memset(b.data(), test::recv_poison, b.size());
}

} // namespace dri::bench
