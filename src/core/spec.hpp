// Parsers of the text notation for shapes, element types, partitions and
// lists, used by the C and C++ bindings, the plan viewer, the benchmark and
// the tests. The notation, its canonical forms and examples are in the table
// of docs/concepts.md, section "Text notation"; the core::to_string printers
// (shape.hpp, partition.hpp) write exactly this notation, canonically.
//
//   shape      64x32
//   type       float double cfloat cdouble int8 ... uint64 byte recordN
//   partition  item[,item...], one item per dimension:
//              kind(b)(f:l|f:l...)[min:max]/nprocs~left:right:edge
//              e.g. "block/2~1:1:wrap,whole"  "cyclic(4)[0:],block[2:]"
//   list       1,0   (layout order, padding or strides)
//
// Malformed text throws Error(Errc::arg) quoting the offending piece; so do a
// negative process count or overlap, which no partition may hold. Other values
// are range checked where the objects are validated, with their own error codes
// (a record size below 1 throws Errc::type here, from ElementType::record).
#pragma once

#include "core/partition.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dri::core {

std::vector<Index> parse_shape(std::string_view text);
ElementType parse_type(std::string_view text);
Partition parse_partition(std::string_view text);
std::vector<Index> parse_list(std::string_view text);

} // namespace dri::core
