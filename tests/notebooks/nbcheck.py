"""Checks of the stored outputs of the chapter notebooks (used by test_stored_outputs.py).

The book renders the committed outputs, and nbval only compares cells that have an
``execution_count``: a notebook saved without outputs would pass nbval without being checked.
So every non-empty code cell must carry an execution count, and no cell may store an error.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"


def chapter_notebooks() -> list[Path]:
    """The chapter notebooks the table of contents lists (existing or not), in toc order."""
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text(encoding="utf-8"))
    names = []
    for part in toc.get("parts", []):
        for ch in part.get("chapters", []):
            if ch.get("file", "").startswith("chapters/"):
                names.append(ch["file"])
    return [BOOK / f"{name}.ipynb" for name in names]


def output_problems(nb) -> list[str]:
    """What is wrong with a notebook's stored outputs ([] when all is well)."""
    problems = []
    code_cells = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    if not code_cells:
        problems.append("no code cells")
    counts = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        first = cell.source.strip().splitlines()[0][:60]
        if cell.get("execution_count") is None:
            problems.append(f"cell {i} was not executed (no execution_count): {first!r}")
        else:
            counts.append(cell.execution_count)
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                problems.append(f"cell {i} stores an error {out.get('ename')}: {out.get('evalue')}")
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                tags = cell.metadata.get("tags", [])
                if "remove-stderr" not in tags:
                    problems.append(f"cell {i} stores stderr output (tag it remove-stderr or "
                                    f"fix the warning): {''.join(out.get('text', ''))[:80]!r}")
    if counts and counts != sorted(counts):
        problems.append(f"cells were executed out of order: {counts}")
    if counts and counts != list(range(1, len(counts) + 1)):
        problems.append(f"execution counts are not 1..{len(code_cells)} (run the whole notebook "
                        f"in a fresh kernel: tools/execute_notebooks.py): {counts}")
    if "widgets" in nb.metadata:
        problems.append("metadata.widgets (saved widget state) is stored; re-save with "
                        "tools/execute_notebooks.py")
    return problems


def check_file(path: Path) -> list[str]:
    if not path.is_file():
        return [f"{path.relative_to(ROOT)} does not exist"]
    return output_problems(nbformat.read(path, as_version=4))
