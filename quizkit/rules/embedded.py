"""Checks of the validation report every version embeds, against what quizkit finds.

The service validates a version itself and stores the result in the version's ``validation``
block. These checks compare that claim with quizkit's own findings in the same version (the
raw findings of the schema and of the structural checks, at the rules' default severities)
and with the version itself. Levels and entities are read in quizkit's names in any case, or
in the service's own names from a profile's ``[service]`` table; a report with a level that
cannot be read is not judged.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from quizkit.catalog.findings import Severity, json_text
from quizkit.catalog.rule import rule
from quizkit.model.entities import COLLECTIONS, VERSION_KINDS, VersionSite
from quizkit.model.service_names import DEFAULT_NAMES, ServiceNames
from quizkit.rules.checks import Emit, RawFinding, findings_check
from quizkit.rules.navigate import VersionFacts
from quizkit.rules.version_index import VersionIndex

GROUP = "service"

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)


def epoch_ms(value: Any) -> int | None:
    """An RFC 3339 date-time as epoch milliseconds (floored); None if it is not one."""
    if type(value) is not str or len(value) < 20 or value[10:11] not in ("T", "t"):
        return None
    text = value[:-1] + "+00:00" if value[-1] in "zZ" else value
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return None
    return (parsed - EPOCH) // _MILLISECOND


def _quizkit_errors(site: VersionSite, raw: tuple[RawFinding, ...]) -> list[RawFinding]:
    """quizkit's errors inside a version, leaving out those about its validation report, in
    document order (array indexes compared as numbers), so that the first one named in a
    message is the same in every run: python-jsonschema does not always report a document's
    errors in the same order from one process to the next."""
    base, own = site.base, f"{site.base}/validation"
    out = []
    for r, pointer, message in raw:
        if r.severity < Severity.ERROR:
            continue
        if pointer == own or pointer.startswith(own + "/"):
            continue
        if not base or pointer == base or pointer.startswith(base + "/"):
            out.append((r, pointer, message))
    out.sort(key=_in_document_order)
    return out


def _in_document_order(finding: RawFinding) -> tuple:
    rule_, pointer, message = finding
    steps = tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in pointer.split("/"))
    return steps, rule_.code, message


def _ids_by_kind(site: VersionSite) -> dict[str, set[str]]:
    """The ids a version holds, per entity kind, for the collections its view carries."""
    out: dict[str, set[str]] = {}
    if site.package_id is not None:
        out["package"] = {site.package_id}
    if site.version_id is not None:
        out["version"] = {site.version_id}
    for collection, entity in COLLECTIONS.items():
        items = site.version.get(collection)
        if type(items) is list:
            out[entity] = {i["id"] for i in items if type(i) is dict and type(i.get("id")) is str}
    return out


def _claims(site: VersionSite, results: list, raw: tuple[RawFinding, ...],
            names: ServiceNames) -> tuple[list[RawFinding], list[int]] | None:
    """quizkit's errors in the version and the indexes of the results the report claims as
    errors; None when a result's level cannot be read (the claim cannot be judged)."""
    levels = [names.read_level(r.get("level")) if type(r) is dict else None for r in results]
    if None in levels:
        return None
    return _quizkit_errors(site, raw), [i for i, level in enumerate(levels) if level == "error"]


def _reports(versions: list[VersionFacts]) -> Iterator[tuple[VersionSite, VersionIndex, dict]]:
    """Every version that embeds a report (an object; a missing or mistyped report is the
    schema's finding), with its index and the report."""
    for v in versions:
        validation = v.version.get("validation")
        if type(validation) is not dict:
            continue
        yield VersionSite(v.base, v.version, v.package_id), v.index, validation


def _results(versions: list[VersionFacts]) -> Iterator[tuple[VersionSite, VersionIndex, list]]:
    for site, index, validation in _reports(versions):
        results = validation.get("results")
        if type(results) is list:
            yield site, index, results


def _held(site: VersionSite, index: VersionIndex, entity: str) -> set[str] | None:
    """``_ids_by_kind(site).get(entity)``, from the version's shared index when it is clean
    (the common case: no set is built per check)."""
    if entity == "package":
        return {site.package_id} if site.package_id is not None else None
    if entity == "version":
        return {site.version_id} if site.version_id is not None else None
    collection = _COLLECTION_OF.get(entity)
    if collection is None:
        return None
    items = site.version.get(collection)
    if type(items) is not list:
        return None
    col = index.get(collection)
    if col is not None and col.idset is not None:
        return col.idset
    return {i["id"] for i in items if type(i) is dict and type(i.get("id")) is str}


_COLLECTION_OF = {entity: collection for collection, entity in COLLECTIONS.items()}


STALE = rule(
    "V001", "stale-validation", Severity.WARNING,
    "A version's embedded validation claims no error, but quizkit finds errors in it.",
    "Each version carries the service's own validation report. When that report lists no "
    "result of level `error` (or no result at all) while quizkit finds errors inside the "
    "version, the report is stale (the version changed since) or missing (never run). The "
    "finding names quizkit's first error; findings about the report itself do not count.",
    bad='{"id": "v1", "validation": {"results": [], "timestamp": 1762724272914}, '
        '"questions": [{"price": -100, ...}], ...}',
    good='{"id": "v1", "validation": {"results": [{"level": "error", "entity": "question", '
         '"id": "q1", "message": "negative price"}], ...}, ...}',
    group=GROUP,
)


@findings_check(*VERSION_KINDS, rules=(STALE,))
def stale_validation(versions: list[VersionFacts], raw: tuple[RawFinding, ...], emit: Emit,
                     names: ServiceNames | None) -> None:
    if all(r.severity < Severity.ERROR for r, _pointer, _message in raw):
        return  # no error of quizkit's in the document: no report can be stale
    for site, _index, results in _results(versions):
        claims = _claims(site, results, raw, names or DEFAULT_NAMES)
        if claims is None:
            continue
        errors, claimed = claims
        if errors and not claimed:
            rule_, pointer, _ = errors[0]
            more = f" and {len(errors) - 1} more" if len(errors) > 1 else ""
            emit(STALE, f"{site.base}/validation",
                 f"stale or missing validation: the report claims no error, but quizkit finds "
                 f"{len(errors)} error{'s' if len(errors) > 1 else ''} in this version "
                 f"({rule_.name} at {pointer or '/'}{more})")


UNCONFIRMED = rule(
    "V002", "unconfirmed-validation-error", Severity.INFO,
    "A version's embedded validation claims errors that quizkit does not find.",
    "The reverse of `stale-validation`: the report lists errors, quizkit finds none in the "
    "version. The service usually checks things quizkit cannot (a version without a final "
    "round), so this check is off unless the profile's `[service]` table sets "
    "`confirm-errors = true` (for a service whose validation checks no more than quizkit).",
    bad='{"validation": {"results": [{"level": "error", ...}], ...}, ...}   # a clean version',
    good='{"validation": {"results": [], ...}, ...}',
    group=GROUP,
)


@findings_check(*VERSION_KINDS, rules=(UNCONFIRMED,))
def unconfirmed_validation_error(versions: list[VersionFacts], raw: tuple[RawFinding, ...],
                                 emit: Emit, names: ServiceNames | None) -> None:
    if names is None or not names.confirm_errors:
        return
    for site, _index, results in _results(versions):
        claims = _claims(site, results, raw, names)
        if claims is None:
            continue
        errors, claimed = claims
        if claimed and not errors:
            emit(UNCONFIRMED, f"{site.base}/validation/results/{claimed[0]}",
                 f"the report claims {len(claimed)} error{'s' if len(claimed) > 1 else ''}, "
                 "but quizkit finds none in this version")


ENTITY_MISMATCH = rule(
    "V003", "validation-entity-mismatch", Severity.WARNING,
    "A validation result names an id of another kind of entity than its `entity` says.",
    "A result's `id` exists in the version, but as another kind of entity: a `round` result "
    "whose id is a theme's. The report points the author at the wrong place. (An id that "
    "names nothing in the version is `unknown-validation-target`.) Collections a view does "
    "not carry (steps in a game, every entity of a created version) are not checked.",
    bad='{"themes": [{"id": "t1", ...}], "validation": {"results": [{"entity": "round", '
        '"id": "t1", ...}], ...}, ...}',
    good='{"themes": [{"id": "t1", ...}], "validation": {"results": [{"entity": "theme", '
         '"id": "t1", ...}], ...}, ...}',
    group=GROUP,
)


@findings_check(*VERSION_KINDS, rules=(ENTITY_MISMATCH,))
def validation_entity_mismatch(versions: list[VersionFacts], raw: tuple[RawFinding, ...],
                               emit: Emit, names: ServiceNames | None) -> None:
    for site, index, results in _results(versions):
        _check_entities(site, index, results, emit, names or DEFAULT_NAMES)


def _check_entities(site: VersionSite, index: VersionIndex, results: list, emit: Emit,
                    names: ServiceNames) -> None:
    ids = None  # every kind's ids, built only for a result that names an id not held
    for i, r in enumerate(results):
        if type(r) is not dict or type(r.get("id")) is not str:
            continue
        entity = names.read_entity(r.get("entity"))
        if entity is None:
            continue
        held = _held(site, index, entity)
        if held is None or r["id"] in held:
            continue
        if ids is None:
            ids = _ids_by_kind(site)
        other = sorted(kind for kind, held in ids.items() if r["id"] in held)
        if other:
            emit(ENTITY_MISMATCH, f"{site.base}/validation/results/{i}/entity",
                 f"the result names {entity} {json_text(r['id'])}, but that id is the "
                 f"{' and '.join(other)} of this version")


OLDER = rule(
    "V004", "validation-older-than-version", Severity.INFO,
    "The embedded validation's timestamp is older than the version's `updatedAt`.",
    "The report was made before the version last changed, so it may not describe it. The "
    "interface gives no unit for `timestamp`; quizkit reads it as epoch milliseconds (the "
    "unit of the service's exports) and compares with `updatedAt` to the millisecond.",
    bad='{"updatedAt": "2025-11-09T21:37:52.914Z", "validation": {"timestamp": '
        '1762700000000, ...}, ...}',
    good='{"updatedAt": "2025-11-09T21:37:52.914Z", "validation": {"timestamp": '
         '1762724272914, ...}, ...}',
    group=GROUP,
)


@findings_check(*VERSION_KINDS, rules=(OLDER,))
def validation_older_than_version(versions: list[VersionFacts], raw: tuple[RawFinding, ...],
                                  emit: Emit, names: ServiceNames | None) -> None:
    for site, _index, validation in _reports(versions):
        _check_timestamp(site, validation, emit)


def _check_timestamp(site: VersionSite, validation: dict, emit: Emit) -> None:
    stamp = validation.get("timestamp")
    updated = epoch_ms(site.version.get("updatedAt"))
    if type(stamp) not in (int, float) or updated is None or stamp >= updated:
        return
    emit(OLDER, f"{site.base}/validation/timestamp",
         f"the report ({stamp:.0f} ms) is older than the version's updatedAt "
         f"({json_text(site.version['updatedAt'])}, {updated} ms) by "
         f"{(updated - stamp) / 1000:.3f} s")
