"""The run-time side of the few ``typing`` constructs a cold ``sleuth grep`` executes, without ``typing``.

Python 3.11's ``typing`` costs a cold process ~4 ms of CPU to import (with ``contextlib``, ``warnings``
and its own ~3,000 lines; issue 30, ``bench/cold_start.py``), and everything else it offers is read
by the type checkers only: annotations are strings here (``from __future__ import annotations``) and
their names are imported under ``if TYPE_CHECKING:``. What a module executes is its classes' bases,
so a module on the cold path takes these at run time and ``typing``'s own for the checkers::

    TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
    if TYPE_CHECKING:
        from typing import NamedTuple
    else:
        from sleuth.engine.plain_typing import NamedTuple

Each behaves as ``typing``'s does for the way Sleuth uses it: :class:`NamedTuple` makes the same
``collections.namedtuple`` class (fields from the annotations, defaults, methods, pickled by name);
:class:`Protocol` is a plain base (a matcher inherits its defaults); :func:`runtime_checkable` gives
``isinstance`` by the members the protocol names, as ``typing`` checks them.
"""

from __future__ import annotations

from collections import namedtuple

__all__ = ["NamedTuple", "Protocol", "runtime_checkable"]

_MADE_BY_NAMEDTUPLE = frozenset({"__module__", "__annotations__", "__slots__"})


class _NamedTupleMeta(type):
    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, object]) -> type:  # noqa: N804
        fields: dict[str, object] = namespace.get("__annotations__", {})  # type: ignore[assignment]
        made = namedtuple(name, fields, defaults=[namespace[f] for f in fields if f in namespace],  # type: ignore[misc]
                          module=namespace["__module__"])  # type: ignore[arg-type]
        made.__annotations__ = dict(fields)
        for key, value in namespace.items():  # docstring, qualified name, methods, class constants
            if key not in _MADE_BY_NAMEDTUPLE and key not in fields:
                setattr(made, key, value)
        return made


_NamedTupleBase = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})


def NamedTuple() -> None:  # noqa: N802 - typing's name: a base, as ``class Unit(NamedTuple):``
    """Only a base class: ``class C(NamedTuple)`` makes a ``collections.namedtuple`` (as typing's does)."""
    raise TypeError("NamedTuple is used as a base class here")


NamedTuple.__mro_entries__ = lambda bases: (_NamedTupleBase,)  # type: ignore[attr-defined]


class Protocol:
    """A protocol's run-time base: nothing but the defaults its body writes."""

    __slots__ = ()


class _Structural(type):
    def __instancecheck__(cls, instance: object) -> bool:
        return all(hasattr(instance, name) for name in cls._members)  # type: ignore[attr-defined]


def runtime_checkable(protocol: type) -> type:
    """``protocol`` with ``isinstance`` true for any object that has every member it names (its methods,
    ``__call__`` included, and its annotated attributes), as ``typing.runtime_checkable``'s."""
    body = vars(protocol)
    members = tuple(name for name in (*body, *body.get("__annotations__", {}))
                    if name == "__call__" or not name.startswith("_"))
    return _Structural(protocol.__name__, (protocol,), {"_members": members, "__slots__": (),
                                                         "__module__": protocol.__module__,
                                                         "__qualname__": protocol.__qualname__,
                                                         "__doc__": protocol.__doc__})
