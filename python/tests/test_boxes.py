"""Box distributions from Python (docs/concepts.md, "Box partitions"): each
rank owns every size-th 2-row stripe of a 10 x 6 array as one box per
stripe (plus an empty box), the boxes go to column blocks and back to boxes
of another bisection, every element checked; box_views maps a block's
boxes; bad boxes raise the same error on every rank."""

import numpy as np
import pytest

import dri
from oracle import frame

SHAPE = (10, 6)


def stripes(rank, size):
    """Rank's stripes of 2 rows, and an empty box."""
    boxes = [((r, 0), (min(r + 1, SHAPE[0] - 1), SHAPE[1] - 1))
             for r in range(2 * rank, SHAPE[0], 2 * size)]
    return boxes + [((0, 3), (-1, 5))]


def halves(size):
    """Every rank's boxes of a bisection by columns then rows, with owners."""
    boxes = [((0, 0), (4, 2)), ((5, 0), (9, 2)), ((0, 3), (9, 5))]
    return boxes, [k % size for k in range(len(boxes))]


@pytest.mark.parametrize("order", [[0, 1], [1, 0]])
def test_boxes_to_columns_and_back(comm, order):
    data = dri.GlobalData(SHAPE, np.float64)
    mine = dri.Distribution.from_boxes(data, stripes(comm.rank, comm.size), comm)
    assert mine.has_boxes and mine.boxes() == [tuple(map(tuple, b)) for b in
                                               stripes(comm.rank, comm.size)]
    cols = dri.Distribution(data, "whole,block", comm)
    boxes, owners = halves(comm.size)
    back = dri.Distribution.from_boxes(data, boxes, comm, owners=owners)
    layout = dri.Layout.ordered(order)
    full = frame(SHAPE, 1, np.float64)
    src, dst = mine.empty(layout, 1), cols.zeros(dri.Layout.packed(2), 1)
    assert src[0].ndim == 1
    for view, (first, last) in zip(dri.box_views(mine, src[0], order), mine.boxes()):
        view[...] = full[first[0]:last[0] + 1, first[1]:last[1] + 1]
    t = dri.Transfer("boxes to columns")
    t.send(mine, layout, src)
    t.recv(cols, dri.Layout.packed(2), dst)
    t.commit()
    t.execute()
    c = cols.block(dri.Layout.packed(2))
    np.testing.assert_array_equal(
        dst[0], full[:, c.owned_first[1]:c.owned_last[1] + 1])
    out = back.zeros(layout, 1)
    u = dri.Transfer("columns to boxes")
    u.send(cols, dri.Layout.packed(2), dst)
    u.recv(back, layout, out)
    u.commit()
    u.execute()
    views = dri.box_views(back, out[0], order)
    assert len(views) == sum(1 for o in owners if o == comm.rank)
    for view, (first, last) in zip(views, back.boxes()):
        np.testing.assert_array_equal(
            view, full[first[0]:last[0] + 1, first[1]:last[1] + 1])
    t.close()
    u.close()


def test_bad_boxes_raise_everywhere(comm):
    data = dri.GlobalData(SHAPE, np.float32)
    with pytest.raises(dri.Error) as e:  # every rank claims row 0
        dri.Distribution.from_boxes(data, [((0, 0), (0, 5))] * (2 if comm.size == 1 else 1),
                                    comm)
    assert e.value.code == dri.ERR_NOT_DISJOINT
    with pytest.raises(dri.Error) as e:
        dri.Distribution.from_boxes(data, [((0, 0), (10, 5))], comm, owners=[0])
    assert e.value.code == dri.ERR_PARTITION
    # A member's block is its cells, in one dimension.
    whole = dri.Distribution.from_boxes(data, [((0, 0), (9, 5))], comm, owners=[0])
    assert whole.block(dri.Layout.packed(2)).shape == ((60,) if comm.rank == 0 else (0,))
    with pytest.raises(dri.Error) as e:  # padding has no meaning for a list of boxes
        t = dri.Transfer("padded boxes")
        t.send(whole, dri.Layout.ordered([0, 1], [0, 1]), whole.empty(dri.Layout.packed(2), 1))
    assert e.value.code == dri.ERR_LAYOUT
