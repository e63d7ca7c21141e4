"""One big JSON Lines file is shared by all workers (read once here, cut at line
boundaries) and gives the report one worker gives: the same findings, record numbers, lines
and columns, in the same order."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import orjson
import pytest

from quizkit.generate import generate_corpus
from quizkit.inputs.split import SPLIT_AT, cut
from tests import audited
from tests.conftest import run_script


@pytest.fixture(scope="module")
def big_lines(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A JSON Lines file over the split size: broken records, blank lines, and copies of
    records (same and changed) far from their first, for cross-file findings."""
    root = tmp_path_factory.mktemp("big")
    generate_corpus(root / "corpus", packages=48, seed=7, broken=0.1, shape="lines",
                    workers=1)
    lines = (root / "corpus" / "batches" / "documents-0001.jsonl").read_bytes().split(b"\n")
    copies = []
    for line in lines[:40]:
        try:
            doc = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(doc, dict) and "name" in doc:
            copies.append(orjson.dumps(doc))
            copies.append(orjson.dumps({**doc, "name": f"{doc['name']}!"}))
    text = b"\n".join([*lines[:10], b"", b"  ", *lines[10:], *copies]) + b"\n"
    assert len(text) > SPLIT_AT
    path = root / "documents.jsonl"
    path.write_bytes(text)
    return path


def _report(path: Path, jobs: str, out: Path) -> dict:
    done = run_script("validate", "--no-cache", "--jobs", jobs, "--format", "json", "-o", str(out),
                      str(path))
    assert done.returncode == 3, done.stderr.decode()  # truncated records: unreadable
    report = json.loads(out.read_text())
    return {"findings": report["findings"], "files": report.get("files")}


@pytest.mark.parametrize("compressed", [False, True])
def test_one_big_json_lines_file_over_two_workers_gives_the_one_worker_report(
        big_lines, tmp_path, compressed):
    path = big_lines
    if compressed:
        path = tmp_path / "documents.jsonl.gz"
        path.write_bytes(gzip.compress(big_lines.read_bytes(), compresslevel=1))
    one = _report(path, "1", tmp_path / "one.json")
    rules = {f["rule"] for f in one["findings"]}
    assert {"identical-duplicate", "conflicting-duplicate"} <= rules
    assert len({f["record"] for f in one["findings"]}) > 10
    log = tmp_path / "open.log"
    done = audited.run(log, "cli", "validate", "--no-cache", "--jobs", "2", "--format",
                       "json", "-o", str(tmp_path / "two.json"), str(path))
    assert done.returncode == 3, done.stderr.decode()
    two = json.loads((tmp_path / "two.json").read_text())
    assert {"findings": two["findings"], "files": two.get("files")} == one
    # The file was shared: workers were started for it (one file alone was checked in
    # one process before), and only the run's own process opened it: once for the pass,
    # once to settle the ids whose copies differ, once to place the cross-file findings.
    assert audited.events(log, "os.fork")
    opens = [e for e in audited.events(log, "open") if e["what"] == str(path)]
    assert len(opens) == 3 and len({e["pid"] for e in opens}) == 1


def test_pieces_are_whole_lines_in_order():
    text = b"".join(b"x" * (n % 7) + b"\n" for n in range(300_000))
    pieces = cut(text, 2)
    assert len(pieces) > 1
    assert pieces[0][0] == 0 and pieces[-1][1] == len(text)
    line = 1
    for (start, end, first), nxt in zip(pieces, [*pieces[1:], None], strict=True):
        assert first == line and text[end - 1:end] == b"\n"
        assert nxt is None or nxt[0] == end
        line += text.count(b"\n", start, end)


@pytest.mark.parametrize("cap", ["1", "7", "15"])
def test_the_findings_cap_of_a_split_file_is_the_one_worker_cap(big_lines, tmp_path, cap):
    """``--max-findings`` caps a file, not a piece: the pieces' findings are capped together
    when they are merged, in the order one worker meets them, and the rest are counted."""
    reports = []
    for jobs in ("1", "2"):
        out = tmp_path / f"{jobs}.json"
        done = run_script("validate", "--no-cache", "--jobs", jobs, "--max-findings", cap,
                          "--format", "json", "-o", str(out), str(big_lines))
        assert done.returncode == 3, done.stderr.decode()
        reports.append(json.loads(out.read_text())["findings"])
    one, two = reports
    capped = [f for f in one if f["rule"] == "findings-capped"]
    assert len(capped) == 1, "the file has more findings than the cap"
    assert two == one
