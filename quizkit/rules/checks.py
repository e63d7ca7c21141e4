"""How structural checks are declared, and the registry that holds them.

Each rule is checked by one function, declared beside the rule with ``@check(RULE, kinds...)``:
it gets the document as :class:`quizkit.rules.navigate.DocumentFacts` (kind, parsed value, and
its versions, each listed and indexed once by the engine and shared by every rule) and calls
``emit(rule, pointer, message)`` for each problem. A *findings check* (``@findings_check``)
runs after them and also sees their raw findings (the report a version embeds is compared
with what quizkit found). A *fact collector* extracts typed facts (:mod:`quizkit.rules.facts`)
from one document so that a rule's *batch check* (``@batch_check(RULE)``) can see every file
of a run, even when documents were checked in other processes.

The decorators only mark a function with its role, kinds and rule; nothing is registered
at import. :meth:`Registry.collect` builds the one registry from the rule modules listed in
``quizkit/rules/__init__.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from quizkit.catalog.findings import Finding
from quizkit.catalog.rule import Rule
from quizkit.model.service_names import ServiceNames
from quizkit.rules.facts import Fact, Located
from quizkit.rules.navigate import DocumentFacts, VersionFacts

Emit = Callable[[Rule, str, str], None]
RuleCheck = Callable[["DocumentFacts", Emit], None]
FactCollector = Callable[[Any], Iterable["tuple[str, Fact]"]]
BatchCheck = Callable[["Sequence[Located]"], Iterable[Finding]]
RawFinding = tuple[Rule, str, str]
# (the document's versions, the raw findings so far, emit, the service's names or None)
FindingsCheck = Callable[["list[VersionFacts]", "tuple[RawFinding, ...]", Emit,
                          "ServiceNames | None"], None]

#: The attribute a decorator sets: (role, kinds, rules the function reports).
MARK = "__quizkit_check__"
ROLES = ("rule", "findings", "facts", "batch")


@dataclass(frozen=True, slots=True)
class Mark:
    role: str
    kinds: tuple[str, ...]
    rules: tuple[Rule, ...] = ()


def _marker(role: str, kinds: tuple[str, ...], rules: tuple[Rule, ...]) -> Callable[[Any], Any]:
    def mark(fn: Any) -> Any:
        setattr(fn, MARK, Mark(role, kinds, rules))
        return fn

    return mark


def check(rule: Rule, *kinds: str) -> Callable[[RuleCheck], RuleCheck]:
    """Mark the check of ``rule`` on documents of the given kinds (one function per rule)."""
    return _marker("rule", kinds, (rule,))


def findings_check(*kinds: str,
                   rules: tuple[Rule, ...] = ()) -> Callable[[FindingsCheck], FindingsCheck]:
    """Mark a check that also sees the document's raw findings (after the other checks)."""
    return _marker("findings", kinds, rules)


def fact_collector(*kinds: str) -> Callable[[FactCollector], FactCollector]:
    """Mark a collector of cross-file facts for documents of the given kinds: it yields
    ``(pointer, fact)`` pairs; the engine adds the place."""
    return _marker("facts", kinds, ())


def batch_check(*rules: Rule) -> Callable[[BatchCheck], BatchCheck]:
    """Mark a check over the placed facts of every document of a run."""
    return _marker("batch", (), rules)


@dataclass(frozen=True)
class Registry:
    """Every rule and every check, by role and document kind (immutable)."""

    rules: tuple[Rule, ...]
    checks: tuple[tuple[Mark, Callable[..., Any]], ...]
    by_kind: Mapping[tuple[str, str], tuple[Callable[..., Any], ...]]
    batch: tuple[BatchCheck, ...]
    by_key: Mapping[str, Rule]

    @classmethod
    def collect(cls, modules: Sequence[ModuleType]) -> Registry:
        """The rules (:class:`Rule` values) and marked checks of ``modules``, in order."""
        rules: list[Rule] = []
        checks: list[tuple[Mark, Callable[..., Any]]] = []
        for module in modules:
            for value in vars(module).values():
                if isinstance(value, Rule):
                    rules.append(value)
                elif callable(value) and isinstance(getattr(value, MARK, None), Mark):
                    checks.append((getattr(value, MARK), value))
        codes = [r.code for r in rules]
        names = [r.name for r in rules]
        if len(set(codes)) != len(codes) or len(set(names)) != len(names):
            raise ValueError("a rule code or name is declared twice")
        by_kind: dict[tuple[str, str], list[Callable[..., Any]]] = {}
        for mark, fn in checks:
            for kind in mark.kinds:
                by_kind.setdefault((mark.role, kind), []).append(fn)
        return cls(tuple(sorted(rules, key=lambda r: r.code)), tuple(checks),
                   {k: tuple(v) for k, v in by_kind.items()},
                   tuple(fn for mark, fn in checks if mark.role == "batch"),
                   {**{r.code: r for r in rules}, **{r.name: r for r in rules}})

    def of(self, role: str, kind: str) -> tuple[Callable[..., Any], ...]:
        """The checks of one role for documents of ``kind``."""
        return self.by_kind.get((role, kind), ())

    def get(self, code_or_name: str) -> Rule:
        """A rule by code (case-insensitive) or by name. Raises KeyError."""
        key = code_or_name.strip()
        found = self.by_key.get(key.upper()) or self.by_key.get(key.lower())
        if found is None:
            raise KeyError(code_or_name)
        return found
