/** dri10.h - DRI-1.0 compatibility layer.
 *
 * The names of the ratified DRI-1.0 standard where they differ from dri.h,
 * mapped onto the same objects: code written to DRI-1.0's object model
 * (predefined partitions and packed layouts, one reorganization object per
 * role with connect / get / put / disconnect) runs on dri. Everything else
 * (DRI_Init, DRI_Globaldata_create, DRI_Group_create, DRI_Distribution_create,
 * DRI_Blockinfo_get, the error codes) has the same name in dri.h, which this
 * header includes; MPI-bound arguments (a parent communicator) follow dri.h.
 *
 * Reorganization objects: a process creates one DRI_Reorg per role it plays
 * in a named reorganization (DRI_SEND and/or DRI_RECV); the library allocates
 * each role's ring of buffers. DRI_Reorg_connect is collective over the
 * parent communicator of the distributions' groups: it commits the
 * reorganization once every role this process created under that name is
 * connected (a process of the parent that plays no role calls
 * DRI_Commit(comm, 0, NULL) instead). Then, per frame:
 *
 *   sender:    DRI_Reorg_get_sendbuf -> fill -> DRI_Reorg_put_sendbuf
 *              (put starts the frame's reorganization)
 *   receiver:  DRI_Reorg_get_recvbuf (returns when the frame's data is in the
 *              buffer) -> use -> DRI_Reorg_put_recvbuf
 *
 * A process that plays both roles puts its send buffer before it gets the
 * frame's receive buffer. DRI_Reorg_disconnect finishes a frame in flight
 * and releases the communication resources; DRI_Reorg_destroy frees the
 * object and, with the last role of the name, its buffers. Calls out of this
 * order return DRI_ERR_STATE.
 */
#ifndef DRI10_H_INCLUDED
#define DRI10_H_INCLUDED

#include "dri.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- predefined partitions: one letter per dimension, dimension 0 first:
 * W = whole (not cut), B = block. DRI_PARTITION_WB is whole x block (column
 * blocks of a matrix), DRI_PARTITION_BW block x whole (row blocks). They are
 * valid between DRI_Init and DRI_Finalize and cannot be destroyed. */
#define DRI_PARTITION_W ((DRI_Partition)(uintptr_t)0x10)   /**< 1-D whole */
#define DRI_PARTITION_B ((DRI_Partition)(uintptr_t)0x11)   /**< 1-D block */
#define DRI_PARTITION_WW ((DRI_Partition)(uintptr_t)0x12)  /**< 2-D whole x whole */
#define DRI_PARTITION_WB ((DRI_Partition)(uintptr_t)0x13)  /**< 2-D whole x block */
#define DRI_PARTITION_BW ((DRI_Partition)(uintptr_t)0x14)  /**< 2-D block x whole */
#define DRI_PARTITION_BB ((DRI_Partition)(uintptr_t)0x15)  /**< 2-D block x block */
#define DRI_PARTITION_WWB ((DRI_Partition)(uintptr_t)0x16) /**< 3-D, last dimension cut */
#define DRI_PARTITION_WBW ((DRI_Partition)(uintptr_t)0x17) /**< 3-D, middle dimension cut */
#define DRI_PARTITION_BWW ((DRI_Partition)(uintptr_t)0x18) /**< 3-D, first dimension cut */
#define DRI_PARTITION_WBB ((DRI_Partition)(uintptr_t)0x19) /**< 3-D pencils along dimension 0 */
#define DRI_PARTITION_BWB ((DRI_Partition)(uintptr_t)0x1a) /**< 3-D pencils along dimension 1 */
#define DRI_PARTITION_BBW ((DRI_Partition)(uintptr_t)0x1b) /**< 3-D pencils along dimension 2 */

/* ---- predefined packed layouts: the digits list the dimensions from the
 * slowest to the fastest varying, no padding. DRI_LAYOUT_PACKED_01 is
 * row-major (dimension 1 contiguous), DRI_LAYOUT_PACKED_10 column-major. */
#define DRI_LAYOUT_PACKED_0 ((DRI_Layout)(uintptr_t)0x40)   /**< 1-D packed */
#define DRI_LAYOUT_PACKED_01 ((DRI_Layout)(uintptr_t)0x41)  /**< 2-D row-major */
#define DRI_LAYOUT_PACKED_10 ((DRI_Layout)(uintptr_t)0x42)  /**< 2-D column-major */
#define DRI_LAYOUT_PACKED_012 ((DRI_Layout)(uintptr_t)0x43) /**< 3-D, dimension 2 contiguous */
#define DRI_LAYOUT_PACKED_021 ((DRI_Layout)(uintptr_t)0x44) /**< 3-D, dimension 1 contiguous */
#define DRI_LAYOUT_PACKED_102 ((DRI_Layout)(uintptr_t)0x45) /**< 3-D, dimension 2 contiguous */
#define DRI_LAYOUT_PACKED_120 ((DRI_Layout)(uintptr_t)0x46) /**< 3-D, dimension 0 contiguous */
#define DRI_LAYOUT_PACKED_201 ((DRI_Layout)(uintptr_t)0x47) /**< 3-D, dimension 1 contiguous */
#define DRI_LAYOUT_PACKED_210 ((DRI_Layout)(uintptr_t)0x48) /**< 3-D, dimension 0 contiguous */

/* ---- reorganization objects ------------------------------------------- */
/** One role of a named reorganization on this process. */
typedef struct DRI_Reorg_s* DRI_Reorg;

/** The role a DRI_Reorg plays. */
typedef enum DRI_Reorgtype {
    DRI_SEND = 0, /**< produces frames from its distribution */
    DRI_RECV = 1  /**< consumes frames into its distribution */
} DRI_Reorgtype;

/** Declares this process's `type` role in the reorganization `name` with
 * `nbufs` library-allocated buffers (node shared memory, page aligned, so
 * that receivers on the same node copy straight from them) of the block's size
 * under `layout`. Local. */
DRI_API int DRI_Reorg_create(DRI_Reorgtype type, const char* name, DRI_Distribution dist,
                             DRI_Layout layout, int nbufs, DRI_Reorg* reorg);
/** Connects the role; the last role this process declared under the name
 * commits the reorganization (collective, see above). */
DRI_API int DRI_Reorg_connect(DRI_Reorg reorg);
/** The next send buffer to fill (a DRI_SEND role). */
DRI_API int DRI_Reorg_get_sendbuf(DRI_Reorg reorg, void** buffer);
/** Hands the filled send buffer back and starts the frame; sets *buffer to NULL. */
DRI_API int DRI_Reorg_put_sendbuf(DRI_Reorg reorg, void** buffer);
/** Waits for the frame and returns the buffer holding it (a DRI_RECV role). */
DRI_API int DRI_Reorg_get_recvbuf(DRI_Reorg reorg, void** buffer);
/** Releases the receive buffer got last; sets *buffer to NULL. */
DRI_API int DRI_Reorg_put_recvbuf(DRI_Reorg reorg, void** buffer);
/** Finishes a frame in flight; the role can no longer get or put buffers. */
DRI_API int DRI_Reorg_disconnect(DRI_Reorg reorg);
/** Frees the role (and, with the name's last role, its buffers); sets *reorg to NULL. */
DRI_API int DRI_Reorg_destroy(DRI_Reorg* reorg);
/** The role's block: extents, owned ranges, strides and bytes per buffer. */
DRI_API int DRI_Reorg_blockinfo(DRI_Reorg reorg, DRI_Blockinfo* info);

#ifdef __cplusplus
}
#endif

#endif /* DRI10_H_INCLUDED */
