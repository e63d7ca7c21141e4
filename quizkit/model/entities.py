"""The shape of the service's exports, in one place: document kinds and their entities.

Everything that needs to know what an export looks like reads it from here: the kind
detector (:mod:`quizkit.model.kinds`, which ``validate`` and ``load`` both use, the latter on the
fields DuckDB finds in each document, so the two cannot differ), the walkers of the
structural checks (:mod:`quizkit.rules.navigate`), and the service's entity names. The JSON
Schemas (``quizkit/schemas/documents/<kind>.json``) hold the full detail of every field; a
test checks that the field lists here match them.

How a kind is recognised (:func:`quizkit.model.kinds.detect_kind`), from the document's top-level
fields that some kind lists (:data:`RECOGNISED`) and whose value is not ``null``:

* an object kind is *eligible* when the document has at least half of the kind's required
  top-level fields (a request body, which requires none, when it has one of its fields);
* of the eligible kinds, the one with the fewest fields it does not list wins (counting the
  fields inside ``user`` and ``settings``, which differ between kinds: see
  :attr:`Kind.inner`), then the one with the fewest missing required fields. A tie, or no
  eligible kind, is no decision: the finding names the closest kinds and the ``--kind`` to
  pass (``{}`` is a valid body of both requests).
* A top-level array is a ``version-list`` when it is empty or when one of its elements is an
  object with one of the list's :attr:`Kind.marks`.
* A line of a JSON Lines file is a document like a whole file: a line holding an array is a
  version list too (``load`` splits it into its elements as it splits a ``.json`` file's).

So a record that lacks some of its fields is still recognised (and its schema findings name
what is missing), a valid request body is recognised, and fields no kind lists (an added
field) never decide anything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from quizkit.catalog.pointers import escape_token


@dataclass(frozen=True)
class Entity:
    """A collection of records inside a document.

    ``key`` is the array's field name, ``id_field`` the field that names one record,
    ``parent_field`` the field that refers to the parent record (in ``parent``, the key of
    the parent collection, ``None`` for the enclosing document).
    """

    key: str
    name: str
    id_field: str = "id"
    parent_field: str | None = None
    parent: str | None = None


#: The entity collections of a version, in containment order (a theme names its round...).
ROUNDS = Entity("rounds", "round")
THEMES = Entity("themes", "theme", parent_field="roundId", parent="rounds")
QUESTIONS = Entity("questions", "question", parent_field="themeId", parent="themes")
STEPS = Entity("steps", "step", parent_field="questionId", parent="questions")
VERSION_ENTITIES: tuple[Entity, ...] = (ROUNDS, THEMES, QUESTIONS, STEPS)
#: A version's entity collections and the entity kind of their items (``rounds`` → ``round``).
COLLECTIONS: dict[str, str] = {e.key: e.name for e in VERSION_ENTITIES}

#: A game's reduced view of a version (2.9): rounds and themes carry only id and name, questions
#: only id, price and themeId, and there are no steps.
GAME_VERSION_ENTITIES: tuple[Entity, ...] = (ROUNDS, Entity("themes", "theme"), QUESTIONS)

#: Records of other documents: a full package's categories, a game's history.
CATEGORIES = Entity("categories", "category", id_field="categoryId", parent_field="packageId")
HISTORY = Entity("history", "history entry", parent_field="gameId")

#: The fields every version has, whatever the view (the list views add the entity arrays).
VERSION_HEAD = ("id", "packageId", "createdAt", "updatedAt", "deletedAt", "published",
                "changes", "validation")
_VERSION = (*VERSION_HEAD, *(e.key for e in VERSION_ENTITIES))

#: Views of a version: "full" (package-full, entities carry versionId), "list" (version-list,
#: version), "created" (version-created, no entity arrays), "game" (a game's pkg.versions).
View = Literal["full", "list", "created", "game"]
#: Which view of a version wins when several documents of one load hold it, first to last
#: (after the later file and the later document): a package's full export, then a version
#: as listed, then the version a creation returned (which has no entities).
VERSION_PRECEDENCE: tuple[View, ...] = ("full", "list", "created")


@dataclass(frozen=True)
class Kind:
    """One document kind: how it is recognised, its schema, and where its versions are.

    ``fields`` are the top-level fields of the document (of each element, for an array
    kind); ``required`` those its schema requires. ``versions`` is the path to the
    document's versions: to an array of them when ``many_versions``, to the one version
    otherwise (``()`` is the document itself). ``version_entities`` are the collections in
    each of those versions, ``entities`` the document's own (at its top level, beside
    ``versions``), and ``id_maps`` the fields of ``idMaps``.
    """

    name: str
    what: str
    container: Literal["object", "array"]
    fields: tuple[str, ...]
    required: tuple[str, ...]
    marks: tuple[str, ...] = ()
    versions: tuple[str, ...] | None = None
    many_versions: bool = False
    view: View | None = None
    version_entities: tuple[Entity, ...] = ()
    entities: tuple[Entity, ...] = ()
    id_maps: tuple[str, ...] = ()
    inner: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def shape(self) -> tuple[str, ...]:
        """The fields recognition looks at: ``fields``, and ``outer.inner`` for the objects
        of :attr:`inner` (a field several kinds share with different objects in it)."""
        return self.fields + tuple(f"{outer}.{f}" for outer, inner in self.inner
                                   for f in inner)

    @property
    def schema(self) -> str:
        """The kind's schema file, relative to ``quizkit/schemas``."""
        return f"documents/{self.name}.json"

    @property
    def request(self) -> bool:
        """A request body: nothing is required, every field is a partial update."""
        return not self.required


_PACKAGE = ("id", "name", "i18n", "description", "image", "type", "settings", "difficulty",
            "rating", "explicit", "verified", "createdAt", "updatedAt", "userId", "deletedAt",
            "versions", "user", "meta", "categories")
_GAME = ("id", "name", "settings", "createdAt", "userId", "visibility",
         "communicationInviteUrl", "packageId", "versionId", "completedAt", "stoppedAt",
         "history", "pkg")
_PROFILE = ("id", "username", "realname", "image", "about", "verified", "banned", "anonymous",
            "socialLinks", "membership", "banner", "pkgCount", "createdAt")
_AUTHOR = ("id", "image", "verified", "email", "emailVerified", "username", "realname", "about",
           "role", "banned", "banReason", "banExpiresAt", "anonymous", "reputation", "createdAt",
           "updatedAt")
_BANNER = ("id", "createdAt", "updatedAt", "userId", "position", "payload", "slot", "current")

KINDS: tuple[Kind, ...] = (
    Kind("package-full", "response of GET /pkgs/{pkgId}/{versionId}/full (entities carry "
         "`versionId`)", "object", _PACKAGE, _PACKAGE, versions=("versions",),
         many_versions=True, view="full", version_entities=VERSION_ENTITIES,
         entities=(CATEGORIES,),
         inner=(("user", _AUTHOR), ("settings", ("multipliers", "timers")))),
    Kind("version-list", "response of GET /pkgs/{pkgId}/versions (array; entities carry no "
         "`versionId`)", "array", _VERSION, _VERSION,
         marks=("packageId", "published", "changes", "validation",
                *(e.key for e in VERSION_ENTITIES)),
         versions=(), many_versions=True, view="list", version_entities=VERSION_ENTITIES),
    Kind("version", "response of GET /pkgs/{pkgId}/versions/{versionId}", "object", _VERSION,
         _VERSION, versions=(), view="list", version_entities=VERSION_ENTITIES),
    Kind("version-created", "response of POST /pkgs/{pkgId}/versions: `{version, idMaps}`",
         "object", ("version", "idMaps"), ("version", "idMaps"), versions=("version",),
         view="created", id_maps=tuple(e.key for e in VERSION_ENTITIES)),
    Kind("game", "response of GET /games/{id} (its `pkg.versions` in the reduced game view)",
         "object", _GAME, _GAME, versions=("pkg", "versions"), many_versions=True, view="game",
         version_entities=GAME_VERSION_ENTITIES, entities=(HISTORY,),
         inner=(("settings", ("slots", "prePlay", "teamMode")),)),
    Kind("user-self", "response of GET/POST /users/self: `{user, settings}`", "object",
         ("user", "settings"), ("user", "settings"),
         inner=(("user", _PROFILE), ("settings", ("language", "pkgsLanguages", "userId")))),
    Kind("user-update", "request body of POST /users/self: `{user: {...}}`", "object",
         ("user",), (),
         inner=(("user", ("image", "username", "about", "socialLinks", "realname")),)),
    Kind("banner", "banner record (response of POST /users/self/banners)", "object", _BANNER,
         _BANNER),
    Kind("banner-create", "request body of POST /users/self/banners", "object",
         ("slot", "payload", "current", "position"), ()),
)

BY_NAME: dict[str, Kind] = {k.name: k for k in KINDS}
KIND_NAMES: tuple[str, ...] = tuple(k.name for k in KINDS)
#: The kinds that hold versions.
VERSION_KINDS: tuple[str, ...] = tuple(k.name for k in KINDS if k.versions is not None)
#: The kinds whose versions carry entity arrays (a created version has none).
ENTITY_KINDS: tuple[str, ...] = tuple(k.name for k in KINDS if k.version_entities)
#: The kinds whose versions carry steps and round ids (a game's reduced view has neither).
STEP_KINDS: tuple[str, ...] = tuple(k.name for k in KINDS if STEPS in k.version_entities)
#: Every top-level field of some kind, in the order of :data:`KINDS`.
TOP_FIELDS: tuple[str, ...] = tuple(dict.fromkeys(f for k in KINDS for f in k.fields))
#: Every field some kind's :attr:`Kind.shape` lists: the only fields recognition looks at.
RECOGNISED: tuple[str, ...] = tuple(dict.fromkeys(f for k in KINDS for f in k.shape))


def kind(name: str) -> Kind:
    """The kind called ``name`` (KeyError for an unknown name)."""
    return BY_NAME[name]


def kinds_of_view(view: View) -> tuple[str, ...]:
    """The kinds whose versions are in ``view``."""
    return tuple(k.name for k in KINDS if k.view == view)


def outer_collections(k: Kind) -> tuple[tuple[tuple[str, ...], str, str], ...]:
    """The arrays of a document of kind ``k`` whose records are unique by id, outside its
    versions: (path to the array, id field, what a record is): its versions (when it holds
    an array of them) and its own entities."""
    versions = ((k.versions, "id", "version"),) if k.many_versions and k.versions is not None \
        else ()
    return (*versions, *(((e.key,), e.id_field, e.name) for e in k.entities))


# --- where a document's versions are ------------------------------------------------------

@dataclass(frozen=True, slots=True)
class VersionSite:
    """One version in its document: where it is (a JSON Pointer), the version, and the id of
    the object that holds it (the package of a ``package-full`` document or of a game's
    ``pkg``; ``None`` for the other kinds)."""

    base: str
    version: dict
    holder_id: str | None

    @property
    def version_id(self) -> str | None:
        vid = self.version.get("id")
        return vid if type(vid) is str else None

    @property
    def package_id(self) -> str | None:
        """The version's package: its holder's id, else the version's own ``packageId``."""
        if self.holder_id is not None:
            return self.holder_id
        pid = self.version.get("packageId")
        return pid if type(pid) is str else None


def _member(obj: Any, key: str) -> Any:
    return obj.get(key) if type(obj) is dict else None


def _walker(kind: Kind) -> Callable[[Any], list[VersionSite]]:
    """The walk to the versions of a document of ``kind``, where :attr:`Kind.versions` says
    they are. Anything of the wrong type on the way gives no version (the schema reports it)."""
    path = kind.versions or ()
    base = "".join("/" + escape_token(p) for p in path)

    def walk(doc: Any) -> list[VersionSite]:
        holder = doc
        for key in path[:-1]:
            holder = _member(holder, key)
        found = _member(holder, path[-1]) if path else doc
        if not kind.many_versions:
            return [VersionSite(base, found, None)] if type(found) is dict else []
        if type(found) is not list:
            return []
        hid = _member(holder, "id") if path else None
        hid = hid if type(hid) is str else None
        return [VersionSite(f"{base}/{i}", v, hid) for i, v in enumerate(found)
                if type(v) is dict]

    return walk


_WALKS: dict[str, Callable[[Any], list[VersionSite]]] = {
    k.name: _walker(k) for k in KINDS if k.versions is not None}


def package_pointer(kind_name: str) -> str | None:
    """Pointer to the object that holds a document's versions, its package (``""`` for a
    ``package-full`` document, ``/pkg`` in a game); ``None`` when no object holds them."""
    k = BY_NAME.get(kind_name)
    if k is None or not k.many_versions or not k.versions:
        return None
    return "".join("/" + escape_token(p) for p in k.versions[:-1])


def version_sites(kind_name: str, doc: Any) -> list[VersionSite]:
    """Every version (an object) of a document of kind ``kind_name``, in document order: the
    one walk of a document's versions (the structural checks index each, the service's blocks
    name them)."""
    walk = _WALKS.get(kind_name)
    return walk(doc) if walk is not None else []
