"""Hot reads compiled to SQL once per process, run with new ids on every call (issue 26).

Turning a queryset into SQL costs a Django process more than running it. On the 2-core test machine
the rater's own assignment with its item, study and case text took 2.7 ms of processor time to
compile and 0.4 ms to run, and a queue request reads five such rows. A `PrecompiledQuery` builds its
queryset once per process and database with placeholder ids, keeps Django's compiler (the SQL, and
how each row becomes model instances), and on each call only puts the ids into the parameters.

Rows still come back through Django's own iterables, so the instances, their `select_related`
objects, deferred fields, converted values, `values()` and `values_list()` rows are what the queryset
itself would give, and the query runs through the connection's cursor like any other (the
`assertNumQueries` counts, the debug toolbar and `Server-Timing` see it).

What may vary between calls is a whole number given by keyword (ids, mostly), or a text named in
`text=` compared as it is (a token's key). A query whose shape depends on other values (lists, dates,
the current time) is not one to precompile: build it as usual.
"""

from __future__ import annotations

import inspect
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import QuerySet
from django.db.models.sql.compiler import SQLCompiler
from django.db.transaction import TransactionManagementError

Row = TypeVar("Row")

# The query is compiled twice with different placeholder ids, each within the range of the smallest
# integer column (a value outside a column's range compiles to no condition at all): a keyword's
# positions are those whose parameter follows the placeholders, and the two SQL texts must match.
_PLACEHOLDERS = (1009, 2003)
# The widest integer column (bigint). An id outside it matches no row: the queryset would compile to
# an empty result, so the call answers [] without asking the database (which could refuse the value).
_ID_RANGE = range(-(2**63), 2**63)
# On PostgreSQL Django passes an integer column's value as psycopg's Int2 / Int4 (subclasses of int, so
# the literal carries the column's type); a value beyond that type goes as a plain int, which the
# database compares without an overflow error.
_WRAPPER_BITS = {"Int2": 16, "Int4": 32, "Int8": 64}


def _same(parameter: object, placeholder: int | str) -> bool:
    if isinstance(placeholder, str):
        return type(parameter) is str and parameter == placeholder
    return isinstance(parameter, int) and not isinstance(parameter, bool) and parameter == placeholder


def _as_parameter(template: int, value: int) -> int:
    kind = type(template)
    bits = _WRAPPER_BITS.get(kind.__name__)
    if bits is not None and -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
        return kind(value)
    return value


@dataclass(frozen=True)
class _Compiled:
    template: QuerySet[Any]  # the queryset built with placeholders (never evaluated)
    compiler: SQLCompiler  # set up by as_sql(): select, klass_info, col_count for the iterables
    sql: str
    params: tuple[Any, ...]
    positions: dict[str, tuple[int, ...]]  # keyword -> where its placeholder sits in params
    locking: bool  # SELECT ... FOR UPDATE: only inside a transaction, as Django checks
    # How each column's value becomes Python, per connection (a backend's converters are bound to its
    # connection's operations): Django works this out again on every run of a query.
    converters: weakref.WeakKeyDictionary[Any, dict[int, Any]]


class _BoundQuery:
    """The template's query, answering `get_compiler` with the compiler bound to this call."""

    def __init__(self, query: Any, compiler: SQLCompiler) -> None:
        self._query, self._compiler = query, compiler

    def get_compiler(self, *args: Any, **kwargs: Any) -> SQLCompiler:
        return self._compiler

    def __getattr__(self, name: str) -> Any:
        return getattr(self._query, name)


class PrecompiledQuery(Generic[Row]):
    """A read of fixed shape: `build(**ids)` returns the queryset; `all(**ids)` / `first(**ids)` run it.

        _OWN = PrecompiledQuery(lambda pk, rater_id: Assignment.objects.filter(pk=pk, rater_id=rater_id))
        assignment = _OWN.first(pk=pk, rater_id=user.pk)

    A query with `select_for_update` compiles on its first call, which must be inside a transaction
    (as for the queryset), and every call outside one raises `TransactionManagementError`.
    """

    def __init__(
        self, build: Callable[..., QuerySet[Any]], *, text: tuple[str, ...] = (), using: str = DEFAULT_DB_ALIAS,
    ) -> None:
        self._build = build
        self._names = tuple(inspect.signature(build).parameters)
        self._text = frozenset(text)
        if not self._text <= set(self._names):
            raise TypeError(f"{build.__qualname__}: text= names {', '.join(sorted(self._text - set(self._names)))}, "
                            "which it does not take.")
        self._using = using
        self._compiled: _Compiled | None = None
        self._lock = threading.Lock()

    def all(self, **ids: int | str) -> list[Row]:
        if set(ids) != set(self._names):
            raise TypeError(f"{self._build.__qualname__}: expected the keywords {', '.join(self._names)}, "
                            f"got {', '.join(sorted(ids)) or 'none'}.")
        connection = connections[self._using]
        compiled = self._compiled or self._compile_once()
        if compiled.locking and connection.features.has_select_for_update and connection.get_autocommit():
            raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
        params = list(compiled.params)
        for name, value in ids.items():
            if name in self._text:
                if type(value) is not str:
                    raise TypeError(f"{self._build.__qualname__}: {name} must be a text, not {type(value).__name__}.")
                for position in compiled.positions[name]:
                    params[position] = value
                continue
            # bool is an int, but never an id; anything else would change the SQL, not a parameter.
            if type(value) is not int:
                raise TypeError(f"{self._build.__qualname__}: {name} must be a whole number, "
                                f"not {type(value).__name__}.")
            if value not in _ID_RANGE:
                return []
            for position in compiled.positions[name]:
                params[position] = _as_parameter(compiled.params[position], value)
        bound = SQLCompiler.__new__(type(compiled.compiler))
        bound.__dict__.update(compiled.compiler.__dict__)
        bound.connection = connection  # each thread has its own connection object
        sql, bound_params = compiled.sql, tuple(params)
        bound.as_sql = lambda *args, **kwargs: (sql, bound_params)  # type: ignore[method-assign]
        converters = compiled.converters.get(connection)
        if converters is None:
            converters = bound.get_converters([s[0] for s in bound.select[0: bound.col_count]])
            compiled.converters[connection] = converters
        bound.get_converters = lambda expressions: converters  # type: ignore[method-assign]
        # A shallow copy of the template (copy.copy would pickle it, which evaluates a queryset).
        queryset = QuerySet.__new__(type(compiled.template))
        queryset.__dict__.update(compiled.template.__dict__)
        queryset._query = _BoundQuery(compiled.template.query, bound)
        return list(queryset._iterable_class(queryset))

    def first(self, **ids: int | str) -> Row | None:
        rows = self.all(**ids)
        return rows[0] if rows else None

    def _compile_once(self) -> _Compiled:
        # The SQL depends only on the alias's database, which a process does not change.
        with self._lock:
            if self._compiled is None:
                self._compiled = self._compile()
            return self._compiled

    def _compile(self) -> _Compiled:
        where = self._build.__qualname__
        runs = []
        for base in _PLACEHOLDERS:
            placeholders: dict[str, int | str] = {
                name: f"\x1fprecompiled-{base + k}\x1f" if name in self._text else base + k
                for k, name in enumerate(self._names)
            }
            template = self._build(**placeholders)
            if template._prefetch_related_lookups:
                raise ImproperlyConfigured(f"{where}: prefetch_related runs more queries; it cannot be precompiled.")
            compiler = template.query.get_compiler(using=self._using)
            sql, params = compiler.as_sql()
            runs.append((placeholders, template, compiler, sql, tuple(params)))
        (first, template, compiler, sql, params), (second, _, _, other_sql, other_params) = runs
        positions: dict[str, tuple[int, ...]] = {}
        for name in self._names:
            found = tuple(
                k for k, (p, q) in enumerate(zip(params, other_params, strict=False))
                if _same(p, first[name]) and _same(q, second[name])
            )
            if not found or other_sql != sql or len(other_params) != len(params):
                raise ImproperlyConfigured(
                    f"{where}: {name} does not reach the query as a parameter of its own, so it cannot "
                    "vary between calls; build this query as usual.")
            positions[name] = found
        return _Compiled(template=template, compiler=compiler, sql=sql, params=params, positions=positions,
                         locking=bool(template.query.select_for_update), converters=weakref.WeakKeyDictionary())
