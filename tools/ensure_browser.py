"""Make sure the real-browser tests have Debian's Chromium and the Noto CJK fonts.

Called by the browser tests' setup (tests/browser/conftest.py).  If ``/usr/bin/chromium`` is
missing and we are root with apt-get available, it runs
``apt-get install -y chromium fonts-noto-cjk`` (after ``apt-get update`` if the first try fails).
It never runs ``playwright install`` (that downloads a browser build from the web).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
PACKAGES = ["chromium", "fonts-noto-cjk"]


def ensure() -> Path:
    if CHROMIUM.exists():
        return CHROMIUM
    if os.name != "posix" or os.geteuid() != 0 or not shutil.which("apt-get"):
        raise RuntimeError(
            f"{CHROMIUM} is missing; install it with: sudo apt-get install -y {' '.join(PACKAGES)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", *PACKAGES]
    if subprocess.call(cmd, env=env) != 0:
        subprocess.check_call(["apt-get", "update"], env=env)
        subprocess.check_call(cmd, env=env)
    if not CHROMIUM.exists():
        raise RuntimeError(f"apt-get ran but {CHROMIUM} is still missing")
    return CHROMIUM


if __name__ == "__main__":
    print(ensure())
    sys.exit(0)
