#include "core/error.hpp"

namespace dri::core {

namespace {
// The table's row of a code, or nullptr for a value that is no code.
const ErrcInfo* row_of(Errc c) noexcept {
    int i = static_cast<int>(c);
    return (i >= 0 && i < errc_count) ? &errc_table()[static_cast<std::size_t>(i)] : nullptr;
}
} // namespace

const char* errc_name(Errc c) noexcept {
    const ErrcInfo* row = row_of(c);
    return row ? row->name : "DRI_ERR_UNKNOWN";
}

const char* errc_description(Errc c) noexcept {
    const ErrcInfo* row = row_of(c);
    return row ? row->description : "unknown error code";
}

void fail(Errc code, const std::string& what) {
    throw Error(code, what);
}

} // namespace dri::core
