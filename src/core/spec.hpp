// A compact text notation for shapes, element types, partitions and layouts,
// used by the plan viewer, the benchmark and the tests.
//
//   shape      64x32
//   type       float double cfloat cdouble int8 ... uint64 byte recordN (N bytes)
//   partition  one item per dimension, comma separated:
//              item   := kind ['/' nprocs] ['~' left ':' right [':' edge]]
//              kind   := whole | block | block[min:max] | cyclic(b) | ranges(f:l|f:l|...)
//              edge   := truncate | zero | replicate | wrap
//              e.g.   "block/2~1:1:wrap,whole"  "cyclic(4),block[2:inf]"
//   list       1,0   (layout order, padding or strides)
#pragma once

#include "partition.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dri::core {

std::vector<Index> parse_shape(std::string_view text);
ElementType parse_type(std::string_view text);
Partition parse_partition(std::string_view text);
std::vector<Index> parse_list(std::string_view text);

} // namespace dri::core
