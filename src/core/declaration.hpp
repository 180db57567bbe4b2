// The declarations of a named transfer, as the processes publish them at
// commit, and their validation. Pure functions of the exchanged bytes: every
// process runs them on the same data and reaches the same verdict (the same
// error code and message) without further communication, and the unit tests
// run them without MPI.
#pragma once

#include "core/distribution.hpp"
#include "core/layout.hpp"
#include "core/wire.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dri::core {

// What every process of one side must agree on, in canonical form: the
// group's size and a hash of its ranks, the global data, the partition and
// the layout.
std::string side_description(const std::vector<int>& group_ranks, const Shape& shape,
                             const Partition& part, const Layout& layout);

// One role of one process, as published.
struct Declaration {
    std::string name;
    int role = 0; // 0 sender, 1 receiver
    int rank = 0; // in the commit communicator (filled in by the reader)
    int strategy = 0;
    std::string desc;       // side_description
    int index = -1;         // in the side's group
    std::vector<int> ranks; // the group, published by its index 0 only
    std::vector<Index> sizes;
};

void write_declaration(Writer& w, const Declaration& d);
Declaration read_declaration(Reader& r, int rank);

// Everything known about one name after the exchange; `validate` fills in
// what follows the declarations.
struct Match {
    std::vector<Declaration> side[2];
    std::vector<int> ranks[2]; // group of each side, in group order
    std::unique_ptr<Distribution> dist[2];
    Layout layout[2] = {Layout::packed(1), Layout::packed(1)};
    int strategy = 0;
    std::vector<int> participants; // sorted ranks of the commit communicator
};

// Groups every process's declarations by name: `all` holds each rank's
// bytes back to back (sizes[r] bytes for rank r), each a count followed by
// that many declarations. Throws Errc::internal on corrupt bytes.
std::map<std::string, Match> match_declarations(const std::byte* all,
                                                const std::vector<Index>& sizes);

// Checks one name: both sides present, no rank twice, one description and
// one strategy per side, every group member declared where its group says,
// the sides compatible, every buffer large enough. Throws core::Error with
// the transfer's name in the message.
void validate(const std::string& name, Match& m);

} // namespace dri::core
