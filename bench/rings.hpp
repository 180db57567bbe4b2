// The benchmark's buffer rings, as in real use: n send buffers (node shared
// memory from DRI_Alloc_mem, which the SHARED strategy needs, or ordinary
// heap memory) and n receive buffers (heap), each 64-byte aligned. Every
// method reads send buffer k and writes receive buffer k on its k-th call
// modulo n.
#pragma once

#include "problem.hpp"

#include <dri/dri.hpp>

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace dri::bench {

// A 64-byte aligned, zeroed heap block.
class AlignedBlock {
  public:
    explicit AlignedBlock(std::size_t bytes);
    AlignedBlock(const AlignedBlock&) = delete;
    AlignedBlock& operator=(const AlignedBlock&) = delete;
    ~AlignedBlock();
    std::byte* data() const { return p_; }
    std::size_t size() const { return n_; }

  private:
    std::byte* p_ = nullptr;
    std::size_t n_ = 0;
};

class Rings {
  public:
    // Collective over the problem's communicator when `shared`.
    Rings(const Problem& pb, int n, bool shared);
    int count() const { return static_cast<int>(send.size()); }
    bool shared() const { return !shared_.empty(); }
    // Poisons receive buffer k (bytes a transfer must leave alone stay so).
    void poison_recv(int k);
    std::vector<std::span<std::byte>> send, recv;

  private:
    std::vector<dri::SharedMemory> shared_;
    std::vector<std::unique_ptr<AlignedBlock>> heap_;
};

} // namespace dri::bench
