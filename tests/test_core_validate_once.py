"""Each public call validates its input once: inside the package, functions call the unchecked
``_`` twins (and the ``_checks`` validators), never another public function, so a call costs
its own checks plus its arithmetic.  ``check.py`` (the self-check, which exercises the public
API on purpose) and ``door.py`` (a constant built once at import) are the exceptions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

import spatialbook as sb
from spatialbook import unchecked as fast

PACKAGE = Path(sb.__file__).resolve().parent
EXEMPT = {"check.py", "door.py", "__init__.py", "__main__.py"}


def test_no_public_function_calls_another():
    public = {name for name in sb.__all__ if callable(getattr(sb, name))}
    offenders = []
    for path in sorted(PACKAGE.glob("*.py")):
        if path.name in EXEMPT:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if (
                    isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "sb") else None
                if name in public and name not in {"Axis", "Tree"}:
                    offenders.append(f"{path.name}:{node.lineno} calls {name}")
    assert not offenders, offenders


def test_unchecked_path_skips_the_checks():
    """The deliberate fast path really does not validate (a non-symmetric matrix goes through)."""
    bad = np.arange(36.0).reshape(6, 6)
    V = np.ones(6)
    assert float(fast.kinetic_energy(bad, V)) == 0.5 * float(V @ bad @ V)
    try:
        sb.kinetic_energy(bad, V)
    except ValueError as err:
        assert "inertia" in str(err)
    else:
        raise AssertionError("the public function accepted a non-symmetric inertia")
