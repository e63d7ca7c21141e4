"""docs/tables.md documents exactly the columns of a real database built by `quizkit load`."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
from click.testing import CliRunner
from test_analysis_data import write_fixture_corpus

from quizkit.analysis.tables import render_markdown
from quizkit.cli import main

DOC = Path(__file__).resolve().parent.parent / "docs" / "tables.md"


def documented() -> dict[str, list[tuple[str, str]]]:
    """{table: [(column, type), ...]} parsed from the Markdown."""
    tables: dict[str, list[tuple[str, str]]] = {}
    current = None
    for line in DOC.read_text().splitlines():
        m = re.match(r"^## `(\w+)`$", line)
        if m:
            current = tables.setdefault(m.group(1), [])
            continue
        m = re.match(r"^\| `(\w+)` \| ([A-Z]+) \|", line)
        if m and current is not None:
            current.append((m.group(1), m.group(2)))
    return tables


def test_documented_columns_are_the_database_columns(tmp_path: Path) -> None:
    write_fixture_corpus(tmp_path / "c", packages=2)
    db = tmp_path / "t.duckdb"
    result = CliRunner().invoke(main, ["load", str(tmp_path / "c"), "--db", str(db),
                                       "--no-findings"])
    assert result.exit_code == 0, result.output
    con = duckdb.connect(str(db), read_only=True)
    actual: dict[str, list[tuple[str, str]]] = {}
    for table, column, type_ in con.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position").fetchall():
        actual.setdefault(table, []).append((column, type_))
    con.close()
    docs = documented()
    assert len(docs) >= 14
    assert docs == actual


def test_the_page_is_generated_from_the_table_definitions() -> None:
    assert DOC.read_text() == render_markdown(), (
        "docs/tables.md is stale: regenerate it with "
        "python -c 'from quizkit.analysis.tables import render_markdown; "
        "print(render_markdown(), end=\"\")' > docs/tables.md")
