"""Which files `quizkit load` takes: the directory walk and the look inside each file."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from quizkit.analysis.files import inspect, record_lines
from quizkit.analysis.load_inputs import list_inputs
from quizkit.checks.documents import line_units


def rglob_expand(paths: list[Path]) -> list[str]:
    """The reference: what ``Path.rglob`` finds, less hidden entries, as the loader lists."""
    found: set[str] = set()
    for p in paths:
        if p.is_dir():
            found |= {os.path.abspath(s) for s in p.rglob("*")
                      if s.name.lower().removesuffix(".gz").endswith((".json", ".jsonl", ".ndjson"))
                      and s.is_file() and not any(part.startswith(".")
                                                  for part in s.relative_to(p).parts)}
        else:
            found.add(os.path.abspath(p))
    return sorted(found)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_the_walk_finds_what_rglob_finds(tmp_path: Path) -> None:
    root = tmp_path / "exports"
    for rel in ("a.json", "b.JSON", "c.jsonl", "d.ndjson.gz", "e.json.gz", "notes.txt",
                "sub/f.json", "sub/deeper/g.jsonl", ".hidden/h.json", "dir.json/i.json"):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"{}")
    (root / "link.json").symlink_to(root / "a.json")
    (root / "dangling.json").symlink_to(root / "gone.json")
    (root / "linkdir").symlink_to(root / "sub", target_is_directory=True)
    listed = list_inputs([root, root / "notes.txt",
                          tmp_path / "exports" / ".." / "exports" / "sub"])
    got, unreadable = [i.name for i in listed.inputs], listed.skipped
    assert got == rglob_expand([root, root / "notes.txt", root / "sub"])
    assert str(root / "link.json") in got and str(root / "dir.json" / "i.json") in got
    assert not any("linkdir" in g or "dangling" in g or ".hidden" in g for g in got)
    assert [(s.path, s.reason) for s in unreadable] == [
        (str(root / "dangling.json"), "a broken symbolic link")]


def test_the_look_inside_tells_containers_and_skips(tmp_path: Path) -> None:
    files = {
        "obj.json": b'  \n{"id": 1}',
        "arr.json": b"\xef\xbb\xbf [ {} ]",
        "lines.jsonl": b"[1]\n",
        "empty.json": b"",
        "blank.json": b" \n\t " * 2000,
        "late.json": b" " * 5000 + b"[]",
        "arr.json.gz": gzip.compress(b"[{}]"),
        "bad.json.gz": b"not gzip",
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    ok, skipped = inspect([i.name for i in list_inputs([tmp_path]).inputs])
    got = {Path(f.path).name: (f.container, f.compressed, f.size, f.content_size) for f in ok}
    plain = {name: len(data) for name, data in files.items()}
    assert got == {
        "obj.json": ("json", False, plain["obj.json"], plain["obj.json"]),
        "arr.json": ("json-array", False, plain["arr.json"], plain["arr.json"]),
        "lines.jsonl": ("jsonl", False, plain["lines.jsonl"], plain["lines.jsonl"]),
        "late.json": ("json-array", False, plain["late.json"], plain["late.json"]),
        "arr.json.gz": ("json-array", True, plain["arr.json.gz"], 4),
    }
    reasons = {Path(s.path).name: s.reason for s in skipped}
    assert reasons["empty.json"] == reasons["blank.json"] == "is empty"
    assert reasons["bad.json.gz"].startswith("cannot be read: ")


@pytest.mark.parametrize("compressed", [False, True])
def test_the_lines_of_a_json_lines_file_are_numbered_as_validate_numbers_them(
        tmp_path: Path, compressed: bool) -> None:
    """The records of a file read a megabyte at a time, lines of every length across those
    reads (blank ones of spaces, tabs and carriage returns, one of 1.5 MB of spaces, a record
    behind 1.2 MB of tabs, one ahead of 2.5 MB of spaces, no newline at the end) are those
    ``validate`` finds, on the lines it says, and the longest line is the longest there is."""
    lines = [b"", b"{}", b" \t\r", b" " * 100, b" " * 100 + b"{}", b"[1, 2]" * 70_000,
             b" " * 1_500_000, b"\t" * 1_200_000 + b'{"a": 1}', b"", b"{}" * 300_000, b"\r",
             b"{}" + b" " * 2_500_000,
             *(b'{"n": %d}' % n if n % 7 else b" " for n in range(50_000)), b"  {}  "]
    data = b"\n".join(lines)
    path = tmp_path / ("l.jsonl.gz" if compressed else "l.jsonl")
    path.write_bytes(gzip.compress(data) if compressed else data)
    numbers = [number for number, _ in line_units(data)]
    facts = record_lines(str(path), compressed)
    assert facts.count == len(numbers) and len(numbers) > 40_000
    assert list(facts.moved) == [(i, n) for i, n in enumerate(numbers, 1) if i != n]
    assert facts.longest == 2_500_003
