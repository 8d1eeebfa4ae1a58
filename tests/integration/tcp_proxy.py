"""A TCP proxy on 127.0.0.1 that a test can cut and restore, to take a
service (the message broker) away from the processes that use it.

``cut()`` closes every connection it carries and stops listening, so a
new connection is refused at once, as when the service's host is down
and its port closed; ``restore()`` listens again on the same port. One
thread accepts, one thread per connection copies both ways.
"""

import select
import socket
import threading


class TCPProxy:
    """Forwards ``127.0.0.1:self.port`` to ``target`` (host, port)."""

    def __init__(self, target):
        self.target = target
        self.port = 0
        self._lock = threading.Lock()
        self._listener = None
        self._sockets = set()
        self.restore()

    @property
    def is_cut(self):
        return self._listener is None

    def restore(self):
        """Accept connections (again)."""
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(('127.0.0.1', self.port))
        listener.listen(256)
        self.port = listener.getsockname()[1]
        with self._lock:
            self._listener = listener
        threading.Thread(target=self._accept, args=(listener,),
                         daemon=True).start()

    def cut(self):
        """Close every connection and refuse new ones."""
        with self._lock:
            listener, self._listener = self._listener, None
            sockets = list(self._sockets)
        if listener is not None:
            listener.close()
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.cut()

    def _accept(self, listener):
        while True:
            try:
                client, _address = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, 5)
            except OSError:
                client.close()
                continue
            with self._lock:
                if self._listener is not listener:
                    client.close()
                    upstream.close()
                    return
                self._sockets.update((client, upstream))
            threading.Thread(target=self._pipe, args=(client, upstream),
                             daemon=True).start()

    def _pipe(self, one, other):
        peers = {one: other, other: one}
        try:
            while True:
                readable, _, _ = select.select(list(peers), [], [], 1.0)
                for sock in readable:
                    data = sock.recv(65536)
                    if not data:
                        return
                    peers[sock].sendall(data)
        except (OSError, ValueError):
            pass
        finally:
            with self._lock:
                self._sockets.difference_update(peers)
            for sock in peers:
                try:
                    sock.close()
                except OSError:
                    pass
