// The benchmark's buffer rings, as in real use: n send buffers and n
// receive buffers. The send memory is what --memory names: node shared
// memory from dri::SharedMemory (DRI_Alloc_mem, "shared") or from
// dri::allocator ("allocator"), which give the single copy, or 64-byte
// aligned heap blocks ("heap", and "owned", where the DRI methods send from
// rings their transfers allocate and the others from the heap). The receive
// buffers are 64-byte aligned heap blocks. "vector" makes both sides
// std::vector memory, wherever the C++ heap puts it (16 bytes past a page
// for large blocks with glibc): what a user who passes std::vector or NumPy
// buffers gets. Every method reads send buffer k and writes receive buffer
// k on its k-th call modulo n.
#pragma once

#include "problem.hpp"

#include <dri/dri.hpp>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
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
    Rings(const Problem& pb, int n, const std::string& memory);
    int count() const { return static_cast<int>(send.size()); }
    // Poisons receive buffer k (bytes a transfer must leave alone stay so).
    void poison_recv(int k);
    std::vector<std::span<std::byte>> send, recv;

  private:
    std::vector<dri::SharedMemory> shared_;
    std::vector<std::vector<std::byte, dri::allocator<std::byte>>> allocated_;
    std::vector<std::vector<std::byte>> vectors_;
    std::vector<std::unique_ptr<AlignedBlock>> aligned_;
    // A new heap buffer of `bytes`: a std::vector's memory for "vector"
    // (at least one byte, so never a null data()), else a 64-byte aligned block.
    std::span<std::byte> heap_block(const std::string& memory, std::size_t bytes);
};

} // namespace dri::bench
