"""Help that scans (issue 51 item 5): a one-line usage, a short description with
examples, the options in groups, and the page where the long explanations are."""

from __future__ import annotations

from pathlib import Path

import pytest

from causalcal.cli import COMMANDS, DOC_PAGES, main

ROOT = Path(__file__).resolve().parents[2]


def _help(capsys, command: str) -> list[str]:
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_help_has_a_short_usage_groups_and_its_page(capsys, command):
    lines = _help(capsys, command)
    assert lines[0].startswith(f"usage: causalcal {command}") and lines[0].endswith(
        "[options]") and lines[1] == ""
    groups = [k for k, line in enumerate(lines) if line.endswith(":") and line[:1].isalpha()
              and not line.startswith(("usage", "example"))]
    assert len(groups) >= 3, groups  # positional arguments, options, … common options
    assert "common options:" in lines
    description = lines[2:groups[0]]
    assert len(description) <= 25, f"{command}: {len(description)} lines before the options"
    text = " ".join(lines)
    assert f"the documentation's page 'causalcal {command}'" in text
    page = f"docs/cli/{command}.md" if command in DOC_PAGES else "docs/design.md"
    assert page in text and (ROOT / page).is_file()


def test_discover_help_is_grouped_by_what_a_user_decides(capsys):
    lines = _help(capsys, "discover")
    groups = [line for line in lines if line.endswith(":") and line[:1].isalpha()]
    assert groups[3:] == ["what to calibrate, what to write:", "the calibration:",
                          "the bootstrap:", "reading the data:", "background knowledge:",
                          "the averaged network and figures (edge types):",
                          "common options:"]
    text = " ".join(" ".join(lines).split())
    for option in ("--answer-error SHARE", "--report FILE.html", "--simulations R",
                   "--probabilities", "--discretize SPEC", "--tiers FILE", "--plot DIR"):
        assert option in text, option
    assert "docs/cli/knowledge.md" in text  # the knowledge files' page
