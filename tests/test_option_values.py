"""Every option value is checked before any work: a number out of its documented range, a
timeout that is not a finite number of seconds, an address that is not one (from an option or
the environment) is exit 2 with an error and no traceback, and nothing is left behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safety_cli import SAMPLES, quizkit

from quizkit.inputs.bounds import MAX_JOBS, MAX_PACKAGES, MAX_ROWS, MAX_SECONDS, MAX_THREADS

PACKAGE = SAMPLES / "package-full.json"


def refused(done, *left: Path) -> None:
    """Exit 2, one line (no usage block), no traceback, and none of ``left`` exists."""
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr and "bad_alloc" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "rror" in lines[0], done.stderr
    for path in left:
        assert not path.exists(), path


def commands(tmp: Path, value: str) -> dict[str, list[str]]:
    """One command per checked option, ``value`` in its place."""
    return {
        "jobs": ["validate", str(PACKAGE), "-j", value, "-o", str(tmp / "r.txt")],
        "threads": ["load", str(PACKAGE), "--db", str(tmp / "x.duckdb"), "--threads", value],
        "packages": ["samples", "generate", "--packages", value, "--out", str(tmp / "c")],
        "workers": ["samples", "generate", "--workers", value, "--out", str(tmp / "c")],
        "timeout": ["query", "SELECT 1", str(PACKAGE), "--timeout", value],
        "limit": ["query", "SELECT 1", str(PACKAGE), "--limit", value],
        "top": ["summary", "sizes", str(PACKAGE), "--top", value],
        "wait": ["validate", str(PACKAGE), "--wait-timeout", value, "-o", str(tmp / "r.txt")],
    }


LEFT = ("r.txt", "x.duckdb", "c")

BAD = [("jobs", "0"), ("jobs", str(MAX_JOBS + 1)), ("jobs", "400"),
       ("threads", "0"), ("threads", "100000000000"), ("threads", str(MAX_THREADS + 1)),
       ("packages", "100000000000000"), ("packages", str(MAX_PACKAGES + 1)),
       ("packages", "-1"), ("workers", "0"), ("workers", "100000"),
       ("timeout", "inf"), ("timeout", "nan"), ("timeout", "-1"), ("timeout", "0"),
       ("timeout", "1e300"), ("timeout", str(MAX_SECONDS * 2)),
       ("limit", "-1"), ("limit", str(MAX_ROWS + 1)), ("top", str(2**64)),
       ("wait", "inf"), ("wait", "-inf"), ("wait", "nan"), ("wait", "0")]


@pytest.mark.parametrize(("option", "value"), BAD, ids=[f"{o}={v}" for o, v in BAD])
def test_a_value_out_of_range_is_exit_2(tmp_path: Path, option: str, value: str) -> None:
    done = quizkit(*commands(tmp_path, value)[option], timeout=120)
    refused(done, *(tmp_path / name for name in LEFT))


def _out_of_range(option: str) -> st.SearchStrategy[str]:
    ints = {"jobs": (1, MAX_JOBS), "threads": (1, MAX_THREADS),
            "packages": (0, MAX_PACKAGES), "workers": (1, MAX_JOBS),
            "limit": (0, MAX_ROWS), "top": (0, MAX_ROWS)}
    if option in ints:
        low, high = ints[option]
        return st.one_of(st.integers(max_value=low - 1), st.integers(min_value=high + 1),
                         st.floats(allow_nan=True)).map(str)
    return st.one_of(st.floats(max_value=0.0), st.floats(min_value=MAX_SECONDS * 1.0001),
                     st.just("nan"), st.just("inf"), st.text(
                         st.characters(codec="utf-8", exclude_characters="\x00"), max_size=8)
                     .filter(lambda t: not _is_float(t))).map(str)


def _is_float(text: str) -> bool:
    try:
        value = float(text)
    except ValueError:
        return False
    return 0 < value <= MAX_SECONDS


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_value_out_of_range_is_exit_2(tmp_path: Path, data: st.DataObject) -> None:
    option = data.draw(st.sampled_from(sorted(commands(tmp_path, "1"))))
    value = data.draw(_out_of_range(option))
    if value.startswith("-") and not value[1:2].isdigit():
        value = "-1"  # an option name to click, not a value
    done = quizkit(*commands(tmp_path, value)[option], timeout=120)
    refused(done, *(tmp_path / name for name in LEFT))


@pytest.mark.parametrize("name", ["QUIZKIT_WAIT_TIMEOUT", "DASK_SCHEDULER_ADDRESS"])
def test_a_bad_environment_variable_is_exit_2(tmp_path: Path, name: str) -> None:
    value = {"QUIZKIT_WAIT_TIMEOUT": "inf", "DASK_SCHEDULER_ADDRESS": "tcp://[::1"}[name]
    out = tmp_path / "r.txt"
    done = subprocess.run([sys.executable, "-m", "quizkit", "validate", str(PACKAGE), "-o",
                           str(out)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, name: value})
    refused(done, out)
    assert name in done.stderr
