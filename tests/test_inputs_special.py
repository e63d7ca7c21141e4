"""An input that is not a regular file (a FIFO made with
``os.mkfifo``, ``/dev/zero``, ``/dev/null``), named on the command line, is refused at once by
every command that reads exports: never opened for a blocking read, never read to its end.
It is reported with its path and the reason, and the exit code is 3 (docs/safety.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from safety_cli import SAMPLES, peak_rss, quizkit

GAME = str(SAMPLES / "game.json")

#: Each command that reads exports, with what it needs besides its inputs ({tmp}: a fresh
#: directory). A FIFO nobody writes to would block a reader forever; /dev/zero never ends.
READERS = {
    "validate": ["validate"],
    "load": ["load", "--db", "{tmp}/a.duckdb"],
    "query": ["query", "SELECT count(*) AS n FROM files"],
    "summary sizes": ["summary", "sizes"],
    "summary all": ["summary", "all"],
    "summary charts": ["summary", "charts", "--out", "{tmp}/charts"],
    "enums infer": ["enums", "infer"],
}

#: A generous bound: reading /dev/zero as DuckDB did took 4.5 GB before it gave up.
MEMORY_BOUND = 400 * 1024 * 1024


def _special(kind: str, tmp: Path) -> str:
    if kind == "fifo":
        fifo = tmp / "stream.json"
        os.mkfifo(fifo)
        return str(fifo)
    return f"/dev/{kind}"


@pytest.mark.parametrize("kind", ["fifo", "zero", "null"])
@pytest.mark.parametrize("command", list(READERS))
def test_a_named_special_file_is_refused_at_once(tmp_path: Path, command: str,
                                                 kind: str) -> None:
    special = _special(kind, tmp_path)
    args = [a.format(tmp=tmp_path) for a in READERS[command]]
    # With a good file beside it: the rest of the run still happens.
    done, peak = peak_rss(*args, special, GAME, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 3, (done.returncode, done.stderr)
    # A warning on stderr; validate's finding is in its report, on stdout.
    said = done.stderr + done.stdout
    assert special in said and "not a regular file" in said, said
    assert peak < MEMORY_BOUND, f"{peak / 2**20:.0f} MiB"
    if kind == "fifo":
        assert Path(special).exists() and not Path(special).is_file()


def test_the_good_files_beside_it_are_still_read(tmp_path: Path) -> None:
    fifo = _special("fifo", tmp_path)
    done = quizkit("query", "SELECT count(*) AS n FROM files", "--format", "csv", fifo, GAME,
                   timeout=60)
    assert done.returncode == 3, done.stderr
    assert done.stdout.split() == ["n", "1"]
