"""Mutations of real documents aimed at the structural rules (shared by the tests that
compare the rules' fast paths with their exact paths)."""

from __future__ import annotations

import copy
import random
from typing import Any

ENTITY_KEYS = ("id", "position", "price", "duration", "roundId", "themeId", "questionId",
               "versionId", "payload", "media", "backgroundMedia", "src", "variants",
               "packageId", "published", "deletedAt", "createdAt", "updatedAt", "validation",
               "results", "entity", "rounds", "themes", "questions", "steps", "versions")
ODD_VALUES: tuple[Any, ...] = (None, True, 0, 1, 2, -1, 2.0, 2.5, "", " ", "x", [], {},
                               [1, 1], ["a", "a"], ["", "b"], {"src": ""}, 1e300)


def _containers(node: Any, out: list) -> list:
    if isinstance(node, dict):
        out.append(node)
        for v in node.values():
            _containers(v, out)
    elif isinstance(node, list):
        out.append(node)
        for v in node:
            _containers(v, out)
    return out


def _existing_strings(node: Any, out: list) -> list:
    if isinstance(node, dict):
        for v in node.values():
            _existing_strings(v, out)
    elif isinstance(node, list):
        for v in node:
            _existing_strings(v, out)
    elif isinstance(node, str):
        out.append(node)
    return out


def mutate(doc: Any, rng: random.Random, count: int | None = None) -> Any:
    """A deep copy of ``doc`` with a few entity-level fields changed."""
    doc = copy.deepcopy(doc)
    nodes = _containers(doc, [])
    strings = _existing_strings(doc, [])[:2000] or ["x"]
    for _ in range(count if count is not None else rng.randint(1, 4)):
        node = rng.choice(nodes)
        if isinstance(node, dict) and node:
            keys = [k for k in node if k in ENTITY_KEYS] or list(node)
            key = rng.choice(keys)
            action = rng.randrange(6)
            if action == 0:
                del node[key]
            elif action == 1:
                node[key] = rng.choice(ODD_VALUES)
            elif action == 2:
                node[key] = rng.choice(strings)  # another id, a name, a time...
            elif action == 3 and isinstance(node[key], (int, float)) and \
                    not isinstance(node[key], bool):
                node[key] = node[key] + rng.choice((1, -1, 0.5, 3))
            elif action == 4 and isinstance(node[key], list) and node[key]:
                lst = node[key]
                i = rng.randrange(len(lst))
                choice = rng.randrange(4)
                if choice == 0:
                    lst.append(copy.deepcopy(lst[i]))  # a duplicate item
                elif choice == 1:
                    del lst[i]
                elif choice == 2:
                    lst.insert(i, rng.choice(ODD_VALUES))
                else:
                    rng.shuffle(lst)
            else:
                node[key] = copy.deepcopy(rng.choice(nodes[: 50])) if nodes else None
        elif isinstance(node, list) and node:
            i = rng.randrange(len(node))
            if rng.random() < 0.5:
                node[i] = rng.choice(ODD_VALUES)
            else:
                node.insert(i, copy.deepcopy(node[i]))
    return doc
