"""A database made by someone else is data, never code: a view, macro or other stored SQL in
it never runs in place of a quizkit table or a DuckDB function. Every command that opens a
database (``summary``, ``query``, ``export``, ``load --db``) refuses such a file with exit 2,
naming what it holds, before running anything in it."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from safety_cli import SAMPLES, one_line_error, quizkit

SECRET = "aws_secret_access_key = do-not-leak"


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("loaded") / "quizkit.duckdb"
    done = quizkit("load", SAMPLES / "package-full.json", "--db", db, "--no-findings")
    assert done.returncode == 0, done.stderr
    return db


@pytest.fixture
def plant(tmp_path: Path, loaded: Path) -> Callable[..., Path]:
    def made(*sql: str) -> Path:
        return _plant(tmp_path, loaded, *sql)
    return made


def _plant(tmp_path: Path, loaded: Path, *sql: str) -> Path:
    """A copy of a database quizkit loaded from a package export, given ``sql`` by hand."""
    secret = tmp_path / "credentials"
    secret.write_text(SECRET)
    db = tmp_path / "foreign.duckdb"
    shutil.copyfile(loaded, db)
    with duckdb.connect(str(db)) as con:
        for statement in sql:
            con.execute(statement.replace("SECRET", str(secret)))
    return db


QUANTILE = ("CREATE MACRO quantile_disc(x, q) AS "
            "(SELECT max(content) FROM read_text('SECRET'))")
VIEW = ("DROP TABLE packages",
        "CREATE VIEW packages AS SELECT content AS title FROM read_text('SECRET')")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


COMMANDS: dict[str, Callable[[Path, Path], list[str | Path]]] = {
    "summary sizes": lambda db, _tmp: ["summary", "sizes", "--db", db],
    "summary html": lambda db, tmp: ["summary", "all", "--db", db, "--format", "html", "-o",
                                     tmp / "page.html"],
    "query": lambda db, _tmp: ["query", "SELECT quantile_disc(1, 0.5) AS q, * FROM packages",
                               "--db", db, "--format", "csv"],
    "export": lambda db, tmp: ["export", "--db", db, "--parquet", tmp / "out"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("planted", [(QUANTILE,), VIEW], ids=["macro", "view"])
def test_stored_sql_never_runs(tmp_path: Path, plant: Callable[..., Path], command: str,
                               planted: tuple[str, ...]) -> None:
    db = plant(*planted)
    before = _digest(db)
    done = quizkit(*COMMANDS[command](db, tmp_path))
    line = one_line_error(done)
    assert SECRET not in done.stdout + done.stderr
    assert ("macro main.quantile_disc" if planted == (QUANTILE,) else "view main.packages") \
        in line, line
    assert str(db) in line
    assert not (tmp_path / "page.html").exists()
    assert not (tmp_path / "out").exists()
    assert _digest(db) == before


def test_load_runs_no_macro_of_the_database(plant: Callable[..., Path]) -> None:
    """A ``length`` macro would otherwise make every text length 30,000."""
    db = plant("CREATE MACRO length(x) AS 30000")
    before = _digest(db)
    line = one_line_error(quizkit("load", SAMPLES / "package-full.json", "--db", db))
    assert "macro main.length" in line, line
    assert _digest(db) == before


@pytest.mark.parametrize("planted, named", [
    ("CREATE TYPE mood AS ENUM ('a')", "type main.mood"),
    ("ALTER TABLE files ADD COLUMN leak VARCHAR DEFAULT (current_setting('home_directory'))",
     "default of files.leak"),
    ("CREATE TABLE extra (a INT CHECK (a > 0))", "check on extra"),
    ("CREATE MACRO rows_of() AS TABLE SELECT 1 AS a", "macro main.rows_of"),
    ('CREATE MACRO "||"(a, b) AS 1', "macro main.||"),
    ("CREATE MACRO duckdb_functions() AS TABLE SELECT 1 AS a", "macro main.duckdb_functions"),
])
def test_every_kind_of_stored_sql_is_named(plant: Callable[..., Path], planted: str,
                                           named: str) -> None:
    db = plant(planted)
    line = one_line_error(quizkit("summary", "overview", "--db", db))
    assert named in line, line


def test_a_database_of_quizkit_opens_and_reads_no_file(tmp_path: Path,
                                                       plant: Callable[..., Path]) -> None:
    """The file of a database quizkit wrote is read; nothing else is, even from query."""
    db = plant()
    done = quizkit("summary", "sizes", "--db", db)
    assert done.returncode == 0, done.stderr
    line = one_line_error(quizkit("query", f"SELECT * FROM read_text('{tmp_path}/credentials')",
                                  "--db", db))
    assert SECRET not in line
    done = quizkit("export", "--db", db, "--parquet", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "packages.parquet").is_file()
