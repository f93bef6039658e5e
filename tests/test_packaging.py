"""environment.yml (conda) must list the same dependencies as pyproject.toml: the [project]
dependencies plus the widgets, book and test extras, with the same version specifiers."""

from __future__ import annotations

import re

import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
EXTRAS = ("widgets", "book", "test")
#: Published on PyPI only (not on conda-forge): they must sit under the ``pip:`` subsection.
PYPI_ONLY = {"django-static-mathjax", "modern-robotics", "axe-playwright-python"}


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _environment():
    return yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))


def _key(req: Requirement):
    return canonicalize_name(req.name), str(req.specifier), str(req.marker or "")


def _conda_requirement(spec: str) -> Requirement:
    # conda's "name>=1.0" / "name==1.0" read like PEP 508; a single "=" (conda's fuzzy match)
    # or a build string would not, and is not used here.
    if re.search(r"(?<![<>=!~])=(?!=)", spec) or len(spec.split()) > 1:
        raise AssertionError(f"environment.yml: use PEP 440 specifiers (>=, ==), got {spec!r}")
    return Requirement(spec)


def _split_env(env):
    conda, pip = [], []
    for item in env["dependencies"]:
        if isinstance(item, dict):
            assert set(item) == {"pip"}, f"environment.yml: unexpected subsection {item}"
            pip.extend(Requirement(s) for s in item["pip"])
        else:
            conda.append(_conda_requirement(item))
    return conda, pip


def test_environment_header():
    env = _environment()
    assert env["name"] == "spatialbook"
    assert env["channels"] == ["conda-forge"]


def test_python_version_matches_requires_python():
    conda, _ = _split_env(_environment())
    python = [r for r in conda if r.name == "python"]
    assert len(python) == 1
    assert python[0].specifier == SpecifierSet(_pyproject()["project"]["requires-python"])
    assert python[0].specifier == SpecifierSet(">=3.11")


def test_dependencies_agree_with_pyproject():
    project = _pyproject()["project"]
    wanted = {_key(Requirement(s)) for s in project["dependencies"]}
    for extra in EXTRAS:
        wanted |= {_key(Requirement(s)) for s in project["optional-dependencies"][extra]}
    conda, pip = _split_env(_environment())
    listed = [_key(r) for r in conda if r.name not in ("python", "pip")] + [_key(r) for r in pip]
    duplicates = sorted({k[0] for k in listed if [x[0] for x in listed].count(k[0]) > 1})
    assert not duplicates, f"environment.yml lists these twice: {duplicates}"
    missing = sorted(wanted - set(listed))
    extra = sorted(set(listed) - wanted)
    assert not missing, f"in pyproject.toml but not in environment.yml (or with another version): {missing}"
    assert not extra, f"in environment.yml but not in pyproject.toml (or with another version): {extra}"


def test_pypi_only_packages_go_through_pip():
    conda, pip = _split_env(_environment())
    conda_names = {canonicalize_name(r.name) for r in conda}
    assert not (conda_names & PYPI_ONLY), "these are not on conda-forge: list them under pip:"
    if pip:
        assert "pip" in conda_names, "a pip: subsection needs pip itself among the conda dependencies"


def test_the_extras_exist():
    extras = _pyproject()["project"]["optional-dependencies"]
    for extra in EXTRAS:
        assert extra in extras, f"pyproject.toml has no [{extra}] extra"


@pytest.mark.parametrize("bad", ["numpy=1.24", "numpy 1.24 py_0"])
def test_conda_fuzzy_specs_are_rejected(bad):
    with pytest.raises(AssertionError):
        _conda_requirement(bad)


# ------------------------------------------------------------------- the README and its picture


def _readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_first_screen_holds_the_picture_the_two_commands_and_where_to_go():
    """A newcomer's first screen (before the first detail, about 45 lines): what the book is, a
    picture, `make book` and `make test`, where to read, edit and extend, the contributors' page."""
    first = "\n".join(_readme().splitlines()[:45])
    assert "make book" in first and "make test" in first
    assert re.search(r"^## Read, edit, extend", first, re.M)
    assert "](CONTRIBUTING.md)" in first and "widgets/README.md" in first
    picture = re.search(r"!\[[^\]]+\]\((docs/[\w.-]+\.png)\)", first)
    assert picture, "the README shows no picture on its first screen"
    png = (ROOT / picture.group(1)).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) < 100_000


def test_readme_moved_details_live_in_contributing():
    """Lanes, the lock, stored-output rounding, live mode and the JupyterLab internals are on the
    contributors' page, and every link to one of its sections names a heading that exists."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    headings = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-")
                for h in re.findall(r"^#+ (.+)$", text, re.M)}
    for section in ("the-test-commands-and-how-long-they-take", "set-up-and-the-stages-of-make-test",
                    "live-mode-inside", "the-lock-and-how-it-is-refreshed", "numbers-in-the-prose",
                    "jupyterlab-internals", "stored-outputs-on-every-machine"):
        assert section in headings, section
    for doc in (_readme(), text, (ROOT / "widgets" / "README.md").read_text(encoding="utf-8")):
        for anchor in re.findall(r"CONTRIBUTING\.md#([\w-]+)", doc):
            assert anchor in headings, anchor
    assert "## Your own robot" in _readme()


def test_readme_says_why_each_dependency():
    """The README's "Dependencies, and why" table has a row for every dependency of
    pyproject.toml (the [project] dependencies and every extra)."""
    project = _pyproject()["project"]
    names = {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}
    for extra in EXTRAS:
        names |= {canonicalize_name(Requirement(r).name) for r in project["optional-dependencies"][extra]}
    table = _readme().split("## Dependencies, and why", 1)[1]
    listed = set()
    for row in re.findall(r"^\| ([^|]+) \|", table, re.M):
        listed |= {canonicalize_name(w) for w in re.findall(r"[A-Za-z][\w.-]*", row)}
    assert names - listed == set(), f"dependencies with no row saying why: {sorted(names - listed)}"
