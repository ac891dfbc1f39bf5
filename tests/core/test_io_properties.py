"""Property tests of the file readers (issue 16): whatever the bytes of the file, the
reader returns a result or raises a ValueError whose message names the file — never
another exception."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from causalcal.data import DiscreteData
from causalcal.edges import EdgeProbabilities
from causalcal.relations_io import read_known_pairs, truth_from_csv

NAMES = ["x", "y", "z", "A B", "é"]
# cells built from the characters that trouble CSV readers, plus plausible values
CELL = st.one_of(
    st.sampled_from(["a", "b", "relation", "->", "<-", "--", "none", "x", "y", "z", "é",
                     "p_none", "p_forward", "p_backward", "p_undirected", "0", "1", "0.5",
                     "nan", "inf", "-1", "", "1e400", "# n_boot=", "# names=[\"x\"]"]),
    st.text(alphabet=st.sampled_from(list('ab01,;"\t\r\n#-> \x00\u00e9\ufeff')), max_size=8),
)
CSV_TEXT = st.lists(st.lists(CELL, min_size=1, max_size=7), max_size=8).map(
    lambda rows: "\n".join(",".join(r) for r in rows)
)
RAW = st.one_of(
    st.binary(max_size=200),
    CSV_TEXT.map(lambda t: t.encode("utf-8")),
    st.tuples(CSV_TEXT, st.sampled_from([b"\xff", b"\x00", b"\xc3", b"\r"]), CSV_TEXT).map(
        lambda t: t[0].encode() + t[1] + t[2].encode()
    ),
)
PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _check(reader, suffix: str, content: bytes):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"input{suffix}"
        path.write_bytes(content)
        try:
            return reader(path)
        except ValueError as err:
            assert str(path) in str(err), f"message does not name the file: {err}"
            assert "\n" not in str(err).strip()
            return None


@PROPERTY
@given(RAW)
def test_data_csv_loader_gives_data_or_a_value_error_naming_the_file(content):
    result = _check(DiscreteData.from_csv, ".csv", content)
    if result is not None:
        assert result.n_samples >= 2 and result.n_vars >= 1
        assert len(set(result.names)) == result.n_vars


@PROPERTY
@given(RAW.map(lambda raw: b"a,b,relation\n" + raw))
def test_known_pairs_reader_gives_pairs_or_a_value_error_naming_the_file(content):
    result = _check(lambda p: read_known_pairs(p, NAMES), ".csv", content)
    if result is not None:
        assert (result["i"] < result["j"]).all() and result["label"].between(0, 3).all()


@PROPERTY
@given(RAW)
def test_truth_reader_gives_labels_or_a_value_error_naming_the_file(content):
    result = _check(lambda p: truth_from_csv(p, NAMES), ".csv", content)
    if result is not None:
        assert result.shape == (10,)


@PROPERTY
@given(st.one_of(
    RAW,
    RAW.map(lambda raw: b"# n_vars=2 n_boot=3\na,b,p_none,p_forward,p_backward,p_undirected\n"
            + raw),
    RAW.map(lambda raw: b'# names=["x", "y", "z"]\n' + raw),
))
def test_edge_probability_csv_reader(content):
    result = _check(EdgeProbabilities.load, ".csv", content)
    if result is not None:
        assert np.allclose(result.probs.sum(axis=1), 1)


ARRAYS = st.sampled_from([
    np.asarray(["x", "y", "z"]), np.asarray('["x", "y"]'), np.asarray("[1, 2]"),
    np.asarray("not json"), np.asarray([[0, 1]]), np.asarray([[0, 1, 2]]),
    np.asarray([[1, 0]]), np.asarray([[0, 5]]), np.asarray([[0.2, 0.3, 0.4, 0.1]]),
    np.asarray([[0.5, 0.5]]), np.asarray([[np.nan, 0, 0, 1]]), np.int64(3),
    np.asarray([1, 2]), np.asarray(-1), np.zeros((0, 2)), np.asarray(b"bytes"),
])
NPZ = st.dictionaries(
    st.sampled_from(["names", "names_json", "pairs", "probs", "n_boot", "other"]),
    ARRAYS, max_size=6,
)


def _npz_bytes(arrays: dict) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


# the draws that found a defect (issue 49: a 0-d 'probs' raised IndexError), always tried
_FOUND = [{"names": np.asarray(["x", "y", "z"]), "pairs": np.asarray([[0, 1]]),
           "probs": probs, "n_boot": np.int64(3)}
          for probs in (np.int64(3), np.asarray(-1), np.asarray([1, 2]), np.zeros((0, 2)))]


@PROPERTY
@given(st.one_of(
    st.binary(max_size=300),
    NPZ.map(_npz_bytes),
    st.tuples(NPZ.map(_npz_bytes), st.integers(0, 400)).map(lambda t: t[0][: t[1]]),
))
@example(_npz_bytes(_FOUND[0]))
@example(_npz_bytes(_FOUND[1]))
@example(_npz_bytes(_FOUND[2]))
@example(_npz_bytes(_FOUND[3]))
@example(_npz_bytes({**_FOUND[0], "probs": np.asarray([[0.2, 0.3, 0.4, 0.1]]),
                     "n_boot": np.asarray([1, 2])}))
def test_edge_probability_npz_reader(content):
    result = _check(EdgeProbabilities.load, ".npz", content)
    if result is not None:
        assert result.pairs.shape[1] == 2


@pytest.mark.parametrize("reader", [
    DiscreteData.from_csv,
    lambda p: read_known_pairs(p, NAMES),
    EdgeProbabilities.load,
])
def test_a_folder_or_a_missing_file_is_a_value_error_naming_it(tmp_path, reader):
    with pytest.raises(ValueError, match="is a folder"):
        reader(tmp_path)
    with pytest.raises(ValueError, match="nope.csv: no such file"):
        reader(tmp_path / "nope.csv")
