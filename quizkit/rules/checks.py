"""Where structural checks register, and how the engine finds them.

A *document check* looks at one parsed document of a given kind and calls
``emit(rule, pointer, message)`` for each problem. A *fact collector* extracts small,
picklable facts from one document (ids, references) so that *batch checks* can see every file
of a run, even when documents were checked in other processes. A *findings check* runs after
the schema and the document checks and also sees their raw findings: it compares a document's
claims about itself (the validation report a version embeds) with what quizkit found.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from quizkit.findings import Finding
from quizkit.rules.catalog import Rule

if TYPE_CHECKING:
    from quizkit.rules.facts import Fact, Located
    from quizkit.service import ServiceNames

Emit = Callable[[Rule, str, str], None]
DocCheck = Callable[[Any, Emit], None]
FactCollector = Callable[[Any], Iterable["tuple[str, Fact]"]]
BatchCheck = Callable[["Sequence[Located]"], Iterable[Finding]]
RawFinding = tuple[Rule, str, str]
# (document, the raw findings so far, emit, the service's names or None)
FindingsCheck = Callable[[Any, "tuple[RawFinding, ...]", Emit, "ServiceNames | None"], None]

_DOC_CHECKS: dict[str, list[DocCheck]] = defaultdict(list)
_COLLECTORS: dict[str, list[FactCollector]] = defaultdict(list)
_BATCH_CHECKS: list[BatchCheck] = []
_FINDINGS_CHECKS: dict[str, list[FindingsCheck]] = defaultdict(list)


def doc_check(*kinds: str) -> Callable[[DocCheck], DocCheck]:
    """Register a check that runs on every document of the given kinds."""

    def register(fn: DocCheck) -> DocCheck:
        for kind in kinds:
            _DOC_CHECKS[kind].append(fn)
        return fn

    return register


def findings_check(*kinds: str) -> Callable[[FindingsCheck], FindingsCheck]:
    """Register a check that also sees the document's raw findings (after the other checks)."""

    def register(fn: FindingsCheck) -> FindingsCheck:
        for kind in kinds:
            _FINDINGS_CHECKS[kind].append(fn)
        return fn

    return register


def fact_collector(*kinds: str) -> Callable[[FactCollector], FactCollector]:
    """Register a collector of cross-file facts for documents of the given kinds.

    A collector yields ``(pointer, fact)`` pairs; the engine adds path and record.
    """

    def register(fn: FactCollector) -> FactCollector:
        for kind in kinds:
            _COLLECTORS[kind].append(fn)
        return fn

    return register


def batch_check(fn: BatchCheck) -> BatchCheck:
    """Register a check over the facts of every document of a run."""
    _BATCH_CHECKS.append(fn)
    return fn


def doc_checks(kind: str) -> list[DocCheck]:
    return _DOC_CHECKS.get(kind, [])


def findings_checks(kind: str) -> list[FindingsCheck]:
    return _FINDINGS_CHECKS.get(kind, [])


def collectors(kind: str) -> list[FactCollector]:
    return _COLLECTORS.get(kind, [])


def batch_checks() -> list[BatchCheck]:
    return list(_BATCH_CHECKS)
