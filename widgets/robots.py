"""The book's robot description files (``book/models/``) for the experiments that draw robots.

``robot_file("panda.urdf")`` returns a file's text.  In the repository (JupyterLab, tests, the
book's build) it is read from ``book/models/``, where the chapters read it too; live mode's
archive carries the same files as package data of ``widgets`` (``widgets/robot_files/``, put
there by ``tools/live_packages.py``), so the experiment reads the very file in the browser.  No copy
of a model lives in a Python module.
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent
#: Where the files are looked for, in order: the package data of live mode's archive, then the
#: repository's book/models.
PLACES = (_HERE / "robot_files", _HERE.parent / "book" / "models")


def robot_file(name: str) -> str:
    """The text of the robot description ``name`` (e.g. ``"panda.urdf"``, ``"biped.xml"``)."""
    if not isinstance(name, str) or "/" in name or "\\" in name or not name:
        raise ValueError(f"name: expected a file name of book/models such as 'panda.urdf', got {name!r:.60}")
    for place in PLACES:
        path = place / name
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise ValueError(f"name: no robot file {name!r} in {' or '.join(str(p) for p in PLACES)}")
