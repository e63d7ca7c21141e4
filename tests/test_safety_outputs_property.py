"""For any mix of output paths (regular files, links, dangling links, FIFOs, devices, missing
directories, directories, any file the run reads), either every report lands where a user
expects or the run exits 2; no non-regular file and no input is ever replaced. Inputs of
every kind: the export, the config file (given, or discovered as pyproject.toml), the
profile, the baseline (``validate``), the database and the Parquet dataset (``summary``)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from safety_cli import SAMPLES, FifoReader, device_like, quizkit, snapshot

#: The files of a validate run besides the export (all read by it).
READ = {"config": "quizkit.toml", "profile": "profile.toml", "baseline": "baseline.json"}
KINDS = ["new", "regular", "link", "dangling", "fifo", "device", "missing-dir", "input",
         "link-to-input", "directory", "link-to-directory", *READ, "link-to-profile"]
REFUSED = {"missing-dir", "input", "link-to-input", "directory", "link-to-directory", *READ,
           "link-to-profile"}


def _inputs(root: Path, discovered: bool) -> tuple[Path, dict[str, Path]]:
    """The export and the other files a validate run reads, in ``root/in``; the config file
    is ``root/pyproject.toml`` (found from the working directory) when ``discovered``."""
    game = root / "in" / "game.json"
    game.parent.mkdir()
    game.write_bytes((SAMPLES / "game.json").read_bytes())
    read = {kind: root / "in" / name for kind, name in READ.items()}
    if discovered:
        read["config"] = root / "pyproject.toml"
        read["config"].write_text('[tool.quizkit]\nfail-on = "error"\n')
    else:
        read["config"].write_text('fail-on = "error"\n')
    read["profile"].write_text("[enums]\n")
    read["baseline"].write_text('{"version": 1, "findings": []}\n')
    return game, read


def _make(root: Path, i: int, kind: str, game: Path, read: dict[str, Path]) -> Path:
    """Output number ``i`` of ``kind`` under ``root`` (each in a directory of its own)."""
    here = root / f"o{i}"
    here.mkdir()
    if kind == "new":
        return here / "report.json"
    if kind == "regular":
        (here / "report.json").write_text("old report")
        return here / "report.json"
    if kind == "link":
        (here / "target.json").write_text("old target")
        (here / "report.json").symlink_to(here / "target.json")
        return here / "report.json"
    if kind == "dangling":
        (here / "report.json").symlink_to("made.json")
        return here / "report.json"
    if kind == "fifo":
        os.mkfifo(here / "pipe")
        return here / "pipe"
    if kind == "device":
        return device_like(here)
    if kind == "missing-dir":
        return here / "no" / "such" / "report.json"
    if kind == "input":
        return game
    if kind in read:
        return read[kind]
    if kind == "link-to-profile":
        (here / "report.json").symlink_to(read["profile"])
        return here / "report.json"
    if kind == "directory":
        return here
    if kind == "link-to-directory":
        (here / "report.json").symlink_to(here)
        return here / "report.json"
    (here / "report.json").symlink_to(game)  # link-to-input
    return here / "report.json"


def _refused(done: subprocess.CompletedProcess[str], root: Path, before: dict) -> None:
    """Exit 2 with one line, or a usage error (its last line) for a directory given as an
    output; nothing under ``root`` changed."""
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(("quizkit: error: ", "Error: ")), done.stderr
    assert snapshot(root) == before


def _is_report(data: bytes) -> bool:
    try:
        return json.loads(data)["summary"]["files"] == 1
    except (ValueError, KeyError, TypeError):
        return False


def _is_baseline(data: bytes) -> bool:
    try:
        return json.loads(data)["findings"] == []
    except (ValueError, KeyError, TypeError):
        return False


can_mknod = os.geteuid() == 0  # else every device is /dev/null, and two would be one path
kinds = st.sampled_from(KINDS if can_mknod else [k for k in KINDS if k != "device"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(kinds, min_size=1, max_size=3), st.booleans(), st.booleans())
def test_reports_land_where_expected_or_the_run_exits_2(chosen: list[str], discovered: bool,
                                                        baseline_out: bool) -> None:
    """``baseline_out``: the last output is ``--write-baseline`` (without ``--baseline``:
    the two do not go together)."""
    writes_baseline = baseline_out and len(chosen) > 1
    # Without --baseline the baseline file is not read, and the case is "regular" again.
    assume(not (writes_baseline and "baseline" in chosen))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        game, read = _inputs(root, discovered)
        outputs = [_make(root, i, kind, game, read) for i, kind in enumerate(chosen)]
        args = ["validate", str(game), "--format", "json", "-o", str(outputs[0]),
                "--profile", str(read["profile"])]
        if not discovered:
            args += ["--config", str(read["config"])]
        reports = outputs[1:-1] if writes_baseline else outputs[1:]
        for out in reports:
            args += ["--report", f"json:{out}"]
        args += ["--write-baseline", str(outputs[-1])] if writes_baseline \
            else ["--baseline", str(read["baseline"])]
        readers = {i: FifoReader(out) for i, (kind, out) in enumerate(zip(chosen, outputs,
                                                                          strict=True))
                   if kind == "fifo"}
        before = snapshot(root)
        done = quizkit(*args, timeout=60, cwd=root)
        streamed = {i: r.finish() for i, r in readers.items()}

        assert "Traceback" not in done.stderr, done.stderr
        assert game.read_bytes() == (SAMPLES / "game.json").read_bytes()
        assert read["baseline"].read_text() == '{"version": 1, "findings": []}\n'
        for kind, out in zip(chosen, outputs, strict=True):
            if kind == "fifo":
                assert stat.S_ISFIFO(out.lstat().st_mode)
            if kind == "device":
                assert stat.S_ISCHR(out.lstat().st_mode)
            if kind in ("link", "dangling", "link-to-input", "link-to-directory"):
                assert out.is_symlink()
        if REFUSED & set(chosen):
            _refused(done, root, before)
            return
        assert done.returncode == 0, done.stderr
        for i, (kind, out) in enumerate(zip(chosen, outputs, strict=True)):
            landed = _is_baseline if writes_baseline and i == len(chosen) - 1 else _is_report
            if kind in ("new", "regular"):
                assert landed(out.read_bytes())
            elif kind == "link":
                assert landed((out.parent / "target.json").read_bytes())
            elif kind == "dangling":
                assert landed((out.parent / "made.json").read_bytes())
            elif kind == "fifo":
                assert landed(streamed[i])
        leftovers = [p for p in root.rglob(".*")]
        assert leftovers == [], leftovers


#: Outputs of a ``summary`` run that reads a database or a dataset (both are there; one read).
SUMMARY_KINDS = ["new", "regular", "link", "dangling", "fifo", "device", "missing-dir",
                 "directory", "database", "link-to-database", "dataset-part", "in-dataset",
                 "link-to-dataset-part"]
READ_BY = {"db": {"database", "link-to-database"},
           "dataset": {"dataset-part", "in-dataset", "link-to-dataset-part"}}


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A database and a dataset loaded from the same export (copied for each example)."""
    where = tmp_path_factory.mktemp("stores")
    db, dataset = where / "db.duckdb", where / "ds"
    for option, target in (("--db", db), ("--parquet", dataset)):
        done = quizkit("load", SAMPLES / "package-full.json", option, target, "--no-findings")
        assert done.returncode == 0, done.stderr
    return db, dataset


def _summary_output(root: Path, kind: str, db: Path, dataset: Path) -> Path:
    here = root / "o"
    here.mkdir()
    part = next((dataset / "packages").iterdir())
    named = {"database": db, "dataset-part": part, "in-dataset": dataset / "summary.json"}
    if kind in named:
        return named[kind]
    if kind.startswith("link-to-"):
        (here / "summary.json").symlink_to(named[kind.removeprefix("link-to-")])
        return here / "summary.json"
    made = _make(root, 0, kind, db, {})  # db: never used, "input" is not a summary kind
    return made


def _is_summary(data: bytes) -> bool:
    try:
        return any(row["entity"] == "packages" for row in json.loads(data)["entities"])
    except (ValueError, KeyError, TypeError):
        return False


summary_kinds = st.sampled_from(SUMMARY_KINDS if can_mknod
                                else [k for k in SUMMARY_KINDS if k != "device"])


@settings(max_examples=30, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(summary_kinds, st.sampled_from(sorted(READ_BY)))
def test_a_summary_never_lands_on_the_database_or_dataset_it_reads(
        stores: tuple[Path, Path], kind: str, source: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        db, dataset = root / "in" / "db.duckdb", root / "in" / "ds"
        dataset.parent.mkdir()
        shutil.copyfile(stores[0], db)
        shutil.copytree(stores[1], dataset)
        out = _summary_output(root, kind, db, dataset)
        reader = FifoReader(out) if kind == "fifo" else None
        before = snapshot(root)
        read = ["--db", db] if source == "db" else ["--parquet", dataset]
        done = quizkit("summary", "overview", *read, "--format", "json", "-o", out, timeout=60)
        streamed = reader.finish() if reader is not None else b""

        assert "Traceback" not in done.stderr, done.stderr
        if kind in READ_BY[source] | {"missing-dir", "directory"}:
            _refused(done, root, before)
            return
        assert done.returncode == 0, done.stderr
        landed = {"fifo": lambda: streamed, "device": lambda: b"",
                  "link": lambda: (out.parent / "target.json").read_bytes(),
                  "dangling": lambda: (out.parent / "made.json").read_bytes(),
                  "link-to-database": lambda: db.read_bytes(),
                  "link-to-dataset-part": lambda: out.resolve().read_bytes()}
        if kind != "device":
            assert _is_summary(landed.get(kind, out.read_bytes)())
