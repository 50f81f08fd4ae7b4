"""The sockets a server listens on, bound before anything says that it serves: an address
that is taken is one :class:`~mcp_sim.errors.ListenFailed` naming it, instead of uvicorn's
log line and exit from inside its start-up."""

from __future__ import annotations

import errno
import socket

from mcp_sim.errors import ListenFailed

BACKLOG = 2048
"""Connections the kernel queues before the server accepts them (uvicorn's default)."""

_REASONS = {
    errno.EADDRINUSE: "address already in use (another server is listening there; pick another "
    "port)",
    errno.EACCES: "permission denied (ports below 1024 need privileges; pick another port)",
    errno.EADDRNOTAVAIL: "cannot assign the address (it is not one of this machine's)",
}


def shown_address(host: str, port: int) -> str:
    """``HOST:PORT`` as a user writes it (``[::1]:PORT`` for IPv6)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def listening_sockets(host: str, port: int) -> list[socket.socket]:
    """Sockets listening on every address ``host`` resolves to, as asyncio's ``create_server``
    would bind them (an address family the machine lacks is skipped, IPv6 sockets take IPv6
    only). Raises :class:`ListenFailed` if ``host`` does not resolve or an address cannot be
    listened on."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ListenFailed(shown_address(host, port), f"unknown host ({exc.strerror})") from None
    sockets: list[socket.socket] = []
    unavailable: OSError | None = None
    try:
        for family, kind, proto, _, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
                sock.listen(BACKLOG)
            except OSError as exc:
                if exc.errno != errno.EADDRNOTAVAIL:
                    raise
                # The family is not enabled here (asyncio skips it too: bpo-30945).
                unavailable = exc
                sockets.pop().close()
        if not sockets:
            raise unavailable or OSError(errno.EADDRNOTAVAIL, "no address to listen on")
    except OSError as exc:
        for sock in sockets:
            sock.close()
        reason = _REASONS.get(exc.errno or 0, (exc.strerror or str(exc)).lower())
        raise ListenFailed(shown_address(host, port), reason) from None
    return sockets
