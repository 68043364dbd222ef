"""``sleuth.engine.plain_typing``'s stand-ins behave as ``typing``'s for the way Sleuth uses them: a
``NamedTuple`` class is the same ``collections.namedtuple`` (fields, defaults, methods, pickling), a
``runtime_checkable`` protocol's ``isinstance`` checks the members it names. The modules of a cold
grep take them at run time (``tests/cli/test_cold_start.py`` fails if ``typing`` is imported)."""

from __future__ import annotations

import pickle
import typing

import pytest

from sleuth.engine import plain_typing
from sleuth.engine.grep.units import Unit
from sleuth.engine.types import FileEntry


class Plain(plain_typing.NamedTuple):
    """A pair with a default."""

    name: str
    size: int = 0
    LIMIT = 10

    def big(self) -> bool:
        return self.size > self.LIMIT


class Typed(typing.NamedTuple):
    """A pair with a default."""

    name: str
    size: int = 0
    LIMIT = 10

    def big(self) -> bool:
        return self.size > self.LIMIT


@pytest.mark.parametrize("cls", [Plain, Typed])
def test_a_named_tuple_is_typings(cls: type) -> None:
    one = cls("a", 12)
    assert one == ("a", 12) and one.big() and cls("b").size == 0 and tuple(cls("b")) == ("b", 0)
    assert cls._fields == ("name", "size") and cls._field_defaults == {"size": 0}
    assert one._replace(size=1) == cls("a", 1) and not one._replace(size=1).big()
    assert cls.__doc__ == "A pair with a default." and cls.__qualname__ == cls.__name__
    assert cls.__module__ == __name__ and list(cls.__annotations__) == ["name", "size"]
    assert pickle.loads(pickle.dumps(one)) == one and type(pickle.loads(pickle.dumps(one))) is cls
    assert repr(one) == f"{cls.__name__}(name='a', size=12)"
    with pytest.raises(AttributeError):
        one.other = 1  # type: ignore[attr-defined]


def test_the_engines_named_tuples_pickle_as_before() -> None:
    """The pool ships units and file entries to its workers by pickle."""
    for value in [FileEntry("/r/a/b.txt", "a/b.txt", 3, 1.5), Unit("/r/a\0/r/b", "a\0b", 2)]:
        copy = pickle.loads(pickle.dumps(value))
        assert copy == value and type(copy) is type(value)
    assert Unit("p", "d", 1).pieces == b"" and Unit("p", "d", 1).texts is None


@plain_typing.runtime_checkable
class Sized(plain_typing.Protocol):
    """Something with a size that can be called."""

    size: int

    def __call__(self) -> None: ...

    def trim(self) -> int: ...


def test_a_runtime_checkable_protocol_checks_the_members_it_names() -> None:
    class Both:
        size = 1

        def __call__(self) -> None: ...

        def trim(self) -> int:
            return 0

    class NoSize:
        def __call__(self) -> None: ...

        def trim(self) -> int:
            return 0

    assert isinstance(Both(), Sized) and not isinstance(NoSize(), Sized) and not isinstance(object(), Sized)
    assert Sized.__name__ == "Sized" and Sized.__doc__ == "Something with a size that can be called."
