"""One big JSON Lines file is shared by all workers (cut at line boundaries as the run
reads it) and gives the report one worker gives: the same findings, record numbers, lines
and columns, in the same order."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
from pathlib import Path

import orjson
import pytest

from quizkit.cache import stamps
from quizkit.generate import generate_corpus
from quizkit.inputs.split import SPLIT_AT, Changed, Identity, cut, read_piece, scan_pieces
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
    # one process before). The run's own process opened it once for the pass, once to
    # settle the ids whose copies differ and once to place the cross-file findings; a
    # worker opens a plain file for each piece it reads (a compressed one it never opens:
    # its text is shared).
    forks = audited.events(log, "os.fork")
    assert forks
    run_pid = forks[0]["pid"]
    opens = [e for e in audited.events(log, "open") if e["what"] == str(path)]
    own = [e for e in opens if e["pid"] == run_pid]
    workers = [e for e in opens if e["pid"] != run_pid]
    assert len(own) == 3
    if compressed:
        assert not workers
    else:
        assert len(workers) == len(cut(big_lines.read_bytes(), 2))
        assert len({e["pid"] for e in workers}) == 2


def test_the_snippets_of_a_split_file_are_the_one_worker_snippets(big_lines, tmp_path):
    """The HTML report shows source lines around each finding: a plain file whose pieces
    workers read is read again for them, and gives the page one worker gives."""
    pages = []
    for jobs in ("1", "2"):
        out = tmp_path / f"{jobs}.html"
        done = run_script("validate", "--no-cache", "--jobs", jobs, "--format", "html", "-o",
                          str(out), str(big_lines))
        assert done.returncode == 3, done.stderr.decode()
        pages.append(out.read_text(encoding="utf-8"))
    one, two = pages
    data = json.loads(re.search(r'id="quizkit-data">(.*?)</script>', two, re.S).group(1))
    assert data["findings"] and data["lines"]
    assert two == one


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


def _texts() -> list[bytes]:
    short = b"".join(b"x" * (n % 7) + b"\n" for n in range(400_000))
    long = b"".join(b"y" * (200_000 + n * 9_000) + b"\n" for n in range(40))
    one_line = b"z" * 3_000_000
    pairs = b"x\n" * 1_500_000  # a line break at the last byte of every piece's size
    return [short, long, long[:-1], short + one_line, one_line + b"\n" + short, pairs]


@pytest.mark.parametrize("text", _texts(),
                         ids=["short", "long", "no-end", "tail", "head", "pairs"])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_a_plain_file_is_cut_as_its_text_is_while_it_is_read(text, bom):
    """The pieces cut while a file is read block by block are those :func:`cut` gives its
    text (in the file's offsets), and its digest is the one of its bytes read whole."""
    data = bom + text
    digest = stamps.digester()
    pieces = list(scan_pieces(io.BytesIO(data), len(bom), len(data), 2, digest))
    assert pieces == [(start + len(bom), end + len(bom), first)
                      for start, end, first in cut(text, 2)]
    assert digest.digest() == stamps.digest(data)


def test_a_file_shorter_than_its_stat_is_changed():
    text = b"".join(b"x" * 100 + b"\n" for n in range(50_000))
    with pytest.raises(Changed):
        list(scan_pieces(io.BytesIO(text), 0, len(text) + 10, 2, stamps.digester()))


@pytest.mark.parametrize("change", ["append", "replace", "delete", "touch"])
def test_a_worker_reads_its_piece_only_from_the_file_that_was_cut(tmp_path, change):
    """A worker reads its piece from the file itself, and only from the file that was cut:
    one replaced, grown, deleted or written since is refused (the run then checks the file
    again, whole), never read in part."""
    path = tmp_path / "records.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n')
    identity = Identity.of(os.stat(path))
    assert read_piece(str(path), 9, 18, identity) == b'{"b": 2}\n'
    if change == "append":
        with open(path, "ab") as fh:
            fh.write(b'{"c": 3}\n')
    elif change == "replace":
        (tmp_path / "new.jsonl").write_bytes(b'{"a": 1}\n{"b": 3}\n')
        os.replace(tmp_path / "new.jsonl", path)
    elif change == "delete":
        path.unlink()
    else:
        os.utime(path, ns=(identity.mtime_ns + 10**9, identity.mtime_ns + 10**9))
    with pytest.raises(Changed):
        read_piece(str(path), 9, 18, identity)


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
