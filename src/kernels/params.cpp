#include "kernels/params.hpp"

#include "core/error.hpp"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace dri::core {

namespace {

// Relaxed: each copy reads a consistent enough set (any valid values give
// the same bytes), and they are set once, at the first commit.
std::atomic<Index> block_source{KernelParams{}.block_source};
std::atomic<Index> max_rows{KernelParams{}.max_block_rows};
std::atomic<Index> nt{KernelParams{}.nt_threshold};

Index number(const std::string& name, const std::string& value) {
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || errno != 0)
        fail(Errc::arg, "kernel parameter " + name + ": '" + value + "' is not an integer");
    return v;
}

} // namespace

std::string check_kernel_params(const KernelParams& p) {
    if (p.block_source < min_block_source || p.block_source > max_block_source)
        return "block_source " + std::to_string(p.block_source) + " outside [" +
               std::to_string(min_block_source) + ", " + std::to_string(max_block_source) + "]";
    if (p.max_block_rows < min_block_rows || p.max_block_rows > max_block_rows_limit)
        return "max_block_rows " + std::to_string(p.max_block_rows) + " outside [" +
               std::to_string(min_block_rows) + ", " + std::to_string(max_block_rows_limit) + "]";
    if (p.nt_threshold < 0) return "nt_threshold " + std::to_string(p.nt_threshold) + " < 0";
    return {};
}

KernelParams kernel_params() noexcept {
    return {block_source.load(std::memory_order_relaxed), max_rows.load(std::memory_order_relaxed),
            nt.load(std::memory_order_relaxed)};
}

void set_kernel_params(const KernelParams& p) {
    if (const std::string why = check_kernel_params(p); !why.empty())
        fail(Errc::arg, "kernel parameters: " + why);
    block_source.store(p.block_source, std::memory_order_relaxed);
    max_rows.store(p.max_block_rows, std::memory_order_relaxed);
    nt.store(p.nt_threshold, std::memory_order_relaxed);
}

std::string to_string(const KernelParams& p) {
    return "block_source=" + std::to_string(p.block_source) +
           ",max_block_rows=" + std::to_string(p.max_block_rows) +
           ",nt_threshold=" + std::to_string(p.nt_threshold);
}

KernelParams parse_kernel_params(const std::string& text, KernelParams base) {
    std::istringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        const auto eq = item.find('=');
        const std::string name = item.substr(0, eq);
        if (eq == std::string::npos)
            fail(Errc::arg, "kernel parameters: '" + item + "' is not name=value");
        const Index v = number(name, item.substr(eq + 1));
        if (name == "block_source")
            base.block_source = v;
        else if (name == "max_block_rows")
            base.max_block_rows = v;
        else if (name == "nt_threshold")
            base.nt_threshold = v;
        else
            fail(Errc::arg, "kernel parameters: unknown name '" + name +
                                "' (block_source, max_block_rows, nt_threshold)");
    }
    if (const std::string why = check_kernel_params(base); !why.empty())
        fail(Errc::arg, "kernel parameters: " + why);
    return base;
}

} // namespace dri::core
