"""Regenerate the embedded-report cases of this directory from the valid samples.

Each case is a valid sample with one deliberate fault in, or about, a version's embedded
``validation`` report; ``manifest.json.txt`` says which rule must fire and where. Run:

    python samples/invalid/service/generate.py
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent.parent
CASES: list[tuple[str, str, str, str, str, Callable[[dict], None]]] = []


def load(name: str) -> dict:
    return json.loads((SAMPLES / name).read_text(encoding="utf-8"))


def case(file: str, source: str, kind: str, rule: str, pointer: str, what: str
         ) -> Callable[[Callable[[dict], None]], Callable[[dict], None]]:
    def register(fn: Callable[[dict], None]) -> Callable[[dict], None]:
        CASES.append((file, source, kind, rule, pointer, what, fn))
        return fn
    return register


@case("package-stale-validation.json", "package-full.json", "package-full", "stale-validation",
      "/versions/1/validation",
      "The second version's report claims no error, but one of its questions has a negative "
      "price.")
def _(doc: dict) -> None:
    doc["versions"][1]["questions"][3]["price"] = -200


@case("game-stale-validation.json", "game.json", "game", "stale-validation",
      "/pkg/versions/2/validation",
      "In a game, the third version's report claims no error, but a question's price is a "
      "string.")
def _(doc: dict) -> None:
    doc["pkg"]["versions"][2]["questions"][0]["price"] = "100"


@case("version-created-stale-validation.json", "version-created.json", "version-created",
      "stale-validation", "/version/validation",
      "A created version's report claims no error, but `published` is the string \"yes\".")
def _(doc: dict) -> None:
    doc["version"]["published"] = "yes"


@case("version-validation-theme-as-round.json", "version.json", "version",
      "validation-entity-mismatch", "/validation/results/2/entity",
      "A result says `round` but its id is a theme of the version.")
def _(doc: dict) -> None:
    doc["validation"]["results"][2]["entity"] = "round"


@case("package-validation-question-as-step.json", "package-full.json", "package-full",
      "validation-entity-mismatch", "/versions/1/validation/results/1/entity",
      "A result says `step` but its id is a question of the version.")
def _(doc: dict) -> None:
    doc["versions"][1]["validation"]["results"][1]["entity"] = "step"


@case("version-list-validation-older.json", "version-list.json", "version-list",
      "validation-older-than-version", "/2/validation/timestamp",
      "The third version's report is an hour older than the version's `updatedAt`.")
def _(doc: dict) -> None:
    doc[2]["validation"]["timestamp"] -= 3_600_000


def main() -> None:
    manifest = []
    for file, source, kind, rule, pointer, what, fn in CASES:
        doc = load(source)
        fn(doc)
        (HERE / file).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n",
                                 encoding="utf-8")
        manifest.append({"file": file, "what": what, "rule": rule, "pointer": pointer,
                         "kind": kind})
    (HERE / "manifest.json.txt").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
