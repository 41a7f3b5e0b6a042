"""Inserting rows by statements composed once: ``Model.objects.create`` and ``bulk_create``
without composing the SQL again for every row (issue 29 §4).

The autonomy tick writes thousands of plain rows (audit rows, round-log rows, events, purchases,
chat lines): for each, Django spent longer composing the INSERT than the database spent running it
(``bench.autonomy_tick``, cProfile: ``SQLInsertCompiler.as_sql`` and its value preparation were a
fifth of a rules tick). Here the INSERT of a model is composed once per database alias and row
count, and each value is prepared as the ORM would (``auto_now_add``: one timestamp for the
insert's rows; JSON encoded by the connection; any other field by its ``pre_save`` and
``get_db_prep_save``); the statement runs inside the caller's transaction, on the connection the
ORM would write the model to. ``insert`` takes rows as plain mappings, with no model instance at
all (the tick's audit and round-log rows: building an instance cost more than inserting it).

What it leaves out: ``save()`` overrides and ``pre_save``/``post_save`` signals. Use it only for
models that have neither (``create`` refuses a model with a signal receiver). ``read_all`` is
``model.objects.all()`` the same way, for the small tables a tick batch reads whole, and
``OneByKey`` a queryset's one row by its key (``select_related`` included), for a request's reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, TypeVar

from django.db import connections, models, router
from django.db.models import Model
from django.db.models.query import QuerySet, get_related_populators
from django.db.models.base import ModelState
from django.db.models.signals import post_init, post_save, pre_init, pre_save
from django.utils import timezone

from core.database import statement_cursor

M = TypeVar("M", bound=Model)


@cache
def _columns(model: type[Model]) -> tuple:
    meta = model._meta
    auto_pk = meta.pk if meta.pk.db_returning else None
    return tuple(field for field in meta.concrete_fields if field is not auto_pk and not field.generated)


@cache
def _insert_sql(alias: str, model: type[Model], rows: int, returning: bool) -> str:
    quote = connections[alias].ops.quote_name
    meta = model._meta
    fields = _columns(model)
    columns = ", ".join(quote(field.column) for field in fields)
    one = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES {', '.join([one] * rows)}"
    return sql + f" RETURNING {quote(meta.pk.column)}" if returning else sql


def _has_receivers(model: type[Model]) -> bool:
    return pre_save.has_listeners(model) or post_save.has_listeners(model)


# Fields whose value goes to the database as Python holds it (the driver adapts str, int, bool).
_PLAIN = (models.CharField, models.TextField, models.IntegerField, models.BooleanField)


def _plain(field: models.Field) -> bool:
    if isinstance(field, models.ForeignKey):
        return isinstance(field.target_field, models.IntegerField)  # the id as it is
    overrides = type(field).get_db_prep_save is not models.Field.get_db_prep_save or type(field).pre_save is not models.Field.pre_save
    return isinstance(field, _PLAIN) and not overrides


# How a column's value is prepared: as Python holds it; the insert's one timestamp (auto_now,
# auto_now_add); JSON encoded by the connection; by its field (anything else).
_AS_IS, _NOW, _JSON, _FIELD = range(4)


def _kind(field: models.Field) -> int:
    if _plain(field):
        return _AS_IS
    kind = type(field)
    if isinstance(field, models.DateTimeField) and (field.auto_now or field.auto_now_add):
        if kind.pre_save is models.DateTimeField.pre_save and kind.get_db_prep_save is models.Field.get_db_prep_save:
            return _NOW
    if kind is models.JSONField:
        return _JSON
    return _FIELD


@cache
def _preparers(model: type[Model]) -> tuple:
    """(attname, kind, field) of each column the INSERT names."""
    return tuple((field.attname, _kind(field), field) for field in _columns(model))


def _prepare(kind: int, field: models.Field, value, now, connection):
    if kind == _AS_IS:
        return value
    if kind == _NOW:
        return now
    if kind == _JSON and not hasattr(value, "resolve_expression"):
        return None if value is None else connection.ops.adapt_json_value(value, field.encoder)
    return field.get_db_prep_save(value, connection)


def _instance_values(obj: Model, preparers: tuple, now: tuple, connection) -> list:
    values = []
    for attname, kind, field in preparers:
        if kind == _NOW:
            setattr(obj, attname, now[0])  # as ``pre_save`` does: the instance holds its timestamp
            values.append(now[1])
        elif kind == _FIELD:
            values.append(field.get_db_prep_save(field.pre_save(obj, True), connection))
        else:
            values.append(_prepare(kind, field, getattr(obj, attname), None, connection))
    return values


def _now(connection) -> tuple:
    """One timestamp for every row of an insert, and its database value (what ``pre_save`` and
    ``DateTimeField.get_db_prep_save`` give each row: the aware time, adapted by the backend)."""
    now = timezone.now()
    return now, connection.ops.adapt_datetimefield_value(now)


def _saved(obj: Model, pk: int | None, alias: str) -> None:
    if pk is not None:
        obj.pk = pk
    obj._state.adding, obj._state.db = False, alias


def create(obj: M) -> M:
    """Insert one unsaved instance (``Model.objects.create`` minus the composing); sets its primary key."""
    return bulk_create([obj], returning=True)[0]


def bulk_create(objs: Sequence[M], *, returning: bool = False) -> list[M]:
    """Insert unsaved instances of one model: one multi-row INSERT per as many rows as the database
    takes parameters for (``QuerySet.bulk_create``'s batches). With ``returning`` each gets its
    primary key, in the order given (RETURNING, as ``QuerySet.bulk_create`` reads it).
    """
    if not objs:
        return []
    model = type(objs[0])
    alias, connection = _target(model)
    preparers = _preparers(model)
    now = _now(connection)
    keys = _execute(alias, model, [_instance_values(obj, preparers, now, connection) for obj in objs], returning)
    for obj, pk in zip(objs, keys, strict=True):
        _saved(obj, pk, alias)
    return list(objs)


def insert(model: type[Model], values: Sequence[Mapping[str, Any]]) -> None:
    """Insert rows given as mappings of attribute name (``agent_id``, not ``agent``) to value, with
    no model instance at all: for the thousands of plain rows of a tick (audit and round-log rows),
    building an instance cost more than inserting it. A column a row leaves out takes its
    field's default (``auto_now_add``: the insert's timestamp); a name no column has is refused.
    """
    if not values:
        return
    alias, connection = _target(model)
    preparers = _preparers(model)
    if any(kind == _FIELD and type(field).pre_save is not models.Field.pre_save for _, kind, field in preparers):
        raise TypeError(f"{model.__name__} has a field that computes its value on save: insert instances (bulk_create)")
    names = {attname for attname, _, _ in preparers}
    now = _now(connection)[1]
    prepared = []
    for row in values:
        if not row.keys() <= names:
            raise TypeError(f"{model.__name__} has no column {sorted(row.keys() - names)}")
        prepared.append([
            _prepare(kind, field, row[attname] if attname in row else field.get_default(), now, connection)
            for attname, kind, field in preparers
        ])
    _execute(alias, model, prepared, returning=False)


def _target(model: type[Model]):
    if _has_receivers(model):
        raise TypeError(f"{model.__name__} has pre_save/post_save receivers: save it through the ORM")
    alias = router.db_for_write(model)
    return alias, connections[alias]


def _execute(alias: str, model: type[Model], rows: list[list], returning: bool) -> list:
    """Run the INSERTs of prepared rows, in chunks the database takes; their keys (``returning``) or Nones."""
    connection = connections[alias]
    limit = connection.features.max_query_params
    chunk = max(1, limit // len(rows[0])) if limit else len(rows)
    keys: list = []
    with statement_cursor(connection) as cursor:
        for start in range(0, len(rows), chunk):
            part = rows[start : start + chunk]
            cursor.execute(_insert_sql(alias, model, len(part), returning), [value for row in part for value in row])
            keys += [pk for (pk,) in cursor.fetchall()] if returning else [None] * len(part)
    return keys


def from_db(model: type[M], alias: str, names: Sequence[str], values: Sequence[Any]) -> M:
    """``model.from_db(alias, names, values)``: an instance read from the database holding these
    attributes, any other field deferred (it loads on first access). Without ``Model.__init__``'s walk
    over every field (a tick makes 20,000 ``Agent`` rows of five fields; the walk cost more than the
    read), for a model with no ``pre_init``/``post_init`` receiver, which only ``__init__`` runs;
    with one, through ``from_db`` itself."""
    if pre_init.has_listeners(model) or post_init.has_listeners(model):
        return model.from_db(alias, names, values)
    obj = model.__new__(model)
    state = obj._state = ModelState()
    state.adding, state.db = False, alias
    for name, value in zip(names, values, strict=True):
        setattr(obj, name, value)  # as ``__init__`` sets them: through a descriptor where the field has one
    return obj


def read_all(model: type[M]) -> list[M]:
    """``list(model.objects.all())`` by a statement composed once (every concrete column, no
    ordering), each value converted as the ORM converts it (SQLite's 0 and 1 to booleans)."""
    alias = router.db_for_read(model)
    connection = connections[alias]
    sql, names, converters = _select_all(alias, model)
    with connection.cursor() as cursor:
        cursor.execute(sql)
        rows = cursor.fetchall()
    objs = []
    for row in rows:
        values = list(row)
        for index, column, functions in converters:
            for convert in functions:
                values[index] = convert(values[index], column, connection)
        objs.append(model.from_db(alias, names, values))
    return objs


@cache
def _select_all(alias: str, model: type[Model]) -> tuple[str, tuple[str, ...], tuple]:
    connection, meta = connections[alias], model._meta
    quote = connection.ops.quote_name
    fields = meta.concrete_fields
    sql = f"SELECT {', '.join(quote(field.column) for field in fields)} FROM {quote(meta.db_table)}"
    converters = []
    for index, field in enumerate(fields):
        column = field.get_col(meta.db_table)
        functions = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        if functions:
            converters.append((index, column, tuple(functions)))
    return sql, tuple(field.attname for field in fields), tuple(converters)


class OneByKey:
    """``queryset.filter(pk=key).first()`` without an ORDER BY, the statement and the mapping of its
    row to instances (``select_related`` ones too, each value's converters) composed once per
    database alias, the way ``ModelIterable`` maps them. Composing a query of four joined relations
    cost a confirm more than running it (``bench.requests --profile confirm``), and so did working
    out its forty columns' converters for every read. Keep one per queryset, at module level."""

    _KEY = -7_319_402_221  # stands for the key while the statement is composed; found among its parameters

    def __init__(self, queryset: QuerySet) -> None:
        self.queryset = queryset.order_by()
        self._composed: dict[str, tuple] = {}

    def _compose(self, alias: str) -> tuple:
        compiler = self.queryset.filter(pk=self._KEY)[:1].query.get_compiler(using=alias)
        sql, params = compiler.as_sql()
        klass_info, select = compiler.klass_info, compiler.select
        start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        names = [column[0].target.attname for column in select[start:end]]
        populators = get_related_populators(klass_info, select, alias)
        columns = [column[0] for column in select[: compiler.col_count]]
        if compiler.has_composite_fields(columns):
            raise TypeError(f"OneByKey reads no composite key: {self.queryset.model.__name__}")
        converters = compiler.get_converters(columns)  # what ``results_iter`` works out again for every read
        composed = (compiler, sql, list(params), list(params).index(self._KEY), start, end, names, populators, converters)
        self._composed[alias] = composed
        return composed

    def get(self, key: Any) -> Model | None:
        model = self.queryset.model
        alias = router.db_for_read(model)
        compiler, sql, params, index, start, end, names, populators, converters = self._composed.get(alias) or self._compose(alias)
        params = params.copy()
        params[index] = model._meta.pk.get_prep_value(key)  # a key that is no key fails as the ORM's filter does
        with connections[alias].cursor() as cursor:
            cursor.execute(sql, params)
            found = cursor.fetchall()
        for row in compiler.apply_converters(found, converters) if converters else found:
            obj = model.from_db(alias, names, row[start:end])
            for populator in populators:
                populator.populate(row, obj)
            return obj
        return None
