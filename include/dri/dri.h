/*
 * dri.h - C binding of dri, the Data Reorganization Interface over MPI.
 *
 * Six objects: global data (shape + element type), partition, group (a set
 * of processes of a parent communicator), distribution (collective over its
 * group), layout, transfer (named, planned once at commit, executed by
 * DRI_Do). Every call returns DRI_SUCCESS or a DRI_ERR_* code; the message
 * of the calling thread's last error is DRI_Last_error_message(). Handles
 * are opaque; a destroyed handle is set to NULL and any copy of it is
 * detected as stale (DRI_ERR_HANDLE).
 *
 * Usable from C99. Call DRI_Init after MPI_Init and DRI_Finalize before
 * MPI_Finalize. See docs/concepts.md for the model and docs/api.md for the
 * reference.
 */
#ifndef DRI_H_INCLUDED
#define DRI_H_INCLUDED

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* DRI_VERSION_MAJOR, _MINOR, _PATCH and DRI_VERSION_STRING: the version of
 * these headers, generated from the build's one version number. */
#include <dri/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Marks what libdri exports: everything else in the library is hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define DRI_API __attribute__((visibility("default")))
#else
#define DRI_API
#endif

/* ---- error codes ------------------------------------------------------- */
#define DRI_SUCCESS 0
#define DRI_ERR_ARG 1              /**< invalid argument */
#define DRI_ERR_NULL 2             /**< required pointer argument is NULL */
#define DRI_ERR_HANDLE 3           /**< null, stale or wrong-kind handle */
#define DRI_ERR_NDIMS 4            /**< number of dimensions outside [1, DRI_MAX_DIMS] */
#define DRI_ERR_EXTENT 5           /**< zero, negative or inconsistent extent */
#define DRI_ERR_OVERFLOW 6         /**< a size or offset overflows 64 bits */
#define DRI_ERR_TYPE 7             /**< invalid element type or size */
#define DRI_ERR_PARTITION 8        /**< malformed partition */
#define DRI_ERR_OVERLAP 9          /**< overlap negative or larger than the data */
#define DRI_ERR_MINMAX 10          /**< invalid min/max block extents */
#define DRI_ERR_GRID 11            /**< no process grid satisfies the partition */
#define DRI_ERR_LAYOUT 12          /**< malformed layout */
#define DRI_ERR_NOT_DISJOINT 13    /**< sending partition owns elements twice */
#define DRI_ERR_NOT_COVERING 14    /**< sending partition leaves elements unowned */
#define DRI_ERR_MISMATCH 15        /**< sides disagree on shape or element type */
#define DRI_ERR_NO_PARTNER 16      /**< a transfer name has no partner at commit */
#define DRI_ERR_DUPLICATE 17       /**< role or name declared twice */
#define DRI_ERR_BUFFER 18          /**< unusable buffer: NULL (Python: not an array, read-only) */
#define DRI_ERR_BUFFER_SIZE 19     /**< buffer smaller than required */
#define DRI_ERR_BUFFER_COUNT 20    /**< wrong number of buffers */
#define DRI_ERR_STATE 21           /**< object in the wrong state for this call */
#define DRI_ERR_NOT_INITIALIZED 22 /**< before DRI_Init or after DRI_Finalize */
#define DRI_ERR_GROUP 23           /**< invalid process set, or caller not in it */
#define DRI_ERR_INCONSISTENT 24    /**< ranks passed different arguments to a collective */
#define DRI_ERR_MPI 25             /**< an MPI call failed */
#define DRI_ERR_NO_MEMORY 26       /**< allocation failed */
#define DRI_ERR_INTERNAL 27        /**< library invariant violated (a bug) */
#define DRI_ERR_STRATEGY 28        /**< the strategy forced does not apply to this transfer */

#define DRI_MAX_DIMS 8
#define DRI_UNBOUNDED INT64_MAX /**< max block extent without limit */

typedef int64_t DRI_Index;

/* ---- element types ----------------------------------------------------- */
typedef enum DRI_Datatype {
    DRI_INT8 = 1,
    DRI_UINT8,
    DRI_INT16,
    DRI_UINT16,
    DRI_INT32,
    DRI_UINT32,
    DRI_INT64,
    DRI_UINT64,
    DRI_FLOAT,
    DRI_DOUBLE,
    DRI_COMPLEX_FLOAT,  /**< two floats */
    DRI_COMPLEX_DOUBLE, /**< two doubles */
    DRI_BYTE,
    DRI_RECORD /**< user record, size given separately */
} DRI_Datatype;

/* ---- partitions -------------------------------------------------------- */
typedef enum DRI_Partkind {
    DRI_PART_WHOLE = 0,  /**< not cut */
    DRI_PART_BLOCK = 1,  /**< contiguous blocks (DRI 4-tuple) */
    DRI_PART_CYCLIC = 2, /**< block-cyclic */
    DRI_PART_RANGES = 3  /**< explicit [first, last] per process coordinate */
} DRI_Partkind;

typedef enum DRI_Edge {
    DRI_EDGE_TRUNCATE = 0,  /**< overlap stops at the global bounds */
    DRI_EDGE_ZERO = 1,      /**< cells past the bounds are zero */
    DRI_EDGE_REPLICATE = 2, /**< cells past the bounds repeat the edge element */
    DRI_EDGE_WRAP = 3       /**< cells past the bounds come from the other end */
} DRI_Edge;

/** Partition of one dimension. Initialise with one of the DRI_Dim_* helpers. */
typedef struct DRI_Dimpart {
    DRI_Partkind kind;
    DRI_Index left_overlap;
    DRI_Index min_block; /**< block: smallest block extent (0 allows empty blocks) */
    DRI_Index max_block; /**< block: largest block extent, DRI_UNBOUNDED for none */
    DRI_Index right_overlap;
    DRI_Index block_size; /**< cyclic */
    int nprocs;           /**< processes along this dimension, 0 = chosen by dri */
    DRI_Edge edge;
    int nranges;             /**< ranges: number of ranges (= processes) */
    const DRI_Index* ranges; /**< ranges: 2*nranges values first0,last0,first1,... */
} DRI_Dimpart;

static inline DRI_Dimpart DRI_Dim_whole(void) {
    DRI_Dimpart p = {DRI_PART_WHOLE, 0, 1, DRI_UNBOUNDED, 0, 0, 0, DRI_EDGE_TRUNCATE, 0, NULL};
    return p;
}
static inline DRI_Dimpart DRI_Dim_block(void) {
    DRI_Dimpart p = {DRI_PART_BLOCK, 0, 1, DRI_UNBOUNDED, 0, 0, 0, DRI_EDGE_TRUNCATE, 0, NULL};
    return p;
}
/** The DRI 4-tuple: left overlap, min block extent, max block extent, right overlap. */
static inline DRI_Dimpart DRI_Dim_block4(DRI_Index left, DRI_Index min_block, DRI_Index max_block,
                                         DRI_Index right, DRI_Edge edge) {
    DRI_Dimpart p = {DRI_PART_BLOCK, left, min_block, max_block, right, 0, 0, edge, 0, NULL};
    return p;
}
static inline DRI_Dimpart DRI_Dim_cyclic(DRI_Index block_size) {
    DRI_Dimpart p = {DRI_PART_CYCLIC,   0, 1,   DRI_UNBOUNDED, 0, block_size, 0,
                     DRI_EDGE_TRUNCATE, 0, NULL};
    return p;
}
static inline DRI_Dimpart DRI_Dim_ranges(int nranges, const DRI_Index* first_last_pairs) {
    DRI_Dimpart p = {DRI_PART_RANGES, 0, 1, DRI_UNBOUNDED, 0, 0, 0, DRI_EDGE_TRUNCATE, nranges,
                     first_last_pairs};
    return p;
}

/* ---- handles ----------------------------------------------------------- */
typedef struct DRI_Globaldata_s* DRI_Globaldata;
typedef struct DRI_Partition_s* DRI_Partition;
typedef struct DRI_Group_s* DRI_Group;
typedef struct DRI_Distribution_s* DRI_Distribution;
typedef struct DRI_Layout_s* DRI_Layout;
typedef struct DRI_Transfer_s* DRI_Transfer;

/* ---- init / finalize / errors ------------------------------------------ */
DRI_API int DRI_Init(void);     /**< after MPI_Init */
DRI_API int DRI_Finalize(void); /**< before MPI_Finalize; frees every object still alive */
DRI_API int DRI_Initialized(int* flag);
/** The version of the libdri loaded (DRI_VERSION_* give the headers'), as
 * MPI_Get_version: local, valid before DRI_Init and after DRI_Finalize.
 * DRI_ERR_NULL when a pointer is NULL. */
DRI_API int DRI_Get_version(int* major, int* minor, int* patch);
/** Description of an error code (static string, never NULL). */
DRI_API const char* DRI_Error_string(int code);
/** Detailed message of the calling thread's last failed call ("" if none). */
DRI_API const char* DRI_Last_error_message(void);
/** The copy kernels' parameters in use and how they were chosen, one line
 * (docs/api.md, "Kernel parameters"), into text[0..size), NUL-terminated and
 * truncated to fit; *length (may be NULL) gets the whole line's length.
 * Chooses them first when no commit of this process has (a measurement of
 * up to 0.3 s, once). Local; valid before DRI_Init too. DRI_ERR_NULL for a
 * NULL text with size > 0, DRI_ERR_ARG for a negative size. */
DRI_API int DRI_Kernel_tuning(char* text, int size, int* length);

/* ---- global data --------------------------------------------------------- */
DRI_API int DRI_Globaldata_create(int ndims, const DRI_Index extents[], DRI_Datatype type,
                                  DRI_Globaldata* gdo);
DRI_API int DRI_Globaldata_create_record(int ndims, const DRI_Index extents[],
                                         DRI_Index record_bytes, DRI_Globaldata* gdo);
DRI_API int DRI_Globaldata_get(DRI_Globaldata gdo, int* ndims, DRI_Index extents[DRI_MAX_DIMS],
                               DRI_Index* elem_bytes);
DRI_API int DRI_Globaldata_destroy(DRI_Globaldata* gdo);

/* ---- partition ------------------------------------------------------------- */
DRI_API int DRI_Partition_create(int ndims, const DRI_Dimpart parts[], DRI_Partition* part);
/** From the text notation of docs/concepts.md, e.g. "block,whole~0:2:wrap". */
DRI_API int DRI_Partition_create_spec(const char* spec, DRI_Partition* part);
DRI_API int DRI_Partition_destroy(DRI_Partition* part);

/* ---- group ----------------------------------------------------------------- */
/** The processes ranks[0..n-1] of `parent` (all of them when ranks is NULL),
 * in that order. Local call. */
DRI_API int DRI_Group_create(MPI_Comm parent, int n, const int ranks[], DRI_Group* group);
DRI_API int DRI_Group_size(DRI_Group group, int* size);
/** The caller's index in the group, or -1. */
DRI_API int DRI_Group_index(DRI_Group group, int* index);
DRI_API int DRI_Group_destroy(DRI_Group* group);

/* ---- distribution ------------------------------------------------------------ */
/** How group indices number the process grid's coordinates. */
typedef enum DRI_Grid_order {
    DRI_GRID_ROW_MAJOR = 0,   /**< the last grid dimension varies fastest (the default) */
    DRI_GRID_COLUMN_MAJOR = 1 /**< the first varies fastest, as BLACS 'C' order */
} DRI_Grid_order;

/** Collective over the group's processes; every member must pass the same
 * global data and partition (else DRI_ERR_INCONSISTENT on every member).
 * The grid is row-major. */
DRI_API int DRI_Distribution_create(DRI_Globaldata gdo, DRI_Partition part, DRI_Group group,
                                    DRI_Distribution* dist);
/** DRI_Distribution_create with the grid numbered in `order`, which every
 * member must pass alike (else DRI_ERR_INCONSISTENT on every member); a value
 * that is not a DRI_Grid_order fails with DRI_ERR_ARG on every member. */
DRI_API int DRI_Distribution_create_ordered(DRI_Globaldata gdo, DRI_Partition part, DRI_Group group,
                                            DRI_Grid_order order, DRI_Distribution* dist);
/** Process counts per dimension (ndims entries). */
DRI_API int DRI_Distribution_grid(DRI_Distribution dist, int grid[DRI_MAX_DIMS]);
DRI_API int DRI_Distribution_destroy(DRI_Distribution* dist);

/* ---- box distributions (docs/concepts.md, "Box partitions") ------------------- */
/** Whose boxes DRI_Distribution_create_boxes receives. */
typedef enum DRI_Box_scope {
    DRI_BOXES_MINE = 0, /**< this process's own boxes (each member passes its own list) */
    DRI_BOXES_ALL = 1   /**< every member's boxes, box k owned by group index owner[k];
                             every member passes the same list */
} DRI_Box_scope;

/** Collective over the group's processes: a distribution in which each member
 * owns a list of boxes. Box k is first[k*ndims + d] .. last[k*ndims + d]
 * (inclusive, as DRI_PART_RANGES; empty when some last = first - 1) along
 * each dimension d. owner is NULL with DRI_BOXES_MINE. Boxes must lie inside
 * the array (DRI_ERR_PARTITION) and be disjoint (DRI_ERR_NOT_DISJOINT); they
 * need not cover it, but the sending side of a transfer must
 * (DRI_ERR_NOT_COVERING at commit). A member stores its boxes one after
 * another in the order given, each dense in the layout's dimension order:
 * its buffer holds DRI_Distribution_boxes' cells elements. Layouts with
 * padding or strides are refused for box sides (DRI_ERR_LAYOUT); box
 * distributions have no overlap. Every member gets the same error. */
DRI_API int DRI_Distribution_create_boxes(DRI_Globaldata gdo, DRI_Group group, int nboxes,
                                          const DRI_Index first[], const DRI_Index last[],
                                          DRI_Box_scope scope, const int owner[],
                                          DRI_Distribution* dist);
/** The boxes of group member `index` (any process may ask): *nboxes gets
 * their count and *cells the elements the member stores; the first
 * min(maxboxes, count) boxes go to first/last (ndims entries each; both may
 * be NULL when maxboxes is 0). For an ordinary distribution the boxes are
 * the member's owned blocks (one per combination of segments), its cells
 * the owned elements; its storage is the DRI_Blockinfo one. */
DRI_API int DRI_Distribution_boxes(DRI_Distribution dist, int index, int maxboxes, int* nboxes,
                                   DRI_Index first[], DRI_Index last[], DRI_Index* cells);

/* ---- layout ------------------------------------------------------------------ */
/** order: dimensions slowest first ({0,1} row-major, {1,0} column-contiguous);
 * pad: extra elements per dimension, or NULL. A layout describes one process's
 * own block: each process of a side may pass its own. */
DRI_API int DRI_Layout_create(int ndims, const int order[], const DRI_Index pad[],
                              DRI_Layout* layout);
/** Explicit element strides, checked against each block's extents. */
DRI_API int DRI_Layout_create_strided(int ndims, const DRI_Index strides[], DRI_Layout* layout);
DRI_API int DRI_Layout_destroy(DRI_Layout* layout);

/* ---- block information (before any buffer exists) ---------------------------- */
typedef struct DRI_Blockinfo {
    int ndims;
    int index;                            /**< index in the group, -1 if not a member */
    int coords[DRI_MAX_DIMS];             /**< grid coordinates */
    DRI_Index owned_first[DRI_MAX_DIMS];  /**< first owned global index (first segment) */
    DRI_Index owned_last[DRI_MAX_DIMS];   /**< last owned global index (last segment) */
    DRI_Index owned_count[DRI_MAX_DIMS];  /**< owned elements (all segments) */
    DRI_Index stored_first[DRI_MAX_DIMS]; /**< with overlap; may be < 0 with padding */
    DRI_Index stored_last[DRI_MAX_DIMS];  /**< with overlap; may be >= extent */
    DRI_Index segments[DRI_MAX_DIMS];     /**< owned blocks along the dimension */
    DRI_Index local_extent[DRI_MAX_DIMS]; /**< stored cells along the dimension */
    DRI_Index strides[DRI_MAX_DIMS];      /**< element strides in the buffer */
    DRI_Index bytes;                      /**< bytes to allocate per buffer */
} DRI_Blockinfo;

/** The calling process's block. */
DRI_API int DRI_Blockinfo_get(DRI_Distribution dist, DRI_Layout layout, DRI_Blockinfo* info);
/** The block of group index `index`. */
DRI_API int DRI_Blockinfo_get_index(DRI_Distribution dist, DRI_Layout layout, int index,
                                    DRI_Blockinfo* info);
/** Segment k (block-cyclic) of group index `index` along `dim`. */
DRI_API int DRI_Blockinfo_segment(DRI_Distribution dist, int index, int dim, DRI_Index k,
                                  DRI_Index* owned_first, DRI_Index* owned_last,
                                  DRI_Index* stored_first, DRI_Index* stored_last,
                                  DRI_Index* local_start);

/* ---- transfer ------------------------------------------------------------------ */
typedef enum DRI_Strategy {
    DRI_STRATEGY_AUTO = 0,      /**< chosen by a cheap rule at commit */
    DRI_STRATEGY_ALLTOALLW = 1, /**< derived datatypes + MPI_Alltoallw */
    DRI_STRATEGY_PACKED = 2,    /**< pack + MPI_Alltoallv + unpack */
    DRI_STRATEGY_P2P = 3,       /**< point to point, packing only where needed */
    DRI_STRATEGY_MEASURE = 4,   /**< time the candidates at commit, keep the fastest */
    DRI_STRATEGY_SHARED = 5,    /**< single copy through node shared memory: every send
                                     buffer in DRI_Alloc_mem memory, all processes on one
                                     node */
    DRI_STRATEGY_HYBRID = 6,    /**< per pair: the single copy where both are on one node and
                                     the sender's buffers are in DRI_Alloc_mem memory,
                                     messages (as P2P) elsewhere */
    DRI_STRATEGY_NODES = 7      /**< node-aware: the pieces a node sends to another node
                                     travel as one message between the nodes' leaders,
                                     gathered and scattered inside each node; pairs on one
                                     node exchange messages as P2P */
} DRI_Strategy;

/** A named transfer; the caller then declares its role(s) with
 * DRI_Transfer_send and/or DRI_Transfer_recv. Local call. */
DRI_API int DRI_Transfer_create(const char* name, DRI_Transfer* xfer);
/** Sender role: distribution, this process's own layout (the other members
 * of the group may use others) and nbuf >= 1 buffers of sizes[i] bytes;
 * with buffers and sizes both NULL, the transfer allocates the ring of nbuf
 * buffers itself in node shared memory (see DRI_Transfer_buffer). */
DRI_API int DRI_Transfer_send(DRI_Transfer xfer, DRI_Distribution dist, DRI_Layout layout, int nbuf,
                              void* const buffers[], const DRI_Index sizes[]);
/** Receiver role, same arguments. A process may be both (clique). */
DRI_API int DRI_Transfer_recv(DRI_Transfer xfer, DRI_Distribution dist, DRI_Layout layout, int nbuf,
                              void* const buffers[], const DRI_Index sizes[]);
/** Convenience for the common case: the corner turn of an nrows x ncols
 * matrix over every process of comm. Senders hold row blocks with rows
 * contiguous (row-major), receivers column blocks with columns contiguous
 * (column-major); every process is both. Both calls are collective over comm.
 * DRI_Corner_turn_blocks tells each process its two blocks (sizes to
 * allocate in `bytes`) before any buffer exists; DRI_Corner_turn_create
 * declares and commits the transfer with nbuf buffers per side (cycled by
 * DRI_Do). Any error is returned on every process and creates nothing. */
DRI_API int DRI_Corner_turn_blocks(MPI_Comm comm, DRI_Index nrows, DRI_Index ncols,
                                   DRI_Datatype type, DRI_Blockinfo* send, DRI_Blockinfo* recv);
DRI_API int DRI_Corner_turn_create(MPI_Comm comm, DRI_Index nrows, DRI_Index ncols,
                                   DRI_Datatype type, int nbuf, void* const send_buffers[],
                                   const DRI_Index send_sizes[], void* const recv_buffers[],
                                   const DRI_Index recv_sizes[], DRI_Transfer* xfer);

DRI_API int DRI_Transfer_set_strategy(DRI_Transfer xfer, DRI_Strategy strategy);
/** Node shared memory: send buffers here let receivers on the same node read
 * them directly (DRI_STRATEGY_SHARED: one copy per byte, no MPI message
 * carries data). A local call of one process, like MPI_Alloc_mem, at any
 * time, before DRI_Init too: `bytes` (0 allowed) of page-aligned memory,
 * readable by processes of the owner's user only. It is ordinary memory
 * otherwise: any strategy and any other use may take it. Where the system
 * has no anonymous memory files (memfd_create), or with the environment
 * variable DRI_SHARED_MEMORY=off, it is ordinary memory no other process can
 * map, and transfers move its data by messages. Nothing is left in the file
 * system, even when the process is killed. */
DRI_API int DRI_Alloc_mem(DRI_Index bytes, void** base);
/** Local: frees memory from DRI_Alloc_mem. Refused (DRI_ERR_STATE, nothing
 * freed) while a committed transfer uses it. DRI_ERR_ARG, nothing freed,
 * for any address DRI_Alloc_mem did not return: NULL, an address inside an
 * allocation, memory already freed (freeing twice), and the buffers of a
 * ring the transfer owns (DRI_Transfer_buffer), which live as long as the
 * transfer. DRI_Finalize does not free it. */
DRI_API int DRI_Free_mem(void* base);

/** Which ring DRI_Transfer_buffer names. */
typedef enum DRI_Role { DRI_ROLE_SEND = 0, DRI_ROLE_RECV = 1 } DRI_Role;
/** Buffer k of the transfer's ring for `role` (its address, and its size in
 * `bytes` unless NULL). A role declared with buffers == NULL and sizes ==
 * NULL has a ring of nbuf buffers the transfer allocated in node shared
 * memory, one block each; they live as long as the transfer, and
 * DRI_Free_mem refuses them (DRI_ERR_ARG). Local call: DRI_ERR_ARG for k
 * outside [0, nbuf) or an unknown role, DRI_ERR_STATE when the transfer has
 * not declared that role. */
DRI_API int DRI_Transfer_buffer(DRI_Transfer xfer, DRI_Role role, int k, void** base,
                                DRI_Index* bytes);
/** The strategy a committed transfer runs (what AUTO or MEASURE chose); for
 * AUTO that learns, the route a reorganization started now would run. */
DRI_API int DRI_Transfer_strategy(DRI_Transfer xfer, DRI_Strategy* strategy);

/* ---- AUTO that learns (docs/api.md, "AUTO that learns") ------------------ */
/** How much AUTO learns. ON (the default): it holds up to three routes,
 * times them on the transfer's first calls, runs the fastest and re-checks
 * the others now and then (at most 2% of the calls), switching on every
 * process at the same call. ONCE: it learns on the first calls, then keeps
 * the fastest (frozen). OFF: the static rule's one route. The environment's
 * DRI_AUTO_LEARNING (on, once, off) sets the default; processes that ask
 * differently get the least any asked. */
typedef enum DRI_Learning {
    DRI_LEARNING_OFF = 0,
    DRI_LEARNING_ONCE = 1,
    DRI_LEARNING_ON = 2
} DRI_Learning;
/** Before commit, on any process of the transfer. Local call. */
DRI_API int DRI_Transfer_set_learning(DRI_Transfer xfer, DRI_Learning mode);
/** Committed, between reorganizations; collective over the transfer's
 * processes: frozen != 0 stops exploring, keeping the fastest route so far,
 * so that no call is spent on another route (a real-time loop's deadline);
 * 0 resumes. Any process that asks to freeze freezes them all. A transfer
 * holding one route has nothing to freeze: success. */
DRI_API int DRI_Transfer_freeze(DRI_Transfer xfer, int frozen);
/** What AUTO that learns is doing, as DRI_Transfer_learning reports it. */
typedef enum DRI_Route_state {
    DRI_ROUTES_ONE = 0,      /**< one route held: nothing to learn */
    DRI_ROUTES_LEARNING = 1, /**< the first calls: every route timed in turn */
    DRI_ROUTES_SETTLED = 2,  /**< the fastest runs; the others are re-checked now and then */
    DRI_ROUTES_FROZEN = 3    /**< the fastest runs; nothing is re-checked */
} DRI_Route_state;
/** Committed: the routes held (1 when AUTO holds one, or a strategy other
 * than AUTO was asked for). For a fan-out, those of the first receiving side
 * this process takes part in. Local call. */
DRI_API int DRI_Transfer_routes(DRI_Transfer xfer, int* count);
/** Committed: route k (0 is the static rule's choice) and its time in the
 * last decision that timed it: the slowest process's median, in seconds
 * (-1 when never timed). Local call; DRI_ERR_ARG for k outside the routes. */
DRI_API int DRI_Transfer_route(DRI_Transfer xfer, int k, DRI_Strategy* strategy, double* seconds);
/** Committed: the state, the reorganizations completed while learning was
 * possible, how many of them explored (learning or re-checking a route),
 * and the changes of route since learning ended. Any output may be NULL.
 * Local call. */
DRI_API int DRI_Transfer_learning(DRI_Transfer xfer, DRI_Route_state* state, DRI_Index* calls,
                                  DRI_Index* explored, DRI_Index* switches);
/** A learned file (docs/api.md, "A learned file"), as FFTW's wisdom. Before
 * commit; local: the file AUTO that learns starts this transfer from, NULL
 * for none. Unset, it is the environment's DRI_AUTO_LEARNED. At commit the
 * transfer's first process (of each pair) reads it: an entry written for
 * this transfer by this dri version, under this MPI library, on this node
 * layout, with the same routes, starts it settled on the route learned (the
 * first re-checks then time once each other route within 1.5 times of it;
 * routes further behind wait, as after learning); a missing, damaged or
 * foreign file, or no entry, is ignored with a warning on stderr, and the
 * transfer learns from nothing. */
DRI_API int DRI_Transfer_set_learned_file(DRI_Transfer xfer, const char* path);
/** Committed, between reorganizations; collective over the transfer's
 * processes, as DRI_Transfer_freeze is: writes what the transfer's pairs
 * that learn have learned into the file at `path` (the first sending
 * process writes it; its path counts), replacing their old entries and
 * keeping the others. The file is replaced whole (a temporary renamed over
 * it): a reader never sees half of it. A transfer holding one route has nothing to
 * save and leaves the file alone. DRI_ERR_ARG on every process when the
 * path is NULL or empty, or the file cannot be written, or a file there is
 * not a learned file (it is not overwritten). */
DRI_API int DRI_Transfer_save_learned(DRI_Transfer xfer, const char* path);
/** Committed: whether the transfer started from a learned file (1) or
 * learned from nothing (0). Local call. */
DRI_API int DRI_Transfer_learned_seeded(DRI_Transfer xfer, int* seeded);
/** Collective over every process of `comm` (the parent communicator of the
 * transfers' groups): each passes the transfers it declared (count may be 0).
 * Names are matched, both sides checked, plans built. On any error every
 * process returns an error and no transfer is committed. */
DRI_API int DRI_Commit(MPI_Comm comm, int count, DRI_Transfer xfers[]);
/** DRI_Commit over the transfer's parent communicator with this one transfer. */
DRI_API int DRI_Transfer_commit(DRI_Transfer xfer);
/** One reorganization: senders' current buffer -> receivers' current buffer,
 * then every side advances to its next buffer. Blocking; collective over the
 * transfer's participants. */
DRI_API int DRI_Do(DRI_Transfer xfer);
/** Non-blocking form: start, then wait (or test until done). */
DRI_API int DRI_Do_start(DRI_Transfer xfer);
DRI_API int DRI_Do_wait(DRI_Transfer xfer);
DRI_API int DRI_Do_test(DRI_Transfer xfer, int* done);
/** Index of the buffer the next DRI_Do uses on each side (-1 without that role). */
DRI_API int DRI_Transfer_current(DRI_Transfer xfer, int* send_buffer, int* recv_buffer);
DRI_API int DRI_Transfer_destroy(DRI_Transfer* xfer);

/* ---- reverse (adjoint) ------------------------------------------------------- */
/** How the copies of one sender element come back into it (the reverse), or
 * how arriving elements meet a receiver's cells (DRI_Transfer_set_combine). */
typedef enum DRI_Combine {
    DRI_COMBINE_SUM = 0,    /**< the adjoint: every copy added into the element */
    DRI_COMBINE_MAX = 1,    /**< the largest copy (integer and floating types) */
    DRI_COMBINE_MIN = 2,    /**< the smallest copy (integer and floating types) */
    DRI_COMBINE_REPLACE = 3 /**< the owner's copy: the cell of the receiver whose own block
                                 holds the element, not an overlap copy */
} DRI_Combine;
/** Combine on receive: elements arriving at this process's receive buffer
 * become op(cell, arriving element) instead of replacing the cell, as in
 * PTRANS's C := A' + C (ScaLAPACK's PxTRAN, PetscSF's Reduce). REPLACE, the
 * default, stores them. Every cell the plan writes is combined once per
 * reorganization, whatever the strategy: overlap (halo) cells and wrapped
 * or replicated edge cells with the copy they receive, zero-padded edge
 * cells with the value zero (unchanged by SUM; MAX keeps max(cell, 0)).
 * Cells no element reaches are left as they are. Type rules as for
 * DRI_Transfer_reverse: SUM, MAX and MIN on integer and floating types, SUM
 * on complex types too, REPLACE only on records and bytes (DRI_ERR_TYPE at
 * commit, on every process of the transfer). Local call, before commit, on
 * a process that declared the receiving role (else DRI_ERR_STATE); an
 * unknown op is DRI_ERR_ARG. Every process of a receiving side must pass
 * the same op (DRI_ERR_INCONSISTENT at commit, on every process); the sides
 * of a fan-out may differ. No scale of the cells (C := beta*C + A') is
 * offered: scale C before DRI_Do. Strategies that would receive straight
 * into the user's buffer receive into scratch allocated at commit and
 * combine from there (P2P, and so AUTO, packs every message it receives;
 * ALLTOALLW receives bytes). Under DRI_STRATEGY_MEASURE the commit's timed
 * runs combine into the receive buffers too: fill them after the commit. */
DRI_API int DRI_Transfer_set_combine(DRI_Transfer xfer, DRI_Combine op);

/** The reverse of a committed transfer: the receivers' buffers flow back
 * into the senders' buffers, and every sender element becomes the
 * combination, with `op`, of the copies the receivers hold of it (overlap
 * and wrapped or replicated edge cells included; zero-padded cells
 * contribute nothing; a fan-out's receiving sides all contribute). Elements
 * no receiver holds are left as they are, as is everything outside the
 * senders' owned blocks. SUM, MAX and MIN are defined on the integer and
 * floating types, SUM on the complex types too; records and bytes allow
 * REPLACE only (DRI_ERR_TYPE). REPLACE needs receiving partitions whose
 * owned blocks are disjoint (DRI_ERR_NOT_DISJOINT).
 *
 * The reverse is a transfer of its own, planned once here: DRI_Do (or
 * start / wait / test) on it runs one reverse over the forward rings
 * swapped, each with its own cursor starting at buffer 0; destroy it with
 * DRI_Transfer_destroy. It moves messages (as DRI_STRATEGY_P2P) and
 * combines contributions in a fixed order, so a floating-point SUM gives
 * the same bits on every run. Collective over the forward transfer's
 * processes (its sending and receiving groups) only; any error is returned
 * on every one of them. */
DRI_API int DRI_Transfer_reverse(DRI_Transfer forward, DRI_Combine op, DRI_Transfer* reverse);

/* ---- pieces: a frame moves as it is produced ---------------------------------- */
/** Most pieces a role may be split into. */
#define DRI_MAX_PIECES 16384
/** Splits this process's block of `role` into `count` pieces along dimension
 * `dim` of the global array (0 = the first extent given), so that a frame can
 * move piece by piece: a producer marks each piece of its send buffer ready
 * (DRI_Piece_ready) as it finishes it, and a consumer waits for or tests
 * each piece of its receive buffer (DRI_Piece_wait, DRI_Piece_test) and
 * works on it while the others are still on their way. Piece k holds the
 * local indices [k*e/count, (k+1)*e/count) along `dim` of a block of extent
 * e there; every index of the other dimensions. Local call, after the role
 * is declared and before commit (else DRI_ERR_STATE); DRI_ERR_ARG for a
 * dimension outside the array or a count outside [1, DRI_MAX_PIECES]. Every
 * process of one side must split along the same dimension into the same
 * count (DRI_ERR_INCONSISTENT at commit, on every process of the transfer);
 * the sending and receiving sides choose their splits independently, and a
 * role never split is one piece. Only strategies that move pieces apply to a
 * transfer with a split side: AUTO and P2P always, SHARED when it applies;
 * forcing another is DRI_ERR_STRATEGY at commit, as is a split on a
 * transfer with several receiving sides or with box distributions
 * (docs/api.md, "Pieces"). A second call before commit replaces the first.
 * Destroying a transfer (or DRI_Finalize) with a reorganization in flight
 * marks its unmarked send pieces ready first, whatever they hold, so that no
 * receiver waits forever, then completes it. */
DRI_API int DRI_Transfer_set_pieces(DRI_Transfer xfer, DRI_Role role, int dim, int count);
/** The same with explicit piece boundaries: bounds[0] = 0 <= bounds[1] <=
 * ... <= bounds[count] = the extent of this process's block along `dim`;
 * piece k holds local indices [bounds[k], bounds[k+1]) (empty pieces are
 * allowed, and still marked). Each process gives its own boundaries; the
 * dimension and count must agree across the side as above. DRI_ERR_NULL
 * for bounds NULL, DRI_ERR_ARG for boundaries that break the rule. */
DRI_API int DRI_Transfer_set_piece_bounds(DRI_Transfer xfer, DRI_Role role, int dim, int count,
                                          const DRI_Index bounds[]);
/** The split of a role: its dimension (-1 when not split) and piece count
 * (1 when not split). Local; DRI_ERR_STATE without that role. */
DRI_API int DRI_Transfer_pieces(DRI_Transfer xfer, DRI_Role role, int* dim, int* count);
/** The local index range [lo, hi) of piece k along the split dimension.
 * A role never split has one piece, k = 0, the whole block: its range is
 * the block's extent along dimension 0. Local; DRI_ERR_ARG for k outside
 * [0, count). */
DRI_API int DRI_Transfer_piece(DRI_Transfer xfer, DRI_Role role, int k, DRI_Index* lo,
                               DRI_Index* hi);
/** Producer: piece k of the send buffer of the reorganization in flight
 * (after DRI_Do_start) is complete; its bytes may leave now. Every piece of
 * a split send role must be marked exactly once per reorganization, in any
 * order, from any thread (with MPI_THREAD_MULTIPLE; the calls of several
 * threads on one transfer are safe). The piece must not be written again
 * until the reorganization completes. A role never split has one piece,
 * marked by DRI_Do_start itself. Local call. DRI_ERR_ARG for k outside [0,
 * count), DRI_ERR_STATE without a send role, outside a started
 * reorganization, or for a piece already marked in this one. DRI_Do marks
 * every piece itself (it starts, marks and waits in one call). */
DRI_API int DRI_Piece_ready(DRI_Transfer xfer, int k);
/** Consumer: whether piece k of the receive buffer of the reorganization in
 * flight has arrived (every byte that lands in it, stored or combined; the
 * zero fills of its edge cells too). Local, non-blocking; it progresses the
 * reorganization, like DRI_Do_test. Once it says so, the piece may be read
 * (not written) until DRI_Do_wait. DRI_ERR_ARG for k outside [0, count),
 * DRI_ERR_STATE without a receive role or outside a started reorganization. */
DRI_API int DRI_Piece_test(DRI_Transfer xfer, int k, int* arrived);
/** Consumer: blocks until piece k has arrived (as DRI_Piece_test). A piece
 * that waits on this process's own send pieces returns once another thread
 * marks them; marked by no one, it waits forever, as an MPI receive with no
 * send would. The reorganization still completes with DRI_Do_wait (or
 * DRI_Do_test), which frees the buffers and advances the rings; on a
 * process whose send role is split, DRI_Do_wait and DRI_Do_test fail with
 * DRI_ERR_STATE, changing nothing, while a piece is unmarked. */
DRI_API int DRI_Piece_wait(DRI_Transfer xfer, int k);

#ifdef __cplusplus
}
#endif

#endif /* DRI_H_INCLUDED */
