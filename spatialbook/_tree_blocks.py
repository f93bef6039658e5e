"""Large batches of states in blocks (the per-body algorithms of rnea.py, crba.py, aba.py).

Inside the algorithms a batch of 6-vectors is a (6, b) array (component first), so that a
constant 6x6 matrix acts on all b vectors in one matrix product.
"""

from __future__ import annotations

import math

import numpy as np


# --- evaluation in blocks of states ---------------------------------------------------------
#
# Layout: inside the algorithms a batch of 6-vectors is a (6, b) array (component first), so
# each component is one contiguous row and a constant 6x6 matrix acts on all b vectors in one
# matrix product.  A large batch is evaluated in blocks of ``_STATES_PER_BLOCK`` states (each
# block one vectorized evaluation): a block's arrays stay in the CPU cache, and they are taken
# from an ``_Arena`` of buffers reused block after block, because numpy would allocate every
# large intermediate afresh, and the OS then maps in zeroed pages, which costs more than the
# arithmetic on them.

#: States per block in :func:`_in_blocks`.
_STATES_PER_BLOCK = 8192
#: Scratch numbers per block of the CRBA (its H and the carried wrenches grow as n^2 per state).
_CRBA_SCRATCH = 2**22


def _crba_block(tree) -> int:
    """States per block for the CRBA: its scratch (the wrenches carried toward the root, and H
    unless the kernel writes into the result) stays near ``_CRBA_SCRATCH`` numbers (32 MB), at
    least 256 and at most ``_STATES_PER_BLOCK``."""
    per_state = tree.nv * tree.nv + 12 * sum(len(sub) for sub in tree.subtree) + 20 * len(tree.parents)
    return int(min(_STATES_PER_BLOCK, max(256, _CRBA_SCRATCH // per_state)))


def _rnea_block(tree) -> int:
    """States per block for the RNEA: scratch (about 18 numbers per body and state) near
    ``_CRBA_SCRATCH`` numbers, between 1024 and ``_STATES_PER_BLOCK`` (measured: 44 dof runs
    faster at 4096 states per block than at 8192, a 6-body chain at 8192)."""
    return int(min(_STATES_PER_BLOCK, max(1024, _CRBA_SCRATCH // (18 * len(tree.parents) + 40))))


def _aba_block(tree) -> int:
    """States per block for the ABA: it keeps about 57 numbers per body and state (the 21 of an
    articulated inertia among them); scratch near three times ``_CRBA_SCRATCH`` numbers, at least
    512 (measured, 44 dof, CPU time: 4096 states per block 10 % faster than 1424 and than 8192)."""
    return int(min(_STATES_PER_BLOCK, max(512, 3 * _CRBA_SCRATCH // (64 * len(tree.parents) + 64))))


class _Arena:
    """Named scratch arrays, reused: ``arena("V", 6, b)`` is a contiguous (6, b) array."""

    def __init__(self):
        self._flat: dict[str, np.ndarray] = {}

    def __call__(self, name: str, *shape: int) -> np.ndarray:
        size = math.prod(shape)
        flat = self._flat.get(name)
        if flat is None or flat.size < size:
            flat = self._flat[name] = np.empty(size)
        return flat[:size].reshape(shape)


def _in_blocks(kernel, shape: tuple[int, ...], *inputs: np.ndarray, block: int = 0, into: bool = False) -> np.ndarray:
    """``kernel(*columns, arena)`` on blocks of states, gathered into a (B,) + shape array.

    ``inputs`` are checked (B, k) arrays (batch first); each block of them is handed to the
    kernel transposed, as contiguous (k, b) arrays, and the kernel returns shape + (b,).  With
    ``into=True`` the result is kept with the states last in memory: an array of zeros
    shape + (B,), whose block the kernel is given as ``out=`` (shape + (b,), each entry's
    states one contiguous run) and writes there; what is returned is the view of it with the
    states first, so that a large result (the mass matrix) is never transposed or copied, its
    pages are touched once, and every write is a contiguous row."""
    B = inputs[0].shape[0]
    out = np.zeros(shape + (B,)) if into else np.empty((B,) + shape)
    arena = _Arena()
    step = block or _STATES_PER_BLOCK
    for start in range(0, B, step):
        block = slice(start, start + step)
        columns = []
        for k, arr in enumerate(inputs):
            col = arena(f"in{k}", arr.shape[1], len(range(*block.indices(B))))
            col[...] = arr[block].T
            columns.append(col)
        if into:
            kernel(*columns, arena, out=out[..., block])
        else:
            out[block] = np.moveaxis(kernel(*columns, arena), -1, 0)
    return np.moveaxis(out, -1, 0) if into else out
