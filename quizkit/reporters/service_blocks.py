"""Findings as the service's own validation blocks, so a pipeline can post them back.

Every version of the interface carries ``validation: {results: [{level, entity, id, message}],
timestamp}``. This module turns quizkit's findings into blocks of exactly that shape, one per
version that quizkit checked::

    {"packageId": "p1", "versionId": "v1",
     "validation": {"results": [{"level": "error", "entity": "round", "id": "r7",
                                 "message": "missing required field 'type'"}],
                    "timestamp": 1767225600000}}

The mapping (docs/service.md has the table):

* ``level`` is the finding's severity (``error``, ``warning``, ``info``).
* ``entity``/``id`` come from the finding's JSON Pointer: a pointer into ``rounds/N``,
  ``themes/N``, ``questions/N`` or ``steps/N`` of a version names that entity and its id; any
  other pointer into a version (``changes``, ``published``, the version itself) names the
  version. Findings outside every version name the *package* (``package-full`` fields,
  ``meta``, ``categories``, a game's ``pkg``) and go into the block of every version of that
  package; in a version list or a created version they name each version. A game's own fields
  (outside ``pkg``) concern no package version and are left out.
* Findings inside a version's own ``validation`` are about the report that the new block
  replaces, and are left out of it; so are cross-file findings (a version exported twice),
  which are about a set of exports rather than the version.
* ``timestamp`` is the run's time in epoch milliseconds (the unit the service's samples use
  and quizkit reads embedded timestamps in).

A profile's ``[service]`` table renames levels and entities to the service's enum values
(:mod:`quizkit.model.service_names`).

>>> from quizkit.checks.engine import check_document
>>> from quizkit.model.schemas import SchemaBook
>>> doc = {"id": "v1", "packageId": "p1", "rounds": [{"id": "r1", "name": 5}]}
>>> kind, raw, _ = check_document(doc, "version", SchemaBook())
>>> blocks = blocks_for_document(kind, doc, raw_findings(raw), timestamp=0)
>>> blocks[0]["versionId"], blocks[0]["validation"]["results"][0]["entity"]
('v1', 'round')
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from quizkit.catalog.findings import Finding, Report, Severity
from quizkit.model.entities import COLLECTIONS, VersionSite, package_pointer, version_sites
from quizkit.model.service_names import DEFAULT_NAMES, ServiceNames
from quizkit.rules import REGISTRY


class FindingLike(Protocol):
    """What the mapping reads of a finding (:class:`quizkit.catalog.findings.Finding` fits)."""

    pointer: str
    severity: Severity
    message: str


@dataclass(frozen=True, slots=True)
class SimpleFinding:
    """A located-free finding, e.g. from the engine's raw ``(rule, pointer, message)``."""

    pointer: str
    severity: Severity
    message: str


def raw_findings(raw: Iterable[tuple[Any, str, str]]) -> list[SimpleFinding]:
    """The engine's raw findings ``(rule, pointer, message)`` as mappable findings."""
    return [SimpleFinding(pointer, rule.severity, message) for rule, pointer, message in raw]


# --- versions and entities of a document ----------------------------------------------------

def _inside(pointer: str, base: str) -> str | None:
    """The rest of ``pointer`` below ``base`` (``""`` for base itself), or None if outside."""
    if not base:
        return pointer
    if pointer == base:
        return ""
    if pointer.startswith(base) and pointer[len(base)] == "/":
        return pointer[len(base):]
    return None


def entity_at(site: VersionSite, rest: str) -> tuple[str, str] | None:
    """(entity, id) that a pointer below a version concerns; None for the version's
    ``validation`` (the report a new block replaces).

    An entity without a string id falls back to the version, then to the package.
    """
    tokens = rest.split("/")[1:] if rest else []
    if tokens and tokens[0] == "validation":
        return None
    if len(tokens) >= 2 and tokens[0] in COLLECTIONS and tokens[1].isdigit():
        items = site.version.get(tokens[0])
        index = int(tokens[1])
        if type(items) is list and index < len(items) and type(items[index]) is dict \
                and type(eid := items[index].get("id")) is str:
            return COLLECTIONS[tokens[0]], eid
    if site.version_id is not None:
        return "version", site.version_id
    return "package", site.package_id or ""


def resolve(kind: str, doc: Any, pointer: str,
            sites: Sequence[VersionSite] | None = None) -> list[tuple[VersionSite, str, str]]:
    """(version, entity, id) for every version block a finding at ``pointer`` belongs in."""
    sites = version_sites(kind, doc) if sites is None else sites
    for site in sites:
        rest = _inside(pointer, site.base)
        if rest is not None:
            found = entity_at(site, rest)
            return [] if found is None else [(site, *found)]
    pkg = package_pointer(kind)
    if pkg is not None:
        if _inside(pointer, pkg) is None:
            return []  # a game's own fields: no package version is concerned
        return [(s, "package", s.package_id or "") for s in sites]
    return [(s, *(entity_at(s, "") or ("version", ""))) for s in sites]


# --- blocks -------------------------------------------------------------------------------------

def now_ms() -> int:
    """The current time in epoch milliseconds (the blocks' timestamp unit)."""
    return time.time_ns() // 1_000_000


def blocks_for_document(kind: str, doc: Any, findings: Iterable[FindingLike], timestamp: int,
                        names: ServiceNames = DEFAULT_NAMES) -> list[dict]:
    """One block per version of the document, with the findings that concern it.

    Versions without findings get a block with no results: that too is a report. Identical
    results (the same package-level finding reached twice) are written once.
    """
    findings = list(findings)
    return outline(kind, doc, {f.pointer for f in findings}).blocks(findings, timestamp, names)


@dataclass(frozen=True, slots=True)
class VersionOutline:
    """What the blocks of one document need, taken in the engine's one pass: each version's
    package and version id, and the (version, entity, id) each finding's pointer concerns.
    Small and picklable: the document itself is not kept, nor read again."""

    versions: tuple[tuple[str | None, str | None], ...]
    targets: dict[str, tuple[tuple[int, str, str], ...]]

    def blocks(self, findings: Iterable[FindingLike], timestamp: int,
               names: ServiceNames = DEFAULT_NAMES) -> list[dict]:
        results: list[list[dict]] = [[] for _ in self.versions]
        seen: list[set[tuple]] = [set() for _ in self.versions]
        for f in findings:
            for i, entity, eid in self.targets.get(f.pointer, ()):
                result = {"level": names.level_value(f.severity),
                          "entity": names.entity_value(entity), "id": eid, "message": f.message}
                key = tuple(result.values())
                if key not in seen[i]:
                    seen[i].add(key)
                    results[i].append(result)
        return [{"packageId": package_id, "versionId": version_id,
                 "validation": {"results": r, "timestamp": timestamp}}
                for (package_id, version_id), r in zip(self.versions, results, strict=True)]


def outline(kind: str, doc: Any, pointers: Iterable[str]) -> VersionOutline:
    """The :class:`VersionOutline` of a document of ``kind``, for findings at ``pointers``."""
    sites = version_sites(kind, doc)
    index = {id(s): i for i, s in enumerate(sites)}
    targets = {p: tuple((index[id(site)], entity, eid)
                        for site, entity, eid in resolve(kind, doc, p, sites))
               for p in pointers}
    return VersionOutline(tuple((s.package_id, s.version_id) for s in sites), targets)


def merge_blocks(blocks: Iterable[dict]) -> list[dict]:
    """One block per (packageId, versionId): a version exported in several files (a full
    package and a version list) gets the union of its results, in order of first appearance.
    Blocks of a version without an id are kept apart."""
    out: dict[Any, dict] = {}
    seen: dict[Any, set[tuple]] = defaultdict(set)
    for n, block in enumerate(blocks):
        key = (block["packageId"], block["versionId"]) if block["versionId"] is not None else n
        if key not in out:
            out[key] = {**block, "validation": {**block["validation"], "results": []}}
        merged = out[key]["validation"]["results"]
        for r in block["validation"]["results"]:
            rk = tuple(r.values())
            if rk not in seen[key]:
                seen[key].add(rk)
                merged.append(r)
    return list(out.values())


#: Rule groups whose findings are about a set of exports, not about one version's content
#: (cross-file checks: a version exported twice, a game whose version is not exported).
CROSS_FILE_GROUPS = frozenset({"batch"})


def _cross_file(finding: Finding) -> bool:
    try:
        return REGISTRY.get(finding.code or finding.rule).group in CROSS_FILE_GROUPS
    except KeyError:
        return False


def _by_document(findings: Iterable[Finding]) -> dict[tuple[str, int | None], list[Finding]]:
    grouped: dict[tuple[str, int | None], list[Finding]] = defaultdict(list)
    for f in findings:
        if not _cross_file(f):
            grouped[(f.path, f.record)].append(f)
    return grouped


def iter_blocks(report: Report, *, timestamp: int,
                names: ServiceNames = DEFAULT_NAMES) -> Iterator[dict]:
    """Blocks for every version of every document of a run, per document, unmerged, from the
    outlines the engine took in its pass (``Report.outlines``, in input order) and the
    report's findings: no input is read again."""
    grouped = _by_document(report.findings)
    for path, record, found in report.outlines:
        yield from found.blocks(grouped.get((path, record), []), timestamp, names)


def blocks_for(report: Report, *, timestamp: int | None = None,
               names: ServiceNames = DEFAULT_NAMES) -> list[dict]:
    """The blocks of a whole run, one per version (see :func:`merge_blocks`).

    >>> import quizkit
    >>> report = quizkit.validate(["samples/version.json"])
    >>> [b["validation"]["results"] for b in blocks_for(report, timestamp=0)]
    [[]]
    """
    ts = now_ms() if timestamp is None else timestamp
    return merge_blocks(iter_blocks(report, timestamp=ts, names=names))


__all__ = [
    "SimpleFinding",
    "VersionOutline",
    "blocks_for",
    "blocks_for_document",
    "entity_at",
    "iter_blocks",
    "merge_blocks",
    "now_ms",
    "outline",
    "raw_findings",
    "resolve",
]
