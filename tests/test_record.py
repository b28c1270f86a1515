"""``gradguard.record`` behaves as ``dataclasses`` does for everything the package uses."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest

from gradguard import record as rec


def _pair(**options: Any) -> tuple[type, type]:
    """The same class made by dataclasses and by record."""

    def make(decorate: Any, field: Any) -> type:
        class Point:
            x: int
            y: int = 0
            tags: list[str] = field(default_factory=list)
            note: str | None = field(default=None, compare=False)

        return decorate(**options)(Point)

    return make(dataclasses.dataclass, dataclasses.field), make(rec.record, rec.field)


OPTIONS = [
    {},
    {"frozen": True},
    {"slots": True},
    {"frozen": True, "slots": True},
    {"eq": False, "slots": True},
    {"frozen": True, "slots": True, "order": True},
]


@pytest.mark.parametrize("options", OPTIONS)
def test_same_behaviour_as_dataclasses(options: dict[str, Any]) -> None:
    ref, ours = _pair(**options)
    a, b = ref(1, 2, ["t"], "n"), ours(1, 2, ["t"], "n")
    assert repr(a) == repr(b)
    assert (ours(1) == ours(1)) == (ref(1) == ref(1))
    assert (ours(1, note="a") == ours(1, note="b")) == (ref(1, note="a") == ref(1, note="b"))
    assert ours(1) != ours(2)
    assert (ours.__hash__ is None) == (ref.__hash__ is None)
    if ref.__hash__ is not None and options.get("eq", True):
        assert hash(ours(1, 2, (), "a")) == hash(ours(1, 2, (), "b"))  # note is not compared
        assert hash(ours(1, 2, (), "a")) != hash(ours(1, 3, (), "a"))
    assert ours(1).tags is not ours(1).tags  # a fresh default per instance
    assert hasattr(b, "__dict__") == hasattr(a, "__dict__")
    assert ours.__match_args__ == ref.__match_args__
    changed = rec.replace(b, y=5)
    assert (changed.x, changed.y, changed.tags, changed.note) == (1, 5, ["t"], "n")
    if options.get("frozen"):
        with pytest.raises(AttributeError):
            b.x = 3
        with pytest.raises(AttributeError):
            del b.x
    else:
        b.x = 3
        assert b.x == 3
    if options.get("order"):
        assert ours(1) < ours(2) and ours(2, 1) > ours(2, 0) and ours(1) <= ours(1)
    with pytest.raises(TypeError):
        ours()  # x is required


@pytest.mark.parametrize("options", OPTIONS)
def test_pickle_and_copy(options: dict[str, Any]) -> None:
    # Results cross process boundaries in a parallel check; frozen slotted records must survive it.
    _, ours = _pair(**options)
    globals()["Point"] = ours
    ours.__qualname__ = "Point"
    value = ours(1, 2, ["t"], "n")
    for again in (pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)):
        assert (again.x, again.y, again.tags, again.note) == (1, 2, ["t"], "n")


def test_methods_written_by_the_class_are_kept() -> None:
    @rec.record(frozen=True)
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

        def __hash__(self) -> int:
            return 7

    assert repr(Named("a")) == "<a>" and hash(Named("a")) == 7
