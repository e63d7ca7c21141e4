"""Users and banners: one :class:`Person` renders every view the interface has of a user.

The same person is the author record of a full package (2.8), the profile of ``user-self``
(2.2, 2.3), the body of ``user-update`` and the owner of banners (2.4), so the views agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quizkit.generate.clock import iso


@dataclass
class Person:
    id: str
    username: str
    realname: str
    email: str
    image: dict[str, str]
    about: str
    created_ms: int
    updated_ms: int
    verified: bool = False
    email_verified: bool = True
    role: str = "user"
    reputation: int = 0
    banned: bool = False
    ban_reason: str | None = None
    ban_expires_ms: int | None = None
    anonymous: bool = False
    social_links: list[dict[str, str]] = field(default_factory=list)
    membership: dict[str, bool] = field(default_factory=dict)
    language: str = "en"
    pkgs_languages: str | list[str] = "en"
    banners: list[dict[str, Any]] = field(default_factory=list)

    def author_record(self) -> dict[str, Any]:
        """The ``user`` of a full package (2.8)."""
        return {
            "id": self.id,
            "image": self.image,
            "verified": self.verified,
            "email": self.email,
            "emailVerified": self.email_verified,
            "username": self.username,
            "realname": self.realname,
            "about": self.about,
            "role": self.role,
            "banned": self.banned,
            "banReason": self.ban_reason,
            "banExpiresAt": None if self.ban_expires_ms is None else iso(self.ban_expires_ms),
            "anonymous": self.anonymous,
            "reputation": self.reputation,
            "createdAt": iso(self.created_ms),
            "updatedAt": iso(self.updated_ms),
        }

    def current_banner(self) -> dict[str, str]:
        """Payload of the active banner (the profile's ``banner``)."""
        for b in self.banners:
            if b["current"]:
                return b["payload"]
        return {"type": "gradient", "value": "linear-gradient(90deg, #1d2b64, #f8cdda)",
                "color": "#ffffff"}

    def user_self(self, pkg_count: int) -> dict[str, Any]:
        """Response of GET /users/self: ``{user, settings}``."""
        return {
            "user": {
                "id": self.id,
                "username": self.username,
                "realname": self.realname,
                "image": self.image,
                "about": self.about,
                "verified": self.verified,
                "banned": self.banned,
                "anonymous": self.anonymous,
                "socialLinks": self.social_links,
                "membership": self.membership,
                "banner": self.current_banner(),
                "pkgCount": pkg_count,
                "createdAt": iso(self.created_ms),
            },
            "settings": {
                "language": self.language,
                "pkgsLanguages": self.pkgs_languages,
                "userId": self.id,
            },
        }

    def user_update(self) -> dict[str, Any]:
        """Body of POST /users/self."""
        return {
            "user": {
                "image": self.image,
                "username": self.username,
                "about": self.about,
                "socialLinks": self.social_links,
                "realname": self.realname,
            }
        }


def banner_record(banner_id: str, user_id: str, created_ms: int, updated_ms: int, position: int,
                  payload: dict[str, str], slot: str, current: bool) -> dict[str, Any]:
    """A banner record (2.4), fields in the interface's order."""
    return {
        "id": banner_id,
        "createdAt": iso(created_ms),
        "updatedAt": iso(updated_ms),
        "userId": user_id,
        "position": position,
        "payload": payload,
        "slot": slot,
        "current": current,
    }


def banner_create(banner: dict[str, Any]) -> dict[str, Any]:
    """The request body that created ``banner``."""
    return {"slot": banner["slot"], "payload": banner["payload"], "current": banner["current"],
            "position": banner["position"]}
