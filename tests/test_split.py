"""One big JSON Lines file is shared by all workers (cut at line boundaries as the run
reads it) and gives the report one worker gives: the same findings, record numbers, lines
and columns, in the same order."""

from __future__ import annotations

import dataclasses
import gzip
import io
import json
import os
import re
from pathlib import Path

import orjson
import pytest

from quizkit import api
from quizkit.cache import stamps
from quizkit.checks import reread
from quizkit.checks.reread import Block, Origin
from quizkit.generate import generate_corpus
from quizkit.inputs.limits import Limits
from quizkit.inputs.sources import Source
from quizkit.inputs.split import (
    MAX_PIECE,
    MIN_PIECE,
    SPLIT_AT,
    Changed,
    Identity,
    cut,
    read_piece,
    scan_pieces,
)
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


@pytest.mark.parametrize("jobs", [1, 2, 8])
def test_pieces_are_bounded_and_shrink_towards_the_end(jobs):
    """A worker holds its piece's text: however big the file, no piece is over MAX_PIECE
    bytes (and its last line); pieces shrink towards the end, so workers end together."""
    line = b"x" * 999 + b"\n"
    text = line * 40_000  # 40 MB
    sizes = [end - start for start, end, _ in cut(text, jobs)]
    assert max(sizes) <= MAX_PIECE + len(line)
    assert sizes == sorted(sizes, reverse=True)[:len(sizes) - 1] + sizes[-1:]
    assert min(sizes[:-1]) <= MIN_PIECE + len(line) < max(sizes)


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


def _scanned(path: Path, bom: int, block: int) -> Origin:
    """What the pass keeps of a plain JSON Lines file it cut: its stamp and its blocks."""
    before = stamps.stat_before_read(str(path))
    blocks: list[Block] = []
    digest = stamps.digester()
    with open(path, "rb") as fh:
        for _piece in scan_pieces(fh, bom, path.stat().st_size, 2, digest,
                                  lambda at, line, data: blocks.append(
                                      Block(at, line, stamps.digest(data))), block=block):
            pass
    return reread.origin_of_stamp(stamps.stamped(before, digest.digest()), True, False,
                                  tuple(blocks))


@pytest.mark.parametrize("text", _texts(),
                         ids=["short", "long", "no-end", "tail", "head", "pairs"])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_a_record_is_read_again_from_the_blocks_that_hold_it(tmp_path, text, bom):
    """A record of a file the run cut is read again from the blocks of the pass that hold
    it: the same bytes as the record's line, at the edges of blocks, past the end of the
    file, at its first and last line."""
    path = tmp_path / "records.jsonl"
    path.write_bytes(bom + text)
    origin = _scanned(path, len(bom), 64 * 1024)
    assert len(origin.blocks) > 10
    lines = text.split(b"\n")
    wanted = {1, 2, len(lines) - 1, len(lines), len(lines) + 1, len(lines) + 5}
    for block in origin.blocks:
        wanted |= {block.line - 1, block.line, block.line + 1}
    read = reread._again(Source(str(path)), origin, Limits())
    try:
        for record in sorted(r for r in wanted if r >= 1):
            assert read.chunk(record) == (lines[record - 1] if record <= len(lines) else b"")
    finally:
        read.close()


def test_a_record_in_a_block_that_changed_is_not_read(tmp_path):
    """A block whose bytes are not those of the pass gives no record (its findings get the
    note and no position); the records of the other blocks are still read."""
    text = b"".join(b'{"n": %d}\n' % n for n in range(100_000))
    path = tmp_path / "records.jsonl"
    path.write_bytes(text)
    origin = _scanned(path, 0, 64 * 1024)
    changed = origin.blocks[3]
    blocks = list(origin.blocks)
    blocks[3] = changed._replace(digest=bytes(16))  # as if the pass had read other bytes
    read = reread._again(Source(str(path)), dataclasses.replace(origin, blocks=tuple(blocks)),
                         Limits())
    try:
        assert read.chunk(changed.line + 1) is None
        assert read.chunk(1) == b'{"n": 0}'
        assert read.chunk(100_000) == b'{"n": 99999}'
    finally:
        read.close()


def test_a_cross_file_finding_of_a_split_file_is_placed_from_its_blocks(
        big_lines, tmp_path, monkeypatch):
    """Placing the cross-file findings of a file the run cut for its workers reads again
    only the blocks holding their records, not the whole file, and places them where one
    worker does."""
    path = tmp_path / "padded.jsonl"
    padding = b"".join(b'{"padding": "%s"}\n' % (b"p" * 1_000_000) for _ in range(40))
    path.write_bytes(big_lines.read_bytes() + padding)
    one = api.validate([str(path)], jobs=1, cache=False)
    read: list[int] = []
    pread = os.pread

    def counted(fd: int, size: int, offset: int) -> bytes:
        data = pread(fd, size, offset)
        read.append(len(data))  # in this process only: a forked worker counts in its copy
        return data

    monkeypatch.setattr(os, "pread", counted)
    two = api.validate([str(path)], jobs=2, cache=False)
    placed = [(f.rule, f.record, f.pointer, f.line, f.column) for f in two.findings
              if f.rule in ("identical-duplicate", "conflicting-duplicate")]
    assert placed and all(line is not None for *_, line, _column in placed)
    assert [(f.rule, f.record, f.line, f.column, f.message) for f in two.findings] == \
        [(f.rule, f.record, f.line, f.column, f.message) for f in one.findings]
    assert 0 < sum(read) < path.stat().st_size // 2
