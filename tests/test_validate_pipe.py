"""``quizkit validate ... | head -1``: a reader that goes away ends the run quietly (no traceback,
no "Exception ignored" at exit), through a real pipe to a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES

# More output than a pipe holds (64 KiB on Linux), so writing must fail once the reader is gone.
BIG_ELEMENTS = 120


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pipe") / "many-findings.json"
    path.write_text(json.dumps([{"packageId": 5}] * BIG_ELEMENTS))
    return path


def _command(target: Path, fmt: str) -> list[str]:
    return [sys.executable, "-m", "quizkit", "validate", str(target), "--format", fmt]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT),
                                                         os.environ.get("PYTHONPATH", "")])}


def _head_1(cmd: list[str]) -> tuple[int, bytes, bytes]:
    """Like ``cmd | head -1``: read one line, close the pipe, wait."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(timeout=120), first, err


def _closed_before_start(cmd: list[str]) -> tuple[int, bytes]:
    """Like ``cmd | true`` when ``true`` has exited already: nothing can be written."""
    r, w = os.pipe()
    os.close(r)
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=_env(), stdout=w, stderr=subprocess.PIPE,
                              timeout=120, check=False)
    finally:
        os.close(w)
    return proc.returncode, proc.stderr


@pytest.mark.parametrize("fmt", ["text", "jsonl"])
def test_head_1_on_the_samples_is_quiet(fmt: str) -> None:
    code, first, err = _head_1(_command(SAMPLES, fmt))
    assert first.strip()
    assert err == b"", err.decode()
    assert code in (1, 3, 141)  # the findings' exit code if all output fitted in the pipe


@pytest.mark.parametrize("fmt", ["text", "jsonl"])
def test_head_1_on_more_output_than_the_pipe_holds_is_quiet(big: Path, fmt: str) -> None:
    code, first, err = _head_1(_command(big, fmt))
    assert first.strip()
    assert err == b"", err.decode()
    assert code == 141


@pytest.mark.parametrize("fmt", ["text", "jsonl"])
@pytest.mark.parametrize("which", ["samples", "big"])
def test_a_reader_gone_before_the_first_write_is_quiet(big: Path, fmt: str, which: str) -> None:
    # For the samples the text report fits in stdout's buffer: the write fails only when the
    # buffer is flushed at the end of the run.
    code, err = _closed_before_start(_command(SAMPLES if which == "samples" else big, fmt))
    assert err == b"", err.decode()
    assert code == 141
