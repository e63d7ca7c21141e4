"""The engine's run loop: positions on demand, lazy reference engine, parallel runs, facts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from quizkit import api
from quizkit.checks import engine
from tests import audited
from tests.conftest import ROOT, SAMPLES, run_script, valid_samples


def _write(path: Path, doc: object) -> Path:
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def broken_corpus(tmp_path: Path) -> Path:
    """Valid samples and broken variants of them: schema errors, bad JSON, an unknown kind."""
    out = tmp_path / "corpus"
    out.mkdir()
    banner = json.loads((SAMPLES / "banner.json").read_text())
    game = json.loads((SAMPLES / "game.json").read_text())
    for i in range(40):
        b = dict(banner, id=f"b{i}")
        if i % 3 == 0:
            b["position"] = "first"
        if i % 4 == 0:
            b[f"extra{i}"] = True
        if i % 5 == 0:
            b["createdAt"] = "2023-12-31T12:00:60Z"  # second 60 is a leap second only at 23:59 UTC
        _write(out / f"banner-{i:02}.json", b)
    for i in range(6):
        g = dict(game)
        if i % 2:
            g.pop("pkg", None)
            g["visibility"] = 3
        _write(out / f"game-{i}.json", g)
    for sample in valid_samples():
        if sample.suffix != ".gz":
            (out / f"sample-{sample.name}").write_bytes(sample.read_bytes())
    (out / "truncated.json").write_text('{\n  "id": "x",\n  "slot": ')
    (out / "unknown.json").write_text('{"colour": "blue"}')
    (out / "lines.jsonl").write_text('{"slot": "a"}\n{"slot": 1}\nnot json\n')
    return out


def _distinct(banner: dict, i: int) -> dict:
    """The banner as the only (current) banner of user ``i``: no cross-file findings."""
    return dict(banner, id=f"{i:024x}", userId=f"{i + 1:024x}")


def _line_of(path: Path, key: str) -> int:
    """The line of a member of the document's object in an indented file (by its key)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, text in enumerate(lines, 1) if text.startswith(f'  "{key}": '))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_findings_and_cross_file_findings_are_placed_with_one_read_more_at_most(tmp_path, jobs):
    """A document's findings are placed in the one pass over its file; a cross-file finding
    after the batch checks, by reading its file once more: every finding has the line and
    column of its value, and only the file of the cross-file finding is opened twice
    (watched from outside by tests/audited.py). (That documents without findings cost no
    positions is speed: benchmarks/, docs/performance.md.)"""
    inputs = tmp_path / "in"
    inputs.mkdir()
    banner = json.loads((SAMPLES / "banner.json").read_text())
    # not current: a banner record that is not current gives no cross-file fact
    files = [_write(inputs / f"{i:02}.json", dict(_distinct(banner, i), current=False))
             for i in range(20)]
    _write(files[7], dict(json.loads(files[7].read_text()), position="first"))
    # two current banners of one user in one slot: a finding about the second file
    first, second = (dict(_distinct(banner, 3), current=True),
                     dict(_distinct(banner, 3), id=f"{99:024x}", current=True))
    _write(files[3], first)
    _write(files[12], second)
    log, out = tmp_path / "open.log", tmp_path / "report.json"
    done = audited.run(log, "cli", "validate", "--jobs", jobs, "--format", "json",
                       "-o", str(out), str(inputs))
    assert done.returncode == 1, done.stderr.decode()
    placed = {(f["path"], f["rule"]): (f["line"], f["column"])
              for f in json.loads(out.read_text())["findings"]}
    assert placed == {(str(files[7]), "wrong-type"): (_line_of(files[7], "position"), 15),
                      (str(files[12]), "multiple-current-banners"):
                          (_line_of(files[12], "current"), 14)}
    opens = audited.opens_of(log, files)
    assert opens.pop(str(files[12])) == 2
    assert set(opens.values()) == {1}


def test_a_clean_run_never_loads_the_reference_engine():
    paths = [str(p) for p in valid_samples()]
    code = ("import sys, quizkit\n"
            f"r = quizkit.validate({paths!r}, jobs=1)\n"
            "assert r.summary()['errors'] == 0, r.summary()\n"
            "loaded = sorted(m for m in ('jsonschema', 'referencing', 'duckdb') "
            "if m in sys.modules)\n"
            "assert not loaded, loaded\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()


def test_jobs_give_byte_identical_reports(broken_corpus, tmp_path):
    reports = []
    for jobs in ("1", "2", "3"):
        out = tmp_path / f"report-{jobs}.json"
        done = run_script("validate", "--jobs", jobs, "--format", "json", "-o", str(out),
                          str(broken_corpus))
        assert done.returncode == 3, done.stderr.decode()  # unparsable inputs
        reports.append(out.read_bytes())
    assert reports[0] == reports[1] == reports[2]
    report = json.loads(reports[0])
    rules = {f["rule"] for f in report["findings"]}
    assert {"wrong-type", "unknown-field", "invalid-format", "invalid-json"} <= rules
    paths = [f["path"] for f in report["files"]]
    assert paths == sorted(paths)


def test_parallel_run_keeps_input_order_over_many_chunks(tmp_path):
    banner = json.loads((SAMPLES / "banner.json").read_text())
    files = []
    for i in range(300):  # more chunks than the window holds
        b = _distinct(banner, i)
        if i % 7 == 0:
            b["position"] = "x"
        files.append(_write(tmp_path / f"{i:03}.json", b))
    paths = [str(p) for p in reversed(files)]  # not sorted: order is the input's
    one = api.validate(paths, jobs=1, config=False)
    two = api.validate(paths, jobs=2, config=False)
    assert [f.path for f in two.files] == paths
    assert [f.to_dict() for f in two.findings] == [f.to_dict() for f in one.findings]
    assert len(two.findings) == len(range(0, 300, 7))


def test_facts_from_workers_reach_the_batch_checks(tmp_path):
    """Cross-file findings need the facts of every file, whichever worker checked it: 40
    games holding ten ids four times each (in chunks spread over the workers) give one
    duplicate finding per repeat, each naming the file where the id was first seen, and the
    same report with any number of jobs."""
    game = json.loads((SAMPLES / "game.json").read_text())
    expected = set()
    for i in range(40):
        gid = f"g{i % 10}"
        doc = dict(game, id=gid, history=[dict(h, gameId=gid) for h in game["history"]])
        if i >= 30:
            doc["name"] = "another name"  # the last ten differ from their first copy
        _write(tmp_path / f"{i:02}.json", doc)
        if i >= 10:
            rule = "conflicting-duplicate" if i >= 30 else "identical-duplicate"
            expected.add((f"{i:02}.json", rule, f"{i % 10:02}.json"))
    reports = []
    for jobs in ("1", "2", "3"):
        out = tmp_path.parent / f"{tmp_path.name}-report-{jobs}.json"
        done = run_script("validate", "--jobs", jobs, "--format", "json", "-o", str(out),
                          str(tmp_path))
        assert done.returncode in (0, 1), done.stderr.decode()
        reports.append(out.read_bytes())
    assert reports[0] == reports[1] == reports[2]
    found = {(Path(f["path"]).name, f["rule"],
              Path(f["message"].split(" in ", 1)[1].split(",")[0]).name)
             for f in json.loads(reports[0])["findings"]}
    assert found == expected


def _workers(tmp_path: Path, *paths: str, stdin: bytes | None = None) -> int:
    """How many worker processes ``quizkit validate`` without ``--jobs`` starts (watched
    from outside by tests/audited.py), after checking that only they and the run read the
    inputs."""
    log = tmp_path / f"events-{len(list(tmp_path.glob('events-*')))}.log"
    done = audited.run(log, "cli", "validate", "-q", "--format", "json", "-o",
                       str(tmp_path / "report.json"), *paths, stdin=stdin)
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    forks = audited.events(log, "os.fork")
    inputs = {os.path.abspath(p) for p in paths if p != "-"}
    readers = {e["pid"] for e in audited.events(log, "open") if e["what"] in inputs}
    assert len(readers) <= 1 + len(forks)
    return len(forks)


@pytest.mark.skipif(engine.cores() < 2, reason="one core: every run stays in one process")
def test_default_jobs_use_the_cores_only_where_workers_pay(tmp_path):
    """Without ``--jobs`` a run uses every core, but one for a run under 8 files or 4 MB
    (starting workers would cost more) and one when it reads standard input."""
    small = [str(p) for p in valid_samples()]
    assert _workers(tmp_path, *small[:3]) == 0
    assert _workers(tmp_path, *small) == 0  # 12 files, under the size where workers pay
    big = []
    for i in range(8):
        path = tmp_path / f"{i}.json"
        with open(path, "wb") as fh:  # sparse: the size counts, the disk stays empty
            fh.truncate(1 << 20)
        big.append(str(path))
    assert _workers(tmp_path, *big) == engine.cores()  # 8 files of 1 MB
    assert _workers(tmp_path, *big, "-", stdin=b"{}") == 0


def test_chunks_are_small_enough_to_balance_workers():
    assert engine.chunk_size(1, 2) == 1
    assert engine.chunk_size(100, 2) == 6
    assert engine.chunk_size(20_000, 2) == engine.MAX_CHUNK


def test_streaming_reports_keep_no_per_file_results(broken_corpus):
    """text, jsonl and github stream: the run keeps counts, not one result per file or
    finding (memory flat in the number of files), yet its summary and exit code are those
    of a run that keeps everything."""
    import io

    from quizkit.reporters.jsonl import JsonLinesReporter
    from quizkit.reporters.text import TextReporter

    full = api.validate(str(broken_corpus), jobs=1, config=False)
    assert len(full.files) == full.summary()["files"] > 40
    for cls in (TextReporter, JsonLinesReporter):
        streamed = api.validate(str(broken_corpus), jobs=1, config=False,
                                reporter=cls(io.StringIO()))
        assert streamed.files == [] and streamed.findings == []
        assert streamed.summary() == full.summary()
        assert streamed.exit_code() == full.exit_code() == 3  # truncated.json is unreadable
        assert streamed.documents == sum(f.documents for f in full.files)
