"""Editor settings (VS Code ``json.schemas``) that map export files to the bundled schemas."""

from __future__ import annotations

from collections.abc import Iterable

from quizkit.inputs.configfiles import ConfigError
from quizkit.model.entities import KIND_NAMES

#: Default file patterns of each kind for editor mappings; override with --match KIND=GLOB.
#: They cover the names of ``quizkit samples generate`` (``packages/ID.json``,
#: ``versions/ID.versions.json``, ``banners/ID.create.json``, ...; a test checks every kind) and
#: the samples' (``package-full.json``); a ``!`` pattern (VS Code's exclusion) keeps a file of
#: another kind in the same folder out.
DEFAULT_MATCHES = {
    "package-full": ["**/package-full*.json", "**/*.package-full.json", "**/packages/*.json"],
    "version-list": ["**/version-list*.json", "**/versions.json", "**/*.versions.json"],
    "version": ["**/version.json", "**/*.version.json", "**/versions/*.json",
                "!**/versions/*.versions.json", "!**/versions/*.created.json"],
    "version-created": ["**/version-created*.json", "**/*.created.json"],
    "game": ["**/game.json", "**/*.game.json", "**/games/*.json"],
    "user-self": ["**/user-self*.json", "**/users/self.json", "**/users/*.json",
                  "!**/users/*.update.json"],
    "user-update": ["**/user-update*.json", "**/*.update.json"],
    "banner": ["**/banner.json", "**/*.banner.json", "**/banners/*.json",
               "!**/banners/*.create.json"],
    "banner-create": ["**/banner-create*.json", "**/*.create.json"],
}


def editor_settings(schemas_dir: str = "schemas", matches: Iterable[str] = ()) -> dict:
    """``{"json.schemas": [...]}``; each ``KIND=GLOB`` of ``matches`` replaces that kind's
    default patterns. ``schemas_dir`` is where the schemas are, as the editor sees the path."""
    patterns = {k: list(v) for k, v in DEFAULT_MATCHES.items()}
    given: dict[str, list[str]] = {}
    for spec in matches:
        kind, sep, glob = spec.partition("=")
        if not sep or kind not in KIND_NAMES or not glob:
            raise ConfigError(f"--match {spec!r}: expected KIND=GLOB with KIND one of "
                              f"{', '.join(KIND_NAMES)}")
        given.setdefault(kind, []).append(glob)
    patterns.update(given)
    base = schemas_dir.rstrip("/")
    return {"json.schemas": [
        {"fileMatch": patterns[kind], "url": f"./{base}/documents/{kind}.json"}
        for kind in KIND_NAMES
    ]}
