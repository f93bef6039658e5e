import numpy as np

import spatialbook as sb


def test_seed_usage_gives_the_door_wrench():
    I = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    F = sb.required_wrench(I, [0, 0, 2, 0, 0, 0], [0, 0, 3, 0, 0, 0])
    np.testing.assert_allclose(F, [0, 0, 1.28, -3.2, 2.4, 0], atol=1e-12)
