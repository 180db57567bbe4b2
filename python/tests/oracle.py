"""The NumPy oracle: what each process should hold, computed from the
partition rules of docs/concepts.md without asking dri."""

import numpy as np


def frame(shape, k, dtype):
    """Frame k of a global array: every element distinct and exactly
    representable (as complex, the imaginary part is the frame)."""
    values = np.arange(np.prod(shape), dtype=np.int64).reshape(shape) + 1
    if np.issubdtype(dtype, np.complexfloating):
        return (values + 1j * (k + 1)).astype(dtype)
    return (values + 1000 * k).astype(dtype)


def block_range(n, p, c):
    """Elements [first, last] of coordinate c when n are split over p: the
    first n mod p coordinates get one more."""
    part = np.array_split(np.arange(n), p)[c]
    return (int(part[0]), int(part[-1])) if part.size else (0, -1)


def cyclic_rows(n, b, p, c):
    """Indices coordinate c holds when blocks of b are dealt over p, in the
    order it stores them."""
    return [i for j in range(c, (n + b - 1) // b, p)
            for i in range(j * b, min(n, (j + 1) * b))]


def halo_rows(n, first, last, left, right, edge):
    """Global indices of the stored cells of [first, last] with overlap
    (None where a zero-filled cell lies past the bounds)."""
    rows = []
    for i in range(first - left, last + right + 1):
        if 0 <= i < n:
            rows.append(i)
        elif edge == "zero":
            rows.append(None)
        elif edge == "replicate":
            rows.append(min(max(i, 0), n - 1))
        elif edge == "wrap":
            rows.append(i % n)
    return rows


def take_rows(full, rows):
    """full's rows by global index; None gives a row of zeros."""
    out = np.zeros((len(rows),) + full.shape[1:], dtype=full.dtype)
    for k, i in enumerate(rows):
        if i is not None:
            out[k] = full[i]
    return out
