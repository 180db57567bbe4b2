// The oracle of --combine: which element reaches each receiver cell comes
// from the distribution alone (as the stored oracle, simulate.hpp), and the
// cell must hold op(the poison it held, that element). One element is
// combined by the library's kernel (kernels/combine.hpp, exact against its
// own oracle in the unit tests), so a wrong cell here is a wrong delivery.
#include "kernels/combine.hpp"
#include "method.hpp"
#include "simulate.hpp"

#include <vector>

namespace dri::bench {

std::string check_combined(const Problem& pb, dri::Combine op, const std::byte* buf) {
    const core::Distribution& rd = *pb.rd;
    const core::ElementType type = rd.shape().type();
    const Index elem = type.size;
    const int r = pb.me_recv, nd = rd.ndims();
    const core::LocalLayout ll = core::bind_layout(pb.rl, rd.local_extents(r), elem);
    std::vector<std::byte> want(static_cast<std::size_t>(pb.recv_bytes),
                                std::byte{test::recv_poison});
    std::vector<std::byte> arriving(static_cast<std::size_t>(elem));
    const std::vector<int> c = rd.coords(r);
    std::vector<bool> is_cell(want.size(), false);
    test::for_each_cell(ll.extents, [&](const std::vector<Index>& li) {
        std::vector<Index> g(static_cast<std::size_t>(nd));
        bool zero = false;
        for (int d = 0; d < nd; ++d) {
            const auto du = static_cast<std::size_t>(d);
            const auto src = test::source_index(rd, d, c[du], li[du]);
            zero = zero || !src;
            if (src) g[du] = *src;
        }
        const Index L = zero ? 0 : test::linear_index(rd.shape().extents(), g);
        for (Index k = 0; k < elem; ++k)
            arriving[static_cast<std::size_t>(k)] =
                std::byte{zero ? std::uint8_t{0} : test::element_byte(L, k)};
        const core::Region one{0, ll.offset(li), {}};
        core::combine_region(arriving.data(), want.data(), one, type,
                             static_cast<core::CombineOp>(op));
        std::fill_n(is_cell.begin() + ll.offset(li), elem, true);
    });
    for (std::size_t i = 0; i < want.size(); ++i)
        if (buf[i] != want[i])
            return "receiver " + std::to_string(r) + " byte " + std::to_string(i) + ": got " +
                   std::to_string(static_cast<int>(buf[i])) + ", want " +
                   std::to_string(static_cast<int>(want[i])) +
                   (is_cell[i] ? " (combined cell)" : " (layout padding, must stay)");
    return "";
}

} // namespace dri::bench
