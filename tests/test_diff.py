"""``quizkit diff`` on a generated corpus and a copy with known edits, through the real CLI.

The copy: one package removed with everything under it (its version files too), one added,
one renamed, a question's price changed, a round removed, two games renamed, files rewritten
with another indentation and their keys reversed, and a version's rounds array reversed. The
diff must name exactly those records and fields: the rewritten files are no change, the
reversed rounds are moves.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import reversed_keys, run_script

from quizkit import api

ENTITIES = ("rounds", "themes", "questions", "steps")


def _read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _write(path: Path, doc: object, indent: int = 2) -> None:
    path.write_text(json.dumps(doc, indent=indent, ensure_ascii=False), encoding="utf-8")


def _under(doc: dict) -> set[tuple[str, str]]:
    """The records of a package-full document, as the tables name them."""
    out = {("packages", doc["id"])}
    for version in doc["versions"]:
        out.add(("versions", version["id"]))
        for table in ENTITIES:
            out |= {(table, e["id"]) for e in version[table]}
    out |= {("categories", f"{doc['id']}/{c['categoryId']}") for c in doc["categories"]}
    return out


def _users(root: Path) -> set[str]:
    ids = {_read(p)["user"].get("id") for p in (root / "users").glob("*.json")} - {None}
    return ids | {_read(p)["user"]["id"] for p in (root / "packages").glob("*.json")}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Old and new exports, and what the diff must find."""
    base = tmp_path_factory.mktemp("diff")
    old, new, other = base / "old", base / "new", base / "other"
    for out, seed in ((old, "3"), (other, "4")):
        made = run_script("samples", "generate", "--packages", "8", "--seed", seed,
                          "--out", str(out))
        assert made.returncode == 0, made.stderr
    shutil.copytree(old, new)
    packages = sorted((new / "packages").glob("*.json"))
    expected: dict = {"removed": set(), "added": set(), "changed": {}, "moved": set()}

    gone = _read(packages[0])  # removed, with its version files
    packages[0].unlink()
    for v in gone["versions"]:
        (new / "versions" / f"{v['id']}.json").unlink(missing_ok=True)
    expected["removed"] |= _under(gone)

    added = _read(sorted((other / "packages").glob("*.json"))[0])
    donor = _read(packages[1])
    added["user"], added["userId"] = donor["user"], donor["userId"]
    _write(new / "packages" / f"{added['id']}.json", added)
    expected["added"] |= _under(added)

    renamed = _read(packages[1])  # renamed, and a question's price changed
    renamed["name"] += " (second edition)"
    question = renamed["versions"][0]["questions"][1]
    question["price"] += 50
    shortened = next(v for p in packages[1:] for v in _read(p)["versions"]
                     if len(v["rounds"]) >= 2 and p != packages[2])
    owner = next(p for p in packages[1:] if shortened["id"] in p.read_text())
    holder = renamed if owner == packages[1] else _read(owner)
    version = next(v for v in holder["versions"] if v["id"] == shortened["id"])
    dropped = version["rounds"].pop(0)  # the rounds after it are not moved
    _write(packages[1], renamed)
    _write(owner, holder)
    expected["removed"].add(("rounds", dropped["id"]))
    copy = new / "versions" / f"{shortened['id']}.json"  # the version's own file
    if copy.exists():
        version = _read(copy)
        version["rounds"] = [r for r in version["rounds"] if r["id"] != dropped["id"]]
        _write(copy, version)
    expected["changed"][("packages", renamed["id"])] = {"/name"}
    expected["changed"][("questions", question["id"])] = {"/price"}

    rewritten = _read(packages[2])  # keys reversed, indented by 4; its rounds reversed
    version = next(v for v in rewritten["versions"] if len(v["rounds"]) >= 2)
    rounds = version["rounds"]
    expected["moved"] |= {("rounds", r["id"]) for i, r in enumerate(rounds)
                          if i != len(rounds) - 1 - i}
    rounds.reverse()
    _write(packages[2], reversed_keys(rewritten), indent=4)
    game_files = sorted((new / "games").glob("*.json"))
    _write(game_files[0], reversed_keys(_read(game_files[0])), indent=1)
    for path in game_files[1:3]:
        game = _read(path)
        game["name"] = "Renamed " + game["name"]
        _write(path, game)
        expected["changed"][("games", game["id"])] = {"/name"}
    assert _users(new) >= _users(old)  # the added package's author is not new
    return {"old": old, "new": new, "expected": expected, "base": base}


def _diff(corpus: dict, *args: str) -> tuple[int, dict]:
    done = run_script("diff", str(corpus["old"]), str(corpus["new"]), "--format", "json",
                      *args)
    assert b"Traceback" not in done.stderr
    return done.returncode, json.loads(done.stdout)


def test_the_diff_names_exactly_the_edited_records_and_fields(corpus: dict) -> None:
    code, report = _diff(corpus)
    assert code == 1
    expected = corpus["expected"]
    found: dict = {kind: set() for kind in ("removed", "added", "moved")}
    changed = {}
    for c in report["changes"]:
        if c["change"] == "changed":
            changed[(c["kind"], c["id"])] = {f["pointer"] for f in c["fields"]}
        else:
            found[c["change"]].add((c["kind"], c["id"]))
    assert found["removed"] == expected["removed"]
    assert found["added"] == expected["added"]
    assert changed == expected["changed"]
    assert found["moved"] == expected["moved"]
    price = next(c for c in report["changes"] if c["kind"] == "questions"
                 and c["change"] == "changed")["fields"][0]
    assert price["new"] - price["old"] == 50
    counts = report["summary"]["packages"]
    assert (counts["added"], counts["removed"], counts["changed"]) == (1, 1, 1)
    assert report["totals"]["packages"]["old"] == 8
    assert report["totals"]["packages"]["new"] == 8
    assert report["totals"]["packages"]["difference"] == 0


def test_locations_point_at_the_records(corpus: dict) -> None:
    _code, report = _diff(corpus)
    for c in report["changes"][:50]:
        loc = c["new"] or c["old"]
        doc = _read(Path(loc["path"]))
        lines = Path(loc["path"]).read_text(encoding="utf-8").splitlines()
        value = doc
        for part in loc["pointer"].split("/")[1:]:
            value = value[int(part)] if isinstance(value, list) else value[part]
        assert str(value["id"]) in c["id"] or c["kind"] == "categories"
        assert lines[loc["line"] - 1][loc["column"] - 1] == "{"


def test_rewritten_files_are_no_change(tmp_path: Path) -> None:
    made = run_script("samples", "generate", "--packages", "3", "--seed", "5",
                      "--out", str(tmp_path / "a"))
    assert made.returncode == 0
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    for path in (tmp_path / "b").rglob("*.json"):
        _write(path, reversed_keys(_read(path)), indent=3)
    done = run_script("diff", str(tmp_path / "a"), str(tmp_path / "b"))
    assert done.returncode == 0, done.stdout.decode()
    assert b"same: 0 added, 0 removed, 0 changed, 0 moved" in done.stdout


def test_fail_on_and_fail_if_decide_exit_1(corpus: dict) -> None:
    assert _diff(corpus, "--fail-on", "moved")[0] == 1
    assert _diff(corpus, "--fail-if", "packages.removed > 50%")[0] == 0
    code, report = _diff(corpus, "--fail-if", "packages.removed > 1%")
    assert code == 1 and report["thresholds"]["crossed"] == ["packages.removed > 1%"]
    assert _diff(corpus, "--fail-if", "games.changed >= 3")[0] == 0
    assert _diff(corpus, "--fail-if", "games.changed >= 2")[0] == 1


@pytest.mark.parametrize("args", [("--fail-on", "deleted"), ("--fail-if", "packages > 1"),
                                  ("--fail-if", "nothing.removed > 1"),
                                  ("--format", "sarif"), ("--report", "junit:out.xml")])
def test_usage_errors_exit_2(corpus: dict, args: tuple[str, ...]) -> None:
    done = run_script("diff", str(corpus["old"]), str(corpus["new"]), *args)
    assert done.returncode == 2, done.stderr
    assert b"Traceback" not in done.stderr


def test_a_missing_side_is_a_usage_error(corpus: dict) -> None:
    done = run_script("diff", str(corpus["old"]), str(corpus["base"] / "nowhere"))
    assert done.returncode == 2 and b"no such file" in done.stderr


def test_an_unreadable_input_exits_3_and_the_rest_is_compared(corpus: dict,
                                                              tmp_path: Path) -> None:
    new = tmp_path / "new"
    shutil.copytree(corpus["new"], new)
    (new / "packages" / "broken.json").write_text('{"id": "x", ', encoding="utf-8")
    done = run_script("diff", str(corpus["old"]), str(new), "--format", "json")
    assert done.returncode == 3
    report = json.loads(done.stdout)
    assert [u["path"].endswith("broken.json") for u in report["unreadable"]] == [True]
    assert report["summary"]["packages"]["removed"] == 1


def test_files_unchanged_but_unreadable_are_reported_on_both_sides(corpus: dict,
                                                                   tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(corpus["old"], old)
    (old / "packages" / "broken.json").write_text('{"id": "x", ', encoding="utf-8")
    user = next((old / "users").glob("*.json")).read_text(encoding="utf-8")
    (old / "users" / "more.jsonl").write_text(
        json.dumps(json.loads(user)) + "\n{oops\n", encoding="utf-8")
    shutil.copytree(old, new)  # the same bytes on both sides
    done = run_script("diff", str(old), str(new), "--format", "json")
    assert done.returncode == 3, done.stderr
    report = json.loads(done.stdout)
    unreadable = sorted((u["side"], Path(u["path"].split(":")[0]).name)
                        for u in report["unreadable"])
    assert unreadable == [(side, name) for side in ("new", "old")
                          for name in ("broken.json", "more.jsonl")]
    assert report["changes"] == []
    assert all(c["unchanged"] for c in report["summary"].values() if any(c.values()))


def test_every_format_parses(corpus: dict, tmp_path: Path) -> None:
    out = {f: tmp_path / f"diff.{f}" for f in ("json", "jsonl", "markdown", "html")}
    done = run_script("diff", str(corpus["old"]), str(corpus["new"]), "-o", str(out["json"]),
                      "--format", "json",
                      *(a for f in ("jsonl", "markdown", "html")
                        for a in ("--report", f"{f}:{out[f]}")))
    assert done.returncode == 1 and done.stdout == b""
    report = json.loads(out["json"].read_text(encoding="utf-8"))
    lines = [json.loads(line) for line in out["jsonl"].read_text().splitlines()]
    assert lines == report["changes"]
    rows = [r for r in out["markdown"].read_text().splitlines() if r.startswith("|")]
    widths = {len(re.split(r"(?<!\\)\|", r)) for r in rows if "---" not in r}
    assert len(rows) > len(report["changes"]) and widths <= {8, 7, 6}
    page = out["html"].read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "default-src 'none'" in page


def test_text_is_coloured_only_when_asked(corpus: dict) -> None:
    plain = run_script("diff", str(corpus["old"]), str(corpus["new"]))
    coloured = run_script("diff", str(corpus["old"]), str(corpus["new"]), "--color", "always")
    assert b"\x1b[" not in plain.stdout and b"\x1b[33mchanged" in coloured.stdout
    assert re.search(rb"^packages\n", plain.stdout, re.M)


def test_databases_and_datasets_compare_by_rows(corpus: dict, tmp_path: Path) -> None:
    for side in ("old", "new"):
        done = run_script("load", str(corpus[side]), "--db", str(tmp_path / f"{side}.duckdb"))
        checked = run_script("validate", "-q", "--no-cache", str(corpus[side]))
        assert done.returncode == checked.returncode != 3, done.stderr  # findings: 1
    result = api.diff(tmp_path / "old.duckdb", tmp_path / "new.duckdb")
    changed = {(c.kind, c.id): {f.pointer for f in c.fields}
               for c in result.changes if c.change == "changed"}
    package = next(k for k in corpus["expected"]["changed"] if k[0] == "packages")
    assert changed[package] == {"/name"}
    question = next(k for k in corpus["expected"]["changed"] if k[0] == "questions")
    assert changed[question] == {"/price"}
    assert result.summary["packages"]["removed"] == 1 == result.summary["packages"]["added"]
    mixed = api.diff(tmp_path / "old.duckdb", corpus["new"])
    assert mixed.summary == result.summary
    # A row's location is where its record is, as a diff of the exports places it.
    of_exports = api.diff(corpus["old"], corpus["new"])
    where = {(c.kind, c.id): (c.new.path, c.new.pointer)
             for c in of_exports.changes if c.change == "changed"}
    for c in result.changes:
        if c.change == "changed" and (c.kind, c.id) in (package, question):
            assert (c.new.path, c.new.pointer) == where[(c.kind, c.id)]


def test_the_api_returns_what_the_cli_reports(corpus: dict) -> None:
    result = api.diff(corpus["old"], corpus["new"])
    _code, report = _diff(corpus)
    assert result.exit_code == 1
    assert [c.to_dict() for c in result.changes] == report["changes"]


def test_an_output_that_is_an_input_is_refused_before_any_work(corpus: dict) -> None:
    target = sorted((corpus["new"] / "packages").glob("*.json"))[0]
    before = target.read_bytes()
    done = run_script("diff", str(corpus["old"]), str(corpus["new"]), "--report",
                      f"json:{target}")
    assert done.returncode == 2 and b"also an input" in done.stderr
    assert target.read_bytes() == before


def test_a_database_side_that_cannot_be_read_exits_3(corpus: dict, tmp_path: Path) -> None:
    fake = tmp_path / "old.duckdb"
    fake.write_text("not a database\n")
    done = run_script("diff", str(fake), str(corpus["new"]))
    assert done.returncode == 3, done.stderr
    assert b"Traceback" not in done.stderr and str(fake).encode() in done.stderr


def test_json_lines_hold_the_same_records_and_place_them_by_line(tmp_path: Path) -> None:
    made = run_script("samples", "generate", "--packages", "6", "--seed", "8",
                      "--out", str(tmp_path / "old"))
    assert made.returncode == 0
    shutil.copytree(tmp_path / "old", tmp_path / "new")
    games = sorted((tmp_path / "new" / "games").glob("*.json"))
    docs = [_read(p) for p in games]
    for p in games:
        p.unlink()
    docs[-1]["name"] = "Renamed"
    lines = [json.dumps(reversed_keys(d)) for d in docs]
    (tmp_path / "new" / "games" / "all.jsonl").write_text("\n".join(lines) + "\n")
    done = run_script("diff", str(tmp_path / "old"), str(tmp_path / "new"), "--format", "json")
    report = json.loads(done.stdout)
    assert done.returncode == 1
    assert [(c["kind"], c["id"], c["change"]) for c in report["changes"]] == \
        [("games", docs[-1]["id"], "changed")]
    new = report["changes"][0]["new"]
    assert new["path"].endswith("all.jsonl") and new["line"] == len(docs)
    assert new["column"] == 1 and new["pointer"] == ""
