"""The site's security settings (``Settings.security``; ``pontoon serve`` options; docs/accounts.md).

- ``sites``: the public origins the page is served from (``https://pontoon.example``); their hosts are
  accepted in ``Host`` and the origins in ``Origin``. Left empty (the default), the server accepts the
  loopback and IP-literal hosts only (``localhost``, ``127.0.0.1``, ``[::1]``, any IP address: a DNS
  rebinding attack needs a name of its own) and, in ``Origin``, the request's own origin.
- ``allowed_hosts``: more host names accepted in ``Host`` (``*``: any, for a trusted front end).
- ``cookie_secure``: ``auto`` (Secure when the request came over TLS, or through a trusted proxy that
  says so in ``X-Forwarded-Proto``, or when a configured site is https), ``always`` or ``never``.
- ``trusted_proxies``: the reverse proxies (uvicorn's ``forwarded_allow_ips``, a comma list) whose
  ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed; none by default (uvicorn's own default
  would believe 127.0.0.1, so any local process could pose as another address or as TLS).
- ``request_timeout_s``: a request's headers and body must arrive within this many seconds of its
  first byte (and a new connection must start one within it), else the connection is closed.
- ``session_ttl_s``: how long a login session lasts (logging out ends it at once).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from pontoon.errors import PontoonError


class SiteError(PontoonError):
    """A bad --site, --allowed-host or cookie option."""


@dataclass(frozen=True)
class Security:
    sites: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ()
    cookie_secure: str = "auto"
    trusted_proxies: str = ""  # addresses whose X-Forwarded-For/-Proto uvicorn believes ("": none)
    request_timeout_s: float = 5.0
    session_ttl_s: float = 30 * 86400.0
    login_burst: float = 5.0  # login attempts per account name (and per address: Settings.join_*)
    login_rate: float = 0.2
    hash_slots: int = 2  # argon2 hashes computed at once (each takes 64 MiB for a moment)

    def __post_init__(self) -> None:
        for s in self.sites:
            origin_of(s)
        if self.cookie_secure not in ("auto", "always", "never"):
            raise SiteError(f"--cookie-secure {self.cookie_secure!r}: one of auto, always, never")
        if not 0.5 <= self.request_timeout_s <= 300:
            raise SiteError(f"--request-timeout {self.request_timeout_s}: 0.5 to 300 seconds")

    @property
    def origins(self) -> frozenset[str]:
        return frozenset(origin_of(s) for s in self.sites)

    @property
    def hosts(self) -> frozenset[str]:
        out = {h.lower().strip("[]") for h in self.allowed_hosts}
        out |= {(urlsplit(o).hostname or "").lower() for o in self.origins}
        return frozenset(out)

    @property
    def https_site(self) -> bool:
        return any(o.startswith("https://") for o in self.origins)


def origin_of(site: str) -> str:
    """``scheme://host[:port]`` of a site URL, lower case; ``SiteError`` unless http(s) with a host."""
    try:
        u = urlsplit(site.strip())
        port = u.port
    except ValueError:
        raise SiteError(f"--site {site!r}: not a URL such as https://pontoon.example") from None
    if u.scheme not in ("http", "https") or not u.hostname or u.username or u.password:
        raise SiteError(f"--site {site!r}: give http(s)://HOST[:PORT], e.g. https://pontoon.example")
    host = u.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    default = 443 if u.scheme == "https" else 80
    return f"{u.scheme}://{host}" + (f":{port}" if port not in (None, default) else "")


__all__ = ["Security", "SiteError", "origin_of"]
