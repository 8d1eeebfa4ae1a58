"""A TCP proxy on 127.0.0.1 that a test can cut, restore, partition and
heal, to take a service (the message broker) away from the processes
that use it.

Two faults, each with its repair:

* ``cut()`` closes every connection it carries and stops listening, so a
  new connection is refused at once, as when the service's host is down
  and its port closed; ``restore()`` listens again on the same port.
* ``partition()`` keeps every connection open but passes no byte either
  way, as when the network between the hosts drops packets: the proxy
  stops reading from its sockets, so what either side sends waits in the
  kernel's buffers (and, once they are full, the sender blocks); nothing
  is closed or reset, so neither side learns of it but by its own
  timeouts (AMQP heartbeats, RPC call timeouts). A new connection is
  accepted (the listen queue of a host still up) but not connected on
  until the partition heals. ``heal()`` lets the waiting bytes through
  and connects the waiting new connections. A read already under way
  when ``partition()`` is called is still forwarded.

The two are independent: a cut during a partition closes the frozen
connections too. One thread accepts, one thread per connection copies
both ways.
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
        # Client and upstream sockets of the connections carried; a
        # connection's thread ends once its sockets are not here.
        self._sockets = set()
        # Set: bytes flow; clear: partitioned.
        self._flowing = threading.Event()
        self._flowing.set()
        self.restore()

    @property
    def is_cut(self):
        return self._listener is None

    @property
    def is_partitioned(self):
        return not self._flowing.is_set()

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
            self._sockets.clear()
        if listener is not None:
            # Without the shutdown, the accepting thread's accept() keeps
            # the socket listening: the next connection would be
            # accepted (then closed) instead of refused.
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def partition(self):
        """Pass no byte either way, close nothing, until ``heal()``."""
        self._flowing.clear()

    def heal(self):
        """End a partition: bytes flow again."""
        self._flowing.set()

    def close(self):
        self.cut()
        self.heal()

    def _carried(self, sock):
        with self._lock:
            return sock in self._sockets

    def _wait_flowing(self, sock):
        """Until the proxy is not partitioned (True), or ``sock``'s
        connection was cut meanwhile (False)."""
        while not self._flowing.wait(0.5):
            if not self._carried(sock):
                return False
        return self._carried(sock)

    def _accept(self, listener):
        while True:
            try:
                client, _address = listener.accept()
            except OSError:
                return
            with self._lock:
                if self._listener is not listener:
                    client.close()
                    return
                self._sockets.add(client)
            threading.Thread(target=self._serve, args=(client,),
                             daemon=True).start()

    def _serve(self, client):
        upstream = None
        try:
            # Partitioned: the connection waits, unanswered.
            if not self._wait_flowing(client):
                return
            try:
                upstream = socket.create_connection(self.target, 5)
            except OSError:
                return
            with self._lock:
                if client not in self._sockets:
                    return      # cut meanwhile
                self._sockets.add(upstream)
            self._pipe(client, upstream)
        finally:
            with self._lock:
                self._sockets.discard(client)
                self._sockets.discard(upstream)
            for sock in (client, upstream):
                if sock is None:
                    continue
                try:
                    sock.close()
                except OSError:
                    pass

    def _pipe(self, one, other):
        peers = {one: other, other: one}
        try:
            while True:
                if not self._flowing.is_set():
                    # Read nothing: the bytes wait in the sockets.
                    if not self._wait_flowing(one):
                        return
                    continue
                readable, _, _ = select.select(list(peers), [], [], 0.5)
                for sock in readable:
                    if not self._flowing.is_set():
                        break
                    data = sock.recv(65536)
                    if not data:
                        return
                    peers[sock].sendall(data)
        except (OSError, ValueError):
            pass
