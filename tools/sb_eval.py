"""Sphinx extension: render MyST inline expressions ``{eval}`...``` from their stored results.

Loaded through ``sphinx.local_extensions`` in ``jupyter_book.yml``.  The chapters show computed
numbers with ``{eval}`N("key", ".2f")``` (widgets/prose.py), which ``jupyterlab-myst`` evaluates
with the live kernel.  The book is built without a kernel, and myst-nb's own ``eval`` role needs
one, so this extension replaces that role: it renders the result that
``tools/execute_notebooks.py`` stored in the markdown cell's ``metadata.user_expressions``
(text/plain, quotes of a string stripped, as ``{glue:text}`` did, in a ``pasted-text`` span).

The k-th ``{eval}`` role of a notebook is matched with the k-th stored expression of its markdown
cells, in order, and the two expression texts must be equal.  A role without a stored result, a
stored result for another expression (prose edited after the last run) or a stored error is a
warning, so the strict build (-W) fails and says: re-run tools/execute_notebooks.py.
"""

from __future__ import annotations

import json
from pathlib import Path

from docutils import nodes
from sphinx.util import logging

logger = logging.getLogger(__name__)

_CACHE: dict[str, tuple[float, list[dict]]] = {}
FIX = "re-run tools/execute_notebooks.py on it (make outputs)"


def stored_expressions(path: Path) -> list[dict]:
    """Every stored ``user_expressions`` entry of a notebook's markdown cells, in order."""
    key = str(path)
    mtime = path.stat().st_mtime
    if key in _CACHE and _CACHE[key][0] == mtime:
        return _CACHE[key][1]
    nb = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            out.extend(cell.get("metadata", {}).get("user_expressions", []))
    _CACHE[key] = (mtime, out)
    return out


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
    path = Path(source or document.get("source", ""))

    def fail(message):
        logger.warning(f"{{eval}}`{text}`: {message}", location=location, type="sb_eval")
        return [nodes.literal(rawtext, text)], []

    if path.suffix != ".ipynb" or not path.is_file():
        return fail("only notebooks carry stored results (use {eval} in a .ipynb)")
    index = document.get("sb_eval_next", 0)
    document["sb_eval_next"] = index + 1
    stored = stored_expressions(path)
    if index >= len(stored):
        return fail(f"no stored result (role {index + 1}, {len(stored)} stored); {FIX}")
    entry = stored[index]
    if entry.get("expression") != text:
        return fail(f"the stored result {index + 1} is for {entry.get('expression')!r}, "
                    f"the prose changed since the last run; {FIX}")
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
