"""Plain record classes, made cheaply at import.

``@record`` is ``@dataclass`` for the subset this package uses (``frozen``, ``slots``, ``eq``,
``order``, ``field(default=..., default_factory=..., compare=...)`` and ``replace``). It exists for
start-up time: ``dataclasses`` compiles six functions per class and imports ``inspect``, about
0.6 ms a class; with some sixty records that was a third of a check's own start. Here only
``__init__`` is compiled (it is the hot one: the engine makes values by the million); equality,
hashing, ordering and ``repr`` are shared closures over C-level attribute getters. Type checkers
see ``dataclasses`` itself (below), so the fields are checked exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dataclasses import dataclass as record
    from dataclasses import field, replace
else:

    class FrozenInstanceError(AttributeError):
        """Assignment to a field of a frozen record."""

    _MISSING: Any = object()

    class _Field:
        __slots__ = ("default", "factory", "compare")

        def __init__(self, default: Any, factory: Any, compare: bool) -> None:
            self.default, self.factory, self.compare = default, factory, compare

    def field(*, default: Any = _MISSING, default_factory: Any = _MISSING, compare: bool = True) -> Any:
        return _Field(default, default_factory, compare)

    def replace(obj: Any, /, **changes: Any) -> Any:
        for name in obj.__record_fields__:
            if name not in changes:
                changes[name] = getattr(obj, name)
        return obj.__class__(**changes)

    def _tuple_getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
        if len(names) > 1:
            return attrgetter(*names)
        if names:
            one = attrgetter(names[0])
            return lambda obj: (one(obj),)
        return lambda obj: ()

    def _init(cls_name: str, fields: list[tuple[str, Any]], frozen: bool) -> Callable[..., None]:
        # Compiled once per class: the same code dataclasses writes, so construction is as fast.
        scope: dict[str, Any] = {"_set": object.__setattr__, "_FACTORY": _MISSING}
        params, body = [], []
        for name, spec in fields:
            if spec.factory is not _MISSING:
                scope[f"_f_{name}"] = spec.factory
                params.append(f"{name}=_FACTORY")
                value = f"_f_{name}() if {name} is _FACTORY else {name}"
            elif spec.default is not _MISSING:
                scope[f"_d_{name}"] = spec.default
                params.append(f"{name}=_d_{name}")
                value = name
            else:
                params.append(name)
                value = name
            body.append(f"  _set(self, {name!r}, {value})" if frozen else f"  self.{name} = {value}")
        source = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "  pass") + "\n"
        exec(source, scope)  # noqa: S102 (our own field names, not user input)
        init = scope["__init__"]
        init.__qualname__ = f"{cls_name}.__init__"
        return init

    def _frozen_setattr(self: Any, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def _frozen_delattr(self: Any, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def _methods(
        cls: type, names: list[str], compared: list[str], eq: bool, order: bool, frozen: bool
    ) -> None:
        # As dataclasses does: a method the class writes itself is kept.
        own = cls.__dict__
        key = _tuple_getter(compared)
        shown = _tuple_getter(names)

        def __repr__(self: Any) -> str:
            values = shown(self) if len(names) > 1 else (shown(self),) if shown else ()
            inner = ", ".join(f"{n}={v!r}" for n, v in zip(names, values, strict=True))
            return f"{type(self).__qualname__}({inner})"

        if "__repr__" not in own:
            cls.__repr__ = __repr__  # type: ignore[method-assign]
        explicit_hash = own.get("__hash__", _MISSING) is not _MISSING and not (
            own["__hash__"] is None and "__eq__" in own
        )
        if eq and "__eq__" not in own:

            def __eq__(self: Any, other: Any) -> Any:
                if other.__class__ is self.__class__:
                    return key(self) == key(other)
                return NotImplemented

            cls.__eq__ = __eq__  # type: ignore[method-assign]
        if order:
            for op in ("__lt__", "__le__", "__gt__", "__ge__"):
                compare = getattr(tuple, op)

                def method(self: Any, other: Any, compare: Any = compare) -> Any:
                    if other.__class__ is self.__class__:
                        return compare(key(self), key(other))
                    return NotImplemented

                method.__name__ = op
                setattr(cls, op, method)

        def __hash__(self: Any) -> int:
            return hash(key(self))

        if eq and not explicit_hash:
            # Frozen and equal by value: hashed by value; mutable and equal by value: unhashable.
            cls.__hash__ = __hash__ if frozen else None  # type: ignore[assignment,method-assign]

    def record(
        cls: type | None = None,
        /,
        *,
        frozen: bool = False,
        slots: bool = False,
        eq: bool = True,
        order: bool = False,
    ) -> Any:
        def wrap(cls: type) -> type:
            fields: list[tuple[str, Any]] = []
            for name, annotation in cls.__dict__.get("__annotations__", {}).items():
                if "ClassVar" in str(annotation):
                    continue
                value = cls.__dict__.get(name, _MISSING)
                spec = value if isinstance(value, _Field) else _Field(value, _MISSING, True)
                if isinstance(value, _Field):
                    if value.default is _MISSING:
                        delattr(cls, name)
                    else:
                        setattr(cls, name, value.default)
                fields.append((name, spec))
            names = [name for name, _ in fields]
            if slots:
                namespace = dict(cls.__dict__)
                for name in names:
                    namespace.pop(name, None)
                namespace.pop("__dict__", None)
                namespace.pop("__weakref__", None)
                namespace["__slots__"] = tuple(names)
                qualname = cls.__qualname__
                cls = type(cls)(cls.__name__, cls.__bases__, namespace)
                cls.__qualname__ = qualname
            cls.__init__ = _init(cls.__qualname__, fields, frozen)  # type: ignore[misc]
            cls.__record_fields__ = tuple(names)  # type: ignore[attr-defined]
            cls.__match_args__ = tuple(names)  # type: ignore[attr-defined]
            _methods(cls, names, [name for name, spec in fields if spec.compare], eq, order, frozen)
            if frozen:
                cls.__setattr__ = _frozen_setattr  # type: ignore[method-assign,assignment]
                cls.__delattr__ = _frozen_delattr  # type: ignore[method-assign,assignment]
                if slots:  # pickling restores slots through __setattr__, which a frozen record refuses

                    def __getstate__(self: Any) -> list[Any]:
                        return [getattr(self, name) for name in names]

                    def __setstate__(self: Any, state: list[Any]) -> None:
                        for name, value in zip(names, state, strict=True):
                            object.__setattr__(self, name, value)

                    cls.__getstate__ = __getstate__  # type: ignore[attr-defined]
                    cls.__setstate__ = __setstate__  # type: ignore[attr-defined]
            return cls

        return wrap if cls is None else wrap(cls)
