// In-memory oracle for the planning core: every process's buffers live in one
// address space, a plan is executed by packing and unpacking the regions, and
// every stored cell of every receiver (overlap, edge padding and layout
// padding included) is compared with the value derived from its global index.
#pragma once

#include "core/plan.hpp"
#include "kernels/copy.hpp"
#include "simulate_boxes.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace dri::test {

using core::Index;

// Byte k of the element with global linear index g in frame `frame`.
inline std::uint8_t element_byte(Index g, Index k, int frame = 0) {
    std::uint64_t x = static_cast<std::uint64_t>(g) * 0x9E3779B97F4A7C15ull +
                      static_cast<std::uint64_t>(k) + 1 +
                      static_cast<std::uint64_t>(frame) * 0xD1B54A32D192ED03ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return static_cast<std::uint8_t>(x);
}

inline constexpr std::uint8_t send_poison = 0xEE; // sender cells that are not owned
inline constexpr std::uint8_t recv_poison = 0xCD; // receiver bytes before the transfer

// Global coordinate of local index `i` along dimension d of coordinate c, or
// nullopt when that stored cell is zero padding. Found by a plain scan of the
// segments: independent of the planner's piece intersection.
inline std::optional<Index> source_index(const core::Distribution& dist, int d, int c, Index i) {
    const Index n = dist.shape().extent(d);
    const auto edge = dist.partition()[static_cast<std::size_t>(d)].edge;
    for (Index k = 0; k < dist.segment_count(d, c); ++k) {
        const core::Segment s = dist.segment(d, c, k);
        if (i < s.local || i >= s.local + (s.hi - s.lo)) continue;
        const Index g = s.lo + (i - s.local);
        if (g >= 0 && g < n) return g;
        switch (edge) {
        case core::EdgePolicy::zero:
            return std::nullopt;
        case core::EdgePolicy::replicate:
            return g < 0 ? 0 : n - 1;
        case core::EdgePolicy::wrap:
            return ((g % n) + n) % n;
        case core::EdgePolicy::truncate:
            break;
        }
        throw std::logic_error("truncated segment reaches past the bounds");
    }
    throw std::logic_error("local index outside every segment");
}

// Whether local index i along d of coordinate c is owned (not overlap).
inline bool owned(const core::Distribution& dist, int d, int c, Index i) {
    for (Index k = 0; k < dist.segment_count(d, c); ++k) {
        const core::Segment s = dist.segment(d, c, k);
        const Index g = s.lo + (i - s.local);
        if (i >= s.local && i < s.local + (s.hi - s.lo)) return g >= s.own_lo && g < s.own_hi;
    }
    return false;
}

// Calls f(local multi-index) for every stored cell of a local block.
template <class F>
void for_each_cell(const std::vector<Index>& ext, F&& f) {
    for (Index e : ext)
        if (e == 0) return;
    std::vector<Index> idx(ext.size(), 0);
    for (;;) {
        f(idx);
        std::size_t d = ext.size();
        while (d-- > 0) {
            if (++idx[d] < ext[d]) break;
            idx[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1)) return;
    }
}

struct SimResult {
    bool ok = true;
    std::string error; // first mismatch, human readable
    Index cells_checked = 0;
    Index messages = 0;
};

// Which process plays which role: process p is sender send_of[p] (or -1)
// and receiver recv_of[p] (or -1).
struct Roles {
    std::vector<int> send_of, recv_of;
};

inline Roles make_roles(int ps, int pr, bool shared) {
    Roles r;
    if (shared) {
        const int n = std::max(ps, pr);
        for (int p = 0; p < n; ++p) {
            r.send_of.push_back(p < ps ? p : -1);
            r.recv_of.push_back(p < pr ? p : -1);
        }
    } else {
        for (int p = 0; p < ps; ++p)
            r.send_of.push_back(p), r.recv_of.push_back(-1);
        for (int p = 0; p < pr; ++p)
            r.send_of.push_back(-1), r.recv_of.push_back(p);
    }
    return r;
}

inline Index linear_index(const std::vector<Index>& gext, const std::vector<Index>& g) {
    Index l = 0;
    for (std::size_t d = 0; d < g.size(); ++d)
        l = l * gext[d] + g[d];
    return l;
}

// fill_sender for a box distribution: every cell is owned.
inline void fill_box_sender(const core::BoxPartition& bp, const core::Layout& layout, int s,
                            std::byte* buf, Index bytes, int frame) {
    const Index elem = bp.shape().elem_size();
    std::fill(buf, buf + bytes, std::byte{send_poison});
    for_each_box_cell(bp, layout, s, [&](Index off, const std::vector<Index>& g) {
        const Index L = global_linear(bp.shape().extents(), g);
        for (Index k = 0; k < elem; ++k)
            buf[off * elem + k] = std::byte{element_byte(L, k, frame)};
    });
}

// check_receiver for a box distribution: every cell is an owned cell, and
// bytes past the last one are untouched.
inline std::string check_box_receiver(const core::BoxPartition& bp, const core::Layout& layout,
                                      int r, const std::byte* buf, Index bytes, int frame,
                                      Index* cells) {
    const Index elem = bp.shape().elem_size();
    std::string err;
    Index end = 0;
    for_each_box_cell(bp, layout, r, [&](Index off, const std::vector<Index>& g) {
        end = (off + 1) * elem;
        if (!err.empty()) return;
        const Index L = global_linear(bp.shape().extents(), g);
        for (Index k = 0; k < elem && err.empty(); ++k) {
            const auto got = static_cast<std::uint8_t>(buf[off * elem + k]);
            if (got != element_byte(L, k, frame))
                err = "receiver " + std::to_string(r) + " box cell " + std::to_string(off) +
                      " (global " + std::to_string(L) + ") byte " + std::to_string(k) + ": got " +
                      std::to_string(got) + ", want " + std::to_string(element_byte(L, k, frame)) +
                      ", frame " + std::to_string(frame);
        }
        if (cells && err.empty()) ++*cells;
    });
    for (Index i = end; i < bytes && err.empty(); ++i)
        if (static_cast<std::uint8_t>(buf[i]) != recv_poison)
            err = "receiver " + std::to_string(r) + " byte " + std::to_string(i) +
                  " past its boxes was written";
    return err;
}

// Fills sender s's buffer: owned cells with their values for `frame`,
// everything else (overlap, layout padding) with poison.
inline void fill_sender(const core::Distribution& sd, const core::Layout& layout, int s,
                        std::byte* buf, Index bytes, int frame = 0) {
    if (sd.boxes()) return fill_box_sender(*sd.boxes(), layout, s, buf, bytes, frame);
    const Index elem = sd.shape().elem_size();
    const int nd = sd.ndims();
    const core::LocalLayout ll = core::bind_layout(layout, sd.local_extents(s), elem);
    std::fill(buf, buf + bytes, std::byte{send_poison});
    const std::vector<int> c = sd.coords(s);
    for_each_cell(ll.extents, [&](const std::vector<Index>& li) {
        std::vector<Index> g(static_cast<std::size_t>(nd));
        for (int d = 0; d < nd; ++d) {
            const auto du = static_cast<std::size_t>(d);
            if (!owned(sd, d, c[du], li[du])) return;
            g[du] = *source_index(sd, d, c[du], li[du]);
        }
        const Index off = ll.offset(li), L = linear_index(sd.shape().extents(), g);
        for (Index k = 0; k < elem; ++k)
            buf[off + k] = std::byte{element_byte(L, k, frame)};
    });
}

// Checks every byte of receiver r's buffer after a reorganization of
// `frame`: cells against the oracle, bytes between cells untouched
// (recv_poison). Returns "" or the first mismatch; counts checked cells.
inline std::string check_receiver(const core::Distribution& rd, const core::Layout& layout, int r,
                                  const std::byte* buf, Index bytes, int frame = 0,
                                  Index* cells = nullptr) {
    if (rd.boxes()) return check_box_receiver(*rd.boxes(), layout, r, buf, bytes, frame, cells);
    const Index elem = rd.shape().elem_size();
    const int nd = rd.ndims();
    const core::LocalLayout ll = core::bind_layout(layout, rd.local_extents(r), elem);
    std::vector<bool> is_cell(static_cast<std::size_t>(bytes), false);
    const std::vector<int> c = rd.coords(r);
    std::string err;
    for_each_cell(ll.extents, [&](const std::vector<Index>& li) {
        if (!err.empty()) return;
        std::vector<Index> g(static_cast<std::size_t>(nd));
        bool zero = false;
        for (int d = 0; d < nd; ++d) {
            const auto du = static_cast<std::size_t>(d);
            const auto src = source_index(rd, d, c[du], li[du]);
            if (!src)
                zero = true;
            else
                g[du] = *src;
        }
        const Index off = ll.offset(li);
        for (Index k = 0; k < elem; ++k) {
            const auto at = static_cast<std::size_t>(off + k);
            is_cell[at] = true;
            const std::uint8_t want =
                zero ? 0 : element_byte(linear_index(rd.shape().extents(), g), k, frame);
            const auto got = static_cast<std::uint8_t>(buf[at]);
            if (got != want) {
                std::string where;
                for (Index x : li)
                    where += (where.empty() ? "" : ",") + std::to_string(x);
                err = "receiver " + std::to_string(r) + " local cell (" + where + ") byte " +
                      std::to_string(k) + ": got " + std::to_string(got) + ", want " +
                      std::to_string(want) + (zero ? " (zero padding)" : "") + ", frame " +
                      std::to_string(frame);
                return;
            }
        }
        if (cells) ++*cells;
    });
    for (std::size_t i = 0; i < is_cell.size() && err.empty(); ++i)
        if (!is_cell[i] && static_cast<std::uint8_t>(buf[i]) != recv_poison)
            err = "receiver " + std::to_string(r) + " layout padding byte " + std::to_string(i) +
                  " was written";
    return err;
}

inline SimResult simulate(const core::Side& send, const core::Side& recv, const Roles& roles) {
    SimResult res;
    auto fail = [&](std::string msg) {
        if (res.ok) res.error = std::move(msg);
        res.ok = false;
    };
    const core::Distribution& sd = *send.dist;
    const core::Distribution& rd = *recv.dist;
    const Index elem = sd.shape().elem_size();

    std::vector<std::vector<std::byte>> sbuf(static_cast<std::size_t>(sd.nprocs()));
    for (int s = 0; s < sd.nprocs(); ++s) {
        const Index bytes = core::bind_layout(send.layout_of(s), sd.local_extents(s), elem).bytes;
        auto& buf = sbuf[static_cast<std::size_t>(s)];
        buf.resize(static_cast<std::size_t>(bytes));
        fill_sender(sd, send.layout_of(s), s, buf.data(), bytes);
    }
    std::vector<std::vector<std::byte>> rbuf(static_cast<std::size_t>(rd.nprocs()));
    std::vector<core::LocalLayout> rlay(static_cast<std::size_t>(rd.nprocs()));
    for (int r = 0; r < rd.nprocs(); ++r) {
        rlay[static_cast<std::size_t>(r)] =
            core::bind_layout(recv.layout_of(r), rd.local_extents(r), elem);
        rbuf[static_cast<std::size_t>(r)].assign(
            static_cast<std::size_t>(rlay[static_cast<std::size_t>(r)].bytes),
            std::byte{recv_poison});
    }

    // Plans of every process; messages travel as packed streams, one per
    // pair and sender piece (core/pieces.hpp).
    std::map<std::tuple<int, int, int>, std::vector<std::byte>> wire;
    std::vector<core::LocalPlan> plans;
    for (std::size_t p = 0; p < roles.send_of.size(); ++p)
        plans.push_back(core::plan_local(send, recv, roles.send_of[p], roles.recv_of[p]));
    for (std::size_t p = 0; p < plans.size(); ++p) {
        const core::LocalPlan& pl = plans[p];
        const int s = roles.send_of[p], r = roles.recv_of[p];
        if (s >= 0 &&
            pl.send_layout.bytes != static_cast<Index>(sbuf[static_cast<std::size_t>(s)].size()))
            fail("plan's send buffer size differs from the layout's");
        for (const core::PeerRegions& pr : pl.sends) {
            std::vector<std::byte> stream(static_cast<std::size_t>(pr.elements * elem));
            Index off = 0;
            for (const core::Region& reg : pr.regions)
                off += core::pack_region(sbuf[static_cast<std::size_t>(s)].data(), reg, elem,
                                         stream.data() + off);
            if (off != pr.elements * elem) fail("packed size differs from the counted size");
            if (!wire.emplace(std::make_tuple(s, pr.peer, pr.piece), std::move(stream)).second)
                fail("two messages from sender " + std::to_string(s) + " to receiver " +
                     std::to_string(pr.peer) + " for piece " + std::to_string(pr.piece));
            ++res.messages;
        }
        for (const core::Region& reg : pl.self)
            core::copy_region(sbuf[static_cast<std::size_t>(s)].data(),
                              rbuf[static_cast<std::size_t>(r)].data(), reg, elem);
    }
    for (std::size_t p = 0; p < plans.size(); ++p) {
        const core::LocalPlan& pl = plans[p];
        const int r = roles.recv_of[p];
        for (const core::Region& reg : pl.fills)
            core::zero_region(rbuf[static_cast<std::size_t>(r)].data(), reg, elem);
        for (const core::PeerRegions& pr : pl.recvs) {
            auto it = wire.find({pr.peer, r, pr.piece});
            if (it == wire.end()) {
                fail("receiver " + std::to_string(r) + " expects a message from sender " +
                     std::to_string(pr.peer) + " that was not sent");
                continue;
            }
            if (static_cast<Index>(it->second.size()) != pr.elements * elem)
                fail("message " + std::to_string(pr.peer) + "->" + std::to_string(r) + " has " +
                     std::to_string(it->second.size()) + " bytes, receiver expects " +
                     std::to_string(pr.elements * elem));
            else {
                Index off = 0;
                for (const core::Region& reg : pr.regions)
                    off += core::unpack_region(it->second.data() + off, reg, elem,
                                               rbuf[static_cast<std::size_t>(r)].data());
            }
            wire.erase(it);
        }
    }
    if (!wire.empty())
        fail("message " + std::to_string(std::get<0>(wire.begin()->first)) + "->" +
             std::to_string(std::get<1>(wire.begin()->first)) +
             " was sent but no receiver expected it");

    for (int r = 0; r < rd.nprocs() && res.ok; ++r) {
        const auto& buf = rbuf[static_cast<std::size_t>(r)];
        const std::string err =
            check_receiver(rd, recv.layout_of(r), r, buf.data(), static_cast<Index>(buf.size()), 0,
                           &res.cells_checked);
        if (!err.empty()) fail(err);
    }
    return res;
}

} // namespace dri::test
