"""Shared test settings.

Hypothesis runs deterministically (``derandomize=True``: the same examples on every run and
machine, no example database) with modest example counts, so the whole core suite stays well
under a minute on two cores.  Set HYPOTHESIS_PROFILE=thorough for a longer local search.
"""

import os

from hypothesis import HealthCheck, settings

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
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "spatialbook"))
