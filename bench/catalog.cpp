#include "method.hpp"

#include <algorithm>
#include <utility>

namespace dri::bench {

const char* kind_name(Kind k) {
    switch (k) {
    case Kind::dri:
        return "dri";
    case Kind::baseline:
        return "baseline";
    case Kind::bound:
        return "bound";
    }
    return "?";
}

bool Catalog::wants(const std::string& name) const {
    return wanted.empty() || std::find(wanted.begin(), wanted.end(), name) != wanted.end();
}

void Catalog::skip(const std::string& name, const std::string& reason) {
    if (wants(name)) skipped.push_back({name, reason});
}

void Catalog::add(Method m, const Probe& probe) {
    m.setup_seconds = probe.seconds();
    m.heap_bytes = probe.heap_growth();
    m.rss_bytes = probe.rss_growth();
    methods.push_back(std::move(m));
}

} // namespace dri::bench
