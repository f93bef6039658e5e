"""The fast mode of the library and widget tests (``make test-fast``: pytest ``--sampled``).

``make test`` runs the exhaustive fuzz, sweep and property runs whole.  ``make test-fast``
(``tools/run_tests.py --fast``) passes ``--sampled`` (or set ``SPATIALBOOK_SAMPLED=1``), and
those runs then take a *seeded* subset: the same subset on every run and machine, chosen so
that every experiment, every control and every public function is still reached, only fewer
random states, grid values and bad-input kinds per each.  A test that samples says how in its
docstring; nothing is sampled unless asked.
"""

from __future__ import annotations

import os
import random
from typing import Sequence, TypeVar

T = TypeVar("T")

#: the environment variable ``--sampled`` sets (tests/conftest.py) and tests read
ENV = "SPATIALBOOK_SAMPLED"


def sampled() -> bool:
    """True in ``make test-fast`` (``--sampled`` or SPATIALBOOK_SAMPLED=1)."""
    return os.environ.get(ENV, "") not in ("", "0")


def count(full: int, fast: int) -> int:
    """``full`` in ``make test``, ``fast`` (no more than ``full``) in ``make test-fast``."""
    return min(full, fast) if sampled() else full


def subset(items: Sequence[T], k: int, seed: int | str, keep: Sequence[T] = ()) -> list[T]:
    """All ``items`` in ``make test``; in ``make test-fast`` ``k`` of them (with every item of
    ``keep`` among them), chosen by ``seed`` and kept in their order."""
    items = list(items)
    if not sampled() or len(items) <= k:
        return items
    kept = [i for i, x in enumerate(items) if x in keep]
    rest = [i for i in range(len(items)) if i not in kept]
    chosen = set(kept) | set(random.Random(str(seed)).sample(rest, max(0, k - len(kept))))
    return [items[i] for i in sorted(chosen)]
