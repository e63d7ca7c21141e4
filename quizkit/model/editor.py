"""Editor settings (VS Code ``json.schemas``) that map export files to the bundled schemas."""

from __future__ import annotations

from collections.abc import Iterable

from quizkit.inputs.configfiles import ConfigError
from quizkit.model.schemas import KINDS

#: Default file patterns of each kind for editor mappings; override with --match KIND=GLOB.
DEFAULT_MATCHES = {
    "package-full": ["**/package-full*.json", "**/*.package-full.json"],
    "version-list": ["**/version-list*.json", "**/versions.json"],
    "version": ["**/version.json", "**/*.version.json"],
    "version-created": ["**/version-created*.json"],
    "game": ["**/game.json", "**/*.game.json", "**/games/*.json"],
    "user-self": ["**/user-self*.json", "**/users/self.json"],
    "user-update": ["**/user-update*.json"],
    "banner": ["**/banner.json", "**/*.banner.json", "**/banners/*.json"],
    "banner-create": ["**/banner-create*.json"],
}


def editor_settings(schemas_dir: str = "schemas", matches: Iterable[str] = ()) -> dict:
    """``{"json.schemas": [...]}``; each ``KIND=GLOB`` of ``matches`` replaces that kind's
    default patterns. ``schemas_dir`` is where the schemas are, as the editor sees the path."""
    patterns = {k: list(v) for k, v in DEFAULT_MATCHES.items()}
    given: dict[str, list[str]] = {}
    for spec in matches:
        kind, sep, glob = spec.partition("=")
        if not sep or kind not in KINDS or not glob:
            raise ConfigError(f"--match {spec!r}: expected KIND=GLOB with KIND one of "
                              f"{', '.join(KINDS)}")
        given.setdefault(kind, []).append(glob)
    patterns.update(given)
    base = schemas_dir.rstrip("/")
    return {"json.schemas": [
        {"fileMatch": patterns[kind], "url": f"./{base}/documents/{kind}.json"}
        for kind in KINDS
    ]}
