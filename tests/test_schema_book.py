"""The compiled schemas are one object per run, never module state (``SchemaBook``).

Watched from outside (``tests/audited.py``: the files a process opens): a run reads the
bundled schemas once, its ``--jobs`` workers inherit them, a Dask worker reads them once for
all its tasks, and API calls given a book read them once between them. Runs with different
enum profiles in one process keep their own verdicts.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from quizkit import api
from quizkit.settings.config import ConfigError
from tests import audited
from tests.conftest import ROOT, SAMPLES, requires, valid_samples

SCHEMA_DIR = os.path.join(ROOT, "quizkit", "schemas", "")
SCHEMA_FILES = sorted(p for p in (ROOT / "quizkit" / "schemas").rglob("*.json"))


def _schema_reads(log: Path) -> Counter:
    """(pid, schema file) → how many times that process opened that bundled schema."""
    return Counter((e["pid"], e["what"]) for e in audited.events(log, "open")
                   if e["what"].startswith(SCHEMA_DIR) and e["what"].endswith(".json"))


def _readers(log: Path) -> set[int]:
    return {pid for pid, _ in _schema_reads(log)}


def _corpus(tmp_path: Path, n: int = 24) -> list[Path]:
    """Banners of different users (no cross-file findings), every third one invalid."""
    banner = json.loads((SAMPLES / "banner.json").read_text())
    files = []
    for i in range(n):
        doc = dict(banner, id=f"{i:024x}", userId=f"{i + 1:024x}")
        if i % 3 == 0:
            doc["position"] = "first"
        path = tmp_path / f"banner-{i:02}.json"
        path.write_text(json.dumps(doc, indent=2))
        files.append(path)
    return files


def test_a_run_reads_the_schemas_once_and_its_workers_inherit_them(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    files = _corpus(inputs)
    log = tmp_path / "open.log"
    done = audited.run(log, "cli", "validate", "--jobs", "2", "--format", "json",
                       "-o", str(tmp_path / "report.json"), *map(str, files))
    assert done.returncode == 1, done.stderr.decode()
    reads = _schema_reads(log)
    run = audited.events(log)[0]["pid"]  # the process the command ran in
    workers = {e["pid"] for e in audited.events(log)} - {run}
    assert workers, "the run used no worker process"
    assert _readers(log) == {run}, "a worker read the schemas again"
    assert set(reads.values()) == {1}, "a schema was read twice"
    assert {what for _, what in reads} == {str(p) for p in SCHEMA_FILES}
    report = json.loads((tmp_path / "report.json").read_text())
    assert {f["path"] for f in report["findings"]} == {str(f) for i, f in enumerate(files)
                                                       if i % 3 == 0}


API_CALLS = """
import quizkit.api as api
paths = {paths!r}
book = api.schema_book() if {shared!r} else None
for _ in range(3):
    report = api.validate(paths, jobs=1, schemas=book)
    assert report.summary()["errors"] == {errors!r}, report.summary()
"""


@pytest.mark.parametrize("shared,reads", [(True, 1), (False, 3)])
def test_api_calls_given_a_book_compile_once(tmp_path: Path, shared: bool, reads: int) -> None:
    """With ``schemas=api.schema_book()`` three calls read the schemas once between them;
    without, each call reads them (the documented per-call cost)."""
    files = [str(p) for p in _corpus(tmp_path, 6)]
    log = tmp_path / "open.log"
    code = API_CALLS.format(paths=files, shared=shared, errors=2)
    done = audited.run(log, "python", code, cwd=ROOT)
    assert done.returncode == 0, done.stderr.decode()
    assert set(_schema_reads(log).values()) == {reads}


def test_runs_with_different_profiles_in_one_process_keep_their_verdicts(tmp_path: Path
                                                                         ) -> None:
    profile = tmp_path / "profile.toml"
    profile.write_text('[enums]\nbannerSlot = ["header"]\n')
    banner = str(SAMPLES / "banner.json")  # slot "profile": outside the profile
    closed = api.schema_book(profile)
    for _ in range(2):
        with_profile = api.validate(banner, profile=profile, jobs=1, schemas=closed)
        assert [f.rule for f in with_profile.findings] == ["unknown-enum-value"]
        assert api.validate(banner, jobs=1).findings == []
        assert api.validate(banner, jobs=1, schemas=api.schema_book()).findings == []
    with pytest.raises(ConfigError, match="another enum profile"):
        api.validate(banner, jobs=1, schemas=closed)


def test_every_valid_sample_is_valid_with_a_shared_book() -> None:
    book = api.schema_book()
    for sample in valid_samples():
        assert api.validate(str(sample), jobs=1, schemas=book).summary()["errors"] == 0, sample


# --- a Dask worker: one book for all its tasks -----------------------------------------------

WORKER = """
import sys
from distributed.cli.dask_worker import main
sys.argv = ["dask-worker", {address!r}, "--nthreads", "1", "--no-nanny", "--host",
            "127.0.0.1", "--no-dashboard", "--death-timeout", "30",
            "--local-directory", {logs!r}]
main()
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


@contextlib.contextmanager
def _cluster(tmp_path: Path, log: Path) -> Iterator[str]:
    """A scheduler and one worker process on 127.0.0.1 (no nanny: the worker runs in the
    watched process), killed at the end; their output goes to ``dask.log``."""
    address = f"tcp://127.0.0.1:{_free_port()}"
    commands = [
        [str(Path(sys.executable).parent / "dask"), "scheduler", "--host", "127.0.0.1",
         "--port", address.rsplit(":", 1)[1], "--no-dashboard", "--no-show"],
        audited.command(log, "python", WORKER.format(address=address, logs=str(tmp_path)),
                        network=True),
    ]
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(open(tmp_path / "dask.log", "wb"))
        for command in commands:  # each killed, then waited for, on the way out
            proc = stack.enter_context(subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True))
            stack.callback(_kill_group, proc)
        with requires("distributed").Client(address, timeout=60) as client:
            client.wait_for_workers(1, timeout=90)
        yield address


def test_a_dask_worker_reads_the_schemas_once_for_all_its_tasks(tmp_path: Path) -> None:
    files = [str(p) for p in _corpus(tmp_path, 40)]  # 40 files: 8 tasks on one thread
    log = tmp_path / "worker.log"
    local = subprocess.run([sys.executable, "-m", "quizkit", "validate", "--format", "jsonl",
                            "--jobs", "1", *files], capture_output=True, timeout=120)
    with _cluster(tmp_path, log) as address:
        for _ in range(2):  # a second run on the same worker reads nothing again
            remote = subprocess.run(
                [sys.executable, "-m", "quizkit", "validate", "--format", "jsonl",
                 "--scheduler", address, *files], capture_output=True, timeout=120)
            assert remote.returncode == local.returncode == 1, remote.stderr.decode()
            assert remote.stdout == local.stdout
    opened_inputs = audited.opens_of(log, files)
    assert set(opened_inputs.values()) == {2}, "the worker did not read every input per run"
    reads = _schema_reads(log)
    assert set(reads.values()) == {1}, "the worker read the schemas more than once"
    assert len(_readers(log)) == 1
