#include "core/learned_routes.hpp"

#include "core/route_learner.hpp"

#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace dri::core {

namespace {

constexpr std::string_view magic = "dri learned routes 1";

std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h = 14695981039346656037ull) {
    for (const char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

// The MPI library's line as the file holds it: printable ASCII only, at
// most 160 characters, so that the header stays one line.
std::string one_line(std::string_view text) {
    std::string out;
    for (const char c : text.substr(0, text.find('\n'))) {
        if (out.size() == 160) break;
        out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
    }
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

std::string hex(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
    return buf;
}

// Reads the words of one line in turn; any word missing, malformed or out
// of range makes the line (and so the file) unreadable.
class Words {
  public:
    explicit Words(std::string_view line) : rest_(line) {}
    std::string_view word() {
        const std::size_t end = rest_.find(' ');
        const std::string_view w = rest_.substr(0, end);
        rest_ = end == std::string_view::npos ? std::string_view{} : rest_.substr(end + 1);
        return w;
    }
    bool key(std::uint64_t& v) {
        const std::string_view w = word();
        return w.size() == 16 && whole(w, std::from_chars(w.data(), w.data() + w.size(), v, 16));
    }
    bool integer(int& v, int lo, int hi) {
        const std::string_view w = word();
        return whole(w, std::from_chars(w.data(), w.data() + w.size(), v)) && v >= lo && v <= hi;
    }
    // A time: -1 (never timed) or a positive number of seconds below a day.
    bool seconds(double& v) {
        const std::string_view w = word();
        if (!whole(w, std::from_chars(w.data(), w.data() + w.size(), v))) return false;
        return v == -1 || (std::isfinite(v) && v > 0 && v < 86400);
    }
    bool done() const { return rest_.empty(); }

  private:
    static bool whole(std::string_view w, std::from_chars_result r) {
        return !w.empty() && r.ec == std::errc{} && r.ptr == w.data() + w.size();
    }
    std::string_view rest_;
};

bool parse_entry(std::string_view line, LearnedEntry& e) {
    Words w(line);
    int n = 0;
    if (w.word() != "route" || !w.key(e.transfer) || !w.key(e.nodes) ||
        !w.integer(e.current, 0, max_routes - 1) || !w.integer(n, 1, max_routes) || e.current >= n)
        return false;
    e.strategies.assign(static_cast<std::size_t>(n), 0);
    e.seconds.assign(static_cast<std::size_t>(n), -1);
    for (int k = 0; k < n; ++k)
        if (!w.integer(e.strategies[static_cast<std::size_t>(k)], 0, 63) ||
            !w.seconds(e.seconds[static_cast<std::size_t>(k)]))
            return false;
    return w.done();
}

// The lines of `text` (which ends with a newline), without their newlines.
std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        lines.push_back(text.substr(0, end));
        text.remove_prefix(end + 1);
    }
    return lines;
}

} // namespace

std::string format_learned(const LearnedOrigin& origin, const std::vector<LearnedEntry>& entries) {
    std::string text = std::string(magic) + "\ndri " + one_line(origin.dri_version) + "\nmpi " +
                       one_line(origin.mpi_library) + "\n";
    for (const LearnedEntry& e : entries) {
        text += "route " + hex(e.transfer) + " " + hex(e.nodes) + " " + std::to_string(e.current) +
                " " + std::to_string(e.strategies.size());
        for (std::size_t k = 0; k < e.strategies.size(); ++k) {
            char t[32];
            std::snprintf(t, sizeof t, "%.9g", k < e.seconds.size() ? e.seconds[k] : -1.0);
            text += " " + std::to_string(e.strategies[k]) + " " + t;
        }
        text += "\n";
    }
    return text + "end " + std::to_string(entries.size()) + " " + hex(fnv1a(text)) + "\n";
}

LearnedRead parse_learned(std::string_view text, const LearnedOrigin& origin) {
    LearnedRead r;
    if (text.size() > max_learned_bytes) {
        r.problem = "larger than 1 MiB, not a learned file";
        return r;
    }
    if (text.substr(0, magic.size() + 1) != std::string(magic) + "\n") {
        r.problem = "not a dri learned-routes file (or another version of the format)";
        return r;
    }
    const std::size_t last = text.size() < 2 ? 0 : text.rfind('\n', text.size() - 2);
    std::uint64_t sum = 0;
    int count = -1;
    Words end(text.back() == '\n' ? text.substr(last + 1, text.size() - last - 2) : "");
    if (end.word() != "end" || !end.integer(count, 0, 1 << 20) || !end.key(sum) || !end.done() ||
        sum != fnv1a(text.substr(0, last + 1))) {
        r.problem = "damaged: cut short or changed since it was written (its checksum differs)";
        return r;
    }
    const std::vector<std::string_view> lines = lines_of(text.substr(0, last + 1));
    if (lines.size() < 3 || lines[1] != "dri " + one_line(origin.dri_version)) {
        r.problem = "written by another version of dri (" +
                    std::string(lines.size() > 1 ? lines[1] : "") + "), not this one (" +
                    origin.dri_version + ")";
        return r;
    }
    if (lines[2] != "mpi " + one_line(origin.mpi_library)) {
        r.problem = "written under another MPI library (" + std::string(lines[2].substr(4)) + ")";
        return r;
    }
    for (std::size_t i = 3; i < lines.size(); ++i) {
        LearnedEntry e;
        if (!parse_entry(lines[i], e)) {
            r.problem = "damaged: line " + std::to_string(i + 1) + " is not a route entry";
            return r;
        }
        r.entries.push_back(std::move(e));
    }
    if (r.entries.size() != static_cast<std::size_t>(count)) {
        r.entries.clear();
        r.problem = "damaged: its entry count differs from its entries";
    }
    return r;
}

std::vector<LearnedEntry> merge_learned(std::vector<LearnedEntry> entries,
                                        const std::vector<LearnedEntry>& add) {
    for (const LearnedEntry& a : add) {
        bool replaced = false;
        for (LearnedEntry& e : entries)
            if (e.transfer == a.transfer && e.nodes == a.nodes) {
                e = a;
                replaced = true;
            }
        if (!replaced) entries.push_back(a);
    }
    return entries;
}

int find_learned(const std::vector<LearnedEntry>& entries, std::uint64_t transfer,
                 std::uint64_t nodes, const std::vector<int>& strategies, std::string& why) {
    why = "no entry for this transfer";
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const LearnedEntry& e = entries[i];
        if (e.transfer != transfer) continue;
        if (e.nodes != nodes) {
            why = "its entry for this transfer was learned on another node layout";
            continue;
        }
        if (e.strategies != strategies) {
            why = "its entry for this transfer holds other routes";
            continue;
        }
        return static_cast<int>(i);
    }
    return -1;
}

std::uint64_t mix_key(std::uint64_t a, std::uint64_t b) {
    // splitmix64's finalizer over a combination of both.
    std::uint64_t z = a * 0x9e3779b97f4a7c15ull + b + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

namespace {

std::uint64_t add_regions(std::uint64_t h, const std::vector<Region>& regions) {
    h = mix_key(h, regions.size());
    for (const Region& r : regions) {
        h = mix_key(mix_key(h, static_cast<std::uint64_t>(r.s_off)),
                    static_cast<std::uint64_t>(r.r_off));
        for (const Axis& a : r.axes)
            h = mix_key(mix_key(mix_key(h, static_cast<std::uint64_t>(a.n)),
                                static_cast<std::uint64_t>(a.s)),
                        static_cast<std::uint64_t>(a.r));
    }
    return h;
}

std::uint64_t add_peers(std::uint64_t h, const std::vector<PeerRegions>& peers) {
    h = mix_key(h, peers.size());
    for (const PeerRegions& p : peers)
        h = add_regions(mix_key(h, static_cast<std::uint64_t>(p.peer)), p.regions);
    return h;
}

} // namespace

std::uint64_t plan_key(const LocalPlan& plan) {
    std::uint64_t h =
        mix_key(static_cast<std::uint64_t>(plan.elem_size),
                static_cast<std::uint64_t>(plan.send_pieces * 1024 + plan.recv_pieces));
    h = add_peers(add_peers(h, plan.sends), plan.recvs);
    return add_regions(add_regions(h, plan.self), plan.fills);
}

} // namespace dri::core
