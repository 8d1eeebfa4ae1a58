"""Local TCP ports for the servers tests start."""

import socket


def free_port():
    """A port on 127.0.0.1 nobody listens on (now)."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def port_in_use(port):
    """Whether something accepts connections on 127.0.0.1:``port``."""
    with socket.socket() as sock:
        return sock.connect_ex(('127.0.0.1', port)) == 0
