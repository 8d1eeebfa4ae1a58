"""``allocsvc-dbsync --config-file F upgrade|version``: manage the schema."""

import sys

from oslo_config import cfg

from allocsvc.common import config
from allocsvc.db import api as db_api
from allocsvc.db import migration
from allocsvc.placement import sync


def _add_commands(subparsers):
    upgrade = subparsers.add_parser(
        'upgrade', help='Upgrade the database schema to the latest version '
                        'and load the standard classes and traits.')
    upgrade.add_argument('--revision', default='head',
                         help='Alembic revision to upgrade to.')
    subparsers.add_parser('version',
                          help='Print the current schema revision.')


_command_opt = cfg.SubCommandOpt('command', title='Commands',
                                 help='Available commands',
                                 handler=_add_commands)


def main(argv=None):
    conf = cfg.ConfigOpts()
    conf.register_cli_opt(_command_opt)
    config.prepare(sys.argv[1:] if argv is None else argv, conf=conf)
    db_api.configure(conf)
    if conf.command.name == 'upgrade':
        migration.upgrade(conf.command.revision)
        sync.ensure_standard()
    else:
        print(migration.current_revision() or 'None')
    return 0


if __name__ == '__main__':
    sys.exit(main())
