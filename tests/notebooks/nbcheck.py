"""Checks of the stored outputs of the chapter notebooks (used by test_stored_outputs.py).

The book renders the committed outputs, and nbval only compares cells that have an
``execution_count``: a notebook saved without outputs would pass nbval without being checked.
So every non-empty code cell must carry an execution count, and no cell may store an error.

The numbers in the prose are MyST inline expressions ``{eval}`N("key", ".2f")``` whose results
``tools/execute_notebooks.py`` stores in the markdown cell (the book renders them, see
tools/sb_eval.py).  ``expression_problems`` checks that every role has its stored result, for the
same expression, and that the result is fresh: it must equal ``format(value, fmt)`` of the value
the code cells glued under that key, as stored in their outputs (which nbval re-computes).

nbval compares the stored text on every reader's machine, whose BLAS kernel and SIMD code round
the last bits of a double differently, so ``precision_problems`` checks that no stored number
carries more digits than mean something (see widgets/prose.py): at most ``DIGITS`` (10)
significant digits anywhere, at most the digits a glue record declares in its metadata, and no
round-off dust (a magnitude below 1e-12 with more than one significant digit: a bound such as
``1e-12`` is fine, ``4.577566798522237e-16`` is not).
"""

from __future__ import annotations

import ast
import re
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


EVAL_ROLE = re.compile(r"\{eval\}`([^`]+)`")
FIX = "re-run tools/execute_notebooks.py"


def glued_values(nb) -> dict:
    """key -> the text/plain repr of the value each code cell glued (myst_nb's stored outputs)."""
    values = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            record = out.get("metadata", {}).get("scrapbook")
            if record:
                data = out.get("data", {})
                text = data.get(record.get("mime_prefix", "") + "text/plain")
                if text is not None:
                    values[record["name"]] = "".join(text) if isinstance(text, list) else text
    return values


def _expected_text(expression: str, glued: dict) -> str | None:
    """What ``N("key", "fmt")`` shows, from the glued repr; None if not of that form."""
    try:
        call = ast.parse(expression, mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "N"
            and not call.keywords and 1 <= len(call.args) <= 2
            and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args)):
        return None
    key = call.args[0].value
    fmt = call.args[1].value if len(call.args) == 2 else ""
    if key not in glued:
        return f"<nothing glued under {key!r}>"
    try:
        value = ast.literal_eval(glued[key])
    except (ValueError, SyntaxError):
        return None
    if fmt:
        return format(value, fmt)
    return value if isinstance(value, str) else repr(value)


def expression_problems(nb) -> list[str]:
    """What is wrong with the stored results of the prose's inline expressions."""
    problems = []
    glued = glued_values(nb)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        if "{glue:" in cell.source:
            problems.append(f"markdown cell {i} still uses a {{glue:...}} role: write "
                            f"{{eval}}`N(\"key\", \"fmt\")` (see widgets/prose.py)")
        roles = EVAL_ROLE.findall(cell.source)
        stored = cell.metadata.get("user_expressions", [])
        if [e.get("expression") for e in stored] != roles:
            problems.append(f"markdown cell {i}: stored inline-expression results do not match its "
                            f"{len(roles)} {{eval}} roles ({len(stored)} stored); {FIX}")
            continue
        for entry in stored:
            result = entry.get("result", {})
            text = "".join(result.get("data", {}).get("text/plain", "")) or None
            if result.get("status") != "ok" or text is None:
                problems.append(f"markdown cell {i}: {{eval}}`{entry['expression']}` stores no "
                                f"text result ({result.get('ename', '')}); {FIX}")
                continue
            want = _expected_text(entry["expression"], glued)
            if want is not None and text != want:
                problems.append(f"markdown cell {i}: {{eval}}`{entry['expression']}` stores "
                                f"{text!r} but the glued value gives {want!r}; {FIX}")
    return problems


DIGITS = 10          # widgets.prose.DIGITS (not imported: this checker must not need the book's code)
TINY = 1e-12         # widgets.prose.TINY
NUMBER = re.compile(r"(?<![\w.#&])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")
DATA_URI = re.compile(r"base64,[A-Za-z0-9+/=\\n]+")


def significant_digits(text: str) -> int:
    """Significant digits of a decimal numeral: '0.0125' -> 3, '1.50' -> 3, '2.4e-07' -> 2."""
    mantissa = re.split("[eE]", text.lstrip("+-"))[0]
    digits = mantissa.replace(".", "").lstrip("0")
    if "." not in mantissa:
        digits = digits.rstrip("0")          # 1200 is two digits (an integer's zeros)
    return len(digits)


def number_problems(text: str, limit: int = DIGITS) -> list[str]:
    """The numerals of ``text`` that carry more than ``limit`` digits, or round-off dust."""
    found = []
    for match in NUMBER.finditer(DATA_URI.sub("", text)):
        numeral = match.group()
        n = significant_digits(numeral)
        if n > limit:
            found.append(f"{numeral} has {n} significant digits (at most {limit})")
            continue
        try:
            value = float(numeral)
        except ValueError:
            continue
        if value != 0.0 and abs(value) < TINY and n > 1:
            found.append(f"{numeral} is round-off dust (store 0 or a bound such as 1e-12)")
    return found


def _texts(out) -> list[tuple[str, str]]:
    """(mime type, text) of every text an output stores (images left out)."""
    if out.get("output_type") == "stream":
        return [("stream", "".join(out.get("text", "")))]
    texts = []
    for mime, data in out.get("data", {}).items():
        if mime.startswith("image/") or "widget-view" in mime:
            continue
        texts.append((mime, "".join(data) if isinstance(data, list) else str(data)))
    return texts


def precision_problems(nb) -> list[str]:
    """Stored numbers with more digits than they declare (see the module's notes)."""
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            declared = out.get("metadata", {}).get("spatialbook", {}).get("digits", DIGITS)
            record = out.get("metadata", {}).get("scrapbook", {}).get("name")
            where = f"cell {i}" + (f", glue record {record!r}" if record else "")
            for mime, text in _texts(out):
                for problem in number_problems(text, min(int(declared), DIGITS)):
                    problems.append(f"{where} ({mime}): {problem}")
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        for entry in cell.metadata.get("user_expressions", []):
            text = "".join(entry.get("result", {}).get("data", {}).get("text/plain", ""))
            for problem in number_problems(text):
                problems.append(f"markdown cell {i}, {{eval}}`{entry.get('expression')}`: {problem}")
    return problems


def check_file(path: Path) -> list[str]:
    if not path.is_file():
        return [f"{path.relative_to(ROOT)} does not exist"]
    nb = nbformat.read(path, as_version=4)
    return output_problems(nb) + expression_problems(nb) + precision_problems(nb)
