"""``openstack allocation reservation create|list|show|set|delete`` and
``availability``: capacity held for a project over a window of time,
through allocsvc's ``/reservations`` extension of the Placement API
(microversion 1.10 and later).

The commands live in osc-placement's command group beside ``allocation
candidate explain`` and ``claim`` (``allocsvc.osc.placement``), but in a
module of their own: they share nothing with the candidates query those
two build. The service decides what may be held; the commands only
build the bodies and show the answers, so every refusal reaches the
user in the service's own words (osc-placement's client turns a 4xx
into an error carrying its ``detail``).
"""

import argparse

from cliff import columns as cliff_columns
from osc_lib.command import command
from osc_lib import exceptions
from oslo_utils import uuidutils

from allocsvc.osc import placement

PATH = '/reservations'
FIRST_VERSION = (1, 10)

_SHOWN = ('uuid', 'project_id', 'start', 'end', 'active', 'resources',
          'created_at', 'updated_at')
_LISTED = ('uuid', 'project_id', 'start', 'end', 'active')


class _Provider(argparse.Action):
    """``--resource-provider RP``: the ``--resource`` options after it
    are held on RP."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.providers.append((values, []))


class _Resource(placement.InGroup):
    """``--resource RC=N``: held on the last ``--resource-provider``;
    before any, an amount of the candidates query (``--count``) of the
    current ``--group``."""

    def __call__(self, parser, namespace, values, option_string=None):
        if namespace.providers:
            namespace.providers[-1][1].append(values)
        else:
            super().__call__(parser, namespace, values, option_string)


class _Resources(cliff_columns.FormattableColumn):
    """What a reservation holds: a line per provider in a table
    (``RP: VCPU=4, MEMORY_MB=1024``), the API's mapping in JSON or
    YAML, so that ``-f json`` can be compared with what the API says."""

    def human_readable(self):
        return '\n'.join(
            '%s: %s' % (rp, ', '.join(
                '%s=%s' % item for item in sorted(
                    entry['resources'].items())))
            for rp, entry in sorted(self._value.items()))

    def machine_readable(self):
        return dict(self._value)


def amounts(providers):
    """The ``resources`` of a body ({provider: {"resources": {class:
    amount}}}) of the parsed (provider, ["RC=N", ...]) pairs. A provider
    named twice gets the classes of both; a class named twice for one
    provider is refused, as no single amount would be what was meant."""
    found = {}
    for provider, resources in providers:
        if not resources:
            raise exceptions.CommandError(
                'Resource provider %s has no --resource after it.'
                % provider)
        held = found.setdefault(provider, {})
        for resource in resources:
            name, sep, amount = resource.partition('=')
            if not sep or not name or not amount.isdigit():
                raise exceptions.CommandError(
                    'Arguments to --resource must be of form '
                    '<resource_class>=<value>')
            if name in held:
                raise exceptions.CommandError(
                    '%s is given twice for resource provider %s.'
                    % (name, provider))
            held[name] = int(amount)
    return {rp: {'resources': held} for rp, held in found.items()}


def _client(app):
    """The Placement client, refused before any request when the
    microversion predates reservations: the service would answer 404,
    which reads as "no such reservation"."""
    http = app.client_manager.placement
    try:
        want = tuple(int(n) for n in http.api_version.split('.'))
    except ValueError:
        # Not a microversion we can read: the service will judge it.
        want = FIRST_VERSION
    if want < FIRST_VERSION:
        raise exceptions.CommandError(
            'Reservations require --os-placement-api-version %d.%d or '
            'later.' % FIRST_VERSION)
    return http


def _provider_uuid(http, ident):
    """The uuid of the provider named ``ident`` (a uuid is itself), so
    that a provider can be given as ``openstack resource provider list``
    shows it either way."""
    if uuidutils.is_uuid_like(ident):
        return ident
    found = http.request('GET', '/resource_providers',
                         params={'name': ident}).json()['resource_providers']
    if not found:
        raise exceptions.CommandError(
            'No resource provider with name or uuid %s found.' % ident)
    return found[0]['uuid']


def _shown(found):
    values = [found.get(c) for c in _SHOWN]
    values[_SHOWN.index('resources')] = _Resources(found['resources'])
    return _SHOWN, values


def _path(uuid):
    return '%s/%s' % (PATH, uuid)


class CreateReservation(command.ShowOne):
    """Hold capacity for a project over a window of time.

    Each ``--resource`` is held on the ``--resource-provider`` given
    before it; repeat both for several providers. The reservation is
    made only if the capacity is there at every instant of the window,
    otherwise the service says why and nothing is held.

    For example, 4 VCPU and 1 GB on one provider and 2 VCPU on another,
    for the working day of December 1st::

      $ openstack allocation reservation create \\
          --resource-provider RP1 --resource VCPU=4 \\
          --resource MEMORY_MB=1024 \\
          --resource-provider RP2 --resource VCPU=2 \\
          --start 2026-12-01T08:00Z --end 2026-12-01T18:00Z --project P

    Or let the service choose: ``--count`` slots of the candidates
    query the ``--resource`` (before any ``--resource-provider``),
    ``--required``, ``--member-of``, ``--group`` ... options name, taken
    together as a group claim takes them (``--spread-by``,
    ``--order``)::

      $ openstack allocation reservation create --resource VCPU=8 \\
          --resource MEMORY_MB=32768 --count 4 \\
          --spread-by trait:CUSTOM_RACK_ \\
          --start 2026-12-01T08:00Z --end 2026-12-01T18:00Z --project P

    This command requires at least ``--os-placement-api-version 1.10``.
    """

    def get_parser(self, prog_name):
        parser = placement.add_query_options(
            super().get_parser(prog_name), resource_action=_Resource)
        parser.set_defaults(providers=[])
        parser.add_argument(
            '--resource-provider', metavar='<uuid or name>',
            action=_Provider, dest='provider',
            help='A provider to hold resources on: the --resource '
                 'options after it. Repeatable.')
        parser.add_argument(
            '--count', type=int, metavar='<count>',
            help='Let the service choose: hold this many slots of the '
                 'candidates query the --resource (before any '
                 '--resource-provider), --required, --member-of, '
                 '--group ... options name.')
        placement.add_choice_options(parser, 'slots')
        parser.add_argument(
            '--start', required=True, metavar='<time>',
            help='The start of the window, ISO 8601 (UTC without an '
                 'offset); included.')
        parser.add_argument(
            '--end', required=True, metavar='<time>',
            help='The end of the window, ISO 8601; excluded.')
        parser.add_argument(
            '--project', metavar='<project_id>',
            help='The project to hold for (default: the caller\'s).')
        parser.add_argument(
            '--uuid', metavar='<uuid>',
            help='The UUID of the reservation (default: a new one).')
        return parser

    def take_action(self, parsed_args):
        http = _client(self.app)
        body = {'start': parsed_args.start, 'end': parsed_args.end}
        if parsed_args.count is not None:
            if parsed_args.providers:
                raise exceptions.CommandError(
                    '--count lets the service choose the providers: give '
                    'no --resource-provider with it.')
            params = {}
            for key, value in placement.parsed_query(parsed_args):
                params.setdefault(key, []).append(value)
            body.update(query=params, count=parsed_args.count)
            body.update(placement.choice_body(parsed_args))
        elif not parsed_args.providers:
            raise exceptions.CommandError(
                'Give the amounts to hold (--resource-provider, then its '
                '--resource), or a candidates query and --count.')
        else:
            # Names resolved first: a provider given by name and by uuid
            # is one provider, its classes merged.
            body['resources'] = amounts(
                [(_provider_uuid(http, rp), resources)
                 for rp, resources in parsed_args.providers])
        if parsed_args.project:
            body['project_id'] = parsed_args.project
        if parsed_args.uuid:
            body['uuid'] = parsed_args.uuid
        return _shown(http.request('POST', PATH, json=body).json())


class ListReservation(command.Lister):
    """List reservations, oldest window first.

    Without ``--project``, those of every project for an administrator,
    the caller's own project's otherwise. ``--start`` and ``--end``
    keep those whose windows overlap [start, end).

    This command requires at least ``--os-placement-api-version 1.10``.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--project', metavar='<project_id>',
            help='Only the reservations of this project.')
        parser.add_argument(
            '--resource-provider', metavar='<uuid or name>',
            dest='provider',
            help='Only the reservations holding something on this '
                 'provider.')
        parser.add_argument(
            '--start', metavar='<time>',
            help='Only the reservations whose windows end after this '
                 'time (ISO 8601).')
        parser.add_argument(
            '--end', metavar='<time>',
            help='Only the reservations whose windows start before this '
                 'time (ISO 8601).')
        return parser

    def take_action(self, parsed_args):
        http = _client(self.app)
        params = {}
        if parsed_args.project:
            params['project_id'] = parsed_args.project
        if parsed_args.provider:
            params['resource_provider'] = _provider_uuid(
                http, parsed_args.provider)
        for bound in ('start', 'end'):
            if getattr(parsed_args, bound):
                params[bound] = getattr(parsed_args, bound)
        found = http.request('GET', PATH, params=params).json()
        return _LISTED, [[r[c] for c in _LISTED]
                         for r in found['reservations']]


class ShowReservation(command.ShowOne):
    """Show a reservation: its window, whether it is active now, and
    what it holds on each provider.

    This command requires at least ``--os-placement-api-version 1.10``.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('uuid', metavar='<uuid>',
                            help='UUID of the reservation.')
        return parser

    def take_action(self, parsed_args):
        http = _client(self.app)
        return _shown(http.request('GET', _path(parsed_args.uuid)).json())


class SetReservation(command.ShowOne):
    """Move the window of a reservation.

    A shorter window always succeeds; one that starts earlier or ends
    later is checked as a new reservation would be, and when the
    capacity is not there the service says why and the window stays as
    it was.

    This command requires at least ``--os-placement-api-version 1.10``.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('uuid', metavar='<uuid>',
                            help='UUID of the reservation.')
        parser.add_argument('--start', metavar='<time>',
                            help='The new start of the window (ISO 8601).')
        parser.add_argument('--end', metavar='<time>',
                            help='The new end of the window (ISO 8601).')
        return parser

    def take_action(self, parsed_args):
        body = {bound: getattr(parsed_args, bound)
                for bound in ('start', 'end') if getattr(parsed_args, bound)}
        # Checked before any request: the service would refuse an empty
        # body too, but in the words of its JSON schema.
        if not body:
            raise exceptions.CommandError(
                'Specify --start, --end or both.')
        http = _client(self.app)
        return _shown(http.request('PUT', _path(parsed_args.uuid),
                                   json=body).json())


class DeleteReservation(command.Command):
    """Delete reservations: what they held is free again at once.

    Every reservation named is tried; the command fails, naming each,
    if any could not be deleted.

    This command requires at least ``--os-placement-api-version 1.10``.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('uuids', metavar='<uuid>', nargs='+',
                            help='UUID of a reservation.')
        return parser

    def take_action(self, parsed_args):
        http = _client(self.app)
        failed = []
        for uuid in parsed_args.uuids:
            try:
                http.request('DELETE', _path(uuid))
            except (exceptions.ClientException,
                    exceptions.CommandError) as exc:
                failed.append('%s: %s' % (uuid, exc))
        if failed:
            raise exceptions.CommandError(
                '%d of %d reservations could not be deleted:\n%s' % (
                    len(failed), len(parsed_args.uuids), '\n'.join(failed)))


class _Intervals(cliff_columns.FormattableColumn):
    """Free intervals, one ``start -> end`` per line in a table."""

    def human_readable(self):
        return '\n'.join('%s -> %s' % (i['start'], i['end'])
                         for i in self._value)

    def machine_readable(self):
        return self._value


class ReservationAvailability(command.Lister):
    """Show where, and when within a window, a reservation would fit.

    For each provider with inventory of every class asked for (or the
    one given with ``--resource-provider``, a node for instance): the
    intervals of [start, end) in which the reservations made leave room
    for the amounts, and whether one of them is the whole window. What
    is allocated now is not counted: a window starting now also needs
    the room now.

    This command requires at least ``--os-placement-api-version 1.10``.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--resource', metavar='<resource_class>=<amount>',
            action='append', required=True, dest='resources',
            help='An amount to fit (repeat for several classes).')
        parser.add_argument(
            '--resource-provider', metavar='<uuid or name>',
            dest='provider', help='Only this provider.')
        parser.add_argument(
            '--start', metavar='<time>', required=True,
            help='The start of the window looked at (ISO 8601).')
        parser.add_argument(
            '--end', metavar='<time>', required=True,
            help='The end of the window looked at (ISO 8601).')
        return parser

    def take_action(self, parsed_args):
        http = _client(self.app)
        wanted = []
        for item in parsed_args.resources:
            name, sep, amount = item.partition('=')
            if not (name and sep and amount):
                raise exceptions.CommandError(
                    'Arguments to --resource must be of form '
                    '<resource_class>=<amount>, not %s.' % item)
            wanted.append('%s:%s' % (name, amount))
        params = {'resources': ','.join(wanted),
                  'start': parsed_args.start, 'end': parsed_args.end}
        if parsed_args.provider:
            params['resource_provider'] = _provider_uuid(
                http, parsed_args.provider)
        found = http.request('GET', PATH + '/availability',
                             params=params).json()['availability']
        columns = ('resource_provider', 'whole_window', 'free')
        return columns, [[e['resource_provider'], e['whole_window'],
                          _Intervals(e['free'])] for e in found]
