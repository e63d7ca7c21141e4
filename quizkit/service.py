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

A profile's ``[service]`` table renames levels and entities to the service's enum values.

>>> from quizkit.engine import check_document
>>> doc = {"id": "v1", "packageId": "p1", "rounds": [{"id": "r1", "name": 5}]}
>>> kind, raw, _ = check_document(doc, "version")
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

from quizkit import model
from quizkit.configfiles import ConfigError, read_toml
from quizkit.findings import Finding, Report, Severity
from quizkit.model import VERSION_ENTITIES

LEVELS = ("error", "warning", "info")
ENTITIES = ("package", "version", *(e.name for e in VERSION_ENTITIES))
#: A version's entity collections and the entity kind of their items.
COLLECTIONS = {e.key: e.name for e in VERSION_ENTITIES}
#: The document kinds that hold versions.
VERSION_KINDS = model.VERSION_KINDS
#: The options of a profile's ``[service]`` table.
SERVICE_KEYS = {"level", "entity", "confirm-errors"}


class FindingLike(Protocol):
    """What the mapping reads of a finding (:class:`quizkit.findings.Finding` fits)."""

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


# --- names: quizkit's levels and entities <-> the service's enum values ----------------------

@dataclass(frozen=True, slots=True)
class ServiceNames:
    """How the service spells levels and entities (a profile's ``[service]`` table).

    Pairs are (quizkit name, service value); a name not listed is written as quizkit's own.
    ``confirm_errors`` turns on the ``unconfirmed-validation-error`` check (see
    docs/service.md): only useful when the service checks no more than quizkit does.
    """

    level: tuple[tuple[str, str], ...] = ()
    entity: tuple[tuple[str, str], ...] = ()
    confirm_errors: bool = False

    def level_value(self, severity: Severity | str) -> str:
        name = str(severity)
        return dict(self.level).get(name, name)

    def entity_value(self, entity: str) -> str:
        return dict(self.entity).get(entity, entity)

    def read_level(self, value: Any) -> str | None:
        """quizkit's level for a value found in an embedded report, or None if unknown."""
        return _read(value, self.level, LEVELS)

    def read_entity(self, value: Any) -> str | None:
        """quizkit's entity kind for a value found in an embedded report, or None."""
        return _read(value, self.entity, ENTITIES)


def _read(value: Any, pairs: tuple[tuple[str, str], ...], names: tuple[str, ...]) -> str | None:
    # The profile's own spelling wins; otherwise quizkit's names, in any case.
    if type(value) is not str:
        return None
    for name, service_value in pairs:
        if value == service_value:
            return name
    lower = value.lower()
    return lower if lower in names else None


DEFAULT_NAMES = ServiceNames()


class ServiceTableError(ConfigError):
    """A ``[service]`` table that cannot be used (a configuration error)."""


def names_from_table(table: Any, enums: Any = None, where: str = "profile") -> ServiceNames:
    """A :class:`ServiceNames` from a ``[service]`` table (and the profile's ``[enums]``).

    When the profile also closes ``validationLevel``/``validationEntity``, every mapped value
    must be one of them, so the blocks quizkit writes validate against the profiled schema.
    """
    if not isinstance(table, dict):
        raise ServiceTableError(f"{where}: [service] must be a table")
    unknown = set(table) - SERVICE_KEYS
    if unknown:
        raise ServiceTableError(f"{where}: unknown key(s) in [service]: "
                                f"{', '.join(sorted(unknown))} (known: level, entity, "
                                "confirm-errors)")
    enums = enums if isinstance(enums, dict) else {}
    level = _pairs(table.get("level", {}), LEVELS, "level", where,
                   enums.get("validationLevel"))
    entity = _pairs(table.get("entity", {}), ENTITIES, "entity", where,
                    enums.get("validationEntity"))
    confirm = table.get("confirm-errors", False)
    if not isinstance(confirm, bool):
        raise ServiceTableError(f"{where}: service.confirm-errors must be true or false")
    return ServiceNames(level, entity, confirm)


def _pairs(mapping: Any, names: tuple[str, ...], key: str, where: str,
           allowed: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(mapping, dict):
        raise ServiceTableError(f"{where}: service.{key} must be a table, e.g. "
                                f"{key} = {{{names[0]} = \"{names[0].upper()}\"}}")
    out = []
    for name, value in mapping.items():
        if name not in names:
            raise ServiceTableError(f"{where}: service.{key}.{name}: unknown {key} "
                                    f"(known: {', '.join(names)})")
        if not isinstance(value, str) or not value:
            raise ServiceTableError(f"{where}: service.{key}.{name} must be a non-empty string")
        if isinstance(allowed, list) and value not in allowed:
            enum = "validationLevel" if key == "level" else "validationEntity"
            raise ServiceTableError(f"{where}: service.{key}.{name} = {value!r} is not one of "
                                    f"enums.{enum} ({', '.join(map(str, allowed))})")
        out.append((name, value))
    values = [v for _, v in out]
    if len(set(values)) != len(values):
        raise ServiceTableError(f"{where}: service.{key} maps two names to one value")
    return tuple(sorted(out))


def load_names(path: str) -> ServiceNames:
    """The ``[service]`` table of a TOML profile (quizkit's own names when it has none).

    Raises :class:`~quizkit.configfiles.ConfigError` (the file cannot be read safely, see
    :mod:`quizkit.configfiles`) or :class:`ServiceTableError`.
    """
    data = read_toml(path, "profile")
    if "service" not in data:
        return DEFAULT_NAMES
    return names_from_table(data["service"], data.get("enums"), f"profile {path}")


# --- versions and entities of a document ----------------------------------------------------

@dataclass(frozen=True, slots=True)
class VersionSite:
    """One version in its document: where it is, the version, and its package's id."""

    base: str
    version: dict
    package_id: str | None

    @property
    def version_id(self) -> str | None:
        vid = self.version.get("id")
        return vid if type(vid) is str else None


def _str(obj: Any, key: str) -> str | None:
    v = obj.get(key) if type(obj) is dict else None
    return v if type(v) is str else None


def _list(obj: Any, key: str) -> list:
    v = obj.get(key) if type(obj) is dict else None
    return v if type(v) is list else []


def package_base(kind: str) -> str | None:
    """Pointer to the package of a document kind (``None``: the kind holds no package)."""
    return {"package-full": "", "game": "/pkg"}.get(kind)


def versions_of(kind: str, doc: Any) -> list[VersionSite]:
    """Every version (an object) of a document, in document order."""
    if kind == "package-full":
        pkg_id = _str(doc, "id")
        items = [(f"/versions/{i}", v) for i, v in enumerate(_list(doc, "versions"))]
    elif kind == "game":
        pkg = doc.get("pkg") if type(doc) is dict else None
        pkg_id = _str(pkg, "id")
        items = [(f"/pkg/versions/{i}", v) for i, v in enumerate(_list(pkg, "versions"))]
    elif kind == "version-list":
        pkg_id = None
        items = list(zip((f"/{i}" for i in range(len(doc))), doc, strict=True)) \
            if type(doc) is list else []
    elif kind == "version":
        pkg_id, items = None, [("", doc)]
    elif kind == "version-created":
        pkg_id, items = None, [("/version", doc.get("version") if type(doc) is dict else None)]
    else:
        return []
    return [VersionSite(base, v, pkg_id if pkg_id is not None else _str(v, "packageId"))
            for base, v in items if type(v) is dict]


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
        items = _list(site.version, tokens[0])
        index = int(tokens[1])
        if index < len(items) and (eid := _str(items[index], "id")) is not None:
            return COLLECTIONS[tokens[0]], eid
    if site.version_id is not None:
        return "version", site.version_id
    return "package", site.package_id or ""


def resolve(kind: str, doc: Any, pointer: str,
            sites: Sequence[VersionSite] | None = None) -> list[tuple[VersionSite, str, str]]:
    """(version, entity, id) for every version block a finding at ``pointer`` belongs in."""
    sites = versions_of(kind, doc) if sites is None else sites
    for site in sites:
        rest = _inside(pointer, site.base)
        if rest is not None:
            found = entity_at(site, rest)
            return [] if found is None else [(site, *found)]
    pkg = package_base(kind)
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
class Outline:
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


def outline(kind: str, doc: Any, pointers: Iterable[str]) -> Outline:
    """The :class:`Outline` of a document of ``kind``, for findings at ``pointers``."""
    sites = versions_of(kind, doc)
    index = {id(s): i for i, s in enumerate(sites)}
    targets = {p: tuple((index[id(site)], entity, eid)
                        for site, entity, eid in resolve(kind, doc, p, sites))
               for p in pointers}
    return Outline(tuple((s.package_id, s.version_id) for s in sites), targets)


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
    from quizkit.rules import catalog

    try:
        return catalog.get(finding.code or finding.rule).group in CROSS_FILE_GROUPS
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


__all__ = ["COLLECTIONS", "DEFAULT_NAMES", "ENTITIES", "LEVELS", "VERSION_KINDS",
           "Outline", "ServiceNames", "ServiceTableError", "SimpleFinding", "VersionSite",
           "blocks_for", "blocks_for_document", "entity_at", "iter_blocks", "load_names",
           "merge_blocks", "names_from_table", "now_ms", "outline", "raw_findings", "resolve",
           "versions_of"]
