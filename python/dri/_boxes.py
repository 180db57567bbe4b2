"""Box distributions in NumPy: a member's block is one dimension, its boxes
one after another, each dense in the layout's dimension order
(docs/concepts.md, "Box partitions")."""

import numpy as np


def box_views(dist, block, order=None, index=None):
    """Views of `block` (the 1-D array of a box distribution's member, as
    dist.empty(layout) gives it), one per box of dist.boxes(index), each
    shaped as its box (dimension 0 first): view[i, j] is global element
    (first[0] + i, first[1] + j). `order` is the layout's dimension order,
    slowest first (None: row-major, as dri.Layout.packed)."""
    block = np.asarray(block)
    if block.ndim != 1:
        raise ValueError("a box distribution's block is one-dimensional")
    views, offset = [], 0
    for first, last in dist.boxes(index):
        extents = [hi - lo + 1 for lo, hi in zip(first, last)]
        if order is None:
            order = list(range(len(extents)))
        if sorted(order) != list(range(len(extents))):
            raise ValueError(f"order {order} is not a permutation of the dimensions")
        cells = int(np.prod(extents)) if min(extents) > 0 else 0
        stored = block[offset:offset + cells].reshape([extents[d] for d in order])
        views.append(stored.transpose(np.argsort(order)))
        offset += cells
    return views
