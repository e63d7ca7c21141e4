"""Shared test helpers: the samples, the real CLI (in process and as a subprocess), and
:func:`requires`, the one way a test says what it needs."""

from __future__ import annotations

import importlib
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from quizkit.cli import main
from quizkit.outputs.progress import in_ci


def requires(dependency: str, *, found: bool | None = None, install: str = "") -> Any:
    """What a test needs and this machine may lack: a module (imported and returned) or, with
    ``found``, a tool the caller looked for. When it is missing the test fails under CI
    (``CI`` set to any true value: CI must run every test) and is skipped elsewhere."""
    if found is None:
        try:
            return importlib.import_module(dependency)
        except ImportError as exc:
            reason = f"needs {dependency} ({exc})"
    elif found:
        return None
    else:
        reason = f"needs {dependency}"
    reason += f"; install: {install}" if install else ""
    if in_ci(os.environ):
        pytest.fail(f"{reason} (CI is set: it must run)", pytrace=False)
    pytest.skip(reason)


ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
INVALID = SAMPLES / "invalid"


def valid_samples() -> list[Path]:
    """Every valid sample file (everything in samples/ outside invalid/)."""
    return sorted(
        p for p in SAMPLES.rglob("*")
        if p.is_file() and "invalid" not in p.relative_to(SAMPLES).parts
        and p.name.endswith((".json", ".jsonl", ".ndjson", ".gz"))
    )


def invalid_cases() -> list[dict]:
    """Every documented invalid case: manifests under samples/invalid/, with file paths."""
    cases = []
    for manifest in sorted(INVALID.rglob("manifest.json.txt")):
        for case in json.loads(manifest.read_text()):
            cases.append({**case, "path": manifest.parent / case["file"]})
    return cases


def reversed_keys(value):
    """The same JSON value with every object's keys in reverse order."""
    if isinstance(value, dict):
        return {k: reversed_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_keys(v) for v in value]
    return value


def cli(*args: str, input: bytes | None = None):
    """Run the CLI in process; returns click's Result (exit_code, output)."""
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def cli_json(*args: str) -> tuple[int, dict]:
    result = cli("validate", "--format", "json", *args)
    return result.exit_code, json.loads(result.stdout)  # warnings go to stderr


def console_script() -> str:
    """The installed ``quizkit`` console script, next to this interpreter."""
    candidate = Path(sys.executable).parent / "quizkit"
    found = str(candidate) if candidate.exists() else shutil.which("quizkit")
    if not found:
        pytest.fail("the quizkit console script is not installed (pip install -e '.[test]')")
    return found


def run_script(*args: str, cwd: Path | None = None, input: bytes | None = None,
               timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the installed console script as a real subprocess."""
    env = {**os.environ, "CI": "true"}
    return subprocess.run([console_script(), *args], cwd=cwd or ROOT, input=input,
                          capture_output=True, timeout=timeout, env=env)


def on_a_terminal(*args: str, env: dict[str, str | None] | None = None,
                  stdin: bytes | None = None,
                  hold: float = 0.0, after: bytes = b"",
                  stop_when: bytes | None = None,
                  stop_at: Path | None = None) -> tuple[int, bytes]:
    """Exit code and every byte ``python -m quizkit ARGS`` wrote, its stdout and stderr on one
    pseudo-terminal as a person would see them (``TERM=xterm``, ``CI`` unset, then ``env``:
    a variable given ``None`` is unset).

    ``stdin`` (a pipe) is written ``hold`` seconds after the terminal shows ``after`` (the
    start, by default), so that the run lasts at least that long from then; ``stop_when``:
    a Ctrl-C (SIGINT) once the terminal shows these bytes, stdin still open; ``stop_at``: once
    this file exists (the test hook ``QUIZKIT_PAUSE_AT`` in ``env`` makes it), with the bytes
    given in ``stop_when`` on the terminal.
    """
    requires("pty")
    leader, follower = os.openpty()
    environ = {k: v for k, v in os.environ.items() if k != "CI"}
    for name, value in {"TERM": "xterm", **(env or {})}.items():
        if value is None:
            environ.pop(name, None)
        else:
            environ[name] = value
    proc = subprocess.Popen([sys.executable, "-m", "quizkit", *args], stdin=subprocess.PIPE,
                            stdout=follower, stderr=follower, env=environ, cwd=ROOT)
    os.close(follower)
    assert proc.stdin is not None
    chunks: list[bytes] = []
    start, stopped, since = time.monotonic(), False, None
    while True:
        if since is None and after in b"".join(chunks):
            since = time.monotonic()
        if stop_when is None and proc.stdin is not None and since is not None and \
                time.monotonic() - since >= hold:
            proc.stdin.write(stdin or b"")
            proc.stdin.close()
            proc.stdin = None
        elif stop_when is not None and not stopped and stop_when in b"".join(chunks) \
                and (stop_at is None or stop_at.exists()):
            proc.send_signal(signal.SIGINT)
            stopped = True
        ready, _, _ = select.select([leader], [], [], 0.05)
        if not ready:
            if time.monotonic() - start > 300:  # only a hang gets here
                proc.kill()
                raise AssertionError(b"".join(chunks))
            continue
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    if proc.stdin is not None:
        proc.stdin.close()
    code = proc.wait(timeout=120)
    os.close(leader)
    return code, b"".join(chunks)


def screen(output: bytes) -> list[str]:
    """The lines a terminal shows after ``output``: a carriage return goes back to the start
    of the line and what follows overwrites it; colours and other escape codes are dropped
    (an erase to the end of the line, ``ESC[K``, is applied)."""
    lines: list[list[str]] = [[]]
    col = 0
    text = output.decode(errors="replace")
    for token in re.findall(r"\x1b\[[0-9;?]*[A-Za-z]|\r|\n|[^\x1b\r\n]", text):
        line = lines[-1]
        if token == "\r":
            col = 0
        elif token == "\n":
            lines.append([])
            col = 0
        elif token == "\x1b[K":
            del line[col:]
        elif token.startswith("\x1b"):
            continue
        else:
            if col < len(line):
                line[col] = token
            else:
                line.extend(" " * (col - len(line)) + token)
            col += 1
    return ["".join(line).rstrip() for line in lines]


@pytest.fixture(autouse=True)
def _result_cache_outside_the_repository(tmp_path_factory, monkeypatch):
    """Every run of the CLI in a test keeps its result cache in a directory of its own test,
    never in ``.quizkit_cache`` of the current directory (the repository)."""
    monkeypatch.setenv("QUIZKIT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(autouse=True, scope="session")
def _session_result_cache_outside_the_repository(tmp_path_factory):
    """The same for the runs of module and session fixtures, made before a test's own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("QUIZKIT_CACHE_DIR", str(tmp_path_factory.mktemp("session-cache")))
        yield


@pytest.fixture(autouse=True, scope="session")
def _no_cache_left_in_the_repository():
    """The suite leaves no result cache in the repository (a clean clone stays clean)."""
    cache = ROOT / ".quizkit_cache"
    before = cache.exists()
    yield
    assert before or not cache.exists(), f"a test wrote a result cache in {cache}"
