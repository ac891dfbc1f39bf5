"""`python -m studies.study_records`: a study's run records packed one line a run, and
unpacked back to the same bytes."""

import json

import pytest

from causalcal.evaluate.study_files import dumps
from studies import study_records


def _study(out, calibrator="snn", runs=((40, 0), (40, 1), (120, 0))):
    for n, r in runs:
        record = {"V": 30, "E": 40, "N": n, "repeat": r, "status": "ok",
                  "overall_mce_after": 0.1 + n / 7, "nan": float("nan"), "settings": {"a": 1}}
        path = out / "results" / calibrator / "runs" / f"V30_E40_N{n}_r{r}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps(record))
    (out / "results" / calibrator / "table.md").write_text("a summary, not packed")
    (out / "study.json").write_text(dumps({"seed": 0}))
    (out / "timing.jsonl").write_text('{"seconds": 1.5}\n')


def _files(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def test_pack_then_unpack_gives_the_same_bytes(tmp_path):
    out, data, back = tmp_path / "out", tmp_path / "data", tmp_path / "back"
    _study(out)
    _study(out, "dirichlet", runs=((40, 0),))
    study_records.main(["pack", str(out), str(data)])
    assert sorted(p.name for p in data.iterdir()) == [
        "dirichlet.jsonl", "snn.jsonl", "study.json", "timing.jsonl"]
    lines = (data / "snn.jsonl").read_text().splitlines()
    assert [json.loads(line)["N"] for line in lines] == [120, 40, 40]  # file-name order
    study_records.main(["unpack", str(data), str(back)])
    want = {k: v for k, v in _files(out).items() if not k.endswith("table.md")}
    assert _files(back) == want
    study_records.main(["unpack", str(data), str(back)])  # again: nothing changes
    assert _files(back) == want


def test_unpack_refuses_to_overwrite_another_run(tmp_path):
    out, data = tmp_path / "out", tmp_path / "data"
    _study(out)
    study_records.pack(out, data)
    (out / "results" / "snn" / "runs" / "V30_E40_N40_r0.json").write_text("{}")
    with pytest.raises(FileExistsError):
        study_records.unpack(data, out)


def test_pack_refuses_a_file_it_would_not_give_back(tmp_path):
    out = tmp_path / "out"
    _study(out)
    (out / "results" / "snn" / "runs" / "V30_E40_N40_r0.json").write_text('{"V": 30}')
    with pytest.raises(ValueError, match="same file"):
        study_records.pack(out, tmp_path / "data")
