"""The library reference page documents every public name, so a function added later cannot be
left out of the book's API page."""

from __future__ import annotations

import re
from pathlib import Path

import spatialbook as sb

ROOT = Path(__file__).resolve().parent.parent


def test_every_public_name_is_on_the_api_page():
    page = (ROOT / "book" / "api.rst").read_text(encoding="utf-8")
    paths = re.findall(r"^\.\. auto(?:function|class|data):: spatialbook\.([\w.]+)\s*$", page, re.M)
    # the self-check module's own helpers are documented under spatialbook.check.*
    documented = {path.split(".")[-1] for path in paths if not path.startswith("check.")}
    missing = sorted(set(sb.__all__) - documented)
    assert not missing, f"book/api.rst has no autofunction/autoclass/autodata entry for: {missing}"
    stale = sorted(documented - set(sb.__all__))
    assert not stale, f"book/api.rst documents names that are not public: {stale}"


_SECTIONS = ("Parameters", "Returns", "Yields", "Raises", "Warns", "See Also", "Notes",
             "References", "Examples", "Attributes", "Methods", "Other Parameters")


def docstring_spills(doc: str) -> list[str]:
    """Paragraphs of a numpydoc docstring that would render inside its Returns, Yields or Raises
    field: after such a section, a blank line and then an unindented line that neither starts
    another section (a heading underlined with dashes) nor names another returned item (a line
    followed by its indented description).  Each is returned as its first line."""
    lines = doc.expandtabs().splitlines()
    out, inside = [], False
    for i, line in enumerate(lines):
        below = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if line.strip() in _SECTIONS and below and set(below) == {"-"}:
            inside = line.strip() in ("Returns", "Yields", "Raises")
            continue
        described = i + 1 < len(lines) and lines[i + 1].startswith(" ")
        if (inside and line.strip() and not line.startswith(" ") and i > 0
                and not lines[i - 1].strip() and not described):
            out.append(line.strip())
    return out


def test_no_example_or_prose_renders_inside_a_returns_field():
    """numpydoc puts everything after ``Returns`` (or ``Raises``) into that field until the next
    section heading, so an example written there shows on the API page as part of the return
    type, and the Chinese catalogue cuts it into fragments (found by the bilingual review:
    ``spatial_acceleration``, ``velocity_field``).  Every public function's and class's
    docstring puts its example under an ``Examples`` heading."""
    import inspect

    import widgets

    found = []
    for module, names in ((sb, sb.__all__), (widgets, getattr(widgets, "__all__", []))):
        for name in names:
            obj = getattr(module, name)
            doc = inspect.getdoc(obj) if callable(obj) else None
            found += [f"{module.__name__}.{name}: {first!r}" for first in docstring_spills(doc or "")]
    assert not found, "text that renders inside a Returns/Raises field:\n" + "\n".join(found)


def test_the_spill_finder_finds_a_spill():
    spill = "Velocity.\n\nReturns\n-------\nndarray, shape (3,)\n\n>>> f(1)\n1\n"
    fixed = "Velocity.\n\nReturns\n-------\nndarray, shape (3,)\n\nExamples\n--------\n>>> f(1)\n1\n"
    two = "X.\n\nReturns\n-------\na : float\n    One.\nb : float\n    Two.\n"
    assert docstring_spills(spill) == [">>> f(1)"]
    assert docstring_spills(fixed) == [] and docstring_spills(two) == []
