"""The folders show the architecture: packages along the data's path, each importing only
those below it, small modules with names that say one thing (docs/architecture.md)."""

from __future__ import annotations

import ast
import json
from collections import Counter

import pytest

from tests.conftest import ROOT, requires
from tests.test_imports import PACKAGE, _sources

#: The packages of quizkit, lowest first: a module may import its own package and those
#: listed before it. The modules at the top (cli, entry, ...) may import any package;
#: ``quizkit.version`` is on the ground floor, importable from anywhere.
LAYERS = ("catalog", "outputs", "inputs", "model", "rules", "settings", "pages", "reporters",
          "cache", "checks", "analysis", "history", "cluster", "diff", "generate", "api",
          "commands")

GROUND = {"quizkit", "quizkit.version"}
MAX_TOP_MODULES = 12
TYPE_ALIAS = getattr(ast, "TypeAlias", ())
MAX_LINES = 600
#: Modules allowed over :data:`MAX_LINES`, each with the reason.
LONG: dict[str, str] = {}


def _imported(tree: ast.AST) -> list[tuple[str, int]]:
    """Every quizkit module an import statement names, wherever it stands, with its line."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("quizkit"):
            out.append((node.module, node.lineno))
        elif isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.startswith("quizkit")]
    return out


def _layer(module: str) -> int | None:
    """The index of a module's package in :data:`LAYERS`; None for the modules at the top."""
    parts = module.split(".")
    if module in GROUND:
        return -1
    if len(parts) > 2 or parts[1] in LAYERS:
        return LAYERS.index(parts[1])
    return None


def upward_imports(sources: dict[str, str]) -> list[str]:
    """``module:line imports target`` for each import of a higher package (or of a module at
    the top) from inside a package."""
    bad = []
    for module, text in sources.items():
        own = _layer(module)
        if own is None or module in GROUND:
            continue
        for target, line in _imported(ast.parse(text)):
            theirs = _layer(target)
            if theirs is None or theirs > own:
                bad.append(f"{module}:{line} imports {target}")
    return sorted(bad)


def test_every_module_is_in_a_known_package() -> None:
    packages = {m.split(".")[1] for m in _sources() if m.count(".") >= 2}
    assert packages <= set(LAYERS), f"add to LAYERS in its place: {packages - set(LAYERS)}"


def test_packages_import_only_those_below_them() -> None:
    bad = upward_imports(_sources())
    assert not bad, "move the code to the lower package, or pass it in:\n" + "\n".join(bad)


def test_the_layer_check_can_fail() -> None:
    sources = {"quizkit.catalog.findings": "from quizkit.version import v\n",
               "quizkit.inputs.walk": "from quizkit.catalog.findings import Finding\n"
                                      "def f():\n    from quizkit.checks import engine\n",
               "quizkit.rules.batch": "import quizkit.api\nfrom quizkit.rules import checks\n",
               "quizkit.api": "from quizkit.commands import validate\n"}
    assert upward_imports(sources) == ["quizkit.api:1 imports quizkit.commands",
                                       "quizkit.inputs.walk:3 imports quizkit.checks",
                                       "quizkit.rules.batch:1 imports quizkit.api"]


def commands_reaching_below_the_api(sources: dict[str, str]) -> list[str]:
    """``module:line imports target`` for each import of quizkit by a command module other
    than of :mod:`quizkit.api` and of the commands' own helpers (wherever it stands)."""
    allowed = ("quizkit.api", "quizkit.commands")
    bad = []
    for module, text in sources.items():
        if not module.startswith("quizkit.commands"):
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.module == "quizkit":
                targets = [f"quizkit.{a.name}" for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level:
                targets = [f"quizkit.commands.{node.module or ''}"]
            else:
                targets = [t for t, line in _imported(node) if line == node.lineno] \
                    if isinstance(node, ast.Import | ast.ImportFrom) else []
            bad += [f"{module}:{node.lineno} imports {t}" for t in targets
                    if not any(t == a or t.startswith(a + ".") for a in allowed)]
    return sorted(bad)


def test_commands_import_only_the_api_and_their_helpers() -> None:
    bad = commands_reaching_below_the_api(_sources())
    assert not bad, "give the command what it needs through quizkit.api:\n" + "\n".join(bad)


def test_the_command_import_check_can_fail() -> None:
    sources = {"quizkit.commands.fine": "from quizkit import api\nimport click\n"
                                        "from quizkit.commands.walk_options import x\n",
               "quizkit.commands.bad": "from quizkit import api, version\nimport quizkit.cli\n"
                                       "def f():\n    from quizkit.checks import runner\n"
                                       "from quizkit.api.database import load\n",
               "quizkit.checks.runner": "from quizkit.settings import config\n"}
    assert commands_reaching_below_the_api(sources) == [
        "quizkit.commands.bad:1 imports quizkit.version",
        "quizkit.commands.bad:2 imports quizkit.cli",
        "quizkit.commands.bad:4 imports quizkit.checks"]


def test_few_modules_at_the_top() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, f"{len(top)} modules at the top of quizkit/: {top}"


def test_no_two_modules_share_a_name() -> None:
    names = Counter(p.name for p in PACKAGE.rglob("*.py")
                    if p.name not in ("__init__.py", "__main__.py"))
    assert not [n for n, c in names.items() if c > 1]


def public_types(text: str) -> list[str]:
    """The classes and type aliases a module defines at its top, other than private ones."""
    out = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.ClassDef):
            out.append(node.name)
        elif isinstance(node, TYPE_ALIAS):  # ``type X = ...`` (Python 3.12)
            out.append(node.name.id)  # type: ignore[attr-defined]
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            is_alias = isinstance(value, ast.Subscript | ast.BinOp) and _is_type_expr(value)
            out += [t.id for t in targets if isinstance(t, ast.Name) and is_alias
                    and t.id[:1].isupper() and not t.id.isupper()]
    return [n for n in out if not n.startswith("_")]


def _is_type_expr(node: ast.AST) -> bool:
    """``Callable[...]``, ``X | Y``, ``dict[str, int]``: what a type alias is made of."""
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.BitOr) and _is_type_expr(node.left) \
            and _is_type_expr(node.right)
    if isinstance(node, ast.Subscript):
        return _is_type_expr(node.value)
    if isinstance(node, ast.Attribute):
        return _is_type_expr(node.value)
    if isinstance(node, ast.Constant):
        return node.value is None
    return isinstance(node, ast.Name) and (node.id[:1].isupper() or node.id in BUILTIN_TYPES)


BUILTIN_TYPES = frozenset({"int", "str", "bytes", "float", "bool", "dict", "list", "tuple", "set",
                           "frozenset", "type", "object"})


def test_no_two_public_types_share_a_name() -> None:
    where: dict[str, list[str]] = {}
    for module, text in _sources().items():
        for name in public_types(text):
            where.setdefault(name, []).append(module)
    twice = {n: ms for n, ms in where.items() if len(ms) > 1}
    assert not twice, f"one name, two types: {twice}"


def test_the_type_name_check_can_fail() -> None:
    text = ("from typing import Callable, TypeVar\nT = TypeVar('T')\nclass Skipped:\n    pass\n"
            "class _Hidden:\n    pass\nAdjust = Callable[[int], int | None]\nSize = int | str\n"
            "LIMIT = 3\nNames = ('a', 'b')\n")
    assert public_types(text) == ["Skipped", "Adjust", "Size"]


def test_no_module_over_600_lines() -> None:
    long = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py")
            if (n := p.read_text(encoding="utf-8").count("\n")) > MAX_LINES}
    assert set(long) <= set(LONG), f"split by what it does: {long}"
    stale = {p for p in LONG if p not in long}
    assert not stale, f"LONG lists modules that are short now: {stale}"


def test_tests_say_what_they_need_through_requires() -> None:
    """A missing dependency fails a test under CI and skips it elsewhere, through the one
    helper; nothing hides a module's tests behind an import."""
    hidden = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("*.py")
                    if p.name != "test_layout.py" and any(word in p.read_text(encoding="utf-8")
                           for word in ("importorskip", "allow_module_level=")))
    assert not hidden, f"use tests.conftest.requires: {hidden}"


def test_requires_fails_under_ci_and_skips_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    for value in ("true", "1", "yes"):
        monkeypatch.setenv("CI", value)
        with pytest.raises(pytest.fail.Exception, match="CI is set"):
            requires("quizkit_no_such_module")
        with pytest.raises(pytest.fail.Exception, match="needs ajv-cli; install: npm"):
            requires("ajv-cli", found=False, install="npm install ajv-cli")
    for value in ("", "0", "false"):
        monkeypatch.setenv("CI", value)
        with pytest.raises(pytest.skip.Exception, match="needs quizkit_no_such_module"):
            requires("quizkit_no_such_module")
    assert requires("json") is json
    assert requires("a tool", found=True) is None


def test_kinds_means_the_model_s_kinds_only() -> None:
    """``KINDS`` is the model's tuple of ``Kind`` objects; the names are ``KIND_NAMES``, not a
    second ``KINDS`` of strings elsewhere."""
    binders = sorted(module for module, text in _sources().items()
                     for node in ast.parse(text).body
                     if isinstance(node, ast.Assign | ast.AnnAssign)
                     for target in (node.targets if isinstance(node, ast.Assign)
                                    else [node.target])
                     if isinstance(target, ast.Name) and target.id == "KINDS")
    assert binders == ["quizkit.model.entities"]
