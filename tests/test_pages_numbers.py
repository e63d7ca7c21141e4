"""Numbers for people: human sizes and separators in tables; CSV and JSON stay exact."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from quizkit.cli import main
from quizkit.outputs.numbers import human_bytes, plural, thousands


@pytest.mark.parametrize("n, text", [
    (0, "0 B"), (999, "999 B"), (1000, "1.0 kB"), (1536, "1.5 kB"), (12_300_000, "12.3 MB"),
    (1_500_000_000, "1.5 GB"), (594_842_159_360, "594.8 GB"), (999_960, "1.0 MB"),
    (2.5e15, "2.5 PB"), (-2048, "-2.0 kB"),
])
def test_human_bytes(n: float, text: str) -> None:
    assert human_bytes(n) == text


def test_thousands_and_plural() -> None:
    assert thousands(1234567) == "1,234,567"
    assert thousands(1234.5678) == "1,234.57"
    assert thousands(12.0) == "12"
    assert plural(1, "package") == "1 package"
    assert plural(0, "package") == "0 packages"
    assert plural(12000, "entry", "entries") == "12,000 entries"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("numbers")
    runner = CliRunner()
    gen = runner.invoke(main, ["samples", "generate", "--packages", "12", "--seed", "3",
                               "--out", str(base / "corpus")])
    assert gen.exit_code == 0, gen.output
    out = runner.invoke(main, ["load", str(base / "corpus"), "--db", str(base / "q.duckdb")])
    assert out.exit_code == 0, out.output
    return base / "q.duckdb"


def _sizes(db: Path, fmt: str) -> str:
    result = CliRunner().invoke(main, ["summary", "sizes", "--db", str(db), "--format", fmt,
                                       "--section", "largest", "--top", "3"])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_table_and_markdown_show_human_sizes_csv_and_json_exact(db: Path) -> None:
    exact = orjson.loads(_sizes(db, "json"))
    biggest = exact[0]["size_total"]
    assert isinstance(biggest, int) and biggest > 1_000_000
    rows = list(csv.DictReader(io.StringIO(_sizes(db, "csv"))))
    assert int(rows[0]["size_total"]) == biggest
    table = _sizes(db, "table")
    first = next(line for line in table.splitlines() if line.startswith(exact[0]["id"]))
    assert human_bytes(biggest) in first and str(biggest) not in first
    markdown = _sizes(db, "markdown")
    assert f"| {human_bytes(biggest)} |" in markdown
    steps = exact[0]["steps"]
    assert f" {thousands(steps)} " in first


def test_counts_get_separators_and_load_says_one_file(db: Path, tmp_path: Path) -> None:
    args = ["summary", "overview", "--db", str(db), "--section", "entities", "--format"]
    table = CliRunner().invoke(main, [*args, "table"]).stdout
    rows = {r["entity"]: r["rows"] for r in orjson.loads(CliRunner().invoke(
        main, [*args, "json"]).stdout)}
    assert rows["steps"] >= 1000
    line = next(line for line in table.splitlines() if line.startswith("steps "))
    assert line.split()[-1] == thousands(rows["steps"])
    one = tmp_path / "one.json"
    one.write_bytes((Path(__file__).parent.parent / "samples/game.json").read_bytes())
    loaded = CliRunner().invoke(main, ["load", str(one), "--db", str(tmp_path / "one.duckdb"),
                                       "--no-findings"])
    assert loaded.exit_code == 0, loaded.output
    assert "Loaded 1 file, 1 document into" in loaded.output  # as validate counts them


def test_validation_reports_for_people_use_separators(tmp_path: Path) -> None:
    base = orjson.loads((Path(__file__).parent.parent / "samples/banner-create.json").read_bytes())
    (tmp_path / "many.json").write_bytes(orjson.dumps({**base, **{f"x{k}": k
                                                                  for k in range(1500)}}))
    runner = CliRunner()
    md = runner.invoke(main, ["validate", str(tmp_path), "--format", "markdown", "-q",
                              "--max-findings", "0"]).stdout
    assert "**1,500** warnings" in md and "| warning | 1,500 |" in md
    text = runner.invoke(main, ["validate", str(tmp_path), "-q", "--max-findings", "0"]).stdout
    assert text.splitlines()[-1] == "1 file, 1 document: 0 errors, 1,500 warnings, 0 infos"
