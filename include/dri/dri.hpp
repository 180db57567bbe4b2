// dri.hpp - C++ API of dri, the Data Reorganization Interface over MPI.
//
// The same six objects as the C binding (dri.h), as move-only RAII types in
// namespace dri. Errors are thrown as dri::Error carrying the DRI_ERR_* code.
// Objects keep what they depend on alive (a distribution its group, a
// transfer its distributions), so they may be destroyed in any order; all of
// them must be gone or dri::finalize() called before MPI_Finalize.
#pragma once

#include "dri.h"

#include <compare>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dri {

using Index = std::int64_t;
inline constexpr Index unbounded = DRI_UNBOUNDED;

enum class Errc : int {
    success = DRI_SUCCESS,
    arg = DRI_ERR_ARG,
    null_pointer = DRI_ERR_NULL,
    handle = DRI_ERR_HANDLE,
    ndims = DRI_ERR_NDIMS,
    extent = DRI_ERR_EXTENT,
    overflow = DRI_ERR_OVERFLOW,
    type = DRI_ERR_TYPE,
    partition = DRI_ERR_PARTITION,
    overlap = DRI_ERR_OVERLAP,
    minmax = DRI_ERR_MINMAX,
    grid = DRI_ERR_GRID,
    layout = DRI_ERR_LAYOUT,
    not_disjoint = DRI_ERR_NOT_DISJOINT,
    not_covering = DRI_ERR_NOT_COVERING,
    mismatch = DRI_ERR_MISMATCH,
    no_partner = DRI_ERR_NO_PARTNER,
    duplicate = DRI_ERR_DUPLICATE,
    buffer = DRI_ERR_BUFFER,
    buffer_size = DRI_ERR_BUFFER_SIZE,
    buffer_count = DRI_ERR_BUFFER_COUNT,
    state = DRI_ERR_STATE,
    not_initialized = DRI_ERR_NOT_INITIALIZED,
    group = DRI_ERR_GROUP,
    inconsistent = DRI_ERR_INCONSISTENT,
    mpi = DRI_ERR_MPI,
    no_memory = DRI_ERR_NO_MEMORY,
    internal = DRI_ERR_INTERNAL,
    strategy = DRI_ERR_STRATEGY,
};

class DRI_API Error : public std::runtime_error {
  public:
    Error(Errc code, const std::string& what) : std::runtime_error(what), code_(code) {}
    Errc code() const noexcept { return code_; }

  private:
    Errc code_;
};

enum class Type : int {
    int8 = DRI_INT8,
    uint8 = DRI_UINT8,
    int16 = DRI_INT16,
    uint16 = DRI_UINT16,
    int32 = DRI_INT32,
    uint32 = DRI_UINT32,
    int64 = DRI_INT64,
    uint64 = DRI_UINT64,
    float32 = DRI_FLOAT,
    float64 = DRI_DOUBLE,
    complex_float = DRI_COMPLEX_FLOAT,
    complex_double = DRI_COMPLEX_DOUBLE,
    byte = DRI_BYTE,
};

enum class Edge : int {
    truncate = DRI_EDGE_TRUNCATE,
    zero = DRI_EDGE_ZERO,
    replicate = DRI_EDGE_REPLICATE,
    wrap = DRI_EDGE_WRAP,
};

enum class Strategy : int {
    automatic = DRI_STRATEGY_AUTO,
    alltoallw = DRI_STRATEGY_ALLTOALLW,
    packed = DRI_STRATEGY_PACKED,
    p2p = DRI_STRATEGY_P2P,
    measure = DRI_STRATEGY_MEASURE,
    shared = DRI_STRATEGY_SHARED,
    hybrid = DRI_STRATEGY_HYBRID,
    nodes = DRI_STRATEGY_NODES,
};

/// How much AUTO learns (Transfer::learning; docs/api.md, "AUTO that learns").
enum class Learning : int {
    off = DRI_LEARNING_OFF,
    once = DRI_LEARNING_ONCE,
    on = DRI_LEARNING_ON,
};

/// What AUTO that learns is doing (Transfer::learning_state).
enum class RouteState : int {
    one = DRI_ROUTES_ONE,
    learning = DRI_ROUTES_LEARNING,
    settled = DRI_ROUTES_SETTLED,
    frozen = DRI_ROUTES_FROZEN,
};

/// A route a committed transfer holds, and its time in the last decision
/// that timed it (the slowest process's median, seconds; -1: never timed).
struct Route {
    Strategy strategy;
    double seconds;
};

/// Transfer::learning_state: the state, the reorganizations completed while
/// learning was possible, how many explored, the changes of route.
struct LearningState {
    RouteState state;
    Index calls, explored, switches;
};

/// How the copies of one sender element come back into it (Transfer::reverse),
/// or how arriving elements meet a receiver's cells (Transfer::combine).
enum class Combine : int {
    sum = DRI_COMBINE_SUM,
    max = DRI_COMBINE_MAX,
    min = DRI_COMBINE_MIN,
    replace = DRI_COMBINE_REPLACE,
};

/// Initialization: after MPI_Init, before MPI_Finalize. finalize() releases
/// the MPI resources of every object still alive.
DRI_API void init();
DRI_API void finalize();
DRI_API bool initialized();

/// Scoped init/finalize.
class Session {
  public:
    Session() { init(); }
    ~Session() { finalize(); }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
};

namespace detail {
struct GlobalDataImpl;
struct PartitionImpl;
struct GroupImpl;
struct DistributionImpl;
struct LayoutImpl;
struct TransferImpl;
} // namespace detail

/// Shape and element type of the whole array. Local.
class DRI_API GlobalData {
  public:
    GlobalData(std::vector<Index> extents, Type type);
    static GlobalData record(std::vector<Index> extents, Index record_bytes);

    int ndims() const;
    std::vector<Index> extents() const;
    Index elem_size() const;

    GlobalData(GlobalData&&) noexcept = default;
    GlobalData& operator=(GlobalData&&) noexcept = default;
    ~GlobalData();
    std::shared_ptr<const detail::GlobalDataImpl> impl() const { return impl_; }

  private:
    explicit GlobalData(std::shared_ptr<const detail::GlobalDataImpl> i) : impl_(std::move(i)) {}
    std::shared_ptr<const detail::GlobalDataImpl> impl_;
};

/// Partition of one dimension (DRI 4-tuple, block-cyclic or explicit ranges).
struct DimPart {
    DRI_Partkind kind = DRI_PART_BLOCK;
    Index left = 0, right = 0;
    Index min_block = 1, max_block = unbounded;
    Index block_size = 0;
    int nprocs = 0;
    Edge edge = Edge::truncate;
    std::vector<std::pair<Index, Index>> ranges; ///< inclusive [first, last]

    static DimPart whole() { return with_kind(DRI_PART_WHOLE); }
    static DimPart block(int nprocs = 0) {
        DimPart p = with_kind(DRI_PART_BLOCK);
        p.nprocs = nprocs;
        return p;
    }
    static DimPart block4(Index left, Index min_block, Index max_block, Index right,
                          Edge edge = Edge::truncate) {
        DimPart p = with_kind(DRI_PART_BLOCK);
        p.left = left;
        p.min_block = min_block;
        p.max_block = max_block;
        p.right = right;
        p.edge = edge;
        return p;
    }
    static DimPart cyclic(Index block_size, int nprocs = 0) {
        DimPart p = with_kind(DRI_PART_CYCLIC);
        p.block_size = block_size;
        p.nprocs = nprocs;
        return p;
    }
    static DimPart explicit_ranges(std::vector<std::pair<Index, Index>> r) {
        DimPart p = with_kind(DRI_PART_RANGES);
        p.ranges = std::move(r);
        return p;
    }
    DimPart& overlap(Index l, Index r, Edge e = Edge::truncate) {
        left = l;
        right = r;
        edge = e;
        return *this;
    }

  private:
    static DimPart with_kind(DRI_Partkind k) {
        DimPart p;
        p.kind = k;
        return p;
    }
};

class DRI_API Partition {
  public:
    explicit Partition(std::vector<DimPart> dims);
    /// Text notation of docs/concepts.md, e.g. "block,whole~0:2:wrap".
    static Partition parse(const std::string& spec);

    int ndims() const;
    Partition(Partition&&) noexcept = default;
    Partition& operator=(Partition&&) noexcept = default;
    ~Partition();
    std::shared_ptr<const detail::PartitionImpl> impl() const { return impl_; }

  private:
    explicit Partition(std::shared_ptr<const detail::PartitionImpl> i) : impl_(std::move(i)) {}
    std::shared_ptr<const detail::PartitionImpl> impl_;
};

/// An ordered set of processes of a parent communicator. Local.
class DRI_API Group {
  public:
    /// All processes of `parent`, in rank order.
    explicit Group(MPI_Comm parent = MPI_COMM_WORLD);
    Group(MPI_Comm parent, std::vector<int> ranks);

    int size() const;
    int index() const; ///< the caller's index, -1 if not a member
    bool contains_me() const { return index() >= 0; }
    const std::vector<int>& ranks() const;
    MPI_Comm parent() const;

    Group(Group&&) noexcept = default;
    Group& operator=(Group&&) noexcept = default;
    ~Group();
    std::shared_ptr<const detail::GroupImpl> impl() const { return impl_; }

  private:
    std::shared_ptr<const detail::GroupImpl> impl_;
};

/// How one process stores its block. Local.
class DRI_API Layout {
  public:
    /// Row-major packed.
    static Layout packed(int ndims);
    /// Dimensions slowest first ({1, 0} stores dimension 0 contiguously), with
    /// optional padding elements per dimension.
    static Layout ordered(std::vector<int> order, std::vector<Index> pad = {});
    static Layout strided(std::vector<Index> strides);

    int ndims() const;
    Layout(Layout&&) noexcept = default;
    Layout& operator=(Layout&&) noexcept = default;
    ~Layout();
    std::shared_ptr<const detail::LayoutImpl> impl() const { return impl_; }

  private:
    explicit Layout(std::shared_ptr<const detail::LayoutImpl> i) : impl_(std::move(i)) {}
    std::shared_ptr<const detail::LayoutImpl> impl_;
};

struct BlockInfo {
    int index = -1;          ///< index in the group
    std::vector<int> coords; ///< grid coordinates
    std::vector<Index> owned_first, owned_last, owned_count;
    std::vector<Index> stored_first, stored_last;
    std::vector<Index> segments;     ///< owned blocks per dimension (block-cyclic > 1)
    std::vector<Index> local_extent; ///< stored cells per dimension
    std::vector<Index> strides;      ///< element strides in the buffer
    Index bytes = 0;                 ///< bytes to allocate per buffer
    Index elements() const {
        Index e = 1;
        for (Index x : local_extent)
            e *= x;
        return e;
    }
};

/// One box of a box distribution: first and last global index per dimension,
/// inclusive (empty when some last == first - 1).
struct Box {
    std::vector<Index> first, last;
    friend bool operator==(const Box&, const Box&) = default;
};

/// How group indices number the process grid's coordinates (DRI_Grid_order).
enum class GridOrder : int {
    row_major = 0,   ///< the last grid dimension varies fastest (the default)
    column_major = 1 ///< the first varies fastest, as BLACS 'C' order
};

/// Global data + partition + group. Created collectively by the group's
/// processes, which must all pass the same global data, partition and grid
/// order.
class DRI_API Distribution {
  public:
    Distribution(const GlobalData& gdo, const Partition& part, const Group& group,
                 GridOrder order = GridOrder::row_major);
    /// A box distribution (docs/concepts.md, "Box partitions"; C:
    /// DRI_Distribution_create_boxes), collective over the group: each
    /// member passes its own boxes.
    static Distribution from_boxes(const GlobalData& gdo, const Group& group,
                                   const std::vector<Box>& mine);
    /// The same, every member passing every member's boxes, box k owned by
    /// group index owners[k].
    static Distribution from_boxes(const GlobalData& gdo, const Group& group,
                                   const std::vector<Box>& all, const std::vector<int>& owners);
    /// The boxes member `index` owns (an ordinary distribution's owned
    /// blocks) and the elements a box member stores (its buffer holds its
    /// boxes one after another, each dense in the layout's order).
    std::vector<Box> boxes(int index) const;
    Index cells(int index) const;
    /// Whether this is a box distribution (block() refuses one: it has no grid).
    bool has_boxes() const;

    std::vector<int> grid() const;
    GridOrder grid_order() const;
    int size() const;  ///< processes in the group
    int index() const; ///< the caller's index in the group, -1 if not a member
    /// The calling process's block under `layout` (before any buffer exists).
    BlockInfo block(const Layout& layout) const;
    BlockInfo block(const Layout& layout, int index) const;

    Distribution(Distribution&&) noexcept = default;
    Distribution& operator=(Distribution&&) noexcept = default;
    ~Distribution();
    std::shared_ptr<const detail::DistributionImpl> impl() const { return impl_; }

  private:
    explicit Distribution(std::shared_ptr<const detail::DistributionImpl> i)
        : impl_(std::move(i)) {}
    std::shared_ptr<const detail::DistributionImpl> impl_;
};

/// A ring the transfer allocates itself, in node shared memory: `length`
/// buffers of the process's block each (the forum's n-buffs), reached with
/// Transfer::buffer and freed with the transfer.
struct OwnedRing {
    int length = 1;
};

/// Which ring of a transfer.
enum class Role : int { send = 0, recv = 1 };

/// A named, planned reorganization.
class DRI_API Transfer {
  public:
    explicit Transfer(std::string name);

    /// Declare the sender role with n >= 1 buffers (cycled by execute()).
    void send(const Distribution& dist, const Layout& layout,
              std::span<const std::span<std::byte>> buffers);
    void recv(const Distribution& dist, const Layout& layout,
              std::span<const std::span<std::byte>> buffers);
    /// Any range of contiguous containers (vectors, arrays, spans) as buffers.
    template <class Buffers>
    void send(const Distribution& dist, const Layout& layout, Buffers&& buffers) {
        const auto b = as_bytes_list(buffers);
        send(dist, layout, std::span<const std::span<std::byte>>(b));
    }
    template <class Buffers>
    void recv(const Distribution& dist, const Layout& layout, Buffers&& buffers) {
        const auto b = as_bytes_list(buffers);
        recv(dist, layout, std::span<const std::span<std::byte>>(b));
    }
    /// Declare a role whose ring the transfer allocates (see OwnedRing).
    void send(const Distribution& dist, const Layout& layout, OwnedRing ring);
    void recv(const Distribution& dist, const Layout& layout, OwnedRing ring);
    /// Buffer k of a role's ring (owned or not), as bytes; as<T>() for T.
    std::span<std::byte> buffer(Role role, int k) const;
    template <class T>
    std::span<T> buffer_as(Role role, int k) const {
        const std::span<std::byte> b = buffer(role, k);
        return {reinterpret_cast<T*>(b.data()), b.size() / sizeof(T)};
    }
    void strategy(Strategy s);
    /// Before commit, on a receiving process: elements arriving in the
    /// receive buffer are combined into its cells with `op` instead of
    /// stored (DRI_Transfer_set_combine; Combine::replace stores them).
    void combine(Combine op);

    /// Pieces (DRI_Transfer_set_pieces, docs/api.md "Pieces"): before
    /// commit, split this process's block of `role` into `count` even pieces
    /// along dimension `dim`, or into the pieces between explicit local
    /// `bounds` (count + 1 of them, from 0 to the block's extent).
    void pieces(Role role, int dim, int count);
    void pieces(Role role, int dim, std::span<const Index> bounds);
    /// The split dimension (-1 when not split) and the piece count.
    std::pair<int, int> pieces(Role role) const;
    /// Piece k's local index range [first, second) along the split dimension.
    std::pair<Index, Index> piece(Role role, int k) const;
    /// Producer, during a started reorganization: piece k of the send
    /// buffer is complete (DRI_Piece_ready; thread-safe).
    void ready(int k);
    /// Consumer: whether piece k of the receive buffer has arrived
    /// (DRI_Piece_test), and waiting for it (DRI_Piece_wait).
    bool arrived(int k);
    void wait_piece(int k);

    /// Collective over the parent communicator of the transfer's groups.
    void commit();
    bool committed() const;

    /// One reorganization, then both sides advance to their next buffer.
    void execute();
    void start();
    void wait();
    bool test();
    int current_send_buffer() const;
    int current_recv_buffer() const;
    const std::string& name() const;
    Strategy chosen_strategy() const;

    /// AUTO that learns (DRI_Transfer_set_learning, DRI_Transfer_freeze,
    /// DRI_Transfer_route, DRI_Transfer_learning): before commit, how much
    /// it learns; once committed, between reorganizations and collectively,
    /// freeze the fastest route so far (or resume); the routes held; what it
    /// is doing.
    void learning(Learning mode);
    void freeze(bool frozen = true);
    std::vector<Route> routes() const;
    LearningState learning_state() const;
    /// A learned file (DRI_Transfer_set_learned_file, DRI_Transfer_save_learned,
    /// DRI_Transfer_learned_seeded; docs/api.md, "A learned file"): before
    /// commit, the file to start from ("" for none); once committed,
    /// collectively as freeze, save what was learned; whether it started
    /// from a file.
    void learned_file(const std::string& path);
    void save_learned(const std::string& path);
    bool learned_seeded() const;

    /// The reverse of this committed transfer: receivers' buffers back into
    /// senders' buffers, the copies of each element combined with `op`
    /// (DRI_Transfer_reverse). Collective over the transfer's processes.
    Transfer reverse(Combine op) const;

    Transfer(Transfer&&) noexcept = default;
    Transfer& operator=(Transfer&&) noexcept = default;
    ~Transfer();
    detail::TransferImpl* impl() const { return impl_.get(); }

  private:
    template <class Buffers>
    static std::vector<std::span<std::byte>> as_bytes_list(Buffers& buffers) {
        std::vector<std::span<std::byte>> out;
        for (auto& b : buffers)
            out.push_back(std::as_writable_bytes(std::span(b)));
        return out;
    }
    detail::TransferImpl& checked() const; ///< throws Errc::handle when moved from
    explicit Transfer(std::shared_ptr<detail::TransferImpl> i) : impl_(std::move(i)) {}
    friend Transfer corner_turn(MPI_Comm, Index, Index, Type, std::span<const std::span<std::byte>>,
                                std::span<const std::span<std::byte>>);
    std::shared_ptr<detail::TransferImpl> impl_;
};

/// Node shared memory (DRI_Alloc_mem): send buffers there let
/// Strategy::shared copy every byte once, receivers on the same node
/// reading straight from their senders' buffers, and AUTO picks it. A
/// contiguous range of bytes, usable as a transfer buffer like any
/// container. Construction, free() and the destructor are local calls of
/// this process. free() throws while a committed transfer uses the memory;
/// the destructor never throws: memory a committed transfer still uses is
/// freed when the last such transfer is destroyed.
class DRI_API SharedMemory {
  public:
    explicit SharedMemory(std::size_t bytes);
    SharedMemory(SharedMemory&& o) noexcept;
    SharedMemory& operator=(SharedMemory&& o) noexcept;
    ~SharedMemory();
    void free();
    std::byte* data() const { return base_; }
    std::size_t size() const { return size_; }
    std::byte* begin() const { return base_; }
    std::byte* end() const { return base_ + size_; }
    /// The memory as an array of T (the base is page aligned).
    template <class T>
    std::span<T> as() const {
        return {reinterpret_cast<T*>(base_), size_ / sizeof(T)};
    }

    /// What dri::allocator calls: `bytes` of node shared memory (throws
    /// std::bad_alloc when there is none), and its release, deferred while a
    /// committed transfer uses the memory.
    static void* allocate(std::size_t bytes);
    static void deallocate(void* p) noexcept;

  private:
    void release() noexcept;
    std::byte* base_ = nullptr;
    std::size_t size_ = 0;
};

/// A standard allocator in node shared memory: a ring of
/// std::vector<T, dri::allocator<T>> gets the single copy, with no other
/// change to the program. Local, stateless, any thread.
template <class T>
struct allocator {
    using value_type = T;
    allocator() noexcept = default;
    template <class U>
    allocator(const allocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
        return static_cast<T*>(SharedMemory::allocate(n * sizeof(T)));
    }
    void deallocate(T* p, std::size_t) noexcept { SharedMemory::deallocate(p); }
    template <class U>
    bool operator==(const allocator<U>&) const noexcept {
        return true;
    }
};

/// Convenience for the common case: the corner turn of an nrows x ncols
/// matrix over every process of comm, from row blocks (rows contiguous) to
/// column blocks (columns contiguous); every process sends and receives.
/// Both calls are collective over comm and throw on every process or none.
struct CornerTurnBlocks {
    BlockInfo send, recv; ///< this process's blocks: sizes to allocate in .bytes
};
DRI_API CornerTurnBlocks corner_turn_blocks(MPI_Comm comm, Index nrows, Index ncols, Type type);
/// A committed transfer over the given buffer rings (same count on both sides).
DRI_API Transfer corner_turn(MPI_Comm comm, Index nrows, Index ncols, Type type,
                             std::span<const std::span<std::byte>> send_buffers,
                             std::span<const std::span<std::byte>> recv_buffers);
template <class SendBuffers, class RecvBuffers>
Transfer corner_turn(MPI_Comm comm, Index nrows, Index ncols, Type type, SendBuffers&& send,
                     RecvBuffers&& recv) {
    std::vector<std::span<std::byte>> s, r;
    for (auto& b : send)
        s.push_back(std::as_writable_bytes(std::span(b)));
    for (auto& b : recv)
        r.push_back(std::as_writable_bytes(std::span(b)));
    return corner_turn(comm, nrows, ncols, type, std::span<const std::span<std::byte>>(s),
                       std::span<const std::span<std::byte>>(r));
}

/// Commits several transfers at once. Collective over `comm`: every process
/// passes the transfers it declared (possibly none); names are matched across
/// processes. On error every process throws and nothing is committed.
DRI_API void commit(MPI_Comm comm, std::span<Transfer* const> transfers);
inline void commit(MPI_Comm comm, std::initializer_list<Transfer*> transfers) {
    commit(comm, std::span<Transfer* const>(transfers.begin(), transfers.size()));
}

/// A version of dri, major.minor.patch: the ABI of libdri.so.N, N the major, only grows
/// within a major version (docs/release.md).
struct Version {
    int major = 0; ///< the major version, N in libdri.so.N
    int minor = 0; ///< new functions, compatible with the same major's older minors
    int patch = 0; ///< fixes only
    /// Compares major, then minor, then patch.
    friend auto operator<=>(const Version&, const Version&) = default;
    /// "major.minor.patch"
    std::string to_string() const {
        return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    }
};

/// The version of the libdri loaded (DRI_Get_version); DRI_VERSION_MAJOR,
/// _MINOR and _PATCH give the headers'. Local; valid before init() too.
inline Version version() {
    Version v;
    DRI_Get_version(&v.major, &v.minor, &v.patch);
    return v;
}

/// The copy kernels' parameters in use and how they were chosen, one line
/// (DRI_Kernel_tuning; docs/api.md, "Kernel parameters"). Local.
inline std::string kernel_tuning() {
    int length = 0;
    DRI_Kernel_tuning(nullptr, 0, &length);
    std::string text(static_cast<std::size_t>(length) + 1, '\0');
    DRI_Kernel_tuning(text.data(), length + 1, nullptr);
    text.resize(std::char_traits<char>::length(text.c_str())); // chosen meanwhile: shorter
    return text;
}

} // namespace dri
