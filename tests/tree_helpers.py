"""Helpers shared by the Tree tests (test_loaders.py, test_models.py)."""


def free_blocks(tree):
    """(velocity index, q index) of each free joint of ``tree``, in joint order."""
    out, k, v = [], 0, 0
    for kind in tree.kinds:
        if kind == "free":
            out.append((v, k))
        k, v = k + (7 if kind == "free" else 1), v + (6 if kind == "free" else 1)
    return out
