// Byte serialization of what collective calls exchange (declarations,
// canonical descriptions to compare across processes). Pure C++: the MPI
// backend moves the bytes.
#pragma once

#include "core/partition.hpp"

#include <cstddef>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace dri::core {

class Writer {
  public:
    // Out of line: GCC 12 reports a false -Wstringop-overflow when the
    // vector insert is inlined into a function that starts a Writer.
    void i64(Index v);
    void str(const std::string& s) {
        i64(static_cast<Index>(s.size()));
        const auto* p = reinterpret_cast<const std::byte*>(s.data());
        buf_.insert(buf_.end(), p, p + s.size());
    }
    template <class T>
    void vec(const std::vector<T>& v) {
        i64(static_cast<Index>(v.size()));
        for (const T& x : v)
            i64(static_cast<Index>(x));
    }
    const std::vector<std::byte>& bytes() const { return buf_; }
    std::string str_bytes() const {
        return std::string(reinterpret_cast<const char*>(buf_.data()), buf_.size());
    }

  private:
    std::vector<std::byte> buf_;
};

class Reader {
  public:
    Reader(const std::byte* p, std::size_t n) : p_(p), end_(p + n) {}
    Index i64() {
        need(sizeof(Index));
        Index v;
        std::memcpy(&v, p_, sizeof v);
        p_ += sizeof v;
        return v;
    }
    std::string str() {
        const Index n = i64();
        if (n < 0) fail(Errc::internal, "corrupt transfer declaration");
        need(static_cast<std::size_t>(n));
        std::string s(reinterpret_cast<const char*>(p_), static_cast<std::size_t>(n));
        p_ += n;
        return s;
    }
    template <class T>
    std::vector<T> vec() {
        const Index n = i64();
        if (n < 0 ||
            static_cast<std::size_t>(n) > static_cast<std::size_t>(end_ - p_) / sizeof(Index))
            fail(Errc::internal, "corrupt transfer declaration");
        std::vector<T> v(static_cast<std::size_t>(n));
        for (T& x : v)
            x = static_cast<T>(i64());
        return v;
    }
    // The next n bytes, read in place (for a nested Reader).
    const std::byte* take(std::size_t n) {
        need(n);
        const std::byte* at = p_;
        p_ += n;
        return at;
    }
    bool done() const { return p_ == end_; }

  private:
    void need(std::size_t n) const {
        if (static_cast<std::size_t>(end_ - p_) < n)
            fail(Errc::internal, "corrupt transfer declaration");
    }
    const std::byte* p_;
    const std::byte* end_;
};

// FNV-1a hash of a list of ints (group rank lists) and of bytes.
std::uint64_t fnv1a(const std::vector<int>& v);
std::uint64_t fnv1a(const std::string& bytes);

// Canonical form of a shape and partition, for comparing across processes.
void write_shape_partition(Writer& w, const Shape& shape, const Partition& part);
std::pair<Shape, Partition> read_shape_partition(Reader& r);

} // namespace dri::core
