"""Paths are literal: whatever characters a file name holds, ``load`` reads
that file and only it, once; ``summary`` and ``query`` on the files agree with the database."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.conftest import SAMPLES, run_script

# Characters that glob, brace or list syntax, quoting or line-based tools might interpret.
NAMES = ["*.json", "?.json", "[ab].json", "a].json", "{a,b}.json", "a,b.json", "it's.json",
         'say "hi".json', "with space.json", "new\nline.json", "café ☕.json", "a.json",
         "b.json", "**.json", "[!x].json", "\\.json"]


def _game(number: int) -> dict:
    game = json.loads((SAMPLES / "game.json").read_text())
    game["id"] = f"{number:024x}"
    return game


@pytest.fixture(params=["plain", "odd [dir] *"])
def corpus(request, tmp_path: Path) -> tuple[Path, dict[str, set[str]]]:
    """A directory of oddly named files, each with its own games: (dir, file -> game ids)."""
    root = tmp_path / request.param
    root.mkdir()
    expected: dict[str, set[str]] = {}
    number = 0
    for name in NAMES:
        number += 1
        (root / name).write_text(json.dumps(_game(number)))
        expected[str(root / name)] = {f"{number:024x}"}
    lines = []
    for _ in range(2):  # JSON Lines and gzip go through DuckDB's other reader
        number += 1
        lines.append(json.dumps(_game(number)))
    (root / "[l]*.jsonl").write_text("\n".join(lines) + "\n")
    expected[str(root / "[l]*.jsonl")] = {json.loads(x)["id"] for x in lines}
    number += 1
    (root / "*.json.gz").write_bytes(gzip.compress(json.dumps(_game(number)).encode()))
    expected[str(root / "*.json.gz")] = {f"{number:024x}"}
    return root, expected


SQL = ("SELECT f.file, f.documents, list(g.id ORDER BY g.id) AS ids "
       "FROM files f LEFT JOIN games g USING (file) GROUP BY ALL ORDER BY f.file")


def _rows(*args: str) -> dict[str, tuple[int, set[str]]]:
    proc = run_script("query", SQL, "--format", "json", *args, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    rows = json.loads(proc.stdout)
    files = [r["file"] for r in rows]
    assert len(files) == len(set(files)), "a file listed twice"
    return {r["file"]: (r["documents"], set(r["ids"])) for r in rows}


def test_every_file_is_loaded_once_whatever_its_name(corpus, tmp_path):
    root, expected = corpus
    db = tmp_path / "odd.duckdb"
    proc = run_script("load", str(root), "--db", str(db), timeout=120)
    # Copies of one game share their history's ids: findings, exit 1 as for validate.
    assert proc.returncode == 1, proc.stderr.decode()
    got = _rows("--db", str(db))
    assert got == {path: (len(ids), ids) for path, ids in expected.items()}
    # Straight on the files (loaded in memory), the same answer.
    assert _rows(str(root)) == got
    # The files named one by one, as a shell glob would hand them over.
    assert _rows(*sorted(expected)) == got
    overview = run_script("summary", "overview", "--format", "json", str(root))
    assert overview.returncode == 0, overview.stderr.decode()
    games = sum(len(ids) for ids in expected.values())
    rows = {e["entity"]: e["rows"] for e in json.loads(overview.stdout)["entities"]}
    assert rows["games"] == games and rows["files"] == len(expected)
