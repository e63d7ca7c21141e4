"""Every table row says where its record is: ``file``, ``record`` (the line, in a JSON Lines
file) and ``pointer``. Reading that file (or line) and following the pointer gives the
record with the row's key, for indented JSON, top-level arrays, JSON Lines (with blank lines
and lines holding an array) and gzip, through the real CLI into a database file and a
Parquet dataset."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import duckdb
import pytest

from quizkit.analysis.tables import TABLES
from quizkit.catalog.pointers import split_pointer
from tests.conftest import SAMPLES, run_script

#: Table -> the field of the record that holds the row's key column (id unless said).
KEY_FIELD = {"categories": ("category_id", "categoryId")}
#: The tables of records: every table but these has file, record and pointer.
NOT_RECORDS = {"files", "findings", "quizkit_meta"}


def _write(path: Path, text: str, compressed: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if compressed:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """Exports in every layout a load reads, each record in one file only."""
    root = tmp_path_factory.mktemp("provenance")
    package = json.loads((SAMPLES / "package-full.json").read_text())
    versions = json.loads((SAMPLES / "version-list.json").read_text())
    games = [json.loads(line) for line in (SAMPLES / "games.jsonl").read_text().splitlines()
             if line.strip()]
    banners = [line for line in (SAMPLES / "banners.jsonl").read_text().splitlines()
               if line.strip()]
    _write(root / "indented" / "package-full.json", json.dumps(package, indent=2))
    _write(root / "gz" / "user-self.json.gz", (SAMPLES / "user-self.json").read_text(), True)
    _write(root / "gz" / "version-created.json.gz",
           (SAMPLES / "version-created.json").read_text(), True)
    # A top-level array of versions of another package (ids made unique).
    other = [{**v, "id": f"other-{i}", "packageId": "other-package"}
             for i, v in enumerate(versions)]
    _write(root / "arrays" / "versions.json", json.dumps(other, indent=1))
    # JSON Lines: blank lines before records, a line holding a version list, gzip.
    lines = ["", json.dumps(games[0]), "   ", "", json.dumps(games[1]),
             json.dumps([{**v, "id": f"line-{i}", "packageId": "line-package"}
                         for i, v in enumerate(versions)]),
             "\t", *(json.dumps(g) for g in games[2:]), ""]
    _write(root / "lines" / "mixed.jsonl", "\n".join(lines))
    _write(root / "lines" / "banners.jsonl.gz", "\n\n" + "\n".join(banners) + "\n", True)
    return root


def _document(file: str, record: int | None):
    data = Path(file).read_bytes()
    if file.endswith(".gz"):
        data = gzip.decompress(data)
    if record is None:
        return json.loads(data)
    return json.loads(data.split(b"\n")[record - 1])


def _follow(value, pointer: str):
    for part in split_pointer(pointer):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def _check_every_row(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Each row of each table of records resolves to its record; rows checked per table."""
    checked: dict[str, int] = {}
    documents: dict[tuple[str, int | None], object] = {}  # each record parsed once
    for table in (t for t in TABLES if t.name not in NOT_RECORDS):
        column, field = KEY_FIELD.get(table.name, ("id", "id"))
        rows = con.execute(
            f'SELECT "{column}", file, record, pointer FROM "{table.name}"').fetchall()
        for key, file, record, pointer in rows:
            assert pointer is not None, (table.name, key, file)
            if (file, record) not in documents:
                documents[file, record] = _document(file, record)
            record_value = _follow(documents[file, record], pointer)
            assert record_value.get(field) == key, (table.name, key, file, record, pointer)
        checked[table.name] = len(rows)
    return checked


def _loaded(corpus: Path, tmp_path: Path, *target: str) -> None:
    done = run_script("load", str(corpus), *target, "--no-findings")
    assert done.returncode == 0, done.stderr.decode()


def test_every_row_of_a_database_resolves_to_its_record(corpus, tmp_path):
    db = tmp_path / "t.duckdb"
    _loaded(corpus, tmp_path, "--db", str(db))
    with duckdb.connect(str(db), read_only=True) as con:
        checked = _check_every_row(con)
        lines = dict(con.execute(
            "SELECT id, record FROM games WHERE file LIKE '%mixed.jsonl'").fetchall())
        listed = con.execute("SELECT record, pointer FROM versions WHERE id = 'line-1'"
                             ).fetchall()
        entities = con.execute("SELECT count(*) FROM steps WHERE version_id = 'line-1'"
                               ).fetchone()[0]
    # Every table of records has rows here, so none is left unchecked.
    assert all(checked.values()), checked
    # Blank lines count, as validate counts them: the games are on lines 2, 5, 8...
    assert sorted(lines.values())[:2] == [2, 5]
    assert listed == [(6, "/1")]
    # Each element of a line's array is a document of its own: its entities are its own
    # (they were once those of every element of the line).
    version = json.loads((SAMPLES / "version-list.json").read_text())[1]
    assert entities == len(version["steps"])


def test_every_row_of_a_parquet_dataset_resolves_to_its_record(corpus, tmp_path):
    dataset = tmp_path / "ds"
    _loaded(corpus, tmp_path, "--parquet", str(dataset))
    with duckdb.connect() as con:
        for table in (t.name for t in TABLES if t.name not in NOT_RECORDS):
            con.execute(f'CREATE VIEW "{table}" AS SELECT * FROM '
                        f"read_parquet('{dataset}/{table}/*.parquet')")
        checked = _check_every_row(con)
    assert all(checked.values()), checked


def test_the_record_of_a_jsonl_row_is_the_line_validate_reports(tmp_path):
    """A finding about a record and the record's row name the same line."""
    games = (SAMPLES / "games.jsonl").read_text().splitlines()
    broken = json.loads(games[0])
    broken["visibility"] = 17  # a schema finding at /visibility of this record
    _write(tmp_path / "in" / "g.jsonl", "\n\n" + json.dumps(broken) + "\n")
    db = tmp_path / "f.duckdb"
    done = run_script("load", str(tmp_path / "in"), "--db", str(db))
    assert done.returncode in (0, 1), done.stderr.decode()
    with duckdb.connect(str(db), read_only=True) as con:
        (row,) = con.execute("SELECT record, pointer FROM games").fetchall()
        found = con.execute("SELECT DISTINCT record FROM findings "
                            "WHERE pointer LIKE '/visibility%'").fetchall()
    assert row == (3, "")
    assert found == [(3,)]


def test_a_json_lines_file_typed_in_many_slices_keeps_every_record(tmp_path):
    """A JSON Lines file is typed in slices of its text, side by side (1 MiB each with 16
    threads): across slices, a line holding a version list, an empty array, blank lines and
    packages still give each row its own line and pointer, and the tables are those of one
    slice (one thread)."""
    package = json.loads((SAMPLES / "package-full.json").read_text())
    versions = json.loads((SAMPLES / "version-list.json").read_text())
    game = (SAMPLES / "games.jsonl").read_text().splitlines()[0]
    lines = []
    for block in range(12):  # 3.6 MB: four slices and more
        lines += [json.dumps({**package, "id": f"pkg-{block}"}), "",
                  json.dumps([{**v, "id": f"v-{block}-{i}", "packageId": f"list-{block}"}
                              for i, v in enumerate(versions)]),
                  "[]", "  ", game.replace('"id":', f'"gameNo": {block}, "id":', 1)]
    path = tmp_path / "in" / "big.jsonl"
    _write(path, "\n".join(lines) + "\n")
    assert path.stat().st_size > 3 << 20
    tables = {}
    for threads in ("16", "1"):
        db = tmp_path / f"t{threads}.duckdb"
        _loaded(path, tmp_path, "--db", str(db), "--threads", threads)
        with duckdb.connect(str(db), read_only=True) as con:
            checked = _check_every_row(con)
            listed = con.execute("SELECT id, record, pointer FROM versions "
                                 "WHERE id IN ('v-0-1', 'v-11-0') ORDER BY id").fetchall()
            documents = con.execute("SELECT documents, unknown_documents FROM files"
                                    ).fetchall()
            tables[threads] = {
                t.name: sorted(con.execute(f'SELECT * EXCLUDE (loaded_at) FROM "{t.name}"'
                                           if t.name == "files" else
                                           f'SELECT * FROM "{t.name}"').fetchall(), key=repr)
                for t in TABLES if t.name != "quizkit_meta"}
        assert checked["packages"] == 12 and checked["versions"] >= 12 * len(versions)
        # Blocks of six lines, the version list on the third: block b's on line 6b + 3.
        assert listed == [("v-0-1", 3, "/1"), ("v-11-0", 69, "/0")]
        assert documents == [(sum(1 for line in lines if line.strip()), 0)]
    assert tables["16"] == tables["1"]
