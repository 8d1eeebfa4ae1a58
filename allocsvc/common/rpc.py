"""oslo.messaging set-up shared by the API (client) and the conductor
(server): transport, serializer, target, and how errors cross the wire.

Objects travel as oslo.versionedobjects primitives and the request
context as a dict (``Serializer``, given the objects' serializer by the
caller: this module sits below ``allocsvc.objects``).

Errors: oslo.messaging rebuilds a remote exception by calling its class
with the original ``args``. Our exceptions format their message in
``__init__`` from arguments of their own (``NodeLocked(node, host)``),
so that rebuild fails or garbles the message. Instead, an endpoint
method marked ``@translate_errors`` turns an allocsvc exception into a
``RemoteAllocsvcError``, whose ``args`` are exactly what its own
``__init__`` takes (class path, message, attributes), and the client
calls ``rebuild()`` on it: the caller gets an instance of the original
class, with the same message, HTTP status and attributes, made without
running that class's ``__init__``. Only subclasses of AllocsvcException
found in allocsvc modules are rebuilt; any other class name comes back
as a plain AllocsvcException with the same message and status. Other
exceptions (bugs) travel as oslo.messaging sends them.
"""

import functools
import importlib
import time

from oslo_config import cfg
from oslo_db import exception as db_exc
import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher

from allocsvc.common import context as ctx
from allocsvc.common import exception

TOPIC = 'allocsvc.conductor_manager'

# Modules whose exceptions oslo.messaging may rebuild on the client side.
ALLOWED_EXMODS = [__name__]

# The transport inside one process (allocsvc.common.inproc).
LOCAL_URL = 'inproc://'


def transport_configured(conf):
    """Whether ``[DEFAULT] transport_url`` was set by the operator (as
    opposed to oslo.messaging's default)."""
    location = conf.get_location('transport_url').location
    return location not in (cfg.Locations.opt_default,
                            cfg.Locations.set_default)


def get_transport(conf, url=None):
    """The RPC transport of ``conf`` (``url`` overrides its
    ``transport_url``; ``LOCAL_URL`` is the in-process one)."""
    return messaging.get_rpc_transport(conf, url=url,
                                       allowed_remote_exmods=ALLOWED_EXMODS)


class Serializer(messaging.Serializer):
    """Entities as ``objects`` (a serializer of versioned objects)
    serializes them, the context as a dict."""

    def __init__(self, objects):
        self._objects = objects

    def serialize_entity(self, context, entity):
        return self._objects.serialize_entity(context, entity)

    def deserialize_entity(self, context, entity):
        return self._objects.deserialize_entity(context, entity)

    def serialize_context(self, context):
        return context.to_dict()

    def deserialize_context(self, context):
        return ctx.RequestContext.from_dict(context)


def get_client(transport, version, serializer, version_cap=None):
    """An RPC client of the conductors' topic that sends no message
    above ``version_cap`` (None: no cap)."""
    return messaging.get_rpc_client(
        transport, messaging.Target(topic=TOPIC, version=version),
        version_cap=version_cap, serializer=serializer)


def get_server(transport, host, endpoints, serializer):
    """The RPC server of conductor ``host``: native threads, and only the
    endpoint methods marked ``@messaging.expose`` are callable."""
    target = messaging.Target(topic=TOPIC, server=host)
    return messaging.get_rpc_server(
        transport, target, endpoints, executor='threading',
        serializer=serializer,
        access_policy=dispatcher.ExplicitRPCAccessPolicy)


# -- errors ------------------------------------------------------------------

# Attribute values that survive the trip as they are.
_PLAIN = (str, int, float, bool, type(None))


class RemoteAllocsvcError(exception.AllocsvcException):
    """An allocsvc exception on its way from a conductor to a caller.

    ``args`` (what oslo.messaging sends and re-applies to this class) are
    ``(module, class_name, message, status, attributes)``.
    """

    def __init__(self, module, class_name, message, status=500,
                 attributes=None):
        Exception.__init__(self, module, class_name, message, status,
                           attributes or {})
        self.message = message
        self.status = status
        self.module = module
        self.class_name = class_name
        self.attributes = dict(attributes or {})

    def __str__(self):
        return self.message

    @classmethod
    def wrap(cls, exc):
        attributes = {name: value for name, value in vars(exc).items()
                      if isinstance(value, _PLAIN)}
        return cls(type(exc).__module__, type(exc).__name__,
                   getattr(exc, 'message', str(exc)),
                   getattr(exc, 'status', 500), attributes)

    def rebuild(self):
        """The exception that was raised in the conductor, or one of the
        base class with this message and status if its class cannot be
        trusted or found here."""
        klass = _exception_class(self.module, self.class_name)
        if klass is None:
            fallback = exception.AllocsvcException(self.message)
            fallback.status = self.status
            return fallback
        exc = klass.__new__(klass)
        exception.AllocsvcException.__init__(exc, self.message)
        for name, value in self.attributes.items():
            setattr(exc, name, value)
        return exc


def _exception_class(module, name):
    if module != 'allocsvc' and not module.startswith('allocsvc.'):
        return None
    try:
        klass = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None
    if not (isinstance(klass, type) and
            issubclass(klass, exception.AllocsvcException)):
        return None
    return klass


def _check_deadline(endpoint, context):
    """RequestExpired if the caller stopped waiting for this call (its
    context's ``deadline``) more than ``[conductor] rpc_deadline_leeway``
    seconds ago: the message was held (this conductor was stopped, or
    the broker kept it), and the API has answered without it -- maybe
    by sending it to another conductor, whose work this must not
    repeat or undo."""
    deadline = getattr(context, 'deadline', None)
    if deadline is None:
        return
    late = time.time() - deadline - \
        endpoint.conf.conductor.rpc_deadline_leeway
    if late > 0:
        raise exception.RequestExpired(late)


def translate_errors(method):
    """For an RPC endpoint method (of an endpoint with ``conf``), called
    with the request's context: its allocsvc exceptions leave as
    RemoteAllocsvcError, as expected exceptions (the RPC server does not
    log them as failures of its own); a call that comes too late
    (``_check_deadline``) is not run."""
    @functools.wraps(method)
    def wrapper(endpoint, *args, **kwargs):
        try:
            _check_deadline(endpoint,
                            args[0] if args else kwargs.get('context'))
            return method(endpoint, *args, **kwargs)
        except RemoteAllocsvcError:
            raise dispatcher.ExpectedException()
        except db_exc.DBConnectionError as exc:
            # Lost outside the DB layer's retries, which raise the same.
            try:
                raise RemoteAllocsvcError.wrap(
                    exception.DatabaseUnavailable()) from exc
            except RemoteAllocsvcError:
                raise dispatcher.ExpectedException()
        except exception.AllocsvcException as exc:
            try:
                raise RemoteAllocsvcError.wrap(exc) from exc
            except RemoteAllocsvcError:
                raise dispatcher.ExpectedException()
    return wrapper


def rebuild_errors(function):
    """For a client method: a RemoteAllocsvcError from the other side is
    raised as the exception it stands for."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except RemoteAllocsvcError as exc:
            raise exc.rebuild() from None
    return wrapper
