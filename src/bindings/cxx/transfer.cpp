// The C++ API's Transfer: declaring roles and pieces, committing, running.
#include "dri/dri.hpp"

#include "bindings/cxx/guarded.hpp"
#include "mpi/interface.hpp"

#include <utility>

namespace dri {

using cxx::guarded;
using cxx::need;

Transfer::Transfer(std::string name)
    : impl_(guarded([&] { return detail::make_transfer(std::move(name)); })) {}
Transfer::~Transfer() = default;

detail::TransferImpl& Transfer::checked() const {
    if (!impl_) throw Error(Errc::handle, "use of a moved-from Transfer");
    return *impl_;
}

void Transfer::send(const Distribution& dist, const Layout& layout,
                    std::span<const std::span<std::byte>> buffers) {
    guarded([&] {
        detail::declare_role(checked(), detail::RoleKind::send, dist.impl(),
                             need(layout.impl(), "Layout"), buffers);
    });
}

void Transfer::recv(const Distribution& dist, const Layout& layout,
                    std::span<const std::span<std::byte>> buffers) {
    guarded([&] {
        detail::declare_role(checked(), detail::RoleKind::recv, dist.impl(),
                             need(layout.impl(), "Layout"), buffers);
    });
}

void Transfer::send(const Distribution& dist, const Layout& layout, OwnedRing ring) {
    guarded([&] {
        detail::declare_owned_role(checked(), detail::RoleKind::send, dist.impl(),
                                   need(layout.impl(), "Layout"), ring.length);
    });
}

void Transfer::recv(const Distribution& dist, const Layout& layout, OwnedRing ring) {
    guarded([&] {
        detail::declare_owned_role(checked(), detail::RoleKind::recv, dist.impl(),
                                   need(layout.impl(), "Layout"), ring.length);
    });
}

std::span<std::byte> Transfer::buffer(Role role, int k) const {
    return guarded([&] {
        return detail::ring_buffer(
            checked(), role == Role::send ? detail::RoleKind::send : detail::RoleKind::recv, k);
    });
}

void Transfer::strategy(Strategy s) {
    guarded([&] { detail::set_strategy(checked(), static_cast<detail::Strategy>(s)); });
}

void Transfer::combine(Combine op) {
    guarded([&] { detail::set_combine(checked(), static_cast<core::CombineOp>(op)); });
}

namespace {

detail::RoleKind role_kind(Role role) {
    return role == Role::send ? detail::RoleKind::send : detail::RoleKind::recv;
}

} // namespace

void Transfer::pieces(Role role, int dim, int count) {
    guarded([&] { detail::set_pieces(checked(), role_kind(role), dim, count); });
}

void Transfer::pieces(Role role, int dim, std::span<const Index> bounds) {
    guarded([&] {
        const auto count = static_cast<std::ptrdiff_t>(bounds.size()) - 1;
        if (count < 1 || count > core::max_pieces)
            core::fail(core::Errc::arg, "transfer '" + checked().name +
                                            "': " + std::to_string(bounds.size()) +
                                            " piece boundaries: give from 2 to " +
                                            std::to_string(core::max_pieces + 1));
        detail::set_pieces(checked(), role_kind(role), dim, static_cast<int>(count),
                           std::vector<core::Index>(bounds.begin(), bounds.end()));
    });
}

std::pair<int, int> Transfer::pieces(Role role) const {
    return guarded([&] { return detail::pieces_of(checked(), role_kind(role)); });
}

std::pair<Index, Index> Transfer::piece(Role role, int k) const {
    return guarded([&] { return detail::piece_range(checked(), role_kind(role), k); });
}

void Transfer::ready(int k) {
    guarded([&] { detail::piece_ready(checked(), k); });
}

bool Transfer::arrived(int k) {
    return guarded([&] { return detail::piece_arrived(checked(), k, false); });
}

void Transfer::wait_piece(int k) {
    guarded([&] { detail::piece_arrived(checked(), k, true); });
}

void Transfer::commit() {
    guarded([&] { detail::commit_alone(checked()); });
}

bool Transfer::committed() const {
    return checked().committed;
}
void Transfer::execute() {
    guarded([&] { detail::execute(checked()); });
}
void Transfer::start() {
    guarded([&] { detail::start(checked()); });
}
void Transfer::wait() {
    guarded([&] { detail::wait(checked()); });
}
bool Transfer::test() {
    return guarded([&] { return detail::test(checked()); });
}
int Transfer::current_send_buffer() const {
    return checked().send ? checked().send->current : -1;
}
int Transfer::current_recv_buffer() const {
    return checked().recv ? checked().recv->current : -1;
}
const std::string& Transfer::name() const {
    return checked().name;
}
Transfer Transfer::reverse(Combine op) const {
    return Transfer(guarded(
        [&] { return detail::reverse_transfer(checked(), static_cast<core::CombineOp>(op)); }));
}

Strategy Transfer::chosen_strategy() const {
    const detail::TransferImpl& t = checked();
    return static_cast<Strategy>(t.committed ? guarded([&] { return detail::route_in_use(t); })
                                             : t.chosen);
}

void Transfer::learning(Learning mode) {
    guarded([&] { detail::set_learning(checked(), static_cast<core::Learning>(mode)); });
}

void Transfer::freeze(bool frozen) {
    guarded([&] { detail::freeze_learning(checked(), frozen); });
}

std::vector<Route> Transfer::routes() const {
    return guarded([&] {
        const detail::LearningReport r = detail::learning_report(checked());
        std::vector<Route> out;
        for (std::size_t k = 0; k < r.routes.size(); ++k)
            out.push_back({static_cast<Strategy>(r.routes[k]), r.report.seconds[k]});
        return out;
    });
}

LearningState Transfer::learning_state() const {
    return guarded([&] {
        const core::RouteReport r = detail::learning_report(checked()).report;
        return LearningState{static_cast<RouteState>(r.phase), r.calls, r.explored, r.switches};
    });
}

void Transfer::learned_file(const std::string& path) {
    guarded([&] { detail::set_learned_file(checked(), path.c_str()); });
}

void Transfer::save_learned(const std::string& path) {
    guarded([&] { detail::save_learned(checked(), path.c_str()); });
}

bool Transfer::learned_seeded() const {
    return guarded([&] { return detail::learning_report(checked()).report.seeded; });
}

} // namespace dri
