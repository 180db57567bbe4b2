// A method of performing the reorganization (a DRI strategy, a hand-written
// or library baseline, or the memcpy bound) as the measurement loop drives
// it, and the catalogue of methods built for one problem.
#pragma once

#include "probe.hpp"
#include "problem.hpp"
#include "rings.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dri::bench {

enum class Kind { dri, baseline, bound };
const char* kind_name(Kind k);

struct Method {
    std::string name;
    Kind kind = Kind::baseline;
    std::function<void(int)> run; // one reorganization from send buffer k into receive buffer k
    bool check = true;            // compared with the oracle before timing
    std::string note;             // printed beside the results (e.g. the strategy AUTO chose)
    // This rank's cost of building it (DRI: the commit), measured by Probe.
    double setup_seconds = 0;
    long long heap_bytes = -1, rss_bytes = -1;
    // A check of its own instead of the forward oracle's (the reverse
    // scenarios, which write the send buffers): prepare(k) before the
    // checked call k (restores its input, poisons what it writes), verify(k)
    // after it returns this rank's first mismatch ("" when right).
    std::function<void(int)> prepare = nullptr;
    std::function<std::string(int)> verify = nullptr;
    // A note written after the runs, appended to `note` (AUTO that learns:
    // its routes, their times and its switches).
    std::function<std::string()> after = nullptr;
};

struct Skipped {
    std::string name, reason;
};

struct Catalog {
    std::vector<Method> methods;
    std::vector<Skipped> skipped;
    std::vector<std::string> wanted; // empty: every method
    bool wants(const std::string& name) const;
    void skip(const std::string& name, const std::string& reason);
    // Adds m with what building it cost since `probe` started.
    void add(Method m, const Probe& probe);
};

// The run of a baseline that reads send buffer k and writes receive buffer
// k: m->run(send, recv).
template <class M>
std::function<void(int)> ring_runner(std::shared_ptr<M> m, Rings& rings) {
    return [m, &rings](int k) {
        m->run(rings.send[static_cast<std::size_t>(k)].data(),
               rings.recv[static_cast<std::size_t>(k)].data());
    };
}

// Builders: each adds its method(s) to the catalogue, or a skip with the
// reason it cannot apply. Every rank adds the same names in the same order.
// With `combine` other than "none" (sum, max, min), the receivers combine
// what arrives (DRI_Transfer_set_combine) and each method is checked
// against the combining oracle (combine_oracle.cpp) instead of the stored one.
void add_dri_methods(Catalog& cat, const Problem& pb, Rings& rings,
                     const std::vector<std::string>& strategies, bool owned_rings,
                     const std::string& combine = "none");
// Receive buffer k's first mismatch after one combining reorganization of
// frame 0 into a buffer poisoned with recv_poison ("" when right): each
// cell must be op(its poison, the element the stored oracle puts there; 0
// for zero padding), bytes outside the cells untouched.
std::string check_combined(const Problem& pb, dri::Combine op, const std::byte* buf);
void add_subarray_method(Catalog& cat, const Problem& pb, Rings& rings);
void add_naive_method(Catalog& cat, const Problem& pb, Rings& rings);
void add_expert_method(Catalog& cat, const Problem& pb, Rings& rings);
void add_scalapack_method(Catalog& cat, const Problem& pb, Rings& rings);
void add_memcpy_bound(Catalog& cat, const Problem& pb, Rings& rings);
// --scenario reverse_halo: the DRI reverse (SUM) of the halo exchange and the
// hand-written Isend/Irecv accumulation, both from receive buffer k (the
// halo'd blocks) into send buffer k (the owned blocks), checked against
// their own oracle. Throws dri::core::Error where the scenario cannot apply.
void add_reverse_halo_methods(Catalog& cat, const Problem& pb, Rings& rings);
// --scenario ptrans: HPCC's PTRANS (C := A' + C) on a grid_p x grid_q BLACS
// grid (row-major numbering) with nb x nb blocks, in one DRI transfer from
// send buffer k (A) into receive buffer k (C, read and written), checked
// against its own oracle (bench/ptrans.cpp).
void add_ptrans_methods(Catalog& cat, const Problem& pb, Rings& rings, int grid_p, int grid_q,
                        Index nb);

} // namespace dri::bench
