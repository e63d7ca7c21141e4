"""The engine's run loop: positions on demand, lazy reference engine, parallel runs, facts."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from quizkit import engine
from quizkit.findings import Finding, Severity
from quizkit.rules import REGISTRY
from quizkit.sources import Source
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


class _CountingIndex(engine.LineIndex):
    made = 0

    def __init__(self, text: str | bytes) -> None:
        type(self).made += 1
        super().__init__(text)


def test_positions_are_computed_only_for_files_with_findings_or_facts(monkeypatch, tmp_path):
    """Positions are taken in the one pass for findings and for the cross-file facts that a
    later finding may point at (nothing is read again); other documents need none."""
    monkeypatch.setattr(engine, "LineIndex", _CountingIndex)
    _CountingIndex.made = 0
    clean = engine.run([Source(str(p)) for p in valid_samples()], jobs=1)
    assert 0 < _CountingIndex.made < sum(f.documents for f in clean.files)
    banner = json.loads((SAMPLES / "banner.json").read_text())
    # not current: a banner record that is not current gives no cross-file fact
    files = [_write(tmp_path / f"{i}.json", dict(_distinct(banner, i), current=False))
             for i in range(20)]
    bad = json.loads(files[7].read_text())
    bad["position"] = "first"
    _write(files[7], bad)
    _CountingIndex.made = 0
    report = engine.run([Source(str(p)) for p in files], jobs=1)
    assert {f.path for f in report.findings} == {str(files[7])}
    assert _CountingIndex.made == 1
    assert all(f.line and f.column for f in report.findings)


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
    sources = [Source(str(p)) for p in reversed(files)]  # not sorted: order is the input's
    one = engine.run(sources, jobs=1)
    two = engine.run(sources, jobs=2)
    assert [f.path for f in two.files] == [s.path for s in sources]
    assert [f.to_dict() for f in two.findings] == [f.to_dict() for f in one.findings]
    assert len(two.findings) == len(range(0, 300, 7))


def test_facts_from_workers_reach_the_batch_checks(monkeypatch, tmp_path):
    seen: dict[int, list] = {}

    def banner_ids(doc):
        yield "/id", ("banner-id", doc.get("id"))

    def duplicates(facts):
        seen.setdefault(len(seen), []).extend(facts)
        first: dict[str, str] = {}
        for place, (_name, value) in facts:
            if value in first:
                yield Finding(path=place.path, pointer=place.pointer,
                              rule="duplicate-banner-id", severity=Severity.WARNING,
                              message=f"also in {first[value]}", line=place.line,
                              column=place.column)
            else:
                first[value] = place.path

    registry = dataclasses.replace(
        REGISTRY, by_kind={**REGISTRY.by_kind, ("facts", "banner"): (banner_ids,)},
        batch=(duplicates,))
    monkeypatch.setattr(engine, "REGISTRY", registry)  # forked workers inherit it
    banner = json.loads((SAMPLES / "banner.json").read_text())
    sources = [Source(str(_write(tmp_path / f"{i:02}.json", dict(banner, id=f"b{i % 10}"))))
               for i in range(40)]
    one = engine.run(sources, jobs=1)
    two = engine.run(sources, jobs=2)
    assert seen[0] == seen[1] and len(seen[0]) == 40
    assert [f.to_dict() for f in one.findings] == [f.to_dict() for f in two.findings]
    assert len(two.findings) == 30


def test_default_jobs(tmp_path):
    assert engine.default_jobs([Source("-")]) == 1
    small = [Source(str(p)) for p in valid_samples()]
    assert engine.default_jobs(small[:3]) == 1
    assert engine.default_jobs(small) == 1  # under the size where workers pay off
    big = []
    for i in range(engine.SMALL_RUN_FILES):
        path = tmp_path / f"{i}.json"
        with open(path, "wb") as fh:  # sparse: the size counts, the disk stays empty
            fh.truncate(engine.SMALL_RUN_BYTES // 4)
        big.append(Source(str(path)))
    assert engine.default_jobs(big) == engine.cores()
    assert engine.default_jobs([*big, Source("-")]) == 1


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
    from quizkit.walk import expand

    def sources() -> list[Source]:
        return list(expand([str(broken_corpus)]))

    full = engine.run(sources(), jobs=1)
    assert len(full.files) == full.summary()["files"] > 40
    for cls in (TextReporter, JsonLinesReporter):
        streamed = engine.run(sources(), jobs=1, reporter=cls(io.StringIO()))
        assert streamed.files == [] and streamed.findings == []
        assert streamed.summary() == full.summary()
        assert streamed.exit_code() == full.exit_code() == 3  # truncated.json is unreadable
        assert streamed.documents == sum(f.documents for f in full.files)
