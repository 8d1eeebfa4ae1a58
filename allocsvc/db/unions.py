"""Statements that travel together: one UNION ALL of several selects.

Selects a request always needs together are sent as one statement, each
row led by the number of its select (its *kind*), because a round trip
costs more here than the rows it carries.
"""

import sqlalchemy as sa


def tagged(dialect, parts):
    """One UNION ALL of the selects of ``parts`` {kind: select}, each row
    led by its kind and padded with NULLs to the widest select:
    statements a request always needs together travel in one round
    trip, which costs more than their rows here.

    A column holds one type in every select, or NULL: MySQL would turn a
    column mixing numbers and text into text, PostgreSQL refuses it. On
    PostgreSQL the NULLs are cast to their column's type, which it would
    otherwise take for text when the first selects have only NULLs
    there."""
    selects = [parts[kind] for kind in sorted(parts)]
    width = max(len(select.selected_columns) for select in selects)
    lanes = [list(select.selected_columns) +
             [None] * (width - len(select.selected_columns))
             for select in selects]
    types = [next((row[i].type for row in lanes if row[i] is not None and
                   not isinstance(row[i].type, sa.types.NullType)), None)
             for i in range(width)]
    unions = []
    for kind, row in zip(sorted(parts), lanes):
        columns = []
        for i, column in enumerate(row):
            if column is None or isinstance(column.type, sa.types.NullType):
                column = sa.null()
                if dialect == 'postgresql' and types[i] is not None:
                    column = sa.cast(column, types[i])
                column = column.label('pad%d' % i)
            columns.append(column)
        unions.append(parts[kind].with_only_columns(
            sa.literal_column(str(kind)).label('kind'), *columns))
    return sa.union_all(*unions)


def holes(count):
    """NULL columns keeping the next one at its place (``tagged``)."""
    return [sa.null().label('hole%d' % i) for i in range(count)]
