#include "method.hpp"

#include <algorithm>

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

} // namespace dri::bench
