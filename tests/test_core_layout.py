"""The core's layout (issue 34): ``spatialbook/`` split by responsibility, each file short enough
to read whole, and no two of its modules importing each other, directly or around a circle.

The imports are read from the source (``ast``): module-level and inside functions alike, since a
function-level import that closes a circle is still a circle a reader must keep in mind.
"""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "spatialbook"
#: the longest a core file may be (lines)
MAX_LINES = 500


def core_imports(source: str, module: str, modules: set[str]) -> set[str]:
    """The core modules that ``module``'s source imports (``from . import x``, ``from .x import
    y``, ``import spatialbook.x``, ``from spatialbook.x import y``), itself and the package's
    ``__init__`` left out."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level == 1 or base.split(".")[0] == "spatialbook":
                name = base.removeprefix("spatialbook").lstrip(".") if node.level == 0 else base
                if name:
                    out.add(name.split(".")[0])
                else:                                  # from . import x, y
                    out.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "spatialbook" and len(parts) > 1:
                    out.add(parts[1])
    return {m for m in out if m in modules and m != module}


def import_graph(folder: Path = CORE) -> dict[str, set[str]]:
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    return {m: core_imports((folder / f"{m}.py").read_text(encoding="utf-8"), m, modules)
            for m in sorted(modules)}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle, each as the path that closes it (depth-first search)."""
    found, state = [], {}

    def visit(m, path):
        state[m] = "open"
        for n in sorted(graph[m]):
            if state.get(n) == "open":
                found.append(path[path.index(n):] + [n])
            elif n not in state:
                visit(n, path + [n])
        state[m] = "done"

    for m in graph:
        if m not in state:
            visit(m, [m])
    return found


def test_no_import_circle_in_the_core():
    graph = import_graph()
    assert len(graph) >= 10, sorted(graph)             # the reader really read the package
    assert any(graph.values()), "no import between core modules found: the reader is broken"
    assert circles(graph) == []


def test_the_circle_finder_finds_a_planted_circle(tmp_path):
    (tmp_path / "a.py").write_text("from .b import f\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("def g():\n    from spatialbook.c import h\n", encoding="utf-8")
    (tmp_path / "c.py").write_text("from . import a\nimport numpy as np\n", encoding="utf-8")
    (tmp_path / "d.py").write_text("from .a import x\n", encoding="utf-8")
    graph = import_graph(tmp_path)
    assert graph == {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c", "a"]]


def test_no_core_file_over_500_lines():
    long = {p.name: n for p in CORE.glob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"core files over {MAX_LINES} lines (split them by responsibility): {long}"
