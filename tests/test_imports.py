"""quizkit's modules import each other at the top, in one direction along the data's path.

A module that imports another quizkit module inside a function hides a dependency (and, most
often, an import cycle it dodges). The few that must wait are listed in :data:`ALLOWED` with
the reason; everything else is found by reading the sources, so the test fails on a new one.
The top-level imports must form no cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tests.conftest import ROOT

PACKAGE = ROOT / "quizkit"

#: (module, function) → why its import of quizkit modules waits until it runs.
ALLOWED = {
    ("quizkit.entry", "main"): "the program installs its Ctrl-C/SIGTERM handlers before it "
                               "imports the CLI (click, the engine, the schemas): a signal "
                               "during those imports ends in one line, not a traceback",
    ("quizkit", "__getattr__"): "`quizkit.validate` on first use: `import quizkit` (done by "
                                "the program before its signal handlers) stays cheap",
    ("quizkit.api", "__getattr__"): "each name of the API is imported from its module when "
                                    "first used, so `validate` starts without DuckDB, PyArrow "
                                    "or Dask",
    ("quizkit.cli", "LazyGroup.get_command"): "a command's module is imported when that "
                                              "command runs, so `validate` starts without "
                                              "DuckDB or the corpus generator",
    ("quizkit.reporters", "_Formats.__getitem__"): "a report format's module is imported "
                                                   "when a run writes that format: a run "
                                                   "writes one or two of twelve",
    ("quizkit.outputs.progress", "ProgressLine._start"): "the drawing (tqdm's subclasses) "
                                                         "is imported when a line is shown: "
                                                         "pipes and CI never load tqdm",
    ("quizkit.api.validating", "validate"): "a Dask cluster's client side (and ssl) is "
                                            "imported when a run uses a cluster "
                                            "(--scheduler): every other run starts without it",
    ("quizkit.api.validating", "infer"): "the enum inference (and tomlkit, which writes its "
                                         "profile) is imported when values are inferred, not "
                                         "by every run of validate",
    ("quizkit.history.history_store", "_backend"): "a history's store (DuckDB, or pyarrow) is "
                                           "imported when a run records to one, so "
                                           "`validate` starts without DuckDB",
}


def module_name(path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _quizkit_module(node: ast.AST) -> str | None:
    """The quizkit module an import statement or an ``import_module("quizkit...")`` call
    names, else None."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names if a.name.split(".")[0] == "quizkit"]
        return names[0] if names else None
    if isinstance(node, ast.ImportFrom):
        if node.level:  # a relative import: always inside the package
            return "." * node.level + (node.module or "")
        return node.module if (node.module or "").split(".")[0] == "quizkit" else None
    if isinstance(node, ast.Call):
        fn = node.func
        name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
        if name in ("import_module", "__import__"):
            arg = node.args[0] if node.args else None
            # A module named by a variable is looked up in a table of quizkit modules (cli).
            if not isinstance(arg, ast.Constant) or str(arg.value).startswith("quizkit"):
                return str(arg.value) if isinstance(arg, ast.Constant) else "<a name>"
    return None


def late_imports(source: str) -> Iterator[tuple[str, str, int]]:
    """(function, module, line) of every quizkit import made inside a function (named
    ``Class.method`` for a method; a nested function counts as its outermost one). A class
    body at the top of a module runs at import, like the module's own statements."""

    def visit(node: ast.AST, where: str | None, prefix: str) -> Iterator[tuple[str, str, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                yield from visit(child, where or name, name + ".")
            elif isinstance(child, ast.ClassDef):
                yield from visit(child, where, f"{prefix}{child.name}.")
            else:
                found = _quizkit_module(child)
                if found is not None and where is not None:
                    yield where, found, child.lineno
                yield from visit(child, where, prefix)

    yield from visit(ast.parse(source), None, "")


def _at_import(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes below ``node`` that run when the module is imported (not function bodies)."""
    for child in ast.iter_child_nodes(node):
        yield child
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from _at_import(child)


def top_imports(source: str, modules: set[str]) -> set[str]:
    """The quizkit modules a module imports when it is imported (its top-level statements,
    ``if TYPE_CHECKING:`` included: a cycle there is a cycle of the design)."""
    out: set[str] = set()
    for node in _at_import(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("quizkit"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                out.add(full if full in modules else node.module)  # type: ignore[arg-type]
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("quizkit"))
    return out & modules


def _sources() -> dict[str, str]:
    return {module_name(p): p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py"))}


def test_no_quizkit_module_is_imported_inside_a_function() -> None:
    found = {(module, fn): (imported, line) for module, source in _sources().items()
             for fn, imported, line in late_imports(source)}
    unexplained = sorted(f"{m}:{line} {fn}() imports {imported}"
                         for (m, fn), (imported, line) in found.items()
                         if (m, fn) not in ALLOWED)
    assert not unexplained, "import these at the top (move what a cycle needs to the " \
                            "module lower on the data's path):\n" + "\n".join(unexplained)
    stale = sorted(f"{m} {fn}" for m, fn in ALLOWED if (m, fn) not in found)
    assert not stale, f"ALLOWED lists functions that import nothing late: {stale}"


def test_the_late_import_check_can_fail() -> None:
    source = '''
import quizkit.model.entities
from quizkit.model import kinds

def top():
    from quizkit.rules import REGISTRY

class A:
    def method(self):
        import quizkit.checks.engine
        import json

def names():
    importlib.import_module("quizkit.commands.validate")
    importlib.import_module("json")
    from . import sibling
'''
    assert sorted(late_imports(source)) == [
        ("A.method", "quizkit.checks.engine", 10),
        ("names", ".", 16),
        ("names", "quizkit.commands.validate", 14),
        ("top", "quizkit.rules", 6),
    ]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def import_graph(sources: dict[str, str]) -> dict[str, set[str]]:
    """Module → the modules importing it runs. Importing ``a.b.c`` first runs the package
    ``a.b`` (its ``__init__``), unless the importer is inside that package already."""
    modules = set(sources)
    graph = {}
    for m, text in sources.items():
        direct = top_imports(text, modules)
        packages = {p for d in direct for p in _packages(d)
                    if p in modules and not m.startswith(p + ".")}
        graph[m] = (direct | packages) - {m}
    return graph


def _packages(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(2, len(parts))]


def test_modules_import_each_other_in_one_direction() -> None:
    cycles = _cycles(import_graph(_sources()))
    assert not cycles, f"import cycles: {cycles}"


def test_the_cycle_check_can_fail() -> None:
    sources = {"quizkit.a": "from quizkit.b import x\n",
               "quizkit.b": "def f():\n    pass\nfrom quizkit import c\n",
               "quizkit.c": "import quizkit.a\n",
               "quizkit.d": "def g():\n    import quizkit.a\n"}
    assert _cycles(import_graph(sources)) == [["quizkit.a", "quizkit.b", "quizkit.c"]]
    # a module that a package's own modules import, importing a module of that package
    sources = {"quizkit.rules": "from quizkit.rules import embedded\n",
               "quizkit.rules.embedded":
                   "from quizkit.reporters.service_blocks import names\n",
               "quizkit.rules.navigate": "x = 1\n",
               "quizkit.reporters.service_blocks": "from quizkit.rules.navigate import x\n"}
    assert _cycles(import_graph(sources)) == [
        ["quizkit.reporters.service_blocks", "quizkit.rules", "quizkit.rules.embedded"]]
