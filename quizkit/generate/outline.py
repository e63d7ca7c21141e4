"""Outlines: the content of a version before ids, positions and references are assigned.

An outline is a list of rounds, each a plain dict ``{"name", "type", "themes": [...]}``; a theme
is ``{"name", "description", "questions": [...]}``; a question ``{"type", "price", "source",
"steps": [...]}``; a step ``{"type", "duration", "payload"}``. The bundled samples write their
outlines by hand, the corpus generator draws them from :mod:`quizkit.generate.texts`.
:func:`flatten` turns an outline into the interface's four entity arrays.
"""

from __future__ import annotations

import random
from typing import Any

from quizkit.generate.clock import object_id
from quizkit.model.entities import VERSION_ENTITIES

Outline = list[dict[str, Any]]
Entities = dict[str, list[dict[str, Any]]]


def flatten(outline: Outline, rng: random.Random, ms: int) -> Entities:
    """Assign ids, positions (0..n-1 among siblings) and parent references.

    The entities carry no ``versionId``; :func:`with_version_id` adds it for the full view.
    """
    rounds: list[dict[str, Any]] = []
    themes: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    for r_pos, r in enumerate(outline):
        round_id = object_id(rng, ms)
        rounds.append({"id": round_id, "name": r["name"], "type": r["type"], "position": r_pos})
        for t_pos, t in enumerate(r["themes"]):
            theme_id = object_id(rng, ms)
            themes.append({"id": theme_id, "name": t["name"], "description": t["description"],
                           "position": t_pos, "roundId": round_id})
            for q_pos, q in enumerate(t["questions"]):
                question_id = object_id(rng, ms)
                questions.append({"id": question_id, "type": q["type"], "position": q_pos,
                                  "price": q["price"], "source": q["source"],
                                  "themeId": theme_id})
                for s_pos, s in enumerate(q["steps"]):
                    steps.append({"id": object_id(rng, ms), "type": s["type"], "position": s_pos,
                                  "duration": s["duration"], "questionId": question_id,
                                  "payload": s["payload"]})
    return {"rounds": rounds, "themes": themes, "questions": questions, "steps": steps}


def with_version_id(entities: Entities, version_id: str) -> Entities:
    """The full view's entities: each one also carries ``versionId``."""
    return {name: [{**e, "versionId": version_id} for e in items]
            for name, items in entities.items()}


def renumber(entities: Entities, rng: random.Random, ms: int) -> tuple[Entities, dict]:
    """A copy of ``entities`` with fresh ids, and the ``idMaps`` from old to new ids.

    This is what creating a new version does: it copies the current one.
    """
    maps: dict[str, dict[str, str]] = {}
    for entity in VERSION_ENTITIES:
        maps[entity.key] = {e[entity.id_field]: object_id(rng, ms) for e in entities[entity.key]}
    out: Entities = {}
    for entity in VERSION_ENTITIES:
        renamed = maps[entity.key]
        parents = maps[entity.parent] if entity.parent else {}
        out[entity.key] = [
            {**e, entity.id_field: renamed[e[entity.id_field]],
             **({entity.parent_field: parents[e[entity.parent_field]]}
                if entity.parent_field else {})}
            for e in entities[entity.key]]
    return out, maps
