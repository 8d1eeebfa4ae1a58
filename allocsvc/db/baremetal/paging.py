from allocsvc.common import exception
"""Sorting and marker paging shared by the node and allocation lists.

A page is ``ORDER BY <key>, id`` continued after the marker row. Sort
columns may be NULL, and backends disagree where NULLs sort, so NULLs are
put first (ascending) explicitly, and the marker predicate follows the
same order.
"""

import sqlalchemy as sa


SORT_DIRS = ('asc', 'desc')


def check_limit(limit):
    if limit is not None and (not isinstance(limit, int) or limit < 0):
        raise exception.InvalidParameterValue('Limit must be positive')


def check_sort(sort_key, sort_dir, sortable):
    if sort_key not in sortable:
        raise exception.InvalidParameterValue(
            'The sort_key value "%s" is an invalid field for sorting'
            % sort_key)
    if sort_dir not in SORT_DIRS:
        raise exception.InvalidParameterValue(
            "Invalid sort direction: %s. Acceptable values are 'asc' or "
            "'desc'" % sort_dir)


def paginate(query, id_col, sort_col, sort_dir, marker, limit):
    """``query`` ordered by ``sort_col`` then ``id_col``, after ``marker``
    (a row with ``id`` and the sort value under ``sort_col.key``, or None),
    at most ``limit`` rows (None: all)."""
    null_rank = sa.case((sort_col.is_(None), 0), else_=1)
    asc = sort_dir == 'asc'
    if sort_col is id_col:
        order = [id_col.asc() if asc else id_col.desc()]
    elif asc:
        order = [null_rank.asc(), sort_col.asc(), id_col.asc()]
    else:
        order = [null_rank.desc(), sort_col.desc(), id_col.desc()]
    query = query.order_by(*order)
    if marker is not None:
        query = query.where(_after(id_col, sort_col, asc, marker))
    if limit is not None:
        query = query.limit(limit)
    return query


def _after(id_col, sort_col, asc, marker):
    after_id = id_col > marker.id if asc else id_col < marker.id
    if sort_col is id_col:
        return after_id
    value = getattr(marker, sort_col.key)
    if asc:
        if value is None:
            return sa.or_(sort_col.is_not(None),
                          sa.and_(sort_col.is_(None), after_id))
        return sa.and_(sort_col.is_not(None),
                       sa.or_(sort_col > value,
                              sa.and_(sort_col == value, after_id)))
    if value is None:
        return sa.and_(sort_col.is_(None), after_id)
    return sa.or_(sort_col.is_(None), sort_col < value,
                  sa.and_(sort_col == value, after_id))
