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
