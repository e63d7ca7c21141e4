"""A package with its versions, and the interface's views of it.

:class:`PackageModel` holds one package: its record fields (2.5), its versions (header fields
of 2.6 plus entities without ``versionId``), author, meta and categories. Its methods render
the documents: ``package-full``, ``version-list``, ``version``, ``version-created`` and the
reduced ``pkg`` of a game.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from quizkit.generate.clock import iso, object_id
from quizkit.generate.outline import Entities, Outline, flatten, renumber, with_version_id
from quizkit.generate.people import Person

# Fields of the package record (2.5) that a version's ``changes`` repeats, in order.
CHANGE_FIELDS = ("id", "i18n", "name", "description", "image", "type", "settings", "difficulty",
                 "rating", "explicit", "verified", "userId", "createdAt", "updatedAt",
                 "deletedAt")

# A validation finding planned for a version: (level, entity, index into that entity's array,
# message). The index is ignored for the entities "package" and "version".
PlannedResult = tuple[str, str, int, str]


@dataclass
class VersionPlan:
    outline: Outline
    created_ms: int
    updated_ms: int
    published: bool = False
    deleted_ms: int | None = None
    results: list[PlannedResult] = field(default_factory=list)
    validated_ms: int | None = None
    changes: dict[str, Any] = field(default_factory=dict)  # overrides of package fields


@dataclass
class Version:
    header: dict[str, Any]
    entities: Entities

    @property
    def id(self) -> str:
        return self.header["id"]


@dataclass
class PackageModel:
    record: dict[str, Any]  # the 2.5 fields except versions
    versions: list[Version]
    author: Person
    meta: dict[str, Any]
    categories: list[dict[str, Any]]

    @property
    def id(self) -> str:
        return self.record["id"]

    def full(self) -> dict[str, Any]:
        """``package-full``: every version with entities carrying ``versionId``."""
        versions = [{**v.header, **with_version_id(v.entities, v.id)} for v in self.versions]
        return {**self.record, "versions": versions, "user": self.author.author_record(),
                "meta": self.meta, "categories": self.categories}

    def version(self, index: int) -> dict[str, Any]:
        """``version``: one version with its entities, no ``versionId`` on them."""
        v = self.versions[index]
        return {**v.header, **v.entities}

    def version_list(self) -> list[dict[str, Any]]:
        """``version-list``: every version with its entities."""
        return [self.version(i) for i in range(len(self.versions))]

    def game_pkg(self) -> dict[str, Any]:
        """A game's ``pkg``: the package record with versions in the reduced game view."""
        versions = []
        for v in self.versions:
            e = v.entities
            versions.append({
                **v.header,
                "rounds": [{"id": r["id"], "name": r["name"]} for r in e["rounds"]],
                "themes": [{"id": t["id"], "name": t["name"]} for t in e["themes"]],
                "questions": [{"id": q["id"], "price": q["price"], "themeId": q["themeId"]}
                              for q in e["questions"]],
            })
        return {**self.record, "versions": versions}

    def version_created(self, rng: random.Random, source: int, ms: int) -> dict[str, Any]:
        """``version-created``: a new version copied from version ``source`` at ``ms``."""
        src = self.versions[source]
        _copy, maps = renumber(src.entities, rng, ms)
        version_id = object_id(rng, ms)
        old_results = src.header["validation"]["results"]
        renamed = {old: new for kind in maps.values() for old, new in kind.items()}
        renamed[src.id] = version_id
        results = [{**r, "id": renamed.get(r["id"], r["id"])} for r in old_results]
        header = {
            "id": version_id,
            "packageId": self.id,
            "createdAt": iso(ms),
            "updatedAt": iso(ms),
            "deletedAt": None,
            "published": False,
            "changes": {**src.header["changes"], "updatedAt": iso(ms)},
            "validation": {"results": results, "timestamp": ms},
        }
        return {"version": header, "idMaps": maps}


def _result(level: str, entity: str, index: int, message: str, package_id: str,
            version_id: str, entities: Entities) -> dict[str, str]:
    if entity == "package":
        target = package_id
    elif entity == "version":
        target = version_id
    else:
        items = entities[entity + "s"]
        target = items[index % len(items)]["id"]
    return {"level": level, "entity": entity, "id": target, "message": message}


def build_package(rng: random.Random, *, fields: dict[str, Any], author: Person,
                  created_ms: int, plans: list[VersionPlan], category_refs: list[dict[str, Any]],
                  meta: dict[str, Any], deleted_ms: int | None = None) -> PackageModel:
    """Assemble a package from its fields and version plans.

    ``fields`` holds name, i18n, description, image, type, settings, difficulty, rating,
    explicit and verified; ``category_refs`` the category records (2.8 ``category``);
    ``meta`` the fingerprint, starts and size (updatedAt and packageId are added here).
    """
    package_id = object_id(rng, created_ms)
    updated_ms = max([created_ms, *(p.updated_ms for p in plans),
                      *(p.deleted_ms for p in plans if p.deleted_ms is not None)])
    if deleted_ms is not None:
        updated_ms = max(updated_ms, deleted_ms)
    record: dict[str, Any] = {
        "id": package_id,
        "name": fields["name"],
        "i18n": fields["i18n"],
        "description": fields["description"],
        "image": fields["image"],
        "type": fields["type"],
        "settings": fields["settings"],
        "difficulty": fields["difficulty"],
        "rating": fields["rating"],
        "explicit": fields["explicit"],
        "verified": fields["verified"],
        "createdAt": iso(created_ms),
        "updatedAt": iso(updated_ms),
        "userId": author.id,
        "deletedAt": None if deleted_ms is None else iso(deleted_ms),
    }
    versions = []
    for plan in plans:
        version_id = object_id(rng, plan.created_ms)
        entities = flatten(plan.outline, rng, plan.created_ms)
        changes: dict[str, Any] = {"categories": [{"categoryId": c["id"]} for c in category_refs]}
        for name in CHANGE_FIELDS:
            changes[name] = record[name]
        changes.update(plan.changes)
        changes["updatedAt"] = iso(plan.updated_ms)
        changes["deletedAt"] = None
        results = [_result(level, entity, index, message, package_id, version_id, entities)
                   for level, entity, index, message in plan.results]
        validated = plan.validated_ms if plan.validated_ms is not None else plan.updated_ms
        header = {
            "id": version_id,
            "packageId": package_id,
            "createdAt": iso(plan.created_ms),
            "updatedAt": iso(plan.updated_ms),
            "deletedAt": None if plan.deleted_ms is None else iso(plan.deleted_ms),
            "published": plan.published,
            "changes": changes,
            "validation": {"results": results, "timestamp": validated},
        }
        versions.append(Version(header, entities))
    categories = [{"packageId": package_id, "categoryId": c["id"], "category": c}
                  for c in category_refs]
    full_meta = {"updatedAt": iso(updated_ms), "packageId": package_id, **meta}
    return PackageModel(record, versions, author, full_meta, categories)


def build_game(rng: random.Random, model: PackageModel, *, version_index: int, name: str,
               creator_id: str, created_ms: int, settings: dict[str, Any], visibility: str,
               invite_url: str, runs: list[tuple[int, int]], completed_ms: int | None,
               stopped_ms: int | None) -> dict[str, Any]:
    """A game (2.9) on one version of ``model``.

    ``runs`` are the history entries as (start ms, duration in seconds).
    """
    game_id = object_id(rng, created_ms)
    history = []
    for start_ms, duration in runs:
        entry_id = object_id(rng, start_ms)
        history.append({"id": entry_id, "gameId": game_id, "createdAt": iso(start_ms),
                        "duration": duration,
                        "dumpArchiveFileKey": f"games/{game_id}/dumps/{entry_id}.tar.zst"})
    return {
        "id": game_id,
        "name": name,
        "settings": settings,
        "createdAt": iso(created_ms),
        "userId": creator_id,
        "visibility": visibility,
        "communicationInviteUrl": invite_url,
        "packageId": model.id,
        "versionId": model.versions[version_index].id,
        "completedAt": None if completed_ms is None else iso(completed_ms),
        "stoppedAt": None if stopped_ms is None else iso(stopped_ms),
        "history": history,
        "pkg": model.game_pkg(),
    }
