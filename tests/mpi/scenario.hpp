// Runs one reorganization scenario over MPI through the public C++ API and
// checks every byte of every receive buffer of every frame against the
// in-memory oracle (built from the same description with the core types).
#pragma once

#include "mpi_world.hpp"
#include "nodes.hpp"
#include "simulate.hpp"
#include "to_api.hpp"

#include <mpi.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dri::test {

struct Scenario {
    core::Shape shape{{1}, core::ElementType::predefined(core::ElemKind::byte)};
    core::Partition send_part, recv_part;
    core::GridOrder send_order = core::GridOrder::row_major,
                    recv_order = core::GridOrder::row_major;
    core::Layout send_layout = core::Layout::packed(1), recv_layout = core::Layout::packed(1);
    // Each process's own layout, by group index, when not empty (else all
    // store in send_layout / recv_layout).
    std::vector<core::Layout> send_layouts, recv_layouts;
    std::vector<int> send_ranks, recv_ranks; // ranks of world() in group order
    int nbuf_s = 2, nbuf_r = 2, frames = 3;
    bool nonblocking = false;
    dri::Strategy strategy = dri::Strategy::automatic;
    // Where the send rings are: the heap, or node shared memory from one of
    // its three sources (dri::SharedMemory, dri::allocator, OwnedRing).
    enum class Memory { heap, shared_memory, allocator, owned };
    Memory memory = Memory::heap;
    bool shared_buffers() const { return memory != Memory::heap; }
    std::string name = "scenario";
};

struct ScenarioResult {
    std::string error; // this rank's first mismatch, "" if none
    Index cells = 0;
    bool not_applicable = false; // a forced strategy refused, as the node layout says it must
};

// Collective over world().
inline ScenarioResult run_scenario(const Scenario& sc) {
    ScenarioResult res;
    const core::Distribution csd(sc.shape, sc.send_part, static_cast<int>(sc.send_ranks.size()),
                                 sc.send_order);
    const core::Distribution crd(sc.shape, sc.recv_part, static_cast<int>(sc.recv_ranks.size()),
                                 sc.recv_order);
    const dri::GlobalData gd = to_api(sc.shape);
    const dri::Group sg(world(), sc.send_ranks), rg(world(), sc.recv_ranks);
    const core::Side send_side{&csd, sc.send_layout, sc.send_layouts},
        recv_side{&crd, sc.recv_layout, sc.recv_layouts};
    const core::Layout& my_sl = send_side.layout_of(std::max(sg.index(), 0));
    const core::Layout& my_rl = recv_side.layout_of(std::max(rg.index(), 0));
    const dri::Layout sl = to_api(my_sl), rl = to_api(my_rl);
    std::optional<dri::Distribution> sd, rd;
    if (sg.contains_me())
        sd.emplace(gd, to_api(sc.send_part), sg, static_cast<dri::GridOrder>(sc.send_order));
    if (rg.contains_me())
        rd.emplace(gd, to_api(sc.recv_part), rg, static_cast<dri::GridOrder>(sc.recv_order));

    // The buffers outlive the transfer (shared memory in use by a committed
    // transfer cannot be freed).
    std::vector<std::vector<std::byte>> splain, rbuf;
    std::vector<dri::SharedMemory> sshared;
    std::vector<std::vector<std::byte, dri::allocator<std::byte>>> sallocated;
    std::vector<std::span<std::byte>> sbuf;
    const auto sbytes = static_cast<std::size_t>(sd ? sd->block(sl).bytes : 0);
    using Memory = Scenario::Memory;
    for (int i = 0; i < sc.nbuf_s && sc.memory != Memory::owned; ++i) {
        if (sc.memory == Memory::shared_memory) {
            sshared.emplace_back(sbytes);
            sbuf.emplace_back(sshared.back().data(), sbytes);
        } else if (sc.memory == Memory::allocator) {
            sallocated.emplace_back(sbytes);
            sbuf.emplace_back(sallocated.back());
        } else {
            splain.emplace_back(sbytes);
            sbuf.emplace_back(splain.back());
        }
    }
    dri::Transfer t(sc.name);
    t.strategy(sc.strategy);
    if (sd && sc.memory == Memory::owned) {
        t.send(*sd, sl, dri::OwnedRing{sc.nbuf_s});
        for (int i = 0; i < sc.nbuf_s; ++i)
            sbuf.push_back(t.buffer(dri::Role::send, i));
    } else if (sd) {
        t.send(*sd, sl, sbuf);
    }
    if (rd) {
        rbuf.assign(static_cast<std::size_t>(sc.nbuf_r),
                    std::vector<std::byte>(static_cast<std::size_t>(rd->block(rl).bytes)));
        t.recv(*rd, rl, rbuf);
    }
    const bool part = sd || rd;
    // Whether a forced SHARED or HYBRID can apply depends on which pairs
    // share a node (several nodes are simulated in CI).
    const PairsByNode pairs = pairs_by_node(send_side, recv_side, sc.send_ranks, sc.recv_ranks);
    const bool applies = forced_applies(sc.strategy, pairs, sc.shared_buffers());
    try {
        if (part)
            dri::commit(world(), {&t});
        else
            dri::commit(world(), {});
    } catch (const dri::Error& e) {
        if (applies || e.code() != dri::Errc::strategy) throw;
        res.not_applicable = true;
        return res;
    }
    if (!applies) res.error = "a forced strategy committed where it cannot apply";
    // AUTO with ordinary memory: P2P, or NODES where its rule says so.
    if (part && sc.strategy == dri::Strategy::automatic && sc.memory == Memory::heap &&
        t.chosen_strategy() != auto_choice_heap(pairs))
        res.error = "AUTO chose strategy " + std::to_string(static_cast<int>(t.chosen_strategy())) +
                    ", its rule says " + std::to_string(static_cast<int>(auto_choice_heap(pairs)));
    for (int f = 0; f < sc.frames && part; ++f) {
        if (sd) {
            auto& b = sbuf[static_cast<std::size_t>(f % sc.nbuf_s)];
            fill_sender(csd, my_sl, sg.index(), b.data(), static_cast<Index>(b.size()), f);
        }
        if (rd) {
            auto& b = rbuf[static_cast<std::size_t>(f % sc.nbuf_r)];
            std::fill(b.begin(), b.end(), std::byte{recv_poison});
        }
        if (t.current_send_buffer() != (sd ? f % sc.nbuf_s : -1) ||
            t.current_recv_buffer() != (rd ? f % sc.nbuf_r : -1))
            res.error = "buffer ring out of step in frame " + std::to_string(f);
        if (sc.nonblocking) {
            t.start();
            if (f % 2) {
                while (!t.test()) {
                }
            } else {
                t.wait();
            }
        } else {
            t.execute();
        }
        if (rd && res.error.empty()) {
            const auto& b = rbuf[static_cast<std::size_t>(f % sc.nbuf_r)];
            res.error = check_receiver(crd, my_rl, rg.index(), b.data(),
                                       static_cast<Index>(b.size()), f, &res.cells);
        }
    }
    return res;
}

// True on every rank when no rank saw an error.
inline bool all_ok(const ScenarioResult& r) {
    int bad = r.error.empty() ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, world());
    return bad == 0;
}

inline std::vector<int> range_of_ranks(int first, int last) {
    std::vector<int> v;
    for (int r = first; r <= last; ++r)
        v.push_back(r);
    return v;
}

} // namespace dri::test
