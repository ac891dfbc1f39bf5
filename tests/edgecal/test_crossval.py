"""The map-choice sentence (issue 41 item 8): a forced map the held-out evidence finds
worse than the bootstrap is written with a warning."""

from causalcal.edgecal import Candidate, MapChoice, Score


def _choice(improvement: float) -> MapChoice:
    identity = Candidate(Score(0.1, 0.01), Score(0.3, 0.02))
    calibrated = Candidate(Score(0.1 - improvement, 0.01), Score(0.3, 0.02),
                           improvement=improvement, improvement_se=0.001, z=2.0)
    return MapChoice("calibrated", 5, {"identity": identity, "calibrated": calibrated},
                     "calibrated")


def test_forced_map_worse_than_the_bootstrap_is_written_with_a_warning():
    worse = _choice(-0.004).sentence
    assert "WARNING" in worse and "+0.0040 above it" in worse
    assert "WARNING" not in _choice(0.004).sentence
