"""The summary's words for the map a known-relations fit wrote (docs/design.md §9.3,
§9.12, §9.14): each candidate's held-out evidence and one sentence saying what was written
and why — every sentence consistent with the numbers beside it (issue 48, friction 6)."""

from __future__ import annotations

from causalcal.edgecal.crossval import ALPHA, Candidate, MapChoice

__all__ = ["CANDIDATE_NAMES", "map_lines", "map_sentence"]

#: Each candidate map, as the summary names it.
CANDIDATE_NAMES = {"identity": "the bootstrap frequencies",
                   "calibrated": "the map calibrated on your known pairs",
                   "simulated": "the simulation-informed map",
                   "designed": "the map fitted on the answers"}
_SHORT = {"identity": "bootstrap", "calibrated": "calibrated on known pairs",
          "simulated": "simulation-informed", "designed": "fitted on the answers"}
_MORE = "more answers tell more: causalcal suggest --more"


def _same(c: Candidate) -> bool:
    return c.improvement == 0 and c.improvement_se == 0


def _reversed(c: Candidate) -> bool:
    """The map fitted on the answers reverses the bootstrap's order without the answers
    showing it by two standard errors (the test's p = 1 by rule)."""
    return c.slope is not None and c.slope <= 0 and c.calibration_p >= 1.0


def _test_words(c: Candidate) -> str:
    if _reversed(c):
        return (f"it reverses the bootstrap's order (slope {c.slope:.2f}) without the answers "
                "showing it reversed by two standard errors")
    return f"calibration test p = {c.calibration_p:.2g}"


def _gain_words(c: Candidate) -> str:
    if c.z is None:
        return ""
    if _same(c):
        return " (the same as the bootstrap on these pairs)"
    gain = f"improvement {c.improvement:+.4f} ± {c.improvement_se:.4f}"
    if c.calibration_p is not None:
        return f" ({gain}; {_test_words(c)})"
    return f" ({gain}; needs {c.z:g} standard errors)"


def _written_reason(name: str, c: Candidate) -> str:
    if c.calibration_p is not None:
        return (f"the answers show the bootstrap miscalibrated (calibration test p = "
                f"{c.calibration_p:.2g} < {ALPHA:g}) and it beat the bootstrap on answers it "
                f"was not fitted on (improvement {c.improvement:+.4f})")
    return (f"it beat the bootstrap on known pairs it was not fitted on by more than {c.z:g} "
            f"standard errors ({c.improvement:+.4f} ± {c.improvement_se:.4f})")


def _designed_not_written(c: Candidate) -> str:
    """Why the map fitted on the answers was not written, in the numbers' words."""
    if _reversed(c):
        return f"the map fitted on the answers {_test_words(c)}"
    if c.calibration_p >= ALPHA:
        return (f"the answers do not show the bootstrap miscalibrated (calibration test "
                f"p = {c.calibration_p:.2g} ≥ {ALPHA:g})")
    return (f"the answers show the bootstrap miscalibrated (calibration test p = "
            f"{c.calibration_p:.2g}) but the map fitted on them did not beat it on answers "
            f"it was not fitted on (improvement {c.improvement:+.4f} ± "
            f"{c.improvement_se:.4f})")


def _worse_warning(choice: MapChoice) -> str:
    """A forced map's warning when the held-out evidence finds it worse than the
    bootstrap."""
    c = choice.candidates.get(choice.chosen)
    if c is None or c.improvement is None or c.improvement >= 0:
        return ""
    return (f" WARNING: on held-out pairs it is worse than the bootstrap (Brier "
            f"{-c.improvement:+.4f} above it); --map auto would not write it.")


def map_sentence(choice: MapChoice) -> str:
    """What was written and why, in one plain sentence."""
    chosen, candidates = choice.chosen, choice.candidates
    if choice.asked != "auto":
        return f"map written: {chosen} (asked for, --map {choice.asked}); " + (
            "p_* columns equal the bootstrap frequencies boot_*." if chosen == "identity"
            else f"p_* columns hold {CANDIDATE_NAMES[chosen]}'s probabilities, boot_* the "
            "bootstrap frequencies." + _worse_warning(choice))
    if chosen != "identity":
        return (f"map written: {CANDIDATE_NAMES[chosen]}: "
                f"{_written_reason(chosen, candidates[chosen])}; p_* columns hold its "
                "probabilities, boot_* the bootstrap frequencies.")
    designed = candidates.get("designed")
    if choice.held_back and designed is not None:
        n = len(choice.held_back)
        return (f"map held back: {CANDIDATE_NAMES['designed']} would be written "
                f"({_written_reason('designed', designed)}), but not without the {n} answers "
                f"likeliest wrong (the first {n} under 'answers to recheck'); p_* columns "
                "hold the bootstrap frequencies. Recheck those answers; mark the ones you are "
                "sure of `sure` in a confidence column and run again.")
    if designed is not None:
        return (f"p_* columns hold the bootstrap frequencies: {_designed_not_written(designed)} "
                f"({_MORE}).")
    return ("WARNING: no map beat the bootstrap frequencies on held-out known pairs; p_* "
            "columns hold the bootstrap frequencies (trust those; more known pairs, spread "
            "over the probability range, give the calibrator a chance).")


def map_lines(choice: MapChoice, judged: str = "P(adjacent)", noisy: bool = False
              ) -> list[str]:
    """Summary lines: each candidate's held-out evidence (``judged``: the probability
    whose Brier score decides; ``noisy``: the improvements are unbiased for the answers'
    assumed errors, the scores are those of the answers as given), then
    :func:`map_sentence`."""
    if "identity" not in choice.candidates:
        return ["known pairs: too few of each kind to judge a map on them",
                map_sentence(choice)]
    if "designed" in choice.candidates:
        allowing = "; improvements allow for the answers' assumed errors" if noisy else ""
        lines = [f"answered pairs, Brier of {judged} weighted by their inclusion rates "
                 f"(fitted on the answers: {choice.folds}-fold cross-validated; the others "
                 f"were not fitted on them{allowing}):"]
    else:
        simulated = ("; simulation-informed: not fitted on them"
                     if "simulated" in choice.candidates else "")
        lines = [f"known pairs, Brier of {judged} corrected for their selection "
                 f"(calibrated: {choice.folds}-fold cross-validated{simulated}):"]
    for name, c in choice.candidates.items():
        lines.append(f"  {_SHORT[name]:<26} {c.brier.mean:.4f}{_gain_words(c)}; "
                     f"log-loss {c.log_loss.mean:.3f}")
    return [*lines, map_sentence(choice)]
