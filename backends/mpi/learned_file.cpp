#include "mpi/learned_file.hpp"

#include "mpi/runtime/handles.hpp"
#include "mpi/runtime/mpi_library.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <span>
#include <unistd.h>

namespace dri::detail {

using core::Errc;

core::LearnedOrigin learned_origin() {
    return {DRI_LIBRARY_VERSION, mpi_library_version()};
}

std::string learned_path(const TransferImpl& t) {
    if (t.learned_file) return *t.learned_file;
    const char* v = std::getenv("DRI_AUTO_LEARNED");
    return v ? v : "";
}

LearnedKeys learned_keys(std::uint64_t plan, MPI_Comm comm) {
    int rank = 0;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    // A node is named by its first process's rank in the pair.
    MPI_Comm node = MPI_COMM_NULL;
    check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
              "MPI_Comm_split_type");
    int leader = rank;
    const int err = MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    check_mpi(err, "MPI_Allreduce");
    const auto r = static_cast<std::uint64_t>(rank);
    unsigned long long keys[2] = {core::mix_key(r, plan),
                                  core::mix_key(r, static_cast<std::uint64_t>(leader))};
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, keys, 2, MPI_UNSIGNED_LONG_LONG, MPI_BXOR, comm),
              "MPI_Allreduce");
    return {keys[0], keys[1]};
}

namespace {

// The file's text, or why there is none to read.
bool read_file(const std::string& path, std::string& text, std::string& why) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        why = std::string("cannot be read (") + std::strerror(errno) + ")";
        return false;
    }
    text.assign(core::max_learned_bytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (in.bad()) {
        why = "cannot be read";
        return false;
    }
    return true;
}

// On the pair's first process: the entry's route and times, or -1 and a
// warning saying why not.
void look_up(const std::string& path, const std::string& name, const LearnedKeys& keys,
             const std::vector<int>& strategies, double* found) {
    std::string text, why;
    int at = -1;
    core::LearnedRead r;
    if (read_file(path, text, why)) {
        r = core::parse_learned(text, learned_origin());
        why = r.problem;
        if (why.empty())
            at = core::find_learned(r.entries, keys.transfer, keys.nodes, strategies, why);
    }
    if (at < 0) {
        std::fprintf(stderr, "dri: learned file '%s' ignored for transfer '%s': %s\n", path.c_str(),
                     name.c_str(), why.c_str());
        return;
    }
    const core::LearnedEntry& e = r.entries[static_cast<std::size_t>(at)];
    found[0] = e.current;
    for (std::size_t k = 0; k < e.seconds.size(); ++k)
        found[k + 1] = e.seconds[k];
}

} // namespace

void seed_from_learned_file(AdaptiveExecutor& a, const std::string& path, const std::string& name,
                            MPI_Comm comm) {
    const LearnedKeys keys = learned_keys(a.file_identity().plan_key, comm);
    int rank = 0;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    double found[1 + core::max_routes] = {-1, -1, -1, -1};
    if (rank == 0) {
        std::vector<int> strategies;
        for (Strategy s : a.kinds())
            strategies.push_back(static_cast<int>(s));
        look_up(path, name, keys, strategies, found);
    }
    check_mpi(MPI_Bcast(found, 1 + core::max_routes, MPI_DOUBLE, 0, comm), "MPI_Bcast");
    if (found[0] >= 0)
        a.seed(static_cast<int>(found[0]), std::span<const double>(found + 1, core::max_routes));
}

core::LearnedEntry learned_entry(const AdaptiveExecutor& a, const LearnedKeys& keys) {
    const core::RouteReport r = a.report();
    core::LearnedEntry e;
    e.transfer = keys.transfer;
    e.nodes = keys.nodes;
    e.current = r.current;
    for (Strategy s : a.kinds())
        e.strategies.push_back(static_cast<int>(s));
    e.seconds.assign(r.seconds.begin(), r.seconds.begin() + r.routes);
    return e;
}

namespace {

// The entries the file at `path` holds and keeps: none when there is no
// file, or one of another dri or MPI library or damaged (it is replaced).
// A file that cannot be read, or is no learned file, is left alone.
std::vector<core::LearnedEntry> kept_entries(const std::string& path) {
    std::string text, why;
    if (access(path.c_str(), F_OK) != 0) return {};
    if (!read_file(path, text, why))
        core::fail(Errc::arg, "'" + path + "' exists and " + why + ": not overwritten");
    core::LearnedRead r = core::parse_learned(text, learned_origin());
    if (!r.problem.empty() && text.rfind("dri learned routes ", 0) != 0)
        core::fail(Errc::arg, "'" + path +
                                  "' exists and is not a dri learned file: not overwritten "
                                  "(remove it, or save to another path)");
    return std::move(r.entries);
}

// Writes `text` to a new temporary file beside `path`, then renames it over
// `path`; on any failure the temporary is removed.
void replace_file(const std::string& path, const std::string& text) {
    std::string temp = path + ".XXXXXX";
    const int fd = mkstemp(temp.data());
    if (fd < 0)
        core::fail(Errc::arg,
                   "cannot write a learned file beside '" + path + "': " + std::strerror(errno));
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
    const int saved = errno;
    const bool closed = close(fd) == 0;
    if (done != text.size() || !closed || std::rename(temp.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(done != text.size() ? saved : errno);
        unlink(temp.c_str());
        core::fail(Errc::arg, "cannot write the learned file '" + path + "': " + reason);
    }
}

} // namespace

void write_learned_file(const std::string& path, const std::vector<core::LearnedEntry>& entries) {
    const std::vector<core::LearnedEntry> all = core::merge_learned(kept_entries(path), entries);
    replace_file(path, core::format_learned(learned_origin(), all));
}

} // namespace dri::detail
