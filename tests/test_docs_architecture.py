"""docs/architecture.md is true of the code: every module it names exists, every module of the
package is named there, and each helper it calls "one of each" has no second copy."""

from __future__ import annotations

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
     {"quizkit/analysis/dataset.py": "moves a set of finished Parquet parts in together"}),
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
