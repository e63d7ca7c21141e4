"""Regenerate the structural-rule cases of this directory from the valid samples.

Each case is a valid sample, trimmed to a small package where that keeps it readable, with one
deliberate fault; ``manifest.json.txt`` says which rule must fire and where. Run from anywhere:

    python samples/invalid/rules/generate.py
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent.parent
CASES: list[dict] = []
#: Pointers known only once a case is built (placeholder → pointer).
CASES_POINTERS: dict[str, str] = {}


def load(name: str) -> dict:
    return json.loads((SAMPLES / name).read_text(encoding="utf-8"))


def small_package() -> dict:
    """The full sample package cut to its first version, one theme per round, two questions
    per theme and their steps, so that each case stays short."""
    pkg = load("package-full.json")
    v = pkg["versions"][0]
    themes = [t for t in v["themes"] if t["position"] == min(
        x["position"] for x in v["themes"] if x["roundId"] == t["roundId"])]
    keep_t = {t["id"] for t in themes}
    questions = []
    for t in themes:
        qs = sorted((q for q in v["questions"] if q["themeId"] == t["id"]),
                    key=lambda q: q["position"])[:2]
        questions += qs
    keep_q = {q["id"] for q in questions}
    v["themes"] = themes
    v["questions"] = questions
    v["steps"] = [s for s in v["steps"] if s["questionId"] in keep_q]
    v["validation"]["results"] = [r for r in v["validation"]["results"]
                                  if r["entity"] in ("version", "round") or r["id"] in keep_t]
    pkg["versions"] = [v]
    return pkg


def version_view(version: dict) -> dict:
    """A full-view version as the single-version endpoint returns it (no versionId)."""
    v = copy.deepcopy(version)
    for coll in ("rounds", "themes", "questions", "steps"):
        for item in v[coll]:
            item.pop("versionId", None)
    return v


def case(file: str, rule: str, pointer: str, what: str, kind: str | None = None,
         record: int | None = None) -> Callable:
    """Build a case with ``make`` and list it; ``record``: the JSON Lines record at fault."""
    def register(make: Callable[[], object]) -> Callable:
        doc = make()
        path = HERE / file
        if file.endswith(".jsonl"):
            path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in doc),
                            encoding="utf-8")
        else:
            path.write_text(json.dumps(doc, ensure_ascii=False, indent=2) + "\n",
                            encoding="utf-8")
        entry = {"file": file, "what": what, "rule": rule, "pointer": pointer, "kind": kind}
        if record is not None:
            entry["record"] = record
        CASES.append(entry)
        return make
    return register


V0 = "/versions/0"


@case("theme-unknown-round.json", "unknown-round", f"{V0}/themes/0/roundId",
      "A theme names a round id that the version does not hold.")
def _():
    p = small_package()
    p["versions"][0]["themes"][0]["roundId"] = "69079d1b0000000000dead01"
    return p


@case("question-unknown-theme.json", "unknown-theme", f"{V0}/questions/1/themeId",
      "A question names a theme id that the version does not hold.")
def _():
    p = small_package()
    p["versions"][0]["questions"][1]["themeId"] = "69079d1b0000000000dead02"
    return p


@case("step-unknown-question.json", "unknown-question", f"{V0}/steps/0/questionId",
      "A step names a question id that the version does not hold.")
def _():
    p = small_package()
    p["versions"][0]["steps"][0]["questionId"] = "69079d1b0000000000dead03"
    return p


@case("meta-other-package.json", "package-id-mismatch", "/meta/packageId",
      "meta.packageId names another package.")
def _():
    p = small_package()
    p["meta"]["packageId"] = "69079d1bff4122a96cc07b08"
    return p


@case("category-link-mismatch.json", "category-id-mismatch", "/categories/1/category/id",
      "A category link embeds a different category than its categoryId names.")
def _():
    p = small_package()
    p["categories"][1]["category"]["id"] = p["categories"][0]["categoryId"]
    return p


@case("question-other-version.json", "version-id-mismatch", f"{V0}/questions/2/versionId",
      "In the full view, a question carries the id of another version.")
def _():
    p = small_package()
    p["versions"][0]["questions"][2]["versionId"] = "6939478f05d3bcc38fde7d5c"
    return p


@case("game-other-package.json", "game-package-mismatch", "/packageId",
      "A game's packageId differs from its embedded pkg.id.")
def _():
    g = load("game.json")
    g["packageId"] = "69079d1bff4122a96cc07b08"
    return g


@case("game-unknown-version.json", "game-version-missing", "/versionId",
      "A game's versionId is none of its pkg.versions.")
def _():
    g = load("game.json")
    g["versionId"] = "69b529dd6ad1e77407d850db"
    return g


@case("game-history-other-game.json", "history-game-mismatch", "/history/1/gameId",
      "A game's history entry names another game.")
def _():
    g = load("game.json")
    g["history"][1]["gameId"] = "696a8b54a6a39cf95865d119"
    return g


@case("package-other-author.json", "author-mismatch", "/user/id",
      "The embedded author record is another user than the package's userId.")
def _():
    p = small_package()
    p["user"]["id"] = "678e8b9ce298918501f9ab97"
    return p


@case("step-duplicate-id.json", "duplicate-id", f"{V0}/steps/1/id",
      "Two steps of one version share an id.")
def _():
    p = small_package()
    steps = p["versions"][0]["steps"]
    steps[1]["id"] = steps[0]["id"]
    return p


@case("round-duplicate-position.json", "duplicate-position", f"{V0}/rounds/1/position",
      "Both rounds of the version are at position 0.")
def _():
    p = small_package()
    p["versions"][0]["rounds"][1]["position"] = 0
    return p


@case("question-position-gap.json", "position-gap", f"{V0}/questions/1/position",
      "The questions of a theme are at positions 0 and 3.")
def _():
    p = small_package()
    p["versions"][0]["questions"][1]["position"] = 3
    return p


@case("banner-updated-before-created.json", "updated-before-created", "/updatedAt",
      "A banner was updated a day before it was created.")
def _():
    b = load("banner.json")
    b["updatedAt"] = "2025-12-14T09:04:12.001Z"
    return b


@case("game-completed-before-created.json", "state-before-created", "/completedAt",
      "A game completed (offset +03:00) before it was created.")
def _():
    g = load("game.json")
    g["completedAt"] = "2026-01-16T21:30:00.000+03:00"
    return g


@case("game-history-before-game.json", "history-before-game", "/history/0/createdAt",
      "A game's first history entry predates the game.")
def _():
    g = load("game.json")
    g["history"][0]["createdAt"] = "2026-01-15T19:05:30.118Z"
    return g


@case("game-completed-and-stopped.json", "completed-and-stopped", "/stoppedAt",
      "A game is both completed and stopped.")
def _():
    g = load("game.json")
    g["stoppedAt"] = "2026-01-16T21:12:40.000Z"
    return g


@case("package-without-versions.json", "empty-package", "/versions",
      "A package with no versions.")
def _():
    p = small_package()
    p["versions"] = []
    return p


@case("version-without-rounds.json", "empty-version", "/rounds",
      "A single version with no rounds, themes, questions or steps.", kind="version")
def _():
    v = version_view(small_package()["versions"][0])
    for coll in ("rounds", "themes", "questions", "steps"):
        v[coll] = []
    v["validation"]["results"] = []
    return v


@case("round-without-themes.json", "empty-round", f"{V0}/rounds/2",
      "A third round that no theme belongs to.")
def _():
    p = small_package()
    rounds = p["versions"][0]["rounds"]
    rounds.append({**rounds[1], "id": "69079d1b0000000000beef01", "name": "Final",
                   "position": 2})
    return p


@case("theme-without-questions.json", "empty-theme", f"{V0}/themes/2",
      "A second theme of the first round with no questions.")
def _():
    p = small_package()
    themes = p["versions"][0]["themes"]
    themes.append({**themes[0], "id": "69079d1b0000000000beef02", "name": "Island capitals",
                   "position": 1})
    return p


@case("question-without-steps.json", "empty-question", f"{V0}/questions/0",
      "A question whose steps were all lost.")
def _():
    p = small_package()
    v = p["versions"][0]
    qid = v["questions"][0]["id"]
    v["steps"] = [s for s in v["steps"] if s["questionId"] != qid]
    return p


@case("question-fractional-price.json", "fractional-count", f"{V0}/questions/0/price",
      "A question's price is 100.5.")
def _():
    p = small_package()
    p["versions"][0]["questions"][0]["price"] = 100.5
    return p


@case("question-duplicate-price.json", "duplicate-price", f"{V0}/questions/1/price",
      "The two questions of a theme both cost 100.")
def _():
    p = small_package()
    qs = p["versions"][0]["questions"]
    qs[1]["price"] = qs[0]["price"]
    return p


def _first_step_with(p: dict, key: str) -> int:
    steps = p["versions"][0]["steps"]
    return next(i for i, s in enumerate(steps) if s["payload"].get(key))


@case("step-media-without-src.json", "media-without-src", "{media_src}",
      "A step's image has an empty src.")
def _():
    p = small_package()
    i = _first_step_with(p, "media")
    p["versions"][0]["steps"][i]["payload"]["media"]["src"] = ""
    CASES_POINTERS["{media_src}"] = f"{V0}/steps/{i}/payload/media/src"
    return p


@case("step-empty-variant.json", "empty-variant", "{empty_variant}",
      "An answer variant is an empty string.")
def _():
    p = small_package()
    i = _first_step_with(p, "variants")
    p["versions"][0]["steps"][i]["payload"]["variants"][1] = ""
    CASES_POINTERS["{empty_variant}"] = f"{V0}/steps/{i}/payload/variants/1"
    return p


@case("step-duplicate-variant.json", "duplicate-variant", "{dup_variant}",
      "Two answer variants are the same city.")
def _():
    p = small_package()
    i = _first_step_with(p, "variants")
    variants = p["versions"][0]["steps"][i]["payload"]["variants"]
    variants[2] = variants[0]
    CASES_POINTERS["{dup_variant}"] = f"{V0}/steps/{i}/payload/variants/2"
    return p


@case("validation-unknown-round.json", "unknown-validation-target",
      f"{V0}/validation/results/1/id",
      "The version's validation report is about a round it no longer holds.")
def _():
    p = small_package()
    p["versions"][0]["validation"]["results"][1]["id"] = "69079d1b0000000000dead04"
    return p


@case("version-published-deleted.json", "published-deleted", f"{V0}/published",
      "A deleted version still marked published.")
def _():
    p = small_package()
    p["versions"][0]["published"] = True
    return p


@case("author-ban-expiry-not-banned.json", "ban-expiry-without-ban", "/user/banExpiresAt",
      "The author is not banned but has a ban expiry date.")
def _():
    p = small_package()
    p["user"]["banExpiresAt"] = "2026-05-01T00:00:00.000Z"
    return p


@case("versions-conflicting.jsonl", "conflicting-duplicate", "",
      "The same version twice in one run, its first round renamed in the second copy.",
      record=2)
def _():
    v = version_view(small_package()["versions"][0])
    w = copy.deepcopy(v)
    w["rounds"][0]["name"] = "Capitals of Europe"
    return [v, w]


@case("versions-identical.jsonl", "identical-duplicate", "",
      "The same version twice in one run, identical.",
      record=2)
def _():
    v = version_view(small_package()["versions"][0])
    return [v, v]


@case("game-version-not-exported.jsonl", "game-version-not-exported", "/versionId",
      "A game played with a version that the run's export of its package lacks.",
      record=2)
def _():
    return [small_package(), load("game.json")]


@case("banners-two-current.jsonl", "multiple-current-banners", "/current",
      "Two current banners of one user in the profile slot.",
      record=2)
def _():
    lines = [json.loads(x) for x in (SAMPLES / "banners.jsonl").read_text().splitlines()
             if x.strip()]
    lines[0]["current"] = True
    return lines


@case("user-banner-not-current.jsonl", "current-banner-mismatch", "/user/banner",
      "A profile shows a banner that is not the user's current banner record.",
      record=1)
def _():
    user = load("user-self.json")
    user["user"]["banner"] = {"type": "text", "value": "Hello", "color": "#ffffff"}
    return [user, load("banner.json")]


@case("user-pkgcount-stale.jsonl", "pkg-count-mismatch", "/user/pkgCount",
      "A profile counts no packages, but the run holds one by that user.",
      record=1)
def _():
    user = load("user-self.json")
    user["user"]["pkgCount"] = 0
    return [user, small_package()]


def main() -> None:
    for c in CASES:
        c["pointer"] = CASES_POINTERS.get(c["pointer"], c["pointer"])
    (HERE / "manifest.json.txt").write_text(json.dumps(CASES, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
