"""Plain slotted classes with a dataclass's manners, for the types every search builds at import.

A cold ``sleuth grep`` imports every module of its path, and each ``@dataclass`` costs ~0.3-1 ms to
build (its methods are generated and compiled at import): the ~45 in a plain grep's path were a
third of a cold call's CPU (issue 30 item 1, ``bench/cold_start.py``). A class here declares its
fields as ``__slots__`` and writes its own ``__init__``; the base gives it what the dataclass gave:

* :class:`Record`: equality and ``repr`` by the fields, and :meth:`~Record.replace`;
* :class:`Value`: an immutable :class:`Record`, hashed by its fields (a frozen dataclass); its
  ``__init__`` fills the slots with :data:`fill`.

Both pickle by their fields (the worker pool ships requests and results).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _R = TypeVar("_R", bound="Record")

__all__ = ["Record", "Value", "fill", "replace"]

fill = object.__setattr__
"""How a :class:`Value`'s ``__init__`` sets its fields (``fill(self, "name", value)``)."""


class Record:
    """Fields in ``__slots__``, a subclass's after its base's, in ``__init__``'s order; equal when of the
    same class with equal fields."""

    __slots__: tuple[str, ...] = ()
    field_names: tuple[str, ...] = ()

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        if "field_names" not in cls.__dict__:  # (a class may name its fields itself: Settings, by its annotations)
            cls.field_names = cls.__base__.field_names + cls.__dict__.get("__slots__", ())  # type: ignore[attr-defined]

    def fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.field_names)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.fields() == other.fields()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # (mutable: as a dataclass without frozen)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self.field_names)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), self.fields()

    def replace(self: _R, **changes: Any) -> _R:
        """A copy with ``changes`` (``dataclasses.replace``)."""
        return replace(self, **changes)


def replace(record: _R, **changes: Any) -> _R:
    """A copy of ``record`` with ``changes``: :meth:`Record.replace` for a class with a field of that
    name (:class:`~sleuth.engine.types.SearchOptions` has ``replace``, rg's ``-r``)."""
    values = {name: getattr(record, name) for name in record.field_names}
    values.update(changes)
    return type(record)(**values)


class Value(Record):
    """An immutable :class:`Record`, hashed by its fields."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash((type(self), self.fields()))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    __delattr__ = __setattr__  # type: ignore[assignment]
