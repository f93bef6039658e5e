"""tools/ensure_browser.py on a machine without the browser: two test stages that start at once
install it once, the second waiting for the first (a fake apt-get on the PATH stands in)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: a stand-in for apt-get: it fails, as dpkg's lock makes the real one fail, if another of it
#: is running; else it takes a while and then "installs" the file named by FAKE_INSTALLED
FAKE_APT = textwrap.dedent("""\
    #!/bin/sh
    echo "$@" >> "$FAKE_LOG"
    if ! mkdir "$FAKE_RUNNING" 2>/dev/null; then echo "E: Could not get lock" >&2; exit 100; fi
    sleep 0.5
    case "$*" in *install*) touch "$FAKE_INSTALLED";; esac
    rmdir "$FAKE_RUNNING"
    """)

CALL = ("import sys; sys.path.insert(0, 'tools'); import ensure_browser as e; from pathlib import Path; "
        "e.LOCK = Path(sys.argv[1]); print(e._install('chromium-headless-shell', Path(sys.argv[2])))")


def test_two_stages_at_once_install_once(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    apt = bin_dir / "apt-get"
    apt.write_text(FAKE_APT)
    apt.chmod(0o755)
    installed, log = tmp_path / "chromium-headless-shell", tmp_path / "apt.log"
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", FAKE_LOG=str(log),
               FAKE_RUNNING=str(tmp_path / "running"), FAKE_INSTALLED=str(installed))
    args = [sys.executable, "-c", CALL, str(tmp_path / "apt.lock"), str(installed)]
    runs = [subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
            for _ in range(2)]
    outs = [p.communicate(timeout=60)[0].strip() for p in runs]
    assert outs == ["True", "True"], outs
    calls = log.read_text().splitlines()
    assert len(calls) == 1 and "install" in calls[0], calls     # the second found it installed
    assert "DPkg::Lock::Timeout" in calls[0]


def test_a_failed_install_says_so(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "apt-get").write_text("#!/bin/sh\nexit 100\n")
    (bin_dir / "apt-get").chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    out = subprocess.run([sys.executable, "-c", CALL, str(tmp_path / "apt.lock"),
                          str(tmp_path / "never")], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.stdout.strip() == "False", out
