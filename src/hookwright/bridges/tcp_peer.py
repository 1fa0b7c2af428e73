"""Which local user opened the other end of a loopback TCP connection.

A Unix socket tells its peer's uid (`SO_PEERCRED`); a TCP socket does not. On 127.0.0.1 both
ends live in this machine's kernel, which knows the uid owning the connecting socket: Linux
answers a `NETLINK_SOCK_DIAG` lookup of the connection's four addresses (what `ss -e` shows).
"""

from __future__ import annotations

import socket
import struct

#: `NETLINK_SOCK_DIAG` and its `SOCK_DIAG_BY_FAMILY` request (linux/sock_diag.h).
_NETLINK_SOCK_DIAG = 4
_SOCK_DIAG_BY_FAMILY = 20
_NLM_F_REQUEST = 1
#: nlmsghdr: length, type, flags, sequence, port id.
_HEADER = struct.Struct("=IHHII")
#: inet_diag_req_v2 without its socket id: family, protocol, extensions, pad, states.
_REQUEST = struct.Struct("=BBBxI")
#: inet_diag_sockid: ports and addresses in network order, then interface and cookie.
_SOCKID_ADDRESSES = struct.Struct("!HH16s16s")
_SOCKID_REST = struct.Struct("=III")
_NO_COOKIE = 0xFFFFFFFF
_ALL_STATES = 0xFFFFFFFF
#: In the answer (inet_diag_msg): after the header, 4 bytes, the 48-byte socket id, then
#: expires, rqueue, wqueue, uid.
_UID_OFFSET = _HEADER.size + 4 + 48 + 12
_UID = struct.Struct("=I")
#: How long the kernel may take to answer (it answers at once; this only bounds a wedge).
_LOOKUP_SECONDS = 1.0


def _lookup(conn: socket.socket) -> bytes:
    """The sock_diag request for the socket at the other end of `conn` (IPv4)."""
    here, here_port = conn.getsockname()[:2]
    peer, peer_port = conn.getpeername()[:2]
    sockid = _SOCKID_ADDRESSES.pack(
        peer_port,
        here_port,
        socket.inet_aton(peer).ljust(16, b"\0"),
        socket.inet_aton(here).ljust(16, b"\0"),
    ) + _SOCKID_REST.pack(0, _NO_COOKIE, _NO_COOKIE)
    body = _REQUEST.pack(socket.AF_INET, socket.IPPROTO_TCP, 0, _ALL_STATES) + sockid
    return _HEADER.pack(_HEADER.size + len(body), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST, 1, 0) + body


def peer_uid(conn: socket.socket) -> int | None:
    """The uid owning the connecting socket of an accepted IPv4 loopback connection; None
    when the kernel cannot tell (no sock_diag, the peer already gone)."""
    try:
        request = _lookup(conn)
        with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _NETLINK_SOCK_DIAG) as link:
            link.settimeout(_LOOKUP_SECONDS)
            link.send(request)
            answer = link.recv(8192)
    except (OSError, ValueError, AttributeError):
        return None
    if len(answer) < _UID_OFFSET + _UID.size:
        return None
    if _HEADER.unpack_from(answer)[1] != _SOCK_DIAG_BY_FAMILY:
        return None
    return int(_UID.unpack_from(answer, _UID_OFFSET)[0])
