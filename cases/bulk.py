"""Fast inserts for imports. Callers hold the import's transaction.

On PostgreSQL rows go in with COPY: Django 5.2's bulk_create sends text columns as UNNEST arrays
that psycopg quotes in Python, which made a LiveMedBench release take well over 10 s; COPY streams
the same rows in a fraction of that. Primary keys are taken from the table's sequence first, so
callers can link rows (a case to its first revision) before anything is written; Django's foreign
keys are DEFERRABLE INITIALLY DEFERRED on PostgreSQL, so the order of the COPYs does not matter.
Elsewhere (SQLite) the same calls fall back to bulk_create / bulk_update.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from django.db import connection, models
from django.utils import timezone

BATCH_SIZE = 1000


def is_postgres() -> bool:
    return connection.vendor == "postgresql"


def allocate_id_values(model: type[models.Model], count: int) -> list[int]:
    """PostgreSQL only: `count` new primary keys from the table's sequence."""
    if not count:
        return []
    meta = model._meta
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [meta.db_table, meta.pk.column, count],
        )
        return [pk for (pk,) in cursor.fetchall()]


def allocate_ids(objs: Sequence[models.Model]) -> None:
    """PostgreSQL only: give unsaved objects their primary keys from the table's sequence."""
    if not objs:
        return
    for obj, pk in zip(objs, allocate_id_values(type(objs[0]), len(objs)), strict=True):
        obj.pk = pk


def _converter(field: models.Field, now: Any) -> Callable[[models.Model], Any]:
    attname = field.attname
    if isinstance(field, models.JSONField):
        return lambda obj: None if getattr(obj, attname) is None else json.dumps(getattr(obj, attname))
    if getattr(field, "auto_now_add", False) or getattr(field, "auto_now", False):
        return lambda obj: getattr(obj, attname) or now
    return lambda obj: getattr(obj, attname)


def insert(objs: list[models.Model]) -> list[models.Model]:
    """Insert new rows; afterwards every object has its primary key."""
    if not objs:
        return objs
    model = type(objs[0])
    if not is_postgres():
        return model.objects.bulk_create(objs, batch_size=BATCH_SIZE)
    if any(obj.pk is None for obj in objs):
        allocate_ids([obj for obj in objs if obj.pk is None])
    meta = model._meta
    fields = meta.concrete_fields
    converters = [_converter(f, timezone.now()) for f in fields]
    quote = connection.ops.quote_name
    statement = f"COPY {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for obj in objs:
            copy.write_row([convert(obj) for convert in converters])
    for obj in objs:
        obj._state.adding = False
        obj._state.db = connection.alias
    return objs


def insert_values(model: type[models.Model], rows: list[dict[str, Any]]) -> int:
    """Insert new rows given as {attname: value} without building a model instance per row (the
    criteria of a LiveMedBench release are ~17,000 rows and nothing reads their ids back); a field
    a row leaves out takes its default. Returns the number of rows."""
    if not rows:
        return 0
    if not is_postgres():
        model.objects.bulk_create([model(**row) for row in rows], batch_size=BATCH_SIZE)
        return len(rows)
    _copy_values(model, rows, [f for f in model._meta.concrete_fields if not f.primary_key])
    return len(rows)


def insert_rows(model: type[models.Model], rows: list[dict[str, Any]]) -> list[int]:
    """`insert_values` that gives back each row's primary key, in order: on PostgreSQL a row without
    one takes it from the table's sequence before the COPY, elsewhere bulk_create reports it."""
    if not rows:
        return []
    if not is_postgres():
        return [obj.pk for obj in model.objects.bulk_create([model(**row) for row in rows], batch_size=BATCH_SIZE)]
    key = model._meta.pk.attname
    missing = [row for row in rows if row.get(key) is None]
    for row, pk in zip(missing, allocate_id_values(model, len(missing)), strict=True):
        row[key] = pk
    _copy_values(model, rows, list(model._meta.concrete_fields))
    return [row[key] for row in rows]


def _copy_values(model: type[models.Model], rows: list[dict[str, Any]], fields: list[models.Field]) -> None:
    meta = model._meta
    now = timezone.now()
    defaults = {f.attname: (now if getattr(f, "auto_now_add", False) or getattr(f, "auto_now", False)
                            else f.get_default()) for f in fields}
    json_fields = {f.attname for f in fields if isinstance(f, models.JSONField)}
    names = [f.attname for f in fields]
    quote = connection.ops.quote_name
    statement = f"COPY {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for row in rows:
            values = [row.get(name, defaults[name]) for name in names]
            for i, name in enumerate(names):
                if name in json_fields and values[i] is not None:
                    values[i] = json.dumps(values[i])
            copy.write_row(values)


def set_current_revisions(moves: list[tuple[int, int]]) -> None:
    """(case id, revision id) pairs: point each case at its new current revision."""
    if not moves:
        return
    from cases.models import Case

    if is_postgres():
        table = connection.ops.quote_name(Case._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} AS c SET current_revision_id = m.revision_id "  # noqa: S608 - quoted table name
                "FROM unnest(%s::bigint[], %s::bigint[]) AS m(case_id, revision_id) WHERE c.id = m.case_id",
                [[case_id for case_id, _ in moves], [revision_id for _, revision_id in moves]],
            )
        return
    Case.objects.bulk_update(
        [Case(pk=case_id, current_revision_id=revision_id) for case_id, revision_id in moves],
        ["current_revision"], batch_size=BATCH_SIZE,
    )
