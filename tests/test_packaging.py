"""environment.yml (conda) must list the same dependencies as pyproject.toml: the [project]
dependencies plus the widgets, book and test extras, with the same version specifiers."""

from __future__ import annotations

import re

try:
    import tomllib
except ImportError:  # Python 3.10: the same parser, published as tomli (pytest needs it there)
    import tomli as tomllib
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
    assert python[0].specifier == SpecifierSet(">=3.10")


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
