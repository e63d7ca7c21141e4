"""Small, deterministic documents that follow INTERFACE.md exactly, for the analysis tests.

Every document kind of DESIGN.md can be built here, so the analysis tests do not depend on the
bundled samples or on the corpus generator (they are used too, when present). The builders are
plain dicts; ``write_fixture_corpus`` writes a mixed directory of files of every kind.
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path
from typing import Any

import orjson

MEDIA = ("image", "audio", "video")
TYPES = ("classic", "quiz", "mixed")
DIFFICULTIES = ("easy", "medium", "hard")


def _ts(rng: random.Random, year: int = 2024) -> str:
    return (f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
            f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.000Z")


def _id(rng: random.Random) -> str:
    return f"{rng.getrandbits(96):024x}"


def image(rng: random.Random) -> dict[str, Any]:
    return {"src": f"https://cdn.example/{_id(rng)}.png", "color": "#aabbcc"}


def step(rng: random.Random, question_id: str, position: int, version_id: str | None,
         text_size: int = 40) -> dict[str, Any]:
    payload: dict[str, Any] = {}
    if rng.random() < 0.6:
        payload["media"] = {"type": rng.choice(MEDIA), "src": f"https://cdn.example/{_id(rng)}",
                            "color": "#000000"}
    if rng.random() < 0.3:
        payload["backgroundMedia"] = {"type": rng.choice(MEDIA),
                                      "src": f"https://cdn.example/{_id(rng)}",
                                      "duration": rng.randint(1, 60)}
    if rng.random() < 0.7:
        payload["text"] = "".join(rng.choice("abcdefgh ") for _ in range(text_size))
    if rng.random() < 0.2:
        payload["text"] = ""
    if rng.random() < 0.3:
        payload["caption"] = "caption"
    if rng.random() < 0.3:
        payload["variants"] = ["a", "b", "c"]
    s = {"id": _id(rng), "type": rng.choice(("question", "answer")), "position": position,
         "duration": rng.randint(5, 30), "questionId": question_id, "payload": payload}
    if version_id is not None:
        s["versionId"] = version_id
    return s


def version(rng: random.Random, package_id: str, *, full: bool, rounds: int = 2, themes: int = 2,
            questions: int = 3, steps: int = 2, published: bool = True,
            deleted: bool = False, text_size: int = 40) -> dict[str, Any]:
    """A Version (2.6) with entities; ``full`` adds ``versionId`` to every entity."""
    vid = _id(rng)
    carry = vid if full else None

    def tag(e: dict[str, Any]) -> dict[str, Any]:
        if carry is not None:
            e["versionId"] = carry
        return e

    out_rounds, out_themes, out_questions, out_steps = [], [], [], []
    for r in range(rounds):
        rid = _id(rng)
        out_rounds.append(tag({"id": rid, "name": f"Round {r}", "type": "regular",
                               "position": r}))
        for t in range(themes):
            tid = _id(rng)
            out_themes.append(tag({"id": tid, "name": f"Theme {t}", "description": "d",
                                   "position": t, "roundId": rid}))
            for q in range(questions):
                qid = _id(rng)
                out_questions.append(tag({"id": qid, "type": "simple", "position": q,
                                          "price": 100 * (q + 1), "source": "book",
                                          "themeId": tid}))
                for s in range(steps):
                    out_steps.append(step(rng, qid, s, carry, text_size))
    created = _ts(rng, 2023)
    return {
        "id": vid, "packageId": package_id, "createdAt": created, "updatedAt": _ts(rng, 2024),
        "deletedAt": _ts(rng, 2025) if deleted else None, "published": published,
        "changes": {"categories": [{"categoryId": "c1"}], "name": "changed"},
        "validation": {"results": [{"level": "warning", "entity": "question", "id": "q",
                                    "message": "m"}], "timestamp": 1700000000000},
        "rounds": out_rounds, "themes": out_themes, "questions": out_questions,
        "steps": out_steps,
    }


def author(rng: random.Random, user_id: str, username: str) -> dict[str, Any]:
    return {"id": user_id, "image": image(rng), "verified": True, "email": f"{username}@x.org",
            "emailVerified": True, "username": username, "realname": username.title(),
            "about": "", "role": "user", "banned": False, "banReason": None,
            "banExpiresAt": None, "anonymous": False, "reputation": rng.randint(0, 100),
            "createdAt": _ts(rng, 2022), "updatedAt": _ts(rng, 2023)}


CATEGORIES = {"c1": "History", "c2": "Music", "c3": "Science"}


def package_full(rng: random.Random, *, user_id: str, username: str, versions: int = 2,
                 categories: tuple[str, ...] = ("c1",), deleted: bool = False,
                 size_scale: int = 1, **version_opts: Any) -> dict[str, Any]:
    pid = _id(rng)
    vers = [version(rng, pid, full=True, published=(i == 0), deleted=(i == 2), **version_opts)
            for i in range(versions)]
    size = {k: rng.randint(0, 10_000_000) * size_scale
            for k in ("text", "images", "audio", "video")}
    return {
        "id": pid, "name": f"Package {pid[:6]}",
        "i18n": {"name": "n", "description": "d", "image": image(rng)},
        "description": "A package", "image": image(rng), "type": rng.choice(TYPES),
        "settings": {"multipliers": {"x": 1}, "timers": {"answer": 30}},
        "difficulty": rng.choice(DIFFICULTIES), "rating": round(rng.uniform(0, 5), 2),
        "explicit": False, "verified": rng.random() < 0.5, "createdAt": _ts(rng, 2023),
        "updatedAt": _ts(rng, 2024), "userId": user_id,
        "deletedAt": _ts(rng, 2025) if deleted else None,
        "versions": vers, "user": author(rng, user_id, username),
        "meta": {"updatedAt": _ts(rng, 2024), "packageId": pid, "fingerprint": _id(rng),
                 "starts": rng.randint(0, 5000), "size": size},
        "categories": [{"packageId": pid, "categoryId": c,
                        "category": {"id": c, "name": CATEGORIES[c], "i18n": {"name": c},
                                     "createdAt": _ts(rng, 2020), "emoji": "*",
                                     "color": "#123456"}} for c in categories],
    }


def version_list(rng: random.Random, package_id: str, n: int = 2) -> list[dict[str, Any]]:
    return [version(rng, package_id, full=False, published=(i == 0)) for i in range(n)]


def version_created(rng: random.Random, package_id: str) -> dict[str, Any]:
    v = version(rng, package_id, full=False)
    for k in ("rounds", "themes", "questions", "steps"):
        del v[k]
    return {"version": v, "idMaps": {"rounds": {}, "themes": {}, "questions": {}, "steps": {}}}


def game(rng: random.Random, pkg: dict[str, Any], *, state: str,
         history: int = 2) -> dict[str, Any]:
    """A Game (2.9) of ``pkg`` (a package-full dict); ``state`` is completed|stopped|open."""
    gid = _id(rng)
    reduced = []
    for v in pkg["versions"]:
        rv = {k: v[k] for k in ("id", "packageId", "createdAt", "updatedAt", "deletedAt",
                                "published", "changes", "validation")}
        rv["rounds"] = [{"id": r["id"], "name": r["name"]} for r in v["rounds"]]
        rv["themes"] = [{"id": t["id"], "name": t["name"]} for t in v["themes"]]
        rv["questions"] = [{"id": q["id"], "price": q["price"], "themeId": q["themeId"]}
                           for q in v["questions"]]
        reduced.append(rv)
    p = {k: pkg[k] for k in ("id", "name", "i18n", "description", "image", "type", "settings",
                             "difficulty", "rating", "explicit", "verified", "createdAt",
                             "updatedAt", "userId", "deletedAt")}
    p["versions"] = reduced
    return {
        "id": gid, "name": "Friday game",
        "settings": {"slots": rng.randint(2, 8), "prePlay": False, "teamMode": False},
        "createdAt": _ts(rng, 2024), "userId": _id(rng), "visibility": "private",
        "communicationInviteUrl": "https://chat.example/x", "packageId": pkg["id"],
        "versionId": rng.choice(pkg["versions"])["id"],
        "completedAt": _ts(rng, 2025) if state == "completed" else None,
        "stoppedAt": _ts(rng, 2025) if state == "stopped" else None,
        "history": [{"id": _id(rng), "gameId": gid, "createdAt": _ts(rng, 2025),
                     "duration": rng.randint(60, 3600), "dumpArchiveFileKey": f"dumps/{i}"}
                    for i in range(history)],
        "pkg": p,
    }


def banner_payload(rng: random.Random) -> dict[str, Any]:
    return {"type": "text", "value": "hello", "color": "#ffffff"}


def banner(rng: random.Random, user_id: str, position: int = 0) -> dict[str, Any]:
    return {"id": _id(rng), "createdAt": _ts(rng), "updatedAt": _ts(rng), "userId": user_id,
            "position": position, "payload": banner_payload(rng), "slot": "top",
            "current": position == 0}


def banner_create(rng: random.Random) -> dict[str, Any]:
    return {"slot": "top", "payload": banner_payload(rng), "current": True, "position": 1}


def user_self(rng: random.Random, user_id: str, username: str) -> dict[str, Any]:
    return {
        "user": {"id": user_id, "username": username, "realname": username.title(),
                 "image": image(rng), "about": "hi", "verified": True, "banned": False,
                 "anonymous": False,
                 "socialLinks": [{"provider": "github", "url": "https://github.com/x"}],
                 "membership": {"discord": True}, "banner": banner_payload(rng),
                 "pkgCount": 3, "createdAt": "2021-01-01"},
        "settings": {"language": "en", "pkgsLanguages": ["en", "de"], "userId": user_id},
    }


def user_update(rng: random.Random) -> dict[str, Any]:
    return {"user": {"image": image(rng), "username": "new", "about": "x",
                     "socialLinks": [], "realname": "New"}}


def _dump(path: Path, doc: Any) -> None:
    data = orjson.dumps(doc, option=orjson.OPT_INDENT_2)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(data, mtime=0))
    else:
        path.write_bytes(data)


def _dump_lines(path: Path, docs: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join(orjson.dumps(d) + b"\n" for d in docs)
    path.write_bytes(gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)


def write_fixture_corpus(root: Path, *, packages: int = 6, seed: int = 7,
                         **package_opts: Any) -> dict[str, Any]:
    """Write files of every document kind under ``root``; return the documents by kind.

    Layout: ``packages/*.json`` (one gzipped), ``versions/`` (a version list, a version, a
    version-created), ``games.jsonl``, ``banners.ndjson``, ``users/``.
    """
    rng = random.Random(seed)
    authors = [(_id(rng), f"author{i}") for i in range(3)]
    cats = list(CATEGORIES)
    pkgs = []
    for i in range(packages):
        uid, name = authors[i % len(authors)]
        chosen = tuple(rng.sample(cats, k=i % 3))
        p = package_full(rng, user_id=uid, username=name, versions=1 + i % 3,
                         categories=chosen, deleted=(i == 1), **package_opts)
        pkgs.append(p)
        suffix = ".json.gz" if i == 0 else ".json"
        _dump(root / "packages" / f"pkg-{i:03d}{suffix}", p)
    other_pkg = _id(rng)
    vlist = version_list(rng, other_pkg, 3)
    _dump(root / "versions" / "list.json", vlist)
    single = version(rng, other_pkg, full=False, published=False, deleted=True)
    _dump(root / "versions" / "single.json", single)
    created = version_created(rng, other_pkg)
    _dump(root / "versions" / "created.json", created)
    states = ("completed", "stopped", "open")
    games = [game(rng, pkgs[i % len(pkgs)], state=states[i % 3], history=i % 4)
             for i in range(2 * packages)]
    _dump_lines(root / "games.jsonl", games)
    banners = [banner(rng, authors[0][0], position=i) for i in range(3)]
    _dump_lines(root / "banners.ndjson", banners)
    _dump(root / "users" / "self.json", user_self(rng, authors[0][0], authors[0][1]))
    _dump(root / "users" / "update.json", user_update(rng))
    _dump(root / "users" / "banner-create.json", banner_create(rng))
    _dump(root / "users" / "banner.json", banner(rng, authors[1][0], position=5))
    return {"package-full": pkgs, "version-list": [vlist], "version": [single],
            "version-created": [created], "game": games, "banners": banners,
            "authors": authors}


def test_fixture_corpus_is_deterministic(tmp_path: Path) -> None:
    a = write_fixture_corpus(tmp_path / "a")
    b = write_fixture_corpus(tmp_path / "b")
    assert orjson.dumps(a["package-full"]) == orjson.dumps(b["package-full"])
    files_a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*.*"))
    assert len(files_a) == 15


# --- reading a corpus back in plain Python, for expected values -------------------------------

def iter_files(root: Path) -> list[Path]:
    suffixes = (".json", ".jsonl", ".ndjson")
    out = []
    for p in sorted(Path(root).rglob("*")):
        name = p.name.lower().removesuffix(".gz")
        if p.is_file() and name.endswith(suffixes):
            out.append(p)
    return out


def read_documents(root: Path) -> list[tuple[str, str | None, Any]]:
    """(absolute path, kind, document) for every parsable document under ``root``.

    Kinds come from ``quizkit.model.kinds.detect_kind`` (the validator's detection), so the expected
    values do not depend on the loader's own SQL detection. The elements of a version list are
    returned one by one with kind ``version-list``. Unparsable files and lines are left out.
    """
    from quizkit.model.kinds import detect_kind

    out: list[tuple[str, str | None, Any]] = []
    for p in iter_files(root):
        data = p.read_bytes()
        if p.name.endswith(".gz"):
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError):
                continue
        path = str(p.resolve())
        if p.name.lower().removesuffix(".gz").endswith((".jsonl", ".ndjson")):
            for line in data.splitlines():
                if line.strip():
                    try:
                        doc = orjson.loads(line)
                    except orjson.JSONDecodeError:
                        continue
                    out.append((path, detect_kind(doc), doc))
            continue
        try:
            doc = orjson.loads(data)
        except orjson.JSONDecodeError:
            continue
        kind = detect_kind(doc)
        if isinstance(doc, list):
            out.extend((path, kind, d) for d in doc)
        else:
            out.append((path, kind, doc))
    return out


def nearest_rank(values: list[float], q: float) -> float | None:
    """The q-th percentile by nearest rank: the value at rank ceil(q * n), ascending."""
    import math

    vals = sorted(v for v in values if v is not None)
    if not vals:
        return None
    return vals[max(1, math.ceil(q * len(vals))) - 1]


def current_version(versions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Not deleted first, then published, then the latest createdAt, then the greatest id."""
    if not versions:
        return None

    def key(v: dict[str, Any]) -> tuple:
        return (v.get("deletedAt") is None, v.get("published") is True,
                v.get("createdAt") or "", v.get("id") or "")
    return max(versions, key=key)
