"""Placement: reservations, capacity held for a project over a window.

A reservation holds amounts of resource classes on providers for one
project from ``start_at`` (included) to ``end_at`` (excluded). Its
amounts are rows of ``placement_reservation_amounts``, one per
(provider, class); the claims of other projects and the candidates they
are offered leave room for what the reservations active at that instant
still hold (``allocsvc.placement.reservations``).

Revision ID: 0012_placement_reservations
Revises: 0011_allocation_groups
Create Date: 2026-11-29
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0012_placement_reservations'
down_revision = '0011_allocation_groups'
branch_labels = None
depends_on = None

_TABLE_ARGS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4',
               'mysql_collate': 'utf8mb4_bin'}
# Frozen: a timestamp to the microsecond on every backend (as 0003).
_PRECISE = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql')


def upgrade():
    op.create_table(
        'placement_reservations',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('project_id', sa.Integer,
                  sa.ForeignKey('projects.id'), nullable=False),
        sa.Column('start_at', _PRECISE, nullable=False),
        sa.Column('end_at', _PRECISE, nullable=False),
        sa.Column('created_at', _PRECISE, nullable=True),
        sa.Column('updated_at', _PRECISE, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_placement_reservations0uuid'),
        **_TABLE_ARGS)
    op.create_index('placement_reservations_window_idx',
                    'placement_reservations', ['end_at', 'start_at'])
    op.create_index('placement_reservations_project_idx',
                    'placement_reservations', ['project_id'])
    op.create_table(
        'placement_reservation_amounts',
        sa.Column('reservation_id', sa.Integer,
                  sa.ForeignKey('placement_reservations.id'),
                  primary_key=True, autoincrement=False),
        sa.Column('resource_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'),
                  primary_key=True, autoincrement=False),
        sa.Column('resource_class_id', sa.Integer,
                  sa.ForeignKey('resource_classes.id'),
                  primary_key=True, autoincrement=False),
        sa.Column('amount', sa.Integer, nullable=False),
        **_TABLE_ARGS)
    op.create_index('placement_reservation_amounts_pair_idx',
                    'placement_reservation_amounts',
                    ['resource_provider_id', 'resource_class_id'])
