"""Synthetic packages, games and users drawn from a seeded random source.

Every object is drawn from its own ``random.Random`` seeded with a string such as
``"7:package:12"``: string seeds are hashed with SHA-512 by ``random``, so the output does not
depend on ``PYTHONHASHSEED``, on the number of worker processes, or on generation order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from quizkit.generate import texts as c
from quizkit.generate.clock import DAY, HOUR, MINUTE, iso, ms_of, object_id
from quizkit.generate.outline import Outline
from quizkit.generate.package import PackageModel, VersionPlan, build_game, build_package
from quizkit.generate.people import Person, banner_create, banner_record

EPOCH = ms_of("2022-06-01T00:00:00.000Z")
CDN = "https://media.quizkit.example"
MEDIA = (("image", "webp"), ("image", "jpg"), ("audio", "mp3"), ("video", "mp4"))
MEDIA_WEIGHTS = (45, 15, 25, 15)


def stream(seed: int, *parts: object) -> random.Random:
    """An independent random source for one object of the corpus."""
    return random.Random(":".join(str(p) for p in (seed, *parts)))


@dataclass
class Doc:
    """One generated document: where it goes, its kind, and the document itself."""

    name: str  # path relative to the corpus directory, without compression suffix
    kind: str
    body: Any
    batch: str | None = None  # JSON Lines batch it belongs to with --jsonl


def categories(seed: int) -> list[dict[str, Any]]:
    rng = stream(seed, "categories")
    out = []
    for name, ru, emoji in c.CATEGORIES:
        ms = EPOCH - rng.randint(30, 400) * DAY
        out.append({"id": object_id(rng, ms), "name": name, "i18n": {"name": ru},
                    "createdAt": iso(ms), "emoji": emoji, "color": rng.choice(c.COLORS)})
    return out


def person(seed: int, index: int) -> Person:
    rng = stream(seed, "user", index)
    first, last = rng.choice(c.FIRST_NAMES), rng.choice(c.LAST_NAMES)
    username = f"{first.lower()}_{last[:4].lower()}{index}"
    created = EPOCH - rng.randint(0, 500) * DAY + rng.randint(0, DAY)
    banned = rng.random() < 0.04
    links = [{"provider": p, "url": f"https://{p}.example/{username}"}
             for p in rng.sample(c.PROVIDERS, rng.randint(0, 3))]
    langs = rng.sample(c.LANGUAGES, rng.randint(1, 2))
    p = Person(
        id=object_id(rng, created), username=username, realname=f"{first} {last}",
        email=f"{username}@example.com",
        image={"src": f"{CDN}/avatars/{username}.webp", "color": rng.choice(c.COLORS)},
        about=rng.choice(c.ABOUTS), created_ms=created,
        updated_ms=created + rng.randint(1, 900) * DAY,
        verified=rng.random() < 0.3, email_verified=rng.random() < 0.9,
        role="moderator" if rng.random() < 0.03 else "user", reputation=rng.randint(0, 5000),
        banned=banned, ban_reason="Spam in public packages" if banned else None,
        ban_expires_ms=(created + 1000 * DAY) if banned and rng.random() < 0.5 else None,
        anonymous=rng.random() < 0.05, social_links=links,
        membership={k: rng.random() < 0.5 for k in c.PLATFORMS},
        language=rng.choice(c.LANGUAGES),
        pkgs_languages=langs[0] if len(langs) == 1 else langs,
    )
    slots_used: dict[str, int] = {}
    n_banners = rng.randint(0, 3)
    current = rng.randrange(n_banners) if n_banners else -1
    for b in range(n_banners):
        slot = rng.choice(("profile", "header"))
        position = slots_used.get(slot, 0)
        slots_used[slot] = position + 1
        kind = rng.choice(("text", "emoji", "gradient"))
        value = {"text": "Quiz nights every Friday", "emoji": rng.choice(["🎉", "🌍", "🎵"]),
                 "gradient": f"linear-gradient(90deg, {rng.choice(c.COLORS)}, "
                             f"{rng.choice(c.COLORS)})"}[kind]
        ms = p.created_ms + rng.randint(1, 600) * DAY
        p.banners.append(banner_record(
            object_id(rng, ms), p.id, ms, ms + rng.choice((0, rng.randint(1, 30) * DAY)),
            position, {"type": kind, "value": value, "color": rng.choice(c.COLORS)}, slot,
            b == current))
    return p


def user_documents(seed: int, index: int, pkg_count: int) -> list[Doc]:
    """The profile, sometimes an update body, and the banners of user ``index``."""
    p = person(seed, index)
    rng = stream(seed, "user-docs", index)
    docs = [Doc(f"users/{p.id}.json", "user-self", p.user_self(pkg_count), "users")]
    if rng.random() < 0.25:
        docs.append(Doc(f"users/{p.id}.update.json", "user-update", p.user_update(), "users"))
    for b in p.banners:
        docs.append(Doc(f"banners/{b['id']}.json", "banner", b, "banners"))
        if rng.random() < 0.25:
            docs.append(Doc(f"banners/{b['id']}.create.json", "banner-create",
                            banner_create(b), "banners"))
    return docs


class _Outliner:
    """Draws the rounds, themes, questions and steps of one package's versions."""

    def __init__(self, rng: random.Random, topic: str, username: str) -> None:
        self.rng = rng
        self.pool = c.TOPICS[topic]
        self.cdn = f"{CDN}/u/{username[:3]}{rng.getrandbits(16):04x}"
        self.base_price = rng.choice((100, 100, 100, 200))
        self.backgrounds = [{"type": "audio", "src": f"{self.cdn}/bg/{rng.getrandbits(40):010x}"
                             f".mp3", "duration": rng.randint(30, 240)} for _ in range(3)]

    def media(self) -> dict[str, str]:
        rng = self.rng
        kind, ext = rng.choices(MEDIA, MEDIA_WEIGHTS)[0]
        return {"type": kind, "src": f"{self.cdn}/{rng.getrandbits(48):012x}.{ext}",
                "color": rng.choice(c.COLORS)}

    def question(self, qtype: str, price: int) -> dict[str, Any]:
        rng = self.rng
        text, answer = rng.choice(self.pool["qa"])
        media = self.media()
        choice = rng.random() < 0.3
        variants = [answer]
        for _, other in rng.sample(self.pool["qa"], 3):
            if other not in variants:  # two questions of a pool may share an answer
                variants.append(other)
        if choice:
            rng.shuffle(variants)
        steps = [{"type": "question", "duration": rng.choice((20, 30, 30, 45, 60)),
                  "payload": {"media": media, "backgroundMedia": rng.choice(self.backgrounds),
                              "text": text, "caption": "" if rng.random() < 0.5 else
                              f"{media['type'].capitalize()} for {price}",
                              "variants": variants if choice else []}}]
        if rng.random() < 0.2:
            steps.append({"type": "hint", "duration": 10, "payload": {
                "media": self.media(), "backgroundMedia": self.backgrounds[0],
                "text": f"Starts with \"{answer[0]}\".", "caption": "Hint", "variants": []}})
        steps.append({"type": "answer", "duration": rng.choice((5, 8, 10)), "payload": {
            "media": self.media(), "backgroundMedia": self.backgrounds[1], "text": answer,
            "caption": f"Answer: {answer}", "variants": []}})
        source = f"https://en.wikipedia.org/wiki/{answer.replace(' ', '_')}"
        return {"type": qtype, "price": price, "source": source, "steps": steps}

    def theme(self, n_questions: int, final: bool = False) -> dict[str, Any]:
        rng = self.rng
        name = rng.choice(self.pool["themes"])
        if final:
            questions = [self.question("final", rng.choice((0, 500, 1000)))]
        else:
            questions = [self.question(rng.choices(("regular", "auction", "secret"),
                                                   (80, 10, 10))[0], self.base_price * (i + 1))
                         for i in range(n_questions)]
        return {"name": name, "description": f"{name}: {len(questions)} questions.",
                "questions": questions}

    def outline(self) -> Outline:
        rng = self.rng
        rounds: Outline = []
        for r in range(rng.choice((1, 2, 2, 3))):
            n_questions = rng.choice((3, 3, 4, 5))
            rounds.append({"name": f"Round {r + 1}", "type": "regular", "themes": [
                self.theme(n_questions) for _ in range(rng.choice((2, 2, 3, 3)))]})
        if rng.random() < 0.85:
            rounds.append({"name": "Final", "type": "final",
                           "themes": [self.theme(1, final=True) for _ in range(rng.randint(3, 5))]})
        return rounds

    def revise(self, outline: Outline) -> Outline:
        """The next version: one theme rewritten, sometimes one theme added."""
        rng = self.rng
        revised = [{**r, "themes": list(r["themes"])} for r in outline]
        regular = [r for r in revised if r["type"] == "regular"]
        target = rng.choice(regular)
        i = rng.randrange(len(target["themes"]))
        target["themes"][i] = self.theme(len(target["themes"][i]["questions"]))
        if rng.random() < 0.3:
            target["themes"].append(self.theme(len(target["themes"][0]["questions"])))
        return revised


def _plans(rng: random.Random, outliner: _Outliner, created: int) -> list[VersionPlan]:
    n = rng.choice((2, 2, 3, 3, 3, 4))
    draft_last = rng.random() < 0.5
    plans: list[VersionPlan] = []
    outline = outliner.outline()
    start = created
    for k in range(n):
        if k:
            outline = outliner.revise(outline)
            start = plans[-1].updated_ms + rng.randint(1, 40) * DAY + rng.randint(0, DAY)
        plans.append(VersionPlan(outline, start, start + rng.randint(0, 9) * DAY
                                 + rng.randint(1, DAY)))
    published = n - 2 if draft_last else n - 1
    for k, plan in enumerate(plans):
        plan.published = k == published
        if k < published and rng.random() < 0.4:
            plan.deleted_ms = plans[k + 1].created_ms
        for _ in range(rng.randint(0, 4)):
            entity = rng.choice(list(c.VALIDATION_MESSAGES))
            level, message = rng.choice(c.VALIDATION_MESSAGES[entity])
            plan.results.append((level, entity, rng.randrange(1000), message))
    return plans


def package_model(seed: int, index: int, author: Person,
                  cats: list[dict[str, Any]]) -> PackageModel:
    rng = stream(seed, "package", index)
    topic = rng.choice(list(c.TOPICS))
    outliner = _Outliner(rng, topic, author.username)
    created = EPOCH + rng.randint(0, 1000) * DAY + rng.randint(0, DAY)
    plans = _plans(rng, outliner, created)
    name = rng.choice(c.TOPICS[topic]["names"])
    color = rng.choice(c.COLORS)
    cover = {"src": f"{outliner.cdn}/cover-{rng.getrandbits(32):08x}.webp", "color": color}
    fields = {
        "name": name,
        "i18n": {"name": f"{name} (RU)", "description": f"Викторина: {name}.",
                 "image": cover},
        "description": f"{name}: {len(plans[-1].outline)} rounds of {topic} questions.",
        "image": cover,
        "type": rng.choices(("public", "private", "unlisted"), (70, 20, 10))[0],
        "settings": {"multipliers": {"final": rng.choice((1, 2, 3))},
                     "timers": {"question": rng.choice((20, 30, 45)), "answer": 8}},
        "difficulty": rng.choice(("easy", "medium", "medium", "hard")),
        "rating": round(rng.uniform(2.5, 5.0), 1),
        "explicit": rng.random() < 0.05,
        "verified": rng.random() < 0.2,
    }
    steps = sum(len(q["steps"]) for r in plans[-1].outline for t in r["themes"]
                for q in t["questions"])
    meta = {"fingerprint": f"sha256:{rng.getrandbits(256):064x}",
            "starts": int(rng.paretovariate(1.2) * 10) - 10,
            "size": {"text": steps * rng.randint(40, 120),
                     "images": steps * rng.randint(100_000, 400_000),
                     "audio": steps * rng.randint(0, 300_000),
                     "video": steps * rng.randint(0, 2_000_000)}}
    primary = cats[c.CATEGORY_OF_TOPIC[topic]]
    extra = [cats[6]] if rng.random() < 0.3 else []
    deleted = None
    if rng.random() < 0.03:
        deleted = plans[-1].updated_ms + rng.randint(1, 30) * DAY
    return build_package(rng, fields=fields, author=author, created_ms=created, plans=plans,
                         category_refs=[primary, *extra], meta=meta, deleted_ms=deleted)


def game_for(seed: int, index: int, g: int, model: PackageModel, players: int) -> dict[str, Any]:
    """Game ``g`` on a live version of ``model``; its creator is one of ``players`` users."""
    rng = stream(seed, "game", index, g)
    live = [k for k, v in enumerate(model.versions) if v.header["deletedAt"] is None]
    k = rng.choice(live)
    start = ms_of(model.versions[k].header["createdAt"]) + rng.randint(1, 60) * DAY
    runs = []
    at = start + rng.randint(1, 30) * MINUTE
    for _ in range(rng.randint(0, 3)):
        duration = rng.randint(5 * 60, 2 * 3600)
        runs.append((at, duration))
        at += duration * 1000 + rng.randint(1, 60) * MINUTE
    state = rng.choices(("completed", "stopped", "running"), (70, 15, 15))[0]
    end = at + rng.randint(0, HOUR)
    creator = person(seed, rng.randrange(players)).id
    name = rng.choice(c.GAME_NAMES).format(n=rng.randint(1, 40))
    return build_game(
        rng, model, version_index=k, name=name, creator_id=creator, created_ms=start,
        settings={"slots": rng.randint(2, 12), "prePlay": rng.random() < 0.5,
                  "teamMode": rng.random() < 0.3},
        visibility=rng.choice(("public", "private")),
        invite_url=f"https://discord.gg/{rng.getrandbits(40):010x}", runs=runs,
        completed_ms=end if state == "completed" else None,
        stopped_ms=end if state == "stopped" else None)


def package_documents(seed: int, index: int, author_index: int, players: int,
                      cats: list[dict[str, Any]]) -> list[Doc]:
    """The documents of package ``index``: the full view, games, and some version views."""
    model = package_model(seed, index, person(seed, author_index), cats)
    rng = stream(seed, "package-docs", index)
    docs = [Doc(f"packages/{model.id}.json", "package-full", model.full())]
    for g in range(rng.choices((0, 1, 2), (30, 50, 20))[0]):
        game = game_for(seed, index, g, model, players)
        docs.append(Doc(f"games/{game['id']}.json", "game", game, "games"))
    if rng.random() < 0.05:
        docs.append(Doc(f"versions/{model.id}.versions.json", "version-list",
                        model.version_list()))
    if rng.random() < 0.2:
        k = rng.randrange(len(model.versions))
        docs.append(Doc(f"versions/{model.versions[k].id}.json", "version", model.version(k)))
    if rng.random() < 0.1:
        last = len(model.versions) - 1
        ms = ms_of(model.versions[last].header["updatedAt"]) + rng.randint(1, 30) * DAY
        created = model.version_created(rng, last, ms)
        docs.append(Doc(f"versions/{created['version']['id']}.created.json", "version-created",
                        created))
    return docs
