"""Re-execute chapter notebooks and store their outputs in place (the book renders these).

    .venv/bin/python tools/execute_notebooks.py                       # every book/chapters/*.ipynb
    .venv/bin/python tools/execute_notebooks.py book/chapters/ch03_screw_axis.ipynb ...

Each notebook runs in a fresh ``python3`` kernel through nbclient, with the notebook's folder as
working directory, ``PYTHONHASHSEED=0`` and ``MPLBACKEND=Agg`` (so outputs are deterministic and
match what nbval re-computes), an explicit per-cell timeout, ``record_timing=False`` and no
stored widget state (``metadata.widgets`` is removed: the static book uses precomputed frame
players, not saved widget state).  A cell that raises stops the run and the file is left
unchanged (exit code 1), unless the cell is tagged ``raises-exception``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = ROOT / "book" / "chapters"


def merge_streams(cell) -> None:
    """Join consecutive stream outputs of the same name (stdout/stderr) by plain concatenation.

    A busy kernel can flush one print in several pieces; nbval joins them, but the book's stream
    merging would put a line break at every seam.
    """
    merged = []
    for out in cell.get("outputs", []):
        if (merged and out.get("output_type") == "stream" and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == out.get("name")):
            merged[-1]["text"] = "".join(merged[-1]["text"]) + "".join(out["text"])
        else:
            merged.append(out)
    cell["outputs"] = merged


def execute(path: Path, timeout: int = 300) -> float:
    """Execute one notebook in place; return the wall time in seconds."""
    path = path.resolve()
    nb = nbformat.read(path, as_version=4)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    os.environ["PYTHONHASHSEED"] = "0"       # inherited by the kernel process
    os.environ["MPLBACKEND"] = "Agg"
    # make the repository importable even without the editable install
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in [str(ROOT), os.environ.get("PYTHONPATH", "")] if p)
    client = NotebookClient(
        nb, timeout=timeout, startup_timeout=120, kernel_name="python3",
        record_timing=False, store_widget_state=False, allow_errors=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    t0 = time.perf_counter()
    client.execute()
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            merge_streams(cell)
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", type=Path,
                    help="notebooks (default: every book/chapters/*.ipynb)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per cell (default 300)")
    args = ap.parse_args(argv)
    paths = args.paths or sorted(CHAPTERS.glob("*.ipynb"))
    if not paths:
        print(f"execute_notebooks: no notebooks found in {CHAPTERS}", file=sys.stderr)
        return 1
    failed = 0
    for path in paths:
        if path.suffix != ".ipynb" or not path.is_file():
            print(f"execute_notebooks: not a notebook: {path}", file=sys.stderr)
            failed += 1
            continue
        try:
            seconds = execute(path, args.timeout)
        except CellExecutionError as exc:
            print(f"FAIL {path}: a cell raised\n{exc}", file=sys.stderr)
            failed += 1
            continue
        except Exception as exc:  # timeout, dead kernel, invalid notebook
            print(f"FAIL {path}: {type(exc).__name__}: {exc}", file=sys.stderr)
            failed += 1
            continue
        print(f"{seconds:6.1f} s  {path}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
