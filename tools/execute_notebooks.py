"""Re-execute chapter notebooks and store their outputs in place (the book renders these).

    .venv/bin/python tools/execute_notebooks.py                       # every book/chapters/*.ipynb
    .venv/bin/python tools/execute_notebooks.py book/chapters/ch03_screw_axis.ipynb ...

Each notebook runs in a fresh ``python3`` kernel through nbclient, with the notebook's folder as
working directory, ``PYTHONHASHSEED=0`` and ``MPLBACKEND=Agg`` (so outputs are deterministic and
match what nbval re-computes), an explicit per-cell timeout, ``record_timing=False`` and no
stored widget state (``metadata.widgets`` is removed: the static book uses precomputed frame
players, not saved widget state).  A cell that raises stops the run and the file is left
unchanged (exit code 1), unless the cell is tagged ``raises-exception``.

After the last cell, still in the same kernel, every MyST inline expression of the markdown
cells (``{eval}`N("key", ".2f")```, see widgets/prose.py) is evaluated and its result stored in
that cell's ``metadata.user_expressions``, in the format ``jupyterlab-myst`` writes and reads
(``[{"expression": ..., "result": {"status": "ok", "data": {"text/plain": ...}, ...}}]``).
The book renders these stored results (tools/sb_eval.py).  An expression that fails stops the
run like a failing cell.

Every cell tagged ``remove-input`` (hidden in the book: set-up code, frame players, and the cells
that compute an exercise's answer or hold its answer box) also gets
``metadata.jupyter.source_hidden = True``, so JupyterLab shows it collapsed too and an exercise's
answer is not printed in code right under the question.  Its outputs stay visible (an answer
box, a folded solution, a figure are meant to be seen).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from jupyter_core.utils import ensure_async
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbclient.util import run_sync

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = ROOT / "book" / "chapters"
# A MyST inline expression {eval}`...` (jupyterlab-myst's and myst-nb's role name).
EVAL_ROLE = re.compile(r"\{eval\}`([^`]+)`")


class ExpressionError(RuntimeError):
    """An inline expression of a markdown cell failed in the kernel."""


def eval_expressions(source: str) -> list[str]:
    """The inline expressions of a markdown cell's source, in order."""
    return EVAL_ROLE.findall(source)


class _Client(NotebookClient):
    """nbclient's client that, after the last cell, evaluates every markdown cell's inline
    expressions in the same kernel and stores them as jupyterlab-myst does."""

    async def async_execute(self, reset_kc: bool = False, **kwargs):
        if reset_kc and self.owns_km:
            await self._async_cleanup_kernel()
        self.reset_execution_trackers()
        async with self.async_setup_kernel(**kwargs):
            msg_id = await ensure_async(self.kc.kernel_info())
            info_msg = await self.async_wait_for_reply(msg_id)
            if info_msg is not None and "language_info" in info_msg["content"]:
                self.nb.metadata["language_info"] = info_msg["content"]["language_info"]
            for index, cell in enumerate(self.nb.cells):
                await self.async_execute_cell(cell, index,
                                              execution_count=self.code_cells_executed + 1)
            self.set_widgets_metadata()
            await self._store_user_expressions()
        return self.nb

    async def _store_user_expressions(self) -> None:
        for index, cell in enumerate(self.nb.cells):
            if cell.cell_type != "markdown":
                continue
            expressions = eval_expressions(cell.source)
            if not expressions:
                cell.metadata.pop("user_expressions", None)
                continue
            msg_id = await ensure_async(self.kc.execute(
                "", silent=False, store_history=False,
                user_expressions={str(i): e for i, e in enumerate(expressions)}))
            reply = await self.async_wait_for_reply(msg_id)
            results = reply["content"].get("user_expressions", {})
            stored = []
            for i, expression in enumerate(expressions):
                result = results.get(str(i), {"status": "error", "ename": "NoResult",
                                              "evalue": "the kernel returned nothing"})
                if result.get("status") != "ok":
                    raise ExpressionError(
                        f"markdown cell {index}: {{eval}}`{expression}` failed: "
                        f"{result.get('ename')}: {result.get('evalue')}")
                stored.append({"expression": expression,
                               "result": {"status": "ok", "data": result.get("data", {}),
                                          "metadata": result.get("metadata", {})}})
            cell.metadata["user_expressions"] = stored

    execute = run_sync(async_execute)


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


def hide_removed_inputs(nb) -> int:
    """Set ``metadata.jupyter.source_hidden`` on every cell tagged ``remove-input``; return how
    many cells carry it.  (jupyterlab collapses such a cell's source; the book drops it.)"""
    count = 0
    for cell in nb.cells:
        if "remove-input" in cell.metadata.get("tags", []):
            cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
            count += 1
    return count


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
    client = _Client(
        nb, timeout=timeout, startup_timeout=120, kernel_name="python3",
        record_timing=False, store_widget_state=False, allow_errors=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    t0 = time.perf_counter()
    client.execute()
    nb.metadata.pop("widgets", None)
    hide_removed_inputs(nb)
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
