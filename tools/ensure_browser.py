"""Make sure the real-browser tests have a Debian Chromium and the Noto CJK fonts.

Called by the browser tests' setup (tests/browser/conftest.py) and the benchmarks.  Two builds
of the same Chromium (Debian's, one version):

* :func:`ensure` (the tests): ``/usr/bin/chromium-headless-shell``, Chromium's own headless
  build (the one Playwright runs by default for headless tests: no browser UI process), the
  same Blink and V8 as the full browser.  Measured on the static-site stage's pages, alternating
  runs at load 7-10: 48 and 52 s of CPU for the whole process tree against 62 and 57 s with the
  full browser in its headless mode.  Where only the full browser is installed and this cannot
  install the shell, the tests run in the full browser.
* :func:`ensure_full` (the benchmarks, which time what a reader meets): ``/usr/bin/chromium``.

If the one asked for is missing and we are root with apt-get available, it runs
``apt-get install -y <package> fonts-noto-cjk`` (after ``apt-get update`` if the first try
fails).  ``make test`` starts two browser stages at once on a fresh machine, so an install
holds a file lock (:data:`LOCK`) and looks again once it has it: the second waits for the first
and finds the browser installed.  dpkg's own lock is waited for too (``DPkg::Lock::Timeout``), for
an apt-get run by something else; without both, the second stage's apt-get failed at once on
dpkg's lock and with it every test of its stage (seen on a fresh clone).  It never runs
``playwright install`` (that downloads a browser build from the web).
``SB_CHROMIUM=/path/to/chromium`` makes both return that browser (an A/B comparison).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

SHELL = Path("/usr/bin/chromium-headless-shell")
CHROMIUM = Path("/usr/bin/chromium")
FONTS = "fonts-noto-cjk"
#: held while this module installs a browser (two test stages start at once)
LOCK = Path("/tmp/spatialbook-apt.lock")
#: seconds apt-get waits for dpkg's lock, held by another apt-get
DPKG_WAIT = 600


def _override() -> Path | None:
    chosen = os.environ.get("SB_CHROMIUM")
    if not chosen:
        return None
    if not Path(chosen).is_file():
        raise ValueError(f"SB_CHROMIUM={chosen!r}: expected the path of a Chromium executable")
    return Path(chosen)


def _can_install() -> bool:
    return os.name == "posix" and os.geteuid() == 0 and shutil.which("apt-get") is not None


def _install(package: str, installed: Path) -> bool:
    """apt-get install ``package`` and the CJK fonts, holding :data:`LOCK`; True when
    ``installed`` exists afterwards (installed by this call or by another process meanwhile)."""
    with open(LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)          # released when the file is closed
        if installed.exists():
            return True
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        wait = ["-o", f"DPkg::Lock::Timeout={DPKG_WAIT}"]
        cmd = ["apt-get", *wait, "install", "-y", "--no-install-recommends", package, FONTS]
        if subprocess.call(cmd, env=env) != 0:
            if subprocess.call(["apt-get", *wait, "update"], env=env) != 0:
                return False
            subprocess.call(cmd, env=env)
        return installed.exists()


def ensure() -> Path:
    """The Chromium the tests run: the headless shell, else the full browser (see above)."""
    chosen = _override()
    if chosen is not None:
        return chosen
    if SHELL.exists():
        return SHELL
    if _can_install() and _install("chromium-headless-shell", SHELL):
        return SHELL
    if CHROMIUM.exists():
        return CHROMIUM
    raise RuntimeError(f"neither {SHELL} nor {CHROMIUM} is installed; install one with: "
                       f"sudo apt-get install -y chromium-headless-shell {FONTS}")


def ensure_full() -> Path:
    """The full Chromium, for timing what a reader's browser does (the benchmarks)."""
    chosen = _override()
    if chosen is not None:
        return chosen
    if CHROMIUM.exists():
        return CHROMIUM
    if not _can_install():
        raise RuntimeError(f"{CHROMIUM} is missing; install it with: "
                           f"sudo apt-get install -y chromium {FONTS}")
    if not _install("chromium", CHROMIUM):
        raise RuntimeError(f"apt-get ran but {CHROMIUM} is still missing")
    return CHROMIUM


if __name__ == "__main__":
    print(ensure_full() if "--full" in sys.argv else ensure())
    sys.exit(0)
