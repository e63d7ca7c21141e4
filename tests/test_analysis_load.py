"""`quizkit load`: tables filled from every kind, replace semantics, all-or-nothing, errors.

Expected values are computed from the JSON files in plain Python (test_analysis_data), never
copied from the loader's output.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import duckdb
import orjson
import pytest
from click.testing import CliRunner
from test_analysis_data import (
    read_documents,
    write_fixture_corpus,
)

from quizkit.analysis import LoadError, connect, load
from quizkit.analysis.connect import run
from quizkit.analysis.tables import DATA_TABLES
from quizkit.cli import main

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def counts(db: Path) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchall()[0][0]
                for t in DATA_TABLES}
    finally:
        con.close()


def snapshot(db: Path) -> dict[str, list[tuple]]:
    """Every row of every table, sorted: equal snapshots mean an unchanged database."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema='main'"
        ).fetchall()]
        return {t: sorted(con.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr)
                for t in tables}
    finally:
        con.close()


def expected_counts(root: Path) -> dict[str, int]:
    """Row counts computed from the documents, deduplicated by id as the loader documents."""
    docs = read_documents(root)
    packages = {d["id"]: d for _, k, d in docs if k == "package-full"}
    versions: dict[str, dict] = {}
    for p in packages.values():
        for v in p["versions"]:
            versions.setdefault(v["id"], v)
    for rank_kinds in (("version", "version-list"), ("version-created",)):
        for _, k, d in docs:
            if k in rank_kinds:
                v = d["version"] if k == "version-created" else d
                versions.setdefault(v["id"], v)
    games = {d["id"]: d for _, k, d in docs if k == "game"}
    users = {d["user"]["id"] for _, k, d in docs if k == "user-self"}
    users |= {p["user"]["id"] for p in packages.values()}
    banners = [d for _, k, d in docs if k in ("banner", "banner-create")]
    return {
        "packages": len(packages),
        "versions": len(versions),
        "rounds": sum(len(v.get("rounds", [])) for v in versions.values()),
        "themes": sum(len(v.get("themes", [])) for v in versions.values()),
        "questions": sum(len(v.get("questions", [])) for v in versions.values()),
        "steps": sum(len(v.get("steps", [])) for v in versions.values()),
        "categories": sum(len(p["categories"]) for p in packages.values()),
        "users": len(users),
        "games": len(games),
        "game_history": sum(len(g["history"]) for g in games.values()),
        "banners": len({b.get("id", id(b)) for b in banners}),
    }


@pytest.fixture
def fixture_corpus(tmp_path: Path) -> Path:
    root = tmp_path / "exports"
    write_fixture_corpus(root)
    return root


def test_load_fills_every_table_with_the_documents_rows(fixture_corpus: Path,
                                                         tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    code, out, err = cli("load", str(fixture_corpus), "--db", str(db), "--no-findings")
    assert code == 0, err
    assert "Loaded 15 files" in out
    got = counts(db)
    want = expected_counts(fixture_corpus)
    for table, n in want.items():
        assert got[table] == n, table
    assert got["files"] == 15
    assert got["findings"] == 0
    assert all(want[t] > 0 for t in want)


def test_package_columns_match_the_json(fixture_corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    cli("load", str(fixture_corpus), "--db", str(db), "--no-findings")
    con = duckdb.connect(str(db), read_only=True)
    rows = {r[0]: r[1:] for r in con.execute(
        "SELECT id, starts, fingerprint, size_text, size_images, size_audio, size_video, "
        "size_total, user_id, author_username, type, difficulty, rating, name, deleted, "
        "n_versions FROM packages").fetchall()}
    docs = [d for _, k, d in read_documents(fixture_corpus) if k == "package-full"]
    assert len(rows) == len(docs)
    for d in docs:
        size = d["meta"]["size"]
        assert rows[d["id"]] == (
            d["meta"]["starts"], d["meta"]["fingerprint"], size["text"], size["images"],
            size["audio"], size["video"], sum(size.values()), d["userId"],
            d["user"]["username"], d["type"], d["difficulty"], d["rating"], d["name"],
            d["deletedAt"] is not None, len(d["versions"]))
    created = con.execute("SELECT created_at FROM packages WHERE id = ?",
                          [docs[0]["id"]]).fetchall()[0][0]
    assert created.isoformat(timespec="milliseconds") + "Z" == docs[0]["createdAt"]
    con.close()


def test_steps_flatten_the_payload(fixture_corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    cli("load", str(fixture_corpus), "--db", str(db), "--no-findings")
    con = duckdb.connect(str(db), read_only=True)
    got = Counter(con.execute(
        "SELECT media_type, has_background, has_text, n_variants FROM steps").fetchall())
    con.close()
    want: Counter = Counter()
    seen = set()
    for _, kind, d in read_documents(fixture_corpus):
        versions = (d["versions"] if kind == "package-full"
                    else [d] if kind in ("version", "version-list") else [])
        for v in versions:
            if v["id"] in seen:
                continue
            seen.add(v["id"])
            for s in v["steps"]:
                p = s["payload"]
                want[(p.get("media", {}).get("type"), "backgroundMedia" in p,
                      bool(p.get("text")), len(p["variants"]) if "variants" in p else None)] += 1
    assert got == want


def test_loading_twice_does_not_duplicate(fixture_corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    cli("load", str(fixture_corpus), "--db", str(db), "--no-findings")
    first = snapshot(db)
    code, _, err = cli("load", str(fixture_corpus), "--db", str(db), "--no-findings")
    assert code == 0, err
    second = snapshot(db)
    for table in DATA_TABLES:
        if table == "files":  # loaded_at moves on
            assert [r[:-1] for r in first[table]] == [r[:-1] for r in second[table]]
        else:
            assert first[table] == second[table], table


def test_same_package_in_another_file_replaces_it(fixture_corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    cli("load", str(fixture_corpus), "--db", str(db), "--no-findings")
    before = counts(db)
    src = fixture_corpus / "packages" / "pkg-002.json"
    doc = orjson.loads(src.read_bytes())
    doc["versions"] = doc["versions"][:1]  # a newer export of the same package, one version
    doc["meta"]["starts"] = 999_999
    copy = tmp_path / "later" / "same-package.json"
    copy.parent.mkdir()
    copy.write_bytes(orjson.dumps(doc))
    code, _, err = cli("load", str(copy), "--db", str(db), "--no-findings")
    assert code == 0, err
    after = counts(db)
    assert after["packages"] == before["packages"]
    dropped = orjson.loads(src.read_bytes())["versions"][1:]
    assert after["versions"] == before["versions"] - len(dropped)
    assert after["steps"] == before["steps"] - sum(len(v["steps"]) for v in dropped)
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT starts, file FROM packages WHERE id = ?",
                       [doc["id"]]).fetchall() == [(999_999, str(copy.resolve()))]
    con.close()


def test_duplicates_within_one_load_are_loaded_once(fixture_corpus: Path,
                                                      tmp_path: Path) -> None:
    pkg2 = fixture_corpus / "packages" / "pkg-002.json"
    pkg3 = orjson.loads((fixture_corpus / "packages" / "pkg-003.json").read_bytes())
    dup = fixture_corpus / "dup"
    dup.mkdir()
    shutil.copy(pkg2, dup / "pkg-002-copy.json")
    listed = [{k: v for k, v in ver.items()} for ver in pkg3["versions"]]
    for ver in listed:
        for entity in ("rounds", "themes", "questions", "steps"):
            ver[entity] = [{k: v for k, v in e.items() if k != "versionId"}
                           for e in ver[entity]]
    (dup / "list.json").write_bytes(orjson.dumps(listed))
    db = tmp_path / "a.duckdb"
    code, _, err = cli("load", str(fixture_corpus), "--db", str(db), "--no-findings")
    assert code == 0, err
    got = counts(db)
    want = expected_counts(fixture_corpus)
    for table, n in want.items():
        assert got[table] == n, table
    con = duckdb.connect(str(db), read_only=True)
    # the package-full document wins over the version list; the later path over the earlier
    files = {r[0] for r in con.execute("SELECT DISTINCT file FROM steps WHERE package_id = ?",
                                       [pkg3["id"]]).fetchall()}
    assert files == {str((fixture_corpus / "packages" / "pkg-003.json").resolve())}
    (winner,) = con.execute("SELECT file FROM packages WHERE id = ?",
                            [orjson.loads(pkg2.read_bytes())["id"]]).fetchall()[0]
    assert winner == str(pkg2.resolve())  # ".../packages/..." sorts after ".../dup/..."
    con.close()


def test_a_file_that_changed_replaces_its_rows(fixture_corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    cli("load", str(fixture_corpus), "--db", str(db), "--no-findings")
    before = counts(db)
    lines = (fixture_corpus / "games.jsonl").read_bytes().splitlines()
    (fixture_corpus / "games.jsonl").write_bytes(b"\n".join(lines[:3]) + b"\n")
    cli("load", str(fixture_corpus / "games.jsonl"), "--db", str(db), "--no-findings")
    after = counts(db)
    assert after["games"] == 3 and before["games"] == len(lines)
    kept = [orjson.loads(x) for x in lines[:3]]
    assert after["game_history"] == sum(len(g["history"]) for g in kept)


def test_a_failed_load_leaves_the_database_unchanged(fixture_corpus: Path,
                                                     tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    cli("load", str(fixture_corpus / "packages"), "--db", str(db), "--no-findings")
    before = snapshot(db)
    steps: list[str] = []

    def fail_halfway(step: str, seconds: float) -> None:
        steps.append(step)
        if step == "write:steps":  # packages .. steps already deleted and rewritten
            raise RuntimeError("disk on fire")

    con = connect(db)
    with pytest.raises(RuntimeError, match="disk on fire"):
        load(con, [fixture_corpus], findings=False, progress=fail_halfway)
    con.close()
    assert "write:packages" in steps
    assert snapshot(db) == before
    # and the database still takes a load afterwards
    code, _, err = cli("load", str(fixture_corpus), "--db", str(db), "--no-findings")
    assert code == 0, err
    assert counts(db)["games"] > 0


def test_a_failed_first_load_leaves_no_database_file(fixture_corpus: Path,
                                                     tmp_path: Path) -> None:
    from quizkit.analysis import load_paths

    db = tmp_path / "new.duckdb"

    def boom(step: str, seconds: float) -> None:
        if step == "write:findings,files":  # the last step before COMMIT
            raise RuntimeError("late failure")

    with pytest.raises(RuntimeError):
        load_paths(db, [fixture_corpus], findings=False, progress=boom)
    assert not db.exists()


def digest(root: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_bad_files_are_reported_as_validate_reports_them(fixture_corpus: Path,
                                                         tmp_path: Path) -> None:
    (fixture_corpus / "broken.json").write_bytes(b'{"id": "x", "name": ')
    (fixture_corpus / "empty.json").write_bytes(b"")
    (fixture_corpus / "fake.json.gz").write_bytes(b"not gzip at all")
    (fixture_corpus / "lines.jsonl").write_bytes(b'{"id": "b1", "slot": "top"}\n{"id": \n')
    before = digest(fixture_corpus)
    db = tmp_path / "a.duckdb"
    code, _out, err = cli("load", str(fixture_corpus), "--db", str(db), "--no-findings")
    assert code == 3
    assert "Traceback" not in err
    # reported as validate reports them: the input rule, the path as given, line and column
    found = [line for line in err.splitlines() if re.search(r": error P00\d ", line)]
    assert len(found) == 4, err
    assert any(re.match(rf"{fixture_corpus}/broken.json:1:21: error P002 invalid-json ", f)
               for f in found), found
    # a line that is not JSON too, as validate reports it; the file's other lines are loaded
    assert any(f.startswith(f"{fixture_corpus}/lines.jsonl:2:8: error P002 invalid-json ")
               for f in found), found
    assert any(f"{fixture_corpus}/empty.json:1:1: error P006 empty-input" in f for f in found)
    assert any(f"{fixture_corpus}/fake.json.gz: error P001 unreadable-input" in f
               for f in found)
    assert "1 document not loaded: unknown kind" in err  # the broken line of lines.jsonl
    got = counts(db)
    assert got["packages"] == 6 and got["files"] == 16
    assert got["banners"] == expected_counts(fixture_corpus)["banners"]
    assert digest(fixture_corpus) == before  # inputs are never modified


def test_what_validation_cannot_read_is_never_loaded(fixture_corpus: Path,
                                                     tmp_path: Path) -> None:
    """Validation's verdict decides what DuckDB reads: files over the size limit are
    unreadable to the validation (input-too-large), though DuckDB could read them; they are
    skipped, never both loaded and reported unreadable."""
    from quizkit import api

    sizes = sorted(p.stat().st_size for p in fixture_corpus.rglob("*.json"))
    limit = sizes[len(sizes) // 2]
    db = tmp_path / "a.duckdb"
    result = api.load([str(fixture_corpus)], db, config=api.settings(max_file_size=limit))
    con = duckdb.connect(str(db), read_only=True)
    try:
        both = run(con, """SELECT DISTINCT file FROM files WHERE file IN
                           (SELECT file FROM findings WHERE rule = 'input-too-large')""")
        reported = {f for (f,) in run(con, "SELECT DISTINCT file FROM findings "
                                           "WHERE rule = 'input-too-large'")}
    finally:
        con.close()
    assert reported and both == []
    assert {s.path for s in result.skipped} == reported


def test_unreadable_file_is_skipped(fixture_corpus: Path, tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their mode")
    locked = fixture_corpus / "packages" / "pkg-003.json"
    locked.chmod(0)
    try:
        code, _, err = cli("load", str(fixture_corpus), "--db", str(tmp_path / "a.duckdb"),
                           "--no-findings")
    finally:
        locked.chmod(0o644)
    assert code == 3 and "pkg-003.json: cannot be read" in err


def test_missing_path_is_a_one_line_error(tmp_path: Path) -> None:
    code, _out, err = cli("load", str(tmp_path / "nope"), "--db", str(tmp_path / "a.duckdb"))
    assert code == 2  # a usage error, as in every command
    assert err.strip() == f"quizkit: error: no such file or directory: {tmp_path / 'nope'}"
    assert not (tmp_path / "a.duckdb").exists()


def test_a_database_of_something_else_is_refused(fixture_corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "other.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE packages (id INTEGER, stuff VARCHAR)")
    con.close()
    code, _, err = cli("load", str(fixture_corpus), "--db", str(db), "--no-findings")
    assert code == 2
    assert "does not have quizkit's columns" in err and "Traceback" not in err
    assert snapshot(db) == {"packages": []}


def test_findings_table_holds_the_validation_findings(tmp_path: Path) -> None:
    import quizkit

    corpus = tmp_path / "samples"
    shutil.copytree(SAMPLES, corpus)
    db = tmp_path / "a.duckdb"
    code, out, _err = cli("load", str(corpus), "--db", str(db))
    assert code == 3  # samples/invalid holds a truncated file
    report = quizkit.validate([str(corpus)])
    con = duckdb.connect(str(db), read_only=True)
    got = Counter(con.execute("SELECT file, code, severity, pointer, line, col FROM findings")
                  .fetchall())
    con.close()
    want = Counter((str(Path(f.path).resolve()), f.code, str(f.severity), f.pointer, f.line,
                    f.column) for f in report.findings)
    assert got == want and sum(want.values()) > 0
    assert f", {sum(want.values())} findings." in out


def test_kinds_agree_with_the_validators_detection(tmp_path: Path) -> None:
    from quizkit.generate import generate_corpus

    root = tmp_path / "corpus"
    generate_corpus(root, packages=12, seed=11, broken=0.2, gzip_share=0.3, jsonl=True,
                    workers=1)
    shutil.copytree(SAMPLES, root / "samples", ignore=shutil.ignore_patterns("manifest.json.txt"))
    want: dict[str, set] = {}
    for path, kind, _ in read_documents(root):
        want.setdefault(path, set()).add(kind)
    con = connect()
    load(con, [root], findings=False)
    got = {f: set((k or "").split(",")) - {""} for f, k in run(con, "SELECT file, kind FROM files")}
    con.close()
    assert got.keys() <= want.keys()
    for path, kinds in got.items():
        assert kinds == want[path] - {None}, path


def test_an_array_without_version_fields_is_no_version_list(tmp_path: Path) -> None:
    from quizkit.model.kinds import detect_kind

    root = tmp_path / "in"
    root.mkdir()
    shutil.copy(SAMPLES / "version-list.json", root / "versions.json")
    others = [{"id": "u1", "username": "ann"}, {"id": "u2", "username": "bob"}]
    (root / "users.json").write_text(orjson.dumps(others).decode())
    assert detect_kind(others) is None
    con = connect()
    load(con, [root], findings=False)
    got = {Path(f).name: k for f, k in run(con, "SELECT file, kind FROM files")}
    con.close()
    assert got["versions.json"] == "version-list"
    assert not got.get("users.json")


def test_load_through_python_dash_m(fixture_corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "sub.duckdb"
    proc = subprocess.run([sys.executable, "-m", "quizkit", "load", str(fixture_corpus),
                           "--db", str(db), "--no-findings", "--timings"],
                          capture_output=True, text=True, cwd=tmp_path, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "read" in proc.stderr and "commit" in proc.stderr
    assert counts(db)["packages"] == 6


def test_load_errors_are_load_errors(tmp_path: Path) -> None:
    """A reader failure that no single file explains surfaces as LoadError, not a crash."""
    con = connect()
    write_fixture_corpus(tmp_path / "c", packages=3)
    with pytest.raises(LoadError):
        load(con, [tmp_path / "c"], findings=False, memory_limit="1MB")
    con.close()


def test_every_reader_path_gives_the_same_tables(fixture_corpus: Path, tmp_path: Path) -> None:
    """The same documents give the same rows whichever reader takes them: small plain files
    are typed in batches, large ones (over 64 kB) alone, and compressed or odd ones (a BOM)
    go through DuckDB's splitter; so the corpus and a copy of it with every file gzipped load
    alike. A file of two documents that is not JSON Lines is skipped by every path
    (``validate`` reads it as invalid JSON); the same two as JSON Lines are loaded."""
    pkg = fixture_corpus / "packages" / "pkg-002.json"
    odd = fixture_corpus / "odd"
    odd.mkdir()
    (odd / "bom.json").write_bytes(b"\xef\xbb\xbf" + pkg.read_bytes())
    big = orjson.loads((fixture_corpus / "packages" / "pkg-003.json").read_bytes())
    big["id"], big["description"] = "b" * 24, "x" * (80 << 10)
    (odd / "big.json").write_bytes(orjson.dumps(big))
    two = b'{"id": "b1", "slot": "top"}\n{"id": "b2", "slot": "top"}'
    (odd / "two.json").write_bytes(two)
    (odd / "two.jsonl").write_bytes(two.replace(b"b1", b"b4").replace(b"b2", b"b5"))
    (odd / "latin1.json").write_bytes(b'{"id": "b3", "slot": "caf\xe9"}')
    zipped = tmp_path / "zipped"
    for path in sorted(p for p in fixture_corpus.rglob("*") if p.is_file()):
        target = zipped / path.relative_to(fixture_corpus)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = path.read_bytes()
        if path.suffix == ".gz":
            target.write_bytes(data)
        else:
            target.with_name(target.name + ".gz").write_bytes(gzip.compress(data))

    def tables(root: Path, db: Path) -> dict[str, list[tuple]]:
        """Every table's rows, with file names relative to ``root`` and without ``.gz``."""
        code, _, err = cli("load", str(root), "--db", str(db), "--no-findings")
        assert code == 3, err  # the files it skipped: two.json and latin1.json
        assert "odd/two.json" in err and "odd/latin1.json" in err

        def name(value: object) -> object:
            if isinstance(value, str) and value.startswith(str(root) + "/"):
                return value[len(str(root)) + 1:].removesuffix(".gz")
            return value

        snap = {table: sorted((tuple(map(name, row)) for row in rows), key=repr)
                for table, rows in snapshot(db).items()}
        # without compressed, bytes and loaded_at
        snap["files"] = sorted((r[:2] + r[4:-1] for r in snap["files"]), key=repr)
        return snap

    plain = tables(fixture_corpus, tmp_path / "plain.duckdb")
    assert plain == tables(zipped, tmp_path / "zipped.duckdb")
    files = {r[0]: r for r in plain["files"]}
    assert "odd/two.json" not in files and "odd/latin1.json" not in files
    assert files["odd/two.jsonl"][2] == 2  # two documents
    assert files["odd/bom.json"][3] == files["odd/big.json"][3] == "package-full"
    assert {r[0] for r in plain["packages"]} >= {"b" * 24}
    banners = {r[0] for r in plain["banners"]}
    assert {"b4", "b5"} <= banners and not {"b1", "b2", "b3"} & banners


def test_a_version_in_two_packages_goes_to_the_later_file(fixture_corpus: Path,
                                                           tmp_path: Path) -> None:
    """Winners are picked per version, not per document: a package keeps its other versions."""
    first = orjson.loads((fixture_corpus / "packages" / "pkg-002.json").read_bytes())
    other = orjson.loads((fixture_corpus / "packages" / "pkg-003.json").read_bytes())
    shared = first["versions"][0]
    other["id"] = "f" * 24
    other["versions"] = [other["versions"][0], shared]
    later = fixture_corpus / "zz-later" / "other.json"
    later.parent.mkdir()
    later.write_bytes(orjson.dumps(other))
    db = tmp_path / "a.duckdb"
    code, _, err = cli("load", str(fixture_corpus), "--db", str(db), "--no-findings")
    assert code == 0, err
    con = duckdb.connect(str(db), read_only=True)
    rows = dict(con.execute("SELECT id, package_id FROM versions").fetchall())
    assert rows[shared["id"]] == other["id"]
    assert all(rows[v["id"]] == first["id"] for v in first["versions"][1:])
    steps = dict(con.execute("SELECT version_id, count(*) FROM steps GROUP BY ALL").fetchall())
    assert steps[shared["id"]] == len(shared["steps"])
    (files,) = con.execute("SELECT list(DISTINCT file) FROM steps WHERE version_id = ?",
                           [shared["id"]]).fetchall()[0]
    assert files == [str(later.resolve())]
    con.close()


def test_settings_are_restored_after_a_load(fixture_corpus: Path, tmp_path: Path) -> None:
    con = connect(tmp_path / "a.duckdb")
    settings = "SELECT current_setting('preserve_insertion_order'), " \
               "current_setting('checkpoint_threshold')"
    before = run(con, settings)
    load(con, [fixture_corpus], findings=False)
    assert run(con, settings) == before

    def boom(step: str, seconds: float) -> None:
        if step == "write:steps":
            raise RuntimeError("late failure")

    with pytest.raises(RuntimeError):
        load(con, [fixture_corpus], findings=False, progress=boom)
    assert run(con, settings) == before
    con.close()


@pytest.mark.parametrize("threads", [1, 3])
def test_the_number_of_threads_does_not_change_the_tables(fixture_corpus: Path, tmp_path: Path,
                                                          threads: int) -> None:
    """The files are read by one scan per thread (and small ones in batches)."""
    def tables(db: Path, threads: int | None) -> dict[str, list[tuple]]:
        con = connect(db)
        if threads:
            con.execute(f"SET threads = {threads}")
        load(con, [fixture_corpus, SAMPLES], findings=False)
        con.close()
        snap = snapshot(db)
        snap["files"] = [r[:-1] for r in snap["files"]]  # without loaded_at
        return snap

    assert tables(tmp_path / "n.duckdb", threads) == tables(tmp_path / "default.duckdb", None)
