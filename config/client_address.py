"""The client's address, for login throttling (pure: no Django).

It comes from `REMOTE_ADDR`, or behind a reverse proxy (PAB_BEHIND_PROXY=1) from
`X-Forwarded-For` read right to left: each proxy we trust appends the address it received the
request from, so the rightmost entry that is not one of our proxies is the client. Entries to
its left were written by the client and are never believed. Which proxies are ours is a
setting: either how many stand in front of Django (PAB_PROXY_COUNT) or their addresses
(PAB_TRUSTED_PROXIES, addresses or CIDR blocks), see settings.CLIENT_ADDRESS_PROXIES.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Sequence
from dataclasses import dataclass

log = logging.getLogger(__name__)
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class TrustedProxies:
    """Our proxies: `count` of them in front of Django, or the ones inside `networks`."""

    count: int = 0
    networks: tuple[Network, ...] = ()

    @classmethod
    def parse(cls, count: int, addresses: str) -> TrustedProxies:
        """From PAB_PROXY_COUNT and PAB_TRUSTED_PROXIES; addresses win when given. Raises
        ValueError naming a malformed address."""
        entries = [a.strip() for a in addresses.split(",") if a.strip()]
        if entries:
            return cls(networks=tuple(ipaddress.ip_network(a, strict=False) for a in entries))
        if count < 1:
            raise ValueError(f"PAB_PROXY_COUNT must be 1 or more, not {count}")
        return cls(count=count)

    def trusts(self, address: str) -> bool:
        parsed = _parsed(address)
        return parsed is not None and any(parsed in network for network in self.networks)


def client_address(
    remote_addr: str | None, forwarded_for: str | None, proxies: TrustedProxies | None
) -> str | None:
    """The client's address. Without proxies it is REMOTE_ADDR; with them, the hop just
    before the first of our proxies, counting from the right of `forwarded_for, remote_addr`.
    When the chain is shorter than our proxies (a request that reached Django another way)
    or the chosen hop is not an address, REMOTE_ADDR: never None, never a client's choice."""
    if proxies is None or not remote_addr:
        return remote_addr
    hops = [h.strip() for h in (forwarded_for or "").split(",") if h.strip()] + [remote_addr]
    client = _hop_before_proxies(hops, proxies)
    if client is None or _parsed(client) is None:
        log.warning("X-Forwarded-For %r gives no client address; counting REMOTE_ADDR", hops)
        return remote_addr
    return client


def _hop_before_proxies(hops: Sequence[str], proxies: TrustedProxies) -> str | None:
    if proxies.networks:
        for hop in reversed(hops):
            if not proxies.trusts(hop):
                return hop
        return None  # every hop is ours: the request came from inside
    return hops[-(proxies.count + 1)] if len(hops) > proxies.count else None


def _parsed(address: str):
    try:
        return ipaddress.ip_address(address)
    except ValueError:
        return None


# gunicorn's default: X-Forwarded-Proto believed from a proxy on this machine.
GUNICORN_DEFAULT_FORWARDED_ALLOW_IPS = "127.0.0.1,::1"


def gunicorn_forwarded_allow_ips(environ: dict[str, str]) -> str:
    """gunicorn's `forwarded_allow_ips`, matched to the app's own setting. gunicorn turns
    X-Forwarded-Proto from the addresses it trusts into the request's scheme (so Django's
    `is_secure()`), by default from 127.0.0.1 even when the app ignores the header: without
    PAB_BEHIND_PROXY nobody is trusted; with it, PAB_TRUSTED_PROXIES when set, else gunicorn's
    default (a proxy on this machine; Django's SECURE_PROXY_SSL_HEADER covers the rest)."""
    if environ.get("PAB_BEHIND_PROXY", "").strip().lower() not in {"1", "true", "yes", "on"}:
        return ""
    trusted = [a.strip() for a in environ.get("PAB_TRUSTED_PROXIES", "").split(",") if a.strip()]
    return ",".join(trusted) or GUNICORN_DEFAULT_FORWARDED_ALLOW_IPS
