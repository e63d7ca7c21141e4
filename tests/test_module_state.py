"""No quizkit module holds state: caches, switches and per-run facts live in objects passed
along the pipeline (the compiled schemas in a ``SchemaBook``, the rules in the ``Registry``
given to the engine), so two runs in one process share nothing but constants.

The sources are read, not imported. A module fails the test when it has

* a cache decorator (``functools.cache``, ``lru_cache``) on a function or method: a cache
  belongs to an object the caller holds (``cached_property`` on an instance is fine);
* a ``global`` statement;
* a mutable container (a dict, list or set display or comprehension, or a call of ``dict``,
  ``list``, ``set``, ``defaultdict``, ``Counter``, ``deque`` or ``OrderedDict``) bound at
  module or class level to a name that is not a constant's (``UPPER_CASE``, with or without
  a leading underscore; dunders such as ``__all__``);
* such a constant changed inside a function (a mutating method called on it, an item
  assigned or deleted): constants are filled while the module is imported and only read
  afterwards;
* an attribute of a module or of a class set inside a function (``engine.REGISTRY = ...``,
  ``type(self).made += 1``, ``Cache.last = ...``): a switch or a count every caller shares.

:data:`ALLOWED` lists the exceptions, each with its reason.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "quizkit"

#: (module path, name) → why it may hold state.
ALLOWED: dict[tuple[str, str], str] = {
    ("quizkit/entry.py", "stdout"): "the program's entry point wraps the process's standard "
                                    "output once, before any command runs "
                                    "(quizkit.outputs.writer.standard_output): the process's own "
                                    "setting, made by the process's own start",
    ("quizkit/outputs/interrupts.py", "unraisablehook"): "a run's stop signals own the "
                                    "process's hook for dropped exceptions, as they own its "
                                    "signal handlers: a stop exception Python drops is "
                                    "delivered again, never lost",
}

CACHES = {"cache", "lru_cache"}
CONTAINER_CALLS = {"dict", "list", "set", "defaultdict", "Counter", "deque", "OrderedDict"}
MUTATORS = {"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update",
            "setdefault", "add", "discard", "difference_update", "intersection_update",
            "symmetric_difference_update", "appendleft", "extendleft", "sort", "reverse",
            "__setitem__", "__delitem__"}
CONSTANT = re.compile(r"_?[A-Z][A-Z0-9_]*|__\w+__")


def _is_container(value: ast.AST | None) -> bool:
    if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp,
                          ast.SetComp)):
        return True
    if isinstance(value, ast.Call):
        fn = value.func
        name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
        return name in CONTAINER_CALLS
    return False


def _bindings(body: list[ast.stmt]) -> Iterator[tuple[str, ast.AST | None, int]]:
    """(name, value, line) of each plain-name binding among the statements of a body."""
    for node in body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    yield target.id, node.value, node.lineno
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.value is not None:
            yield node.target.id, node.value, node.lineno


def containers(tree: ast.Module) -> set[str]:
    """The names a module binds to mutable containers at its top level."""
    return {name for name, value, _ in _bindings(tree.body) if _is_container(value)}


def _refers_to(node: ast.AST, names: set[str]) -> str | None:
    """The constant ``node`` is (``NAME`` or ``module.NAME``), if it is one of ``names``."""
    if isinstance(node, ast.Name) and node.id in names:
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.attr in names:
        return node.attr
    return None


def _functions(tree: ast.AST) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield node


def _targets(node: ast.AST) -> list[ast.AST]:
    """What an assignment, augmented assignment or ``del`` writes (nothing for other nodes)."""
    if isinstance(node, (ast.Assign, ast.Delete)):
        return list(node.targets)
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target]
    return []


def _mutations(function: ast.AST, names: set[str]) -> Iterator[tuple[str, int]]:
    """(constant, line) of each change of one of ``names`` in a function's body."""
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in MUTATORS:
            name = _refers_to(node.func.value, names)
            if name:
                yield name, node.lineno
        for target in _targets(node):
            if isinstance(target, ast.Subscript):
                name = _refers_to(target.value, names)
                if name:
                    yield name, node.lineno


def _shared_objects(tree: ast.Module) -> set[str]:
    """Names that stand for a module or a class in this module: its imports and the
    classes it defines."""
    names = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.asname or a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names |= {a.asname or a.name for a in node.names
                      if a.name[:1].islower() or a.name in names}
    return names


def _attribute_writes(function: ast.AST, shared: set[str]) -> Iterator[tuple[str, int]]:
    """(attribute, line) of each attribute of a module or class set in a function."""
    for node in ast.walk(function):
        for target in _targets(node):
            if not isinstance(target, ast.Attribute):
                continue
            owner = target.value
            if (isinstance(owner, ast.Name) and owner.id in shared) or \
                    (isinstance(owner, ast.Call) and getattr(owner.func, "id", "") == "type"):
                yield target.attr, node.lineno


def violations(source: str, imported: frozenset[str] = frozenset()
               ) -> list[tuple[int, str, str]]:
    """(line, name, what) of everything that holds state in one module's source
    (``imported``: containers of other modules it may import by name); empty when nothing
    does."""
    tree = ast.parse(source)
    found: set[tuple[int, str, str]] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = target.attr if isinstance(target, ast.Attribute) \
                    else getattr(target, "id", "")
                if name in CACHES:
                    found.add((node.lineno, node.name, f"@{name} on {node.name}"))
        elif isinstance(node, ast.Global):
            for name in node.names:
                found.add((node.lineno, name, f"global {name}"))
    bodies = [tree.body] + [n.body for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    for body in bodies:
        for name, value, line in _bindings(body):
            if _is_container(value) and not CONSTANT.fullmatch(name):
                found.add((line, name, f"{name} holds a mutable container"))
    constants = {n for n in containers(tree) if CONSTANT.fullmatch(n)} | imported
    shared = _shared_objects(tree)
    for function in _functions(tree):
        for name, line in _mutations(function, constants):
            found.add((line, name, f"the constant {name} is changed"))
        for name, line in _attribute_writes(function, shared):
            found.add((line, name, f"the shared attribute {name} is set"))
    return sorted(found)


def _modules() -> list:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_quizkit_module_holds_state() -> None:
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in _modules()}
    everywhere = set().union(*(containers(tree) for tree in trees.values()))
    problems = []
    for path, tree in trees.items():
        rel = path.relative_to(ROOT).as_posix()
        imported = frozenset(alias.asname or alias.name for node in ast.walk(tree)
                             if isinstance(node, ast.ImportFrom) for alias in node.names
                             if alias.name in everywhere)
        for line, name, what in violations(path.read_text(encoding="utf-8"), imported):
            if (rel, name) not in ALLOWED:
                problems.append(f"{rel}:{line}: {what}")
    assert not problems, "state in modules:\n" + "\n".join(problems)


def test_the_allow_list_names_real_modules() -> None:
    for module, _name in ALLOWED:
        assert (ROOT / module).is_file(), module


@pytest.mark.parametrize("source,expected", [
    ("from functools import cache\n@cache\ndef f():\n    return 1\n", "@cache on f"),
    ("import functools\n@functools.lru_cache(maxsize=None)\ndef f():\n    return 1\n",
     "@lru_cache on f"),
    ("class A:\n    @functools.cache\n    def f(self):\n        return 1\n", "@cache on f"),
    ("FAST = True\ndef off():\n    global FAST\n    FAST = False\n", "global FAST"),
    ("_seen = set()\n", "_seen holds a mutable container"),
    ("last: dict[str, int] = {}\n", "last holds a mutable container"),
    ("positions = dict()\n", "positions holds a mutable container"),
    ("class Engine:\n    cache = {}\n", "cache holds a mutable container"),
    ("SEEN = set()\ndef f(x):\n    SEEN.add(x)\n", "the constant SEEN is changed"),
    ("_BY_ID = {}\ndef f(k, v):\n    _BY_ID[k] = v\n", "the constant _BY_ID is changed"),
    ("ITEMS = []\ndef f():\n    del ITEMS[0]\n", "the constant ITEMS is changed"),
    ("import m\ndef f():\n    m.TABLE.update(a=1)\n", "the constant TABLE is changed"),
    ("from quizkit import engine\ndef f(r):\n    engine.REGISTRY = r\n",
     "the shared attribute REGISTRY is set"),
    ("class Index:\n    made = 0\n    def __init__(self):\n        type(self).made += 1\n",
     "the shared attribute made is set"),
    ("class Cache:\n    last = None\ndef f(x):\n    Cache.last = x\n",
     "the shared attribute last is set"),
])
def test_the_scan_finds_each_kind_of_state(source: str, expected: str) -> None:
    imported = frozenset({"TABLE"} if "m.TABLE" in source else ())
    found = violations(source, imported)
    assert any(what == expected for _, _, what in found), found


@pytest.mark.parametrize("source", [
    "NAMES = ('a', 'b')\n",
    "__all__ = ['f']\n",
    "KEYS = {'a': 1}\nKEYS['b'] = 2\ndef f():\n    return KEYS['a']\n",
    "from functools import cached_property\nclass A:\n    @cached_property\n"
    "    def x(self):\n        return 1\n",
    "def f():\n    seen = set()\n    seen.add(1)\n    return seen\n",
    "class A:\n    def __init__(self):\n        self.seen = set()\n",
    "import os\ndef f(p):\n    st = os.stat(p)\n    return st.st_size\n",
])
def test_the_scan_leaves_constants_and_locals_alone(source: str) -> None:
    assert violations(source) == []
