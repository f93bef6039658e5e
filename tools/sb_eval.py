"""Sphinx extension: render MyST inline expressions ``{eval}`...``` from their stored results.

Loaded through ``sphinx.local_extensions`` in ``jupyter_book.yml``.  The chapters show computed
numbers with ``{eval}`N("key", ".2f")``` (widgets/prose.py), which ``jupyterlab-myst`` evaluates
with the live kernel.  The book is built without a kernel, and myst-nb's own ``eval`` role needs
one, so this extension replaces that role: it renders the result that
``tools/execute_notebooks.py`` stored in the markdown cell's ``metadata.user_expressions``
(text/plain, quotes of a string stripped, as ``{glue:text}`` did, in a ``pasted-text`` span).

Each role is matched with a stored result of the markdown cell it is in (myst-nb numbers the
lines of cell ``k`` from ``(k + 1) * 10000``, :func:`cell_of`).  In the English text the k-th
role of a cell must be the cell's k-th stored expression, and the two texts must be equal;
a role without a stored result, a stored result for another expression (prose edited after
the last run), a stored result no role uses (roles deleted) or a stored error is a warning,
so the strict build (-W) fails and says: re-run tools/execute_notebooks.py.

A translated message (the Chinese edition, Sphinx's gettext catalogues: its source path ends
in ``:<line>:<translated>``) may put the sentence's ``{eval}``s in another order: there a
role is matched by its expression text among the stored results of its cell (or, when the
message has no line, of the notebook, provided every result stored for that text shows the
same), so a reordered translation shows each number where its expression is.
"""

from __future__ import annotations

import json
from pathlib import Path

from docutils import nodes
from sphinx.util import logging

logger = logging.getLogger(__name__)

_CACHE: dict[str, tuple[float, list[dict]]] = {}
FIX = "re-run tools/execute_notebooks.py on it (make outputs)"


CELL_LINES = 10000        # myst-nb: cell k's lines start at (k + 1) * 10000 (nb_to_tokens)


def stored_cells(path: Path) -> list[tuple[int, dict]]:
    """Every stored ``user_expressions`` entry of a notebook's markdown cells, in order, with
    the index of its cell."""
    key = str(path)
    mtime = path.stat().st_mtime
    if key in _CACHE and _CACHE[key][0] == mtime:
        return _CACHE[key][1]
    nb = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for k, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") == "markdown":
            out.extend((k, e) for e in cell.get("metadata", {}).get("user_expressions", []))
    _CACHE[key] = (mtime, out)
    return out


def stored_expressions(path: Path) -> list[dict]:
    """Every stored ``user_expressions`` entry of a notebook's markdown cells, in order."""
    return [e for _, e in stored_cells(path)]


def cell_of(line: int | None) -> int | None:
    """The notebook cell of a line number myst-nb gave (None when unknown)."""
    return None if not line or line < CELL_LINES else line // CELL_LINES - 1


def translated_source(source: str) -> tuple[Path, int | None] | None:
    """(notebook, line of the English message) of a translated message's source path
    ``<path>:<line>:<translated>`` (Sphinx's i18n transform), else None."""
    if not source.endswith(":<translated>"):
        return None
    path, _, line = source[:-len(":<translated>")].rpartition(":")
    return Path(path), int(line) if line.isdigit() else None


def shown_text(result: dict) -> str | None:
    """The text a stored result shows (a string's quotes stripped), or None if it has none."""
    if result.get("status") != "ok":
        return None
    text = result.get("data", {}).get("text/plain")
    if text is None:
        return None
    text = "".join(text) if isinstance(text, list) else text
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    return text


def eval_role(name, rawtext, text, lineno, inliner, options=None, content=()):
    document = inliner.document
    source, line = inliner.reporter.get_source_and_line(lineno)
    location = (document.settings.env.docname, line) if hasattr(document.settings, "env") else None
    translated = translated_source(source or "")
    path = translated[0] if translated else Path(source or document.get("source", ""))

    def fail(message):
        logger.warning(f"{{eval}}`{text}`: {message}", location=location, type="sb_eval")
        return [nodes.literal(rawtext, text)], []

    if path.suffix != ".ipynb" or not path.is_file():
        return fail("only notebooks carry stored results (use {eval} in a .ipynb)")
    stored = stored_cells(path)
    if translated:
        cell = cell_of(translated[1])
        found = [e for k, e in stored if e.get("expression") == text and (cell is None or k == cell)]
        shown = {shown_text(e.get("result", {})) for e in found}
        if not found:
            return fail(f"a translation's expression has no stored result in its cell "
                        f"(cell {cell}); {FIX}")
        if len(shown) > 1:
            return fail("a translation's expression has different stored results in the "
                        "notebook and its cell is not known")
        entry = found[0]
    else:
        cell = cell_of(line)
        counts = document.setdefault("sb_eval_cells", {})
        index = counts.get(cell, 0)
        counts[cell] = index + 1
        document["sb_eval_next"] = document.get("sb_eval_next", 0) + 1
        mine = [e for k, e in stored if cell is None or k == cell]
        if index >= len(mine):
            return fail(f"no stored result (role {index + 1} of cell {cell}, {len(mine)} stored); {FIX}")
        entry = mine[index]
        if entry.get("expression") != text:
            return fail(f"the stored result {index + 1} of cell {cell} is for "
                        f"{entry.get('expression')!r}, the prose changed since the last run; {FIX}")
    shown = shown_text(entry.get("result", {}))
    if shown is None:
        result = entry.get("result", {})
        return fail(f"stored result is not text: {result.get('ename', '')} "
                    f"{result.get('evalue', '')}; {FIX}")
    return [nodes.inline(shown, shown, classes=["pasted-text"])], []


def _check_all_used(app, doctree) -> None:
    """A stored result no role used means roles were deleted since the last run."""
    docname = app.env.docname
    path = Path(app.env.doc2path(docname))
    if path.suffix != ".ipynb":
        return
    used = doctree.get("sb_eval_next", 0)
    stored = stored_expressions(path) if path.is_file() else []
    if used != len(stored):
        logger.warning(f"{len(stored)} stored inline-expression results but {used} {{eval}} roles; "
                       f"{FIX}", location=docname, type="sb_eval")


def setup(app):
    app.setup_extension("myst_nb")          # so that this role replaces myst-nb's
    app.add_role("eval", eval_role, override=True)
    app.connect("doctree-read", _check_all_used)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
