"""docs/architecture.md is true of the code: every module and identifier it names exists, every
module of the package is named there, and each helper it calls "one of each" has no second
copy."""

from __future__ import annotations

import ast
import re

import pytest

from tests.conftest import ROOT

PAGE = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "quizkit"
#: A module or folder as the page writes it: `quizkit/catalog/rule.py`, `quizkit/rules/`,
#: `transform.py` (a bare name, beside a path of its folder), `quizkit/rules/*.py`.
NAMED = re.compile(r"(?<![\w/.$#])((?:quizkit/|tests/|benchmarks/)?[\w*]+(?:/[\w*]+)*"
                   r"(?:\.py|/))(?![\w/])")


def named(text: str) -> set[str]:
    return set(NAMED.findall(text))


def exists(name: str) -> bool:
    """A named module or folder exists: a path from the repository root (``quizkit/``,
    ``tests/``, ``benchmarks/``), or a bare file name found somewhere in the package."""
    if name.startswith(("quizkit/", "tests/", "benchmarks/")):
        return bool(list(ROOT.glob(name.rstrip("/")))) if "*" in name else (ROOT / name).exists()
    return any(PACKAGE.rglob(name.rstrip("/")))


def test_every_module_the_page_names_exists() -> None:
    names = named(PAGE.read_text(encoding="utf-8"))
    assert len(names) > 40
    missing = sorted(n for n in names if not exists(n))
    assert not missing, f"docs/architecture.md names modules that do not exist: {missing}"


def test_the_check_can_fail() -> None:
    assert named("`quizkit/nope.py` and `gone.py`, `quizkit/rules/`") == {
        "quizkit/nope.py", "gone.py", "quizkit/rules/"}
    assert not exists("quizkit/nope.py") and not exists("gone.py")
    assert exists("quizkit/rules/") and exists("transform.py") and exists("quizkit/rules/*.py")


def test_every_module_of_the_package_is_on_the_page() -> None:
    """A new top-level module or package gets its line on the page."""
    text = PAGE.read_text(encoding="utf-8")
    modules = [f"quizkit/{p.name}" for p in PACKAGE.glob("*.py")]
    packages = [f"quizkit/{p.name}/" for p in PACKAGE.iterdir()
                if p.is_dir() and (p / "__init__.py").exists()]
    absent = sorted(m for m in modules + packages if f"`{m}" not in text)
    assert not absent, f"docs/architecture.md does not say what these are for: {absent}"


def _sources() -> list[tuple[str, str]]:
    return [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8"))
            for p in sorted(PACKAGE.rglob("*.py"))]


#: (helper, the module that is the one place for it, a pattern that betrays another copy,
#: modules allowed to match and why).
ONE_OF_EACH = [
    ("JSON Pointer escaping", "quizkit/catalog/pointers.py",
     re.compile(r"""["']~[01]["']|replace\(\s*["']/["']"""), {}),
    ("the atomic writer", "quizkit/outputs/writer.py",
     re.compile(r"\bmkstemp\(|\bNamedTemporaryFile\(|\bos\.(replace|rename)\("),
     {"quizkit/analysis/dataset.py": "moves a set of finished Parquet parts in together",
      "quizkit/cache/pack.py": "packs of its own cache, not outputs: a write that fails "
                               "turns caching off with a warning, never ends the run"}),
    ("the file walker", "quizkit/inputs/walk.py",
     re.compile(r"\bos\.(walk|scandir|fwalk)\(|\.rglob\(|\bglob\.i?glob\(|\.glob\("),
     {"quizkit/cache/store.py": "fingerprints quizkit's own installed files, never inputs"}),
]


@pytest.mark.parametrize(("what", "home", "pattern", "allowed"), ONE_OF_EACH,
                         ids=[w for w, *_ in ONE_OF_EACH])
def test_each_helper_is_written_once(what: str, home: str, pattern: re.Pattern,
                                     allowed: dict[str, str]) -> None:
    sources = _sources()
    assert any(pattern.search(text) for path, text in sources if path == home), \
        f"the pattern for {what} no longer finds {home}: update the test"
    elsewhere = sorted(path for path, text in sources
                       if path != home and path not in allowed and pattern.search(text))
    assert not elsewhere, f"{what} is written again in {elsewhere}: call {home}"
    assert f"`{home}`" in PAGE.read_text(encoding="utf-8")


#: A code span that names an identifier: ``detect_kind``, ``Settings``, ``REGISTRY``,
#: ``@check(NAME, ...)``, ``Report.exit_code``, ``quizkit.validate``. Plain words (``error``,
#: ``validate``, a command's name) are not identifiers of the code and are not checked.
IDENTIFIER = re.compile(r"`(@?)([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(\([^`]*\))?`")


#: In the page's drawings (```text blocks): a snake_case name, ``Name.attribute`` or a
#: CamelCase type (``check_source``, ``Report.exit_code``, ``SchemaBook``).
DRAWN = re.compile(r"(?<![\w/.\-])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?![\w/\-])")
DRAWING = re.compile(r"```text\n(.*?)```", re.DOTALL)
NOT_CODE = {"DuckDB"}
FILE_SUFFIXES = {"json", "duckdb", "gz", "py", "md"}


def identifiers(text: str) -> set[str]:
    """The identifiers the page names: in code spans, a decorator, a call, or a name with an
    underscore, a capital or a dot in it; in drawings, see :data:`DRAWN`."""
    spans = {name for at, name, call in IDENTIFIER.findall(text)
             if name.rsplit(".", 1)[-1] not in FILE_SUFFIXES
             and (at or call or "_" in name.strip("_") or "." in name
                  or any(c.isupper() for c in name))}
    drawn = {name for block in DRAWING.findall(text) for name in DRAWN.findall(block)
             if name.rsplit(".", 1)[-1] not in FILE_SUFFIXES and name not in NOT_CODE
             and ("_" in name.strip("_") or "." in name
                  or re.fullmatch(r"[A-Z][a-z]+(?:[A-Z][a-z]+)+", name))}
    return spans | drawn


def defined_names() -> set[str]:
    """Every name the package and its tests define: modules, packages, functions, classes,
    assigned names and attributes, at any depth."""
    names = {PACKAGE.name} | {p.stem for p in PACKAGE.rglob("*.py")} | {
        p.name for p in PACKAGE.rglob("*") if p.is_dir()}
    for path in [*PACKAGE.rglob("*.py"), *(ROOT / "tests").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
    return names


def test_every_identifier_the_page_names_exists() -> None:
    text = PAGE.read_text(encoding="utf-8")
    found = identifiers(text)
    assert {"detect_kind", "check_source", "SchemaBook", "Settings", "check"} <= found
    known = defined_names()
    missing = sorted(name for name in found
                     if not all(part in known for part in name.split(".")))
    assert not missing, f"docs/architecture.md names what the code does not define: {missing}"


def test_the_identifier_check_can_fail() -> None:
    found = identifiers("`kind_sql` and `written_by`, `Report.exit_code`, `error`, `@check(X)`")
    assert found == {"kind_sql", "written_by", "Report.exit_code", "check"}
    known = defined_names()
    assert "kind_sql" not in known and "written_by" not in known
    assert {"Report", "exit_code", "detect_kind"} <= known


def test_performance_is_one_page_of_current_figures() -> None:
    """docs/performance.md holds the current figures, each with its command, not a history."""
    text = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    assert text.count("\n") <= 400
    assert "## Current figures" in text
    assert not re.search(r"this (branch|session)|\bissue \d", text, re.IGNORECASE)
