"""Shared test settings.

Hypothesis runs deterministically (``derandomize=True``: the same examples on every run and
machine, no example database) with modest example counts, so the whole core suite stays well
under a minute on two cores.  Set HYPOTHESIS_PROFILE=thorough for a longer local search.

``--sampled`` (``make test-fast``, tools/run_tests.py --fast; or SPATIALBOOK_SAMPLED=1) runs the
exhaustive fuzz, sweep and property runs on a seeded subset (tests/sampling.py) and Hypothesis
with the "sampled" profile (10 examples per property instead of 40); ``make test`` runs them
whole.
"""

import os

from hypothesis import HealthCheck, settings

import sampling

settings.register_profile(
    "spatialbook",
    derandomize=True,
    database=None,
    max_examples=40,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    parent=settings.get_profile("spatialbook"),
    max_examples=2000,
)
settings.register_profile(
    "sampled",
    parent=settings.get_profile("spatialbook"),
    max_examples=10,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "spatialbook"))


def pytest_addoption(parser):
    parser.addoption("--sampled", action="store_true", default=False,
                     help="make test-fast: a seeded subset of the exhaustive fuzz, sweep and "
                          "property runs (tests/sampling.py); every experiment, control and "
                          "public function is still reached")


#: a file of layouts recorded on another drawing stack (``widgets._narrow.export_layouts``):
#: the experiments built at their defaults replay them, as live mode replays the build's
#: (tools/test_pythons.py: Pyodide's matplotlib 3.8.4 drawing the layout measured with 3.11)
LAYOUTS_ENV = "SPATIALBOOK_LAYOUTS"


def pytest_configure(config):
    # before collection, so parametrized cases are sampled too
    if config.getoption("--sampled", default=False):
        os.environ[sampling.ENV] = "1"
    if sampling.sampled() and "HYPOTHESIS_PROFILE" not in os.environ:
        settings.load_profile("sampled")
    if os.environ.get(LAYOUTS_ENV):
        import json

        from widgets._narrow import load_layouts

        with open(os.environ[LAYOUTS_ENV], encoding="utf-8") as f:
            load_layouts(json.load(f))


def pytest_report_header(config):
    lines = []
    if sampling.sampled():
        lines.append("spatialbook: SAMPLED run (make test-fast); make test runs every case")
    if os.environ.get(LAYOUTS_ENV):
        lines.append(f"spatialbook: experiments at their defaults replay the layouts of "
                     f"{os.environ[LAYOUTS_ENV]} (live mode's)")
    return "\n".join(lines) or None
