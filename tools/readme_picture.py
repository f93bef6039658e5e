"""Write the README's picture, docs/power_split.png: one frame of experiment E3 (power_split)
with the reference point P halfway to the push (ref_x = 0.4 m, its other controls at their
defaults), as the book's static player shows it: the power splits into both terms.

    .venv/bin/python tools/readme_picture.py

Re-run it when the experiment's drawing changes; the file must stay under 100 KB
(tests/test_packaging.py checks the size and that the README shows it).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from widgets import EXPERIMENTS  # noqa: E402

OUT = ROOT / "docs" / "power_split.png"


def main() -> int:
    exp = EXPERIMENTS["power_split"]()
    try:
        (png,) = exp.frames("ref_x", [0.4])
    finally:
        exp.close()
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_bytes(png)
    print(f"{OUT.relative_to(ROOT)}: {len(png) / 1024:.0f} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
