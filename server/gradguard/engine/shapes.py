"""Partial tensor shapes: the rank, with each dimension's size when it is known.

A shape is a tuple with one entry per dimension: an ``int`` when that size is certain, ``None``
when it is not (the batch size of a loader's data, a sequence length). The rank itself is known
whenever a shape is: an unknown rank is no shape at all (``None`` in place of the tuple).

What the rules need is narrow: "is this tensor certainly not a one-element tensor?" (GG109) and
"is it certainly a scalar?" (the `.item()` advice). So the transfer functions here keep a size only
when torch would fail on any other, and otherwise drop it to ``None``: a partial shape never claims
a size the program might not have.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .values import ModuleInst

Dim = int | None
Shape = tuple[Dim, ...]


def not_scalar(shape: Shape | None) -> bool:
    """Does a tensor of this shape certainly have a number of elements other than one (so a
    ``backward()`` without ``gradient=`` raises)? One known size other than 1 is enough: the
    product is then 0 or at least 2."""
    return shape is not None and any(d is not None and d != 1 for d in shape)


def numel(shape: Shape) -> int | None:
    n = 1
    for d in shape:
        if d is None:
            return None
        n *= d
    return n


def broadcast(a: Shape | None, b: Shape | None) -> Shape | None:
    """The broadcast of two shapes. Where one size is unknown, the result's size is the other's
    when that one is not 1 (broadcasting succeeds only if the unknown one is 1 or equal)."""
    if a is None or b is None:
        return None
    out: list[Dim] = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x is None or y is None:
            known = y if x is None else x
            out.append(known if known is not None and known != 1 else None)
        elif x != y and 1 not in (x, y):
            return None  # torch raises here; say nothing of the result
        else:
            out.append(max(x, y))
    return tuple(reversed(out))


def norm_dim(dim: int | None, rank: int) -> int | None:
    if dim is None or not -rank <= dim < rank:
        return None
    return dim % rank


def int_const(node: ast.expr | None) -> int | None:
    """An integer literal, negative ones included."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = int_const(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def reduced(shape: Shape | None, dim: int | None, keepdim: bool | None) -> Shape | None:
    """``x.sum(dim)`` and friends with one constant dim; ``keepdim`` None when not constant."""
    if shape is None or keepdim is None:
        return None
    d = norm_dim(dim, len(shape))
    if d is None:
        return None
    if keepdim:
        return (*shape[:d], 1, *shape[d + 1 :])
    return (*shape[:d], *shape[d + 1 :])


def view_shape(shape: Shape | None, sizes: Sequence[int | None]) -> Shape | None:
    """``x.view(*sizes)`` / ``reshape``: the literal sizes, ``-1`` solved when the rest are known."""
    dims: list[Dim] = [None if s is None or s < 0 else s for s in sizes]
    unknown = [i for i, s in enumerate(sizes) if s is not None and s < 0]
    if len(unknown) == 1 and shape is not None:
        total = numel(shape)
        rest = numel(tuple(d for i, d in enumerate(dims) if i != unknown[0]))
        if total is not None and rest:
            dims[unknown[0]] = total // rest
    return tuple(dims)


def repeat(shape: Shape | None, reps: Sequence[int | None]) -> Shape | None:
    """``x.repeat(*reps)``: the shape, padded with leading 1s to ``len(reps)`` dimensions, each size
    multiplied by its count (torch raises when there are fewer counts than dimensions)."""
    if shape is None or len(reps) < len(shape) or any(r is not None and r < 0 for r in reps):
        return None
    padded = (1,) * (len(reps) - len(shape)) + shape
    return tuple(None if d is None or r is None else d * r for d, r in zip(padded, reps, strict=True))


def flatten(shape: Shape | None, start: int, end: int) -> Shape | None:
    if shape is None:
        return None
    if not shape:
        return (1,)
    s, e = norm_dim(start, len(shape)), norm_dim(end, len(shape))
    if s is None or e is None or s > e:
        return None
    merged = numel(shape[s : e + 1])
    return (*shape[:s], merged, *shape[e + 1 :])


def transpose(shape: Shape | None, a: int | None, b: int | None) -> Shape | None:
    if shape is None:
        return None
    i, j = norm_dim(a, len(shape)), norm_dim(b, len(shape))
    if i is None or j is None:
        return None
    out = list(shape)
    out[i], out[j] = out[j], out[i]
    return tuple(out)


def permute(shape: Shape | None, order: Sequence[int | None]) -> Shape | None:
    if shape is None or len(order) != len(shape):
        return None
    idx = [norm_dim(o, len(shape)) for o in order]
    if any(i is None for i in idx) or len(set(idx)) != len(idx):
        return None
    return tuple(shape[i] for i in idx if i is not None)


def unsqueeze(shape: Shape | None, dim: int | None) -> Shape | None:
    if shape is None:
        return None
    d = norm_dim(dim, len(shape) + 1)
    if d is None:
        return None
    return (*shape[:d], 1, *shape[d:])


def squeeze(shape: Shape | None, dim: int | None, all_dims: bool) -> Shape | None:
    if shape is None:
        return None
    if all_dims:
        if any(d is None for d in shape):
            return None  # which sizes are 1 is not known
        return tuple(d for d in shape if d != 1)
    d = norm_dim(dim, len(shape))
    if d is None or shape[d] is None:
        return None
    return shape if shape[d] != 1 else (*shape[:d], *shape[d + 1 :])


def matmul(a: Shape | None, b: Shape | None) -> Shape | None:
    """``a @ b`` for operands of rank 1 or more (batch dims broadcast)."""
    if not a or not b:
        return None
    if len(a) == 1 and len(b) == 1:
        return ()
    if len(b) == 1:
        return a[:-1]
    if len(a) == 1:
        return (*b[:-2], b[-1])
    batch = broadcast(a[:-2], b[:-2])
    if batch is None:
        return None
    return (*batch, a[-2], b[-1])


def stack(shapes: Sequence[Shape | None], dim: int | None) -> Shape | None:
    """``torch.stack`` of tensors with these shapes (the same shape, or torch raises: a size known
    in one holds for all)."""
    known = [s for s in shapes if s is not None]
    if not known or len({len(s) for s in known}) != 1:
        return None
    merged = _same_sizes(known)
    d = norm_dim(dim, len(merged) + 1)
    if d is None:
        return None
    return (*merged[:d], len(shapes), *merged[d:])


def cat(shapes: Sequence[Shape | None], dim: int | None) -> Shape | None:
    """``torch.cat`` along one dim: that size is the sum when every size is known; the others agree
    (torch raises otherwise), so a size known in one input holds for all."""
    known = [s for s in shapes if s is not None]
    if not known or len({len(s) for s in known}) != 1:
        return None
    merged = list(_same_sizes(known))
    d = norm_dim(dim, len(merged))
    if d is None:
        return None
    sizes = [s[d] if s is not None else None for s in shapes]
    merged[d] = sum(x for x in sizes if x is not None) if all(x is not None for x in sizes) else None
    return tuple(merged)


def _same_sizes(shapes: Sequence[Shape | None]) -> Shape:
    """Shapes of one rank that torch requires to agree: a size known in one of them holds for all."""
    out: list[Dim] = []
    for sizes in zip(*(s for s in shapes if s is not None), strict=True):
        known = {x for x in sizes if x is not None}
        out.append(known.pop() if len(known) == 1 else None)
    return tuple(out)


def index(
    shape: Shape | None,
    key: ast.expr,
    bounds: Callable[[ast.Slice], tuple[int | None, int | None] | None] | None = None,
    is_int: Callable[[ast.expr], bool] | None = None,
) -> Shape | None:
    """``x[key]`` for keys made of integer constants, slices, ``None`` and ``...``; ``bounds``
    gives a slice's known bounds (constants, or names bound to numbers), which size it on a dim
    of known size as Python does (``x[:n]``, ``x[n:]``, ``x[1:]``); ``is_int`` tells an index
    known to be a Python int (``x[:, h // 2]``), which removes its dim as a constant does."""
    if shape is None:
        return None
    items = list(key.elts) if isinstance(key, ast.Tuple) else [key]
    ellipsis = [i for i, k in enumerate(items) if isinstance(k, ast.Constant) and k.value is Ellipsis]
    if len(ellipsis) > 1:
        return None
    consumed = sum(
        1 for k in items if not (isinstance(k, ast.Constant) and (k.value is None or k.value is Ellipsis))
    )
    if consumed > len(shape):
        return None
    if ellipsis:
        at = ellipsis[0]
        fill = len(shape) - consumed
        items = [*items[:at], *([ast.Slice()] * fill), *items[at + 1 :]]
    out: list[Dim] = []
    pos = 0
    for k in items:
        if isinstance(k, ast.Constant) and k.value is None:
            out.append(1)
            continue
        if pos >= len(shape):
            return None
        if int_const(k) is not None or (is_int is not None and not isinstance(k, ast.Slice) and is_int(k)):
            pos += 1  # an integer index removes the dim
            continue
        if isinstance(k, ast.Slice) and k.lower is None and k.upper is None and k.step is None:
            out.append(shape[pos])
            pos += 1
            continue
        if isinstance(k, ast.Slice):
            # A partial slice: its size follows from its bounds and the dim's size, when known.
            ends = bounds(k) if bounds is not None else None
            size = shape[pos]
            if ends is not None and size is not None:
                out.append(len(range(*slice(ends[0], ends[1]).indices(size))))
            else:
                out.append(None)
            pos += 1
            continue
        return None  # tensor or list indices
    return (*out, *shape[pos:])


_CONV_RANK = {
    **{f"Conv{k}d": k for k in (1, 2, 3)},
    **{f"ConvTranspose{k}d": k for k in (1, 2, 3)},
}
_POOL_RANK = {
    **{f"{kind}Pool{k}d": k for kind in ("Max", "Avg", "LP", "FractionalMax") for k in (1, 2, 3)},
    **{f"Adaptive{kind}Pool{k}d": k for kind in ("Max", "Avg") for k in (1, 2, 3)},
}
# Layers whose output has their input's shape.
_SAME_SHAPE = frozenset(
    {
        *(f"BatchNorm{k}d" for k in (1, 2, 3)),
        *(f"InstanceNorm{k}d" for k in (1, 2, 3)),
        "LayerNorm",
        "GroupNorm",
        "RMSNorm",
        "LocalResponseNorm",
        "Identity",
    }
)


def _arg(inst: ModuleInst, index: int, name: str) -> object:
    return inst.kwargs.get(name, inst.kwargs.get(f"arg{index}"))


_KEEP = object()  # an adaptive pool's `None` output size


def _per_dim(value: object, k: int) -> list[Dim | object] | None:
    """A layer's size argument for each of its k spatial dims (an int, or a tuple of k), or None."""
    if type(value) is int:
        return [value] * k
    if isinstance(value, tuple) and len(value) == k:
        return [v if type(v) is int else _KEEP if v is None else None for v in value]
    return None


def _ints(inst: ModuleInst, index: int, name: str, k: int, default: int | None) -> list[int] | None:
    value = _arg(inst, index, name)
    if value is None and default is not None and name not in inst.kwargs and f"arg{index}" not in inst.kwargs:
        return [default] * k
    sizes = _per_dim(value, k)
    return [v for v in sizes if type(v) is int] if sizes and all(type(v) is int for v in sizes) else None


def _conv_sizes(inst: ModuleInst, spatial: Shape, k: int) -> list[Dim]:
    """Each spatial output size of a convolution, where the input size and every argument that
    decides it are known: torch's formula, floor((n + 2p - d(k - 1) - 1) / s) + 1, or for a
    transposed convolution (n - 1)s - 2p + d(k - 1) + output_padding + 1."""
    unknown: list[Dim] = [None] * k
    kernel = _ints(inst, 2, "kernel_size", k, None)
    stride = _ints(inst, 3, "stride", k, 1)
    dilation = _ints(inst, 5, "dilation", k, 1)
    pad_arg = _arg(inst, 4, "padding")
    if pad_arg == "same":
        return list(spatial) if stride == [1] * k else unknown
    padding = [0] * k if pad_arg == "valid" else _ints(inst, 4, "padding", k, 0)
    transposed = inst.cls_name.startswith("ConvTranspose")
    extra = _ints(inst, 5, "output_padding", k, 0) if transposed else [0] * k
    if transposed:
        dilation = _ints(inst, 8, "dilation", k, 1)  # (..., output_padding, groups, bias, dilation)
    if kernel is None or stride is None or dilation is None or padding is None or extra is None:
        return unknown
    out: list[Dim] = []
    for n, kk, s, p, d, e in zip(spatial, kernel, stride, padding, dilation, extra, strict=True):
        if n is None:
            out.append(None)
        elif transposed:
            out.append((n - 1) * s - 2 * p + d * (kk - 1) + e + 1)
        else:
            out.append(_window_count(n, kk, s, p, d))
    return out


def _window_count(n: int, kernel: int, stride: int, padding: int, dilation: int) -> Dim:
    """How many windows a convolution or pool slides over a dim of size ``n`` (None: none fit, so
    torch raises)."""
    size = (n + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1
    return size if size > 0 else None


def _pool_sizes(inst: ModuleInst, spatial: Shape, k: int) -> list[Dim]:
    """Each spatial output size of a max or average pool (floor mode), where it is decided."""
    unknown: list[Dim] = [None] * k
    if not inst.cls_name.startswith(("MaxPool", "AvgPool")):
        return unknown
    if inst.kwargs.get("ceil_mode") not in (None, False):
        return unknown
    kernel = _ints(inst, 0, "kernel_size", k, None)
    stride = _ints(inst, 1, "stride", k, None) if _arg(inst, 1, "stride") is not None else kernel
    padding = _ints(inst, 2, "padding", k, 0)
    dilation = _ints(inst, 3, "dilation", k, 1) if inst.cls_name.startswith("MaxPool") else [1] * k
    if kernel is None or stride is None or padding is None or dilation is None:
        return unknown
    out: list[Dim] = []
    for n, kk, s, p, d in zip(spatial, kernel, stride, padding, dilation, strict=True):
        out.append(None if n is None else _window_count(n, kk, s, p, d))
    return out


def module_shape(inst: ModuleInst, shape: Shape | None) -> Shape | None:
    """The output shape of a torch.nn layer called on a tensor of this shape (None: not known)."""
    if not shape:
        return None
    name = inst.cls_name
    if name in ("Linear", "LazyLinear"):
        n_out = _arg(inst, 1 if name == "Linear" else 0, "out_features")
        return (*shape[:-1], n_out if type(n_out) is int else None)
    if name in _CONV_RANK:
        k = _CONV_RANK[name]
        n_out = _arg(inst, 1, "out_channels")
        channels = n_out if type(n_out) is int else None
        if len(shape) not in (k + 1, k + 2):
            return None
        spatial = _conv_sizes(inst, shape[-k:], k)
        return (*shape[:-k - 1], channels, *spatial)
    if name in _POOL_RANK:
        k = _POOL_RANK[name]
        if len(shape) not in (k + 1, k + 2):
            return None
        if name.startswith("Adaptive"):
            wanted = _per_dim(_arg(inst, 0, "output_size"), k)
            # `None` in an adaptive pool's output size keeps that input size.
            sizes: list[Dim] = [
                shape[-k + i] if o is _KEEP else o if type(o) is int else None
                for i, o in enumerate(wanted or [None] * k)
            ]
            return (*shape[:-k], *sizes)
        return (*shape[:-k], *_pool_sizes(inst, shape[-k:], k))
    if name == "Embedding":
        dim = _arg(inst, 1, "embedding_dim")
        return (*shape, dim if type(dim) is int else None)
    if name in ("Flatten",):
        start = _arg(inst, 0, "start_dim")
        end = _arg(inst, 1, "end_dim")
        return flatten(shape, start if type(start) is int else 1, end if type(end) is int else -1)
    if name in _SAME_SHAPE or name.startswith("Dropout"):
        return shape
    if inst.kind == "activation" and name not in ("Unflatten", "Softmax2d") and "Pool" not in name:
        return shape
    if name == "Sequential" and inst.seq_children:
        out: Shape | None = shape
        for child in inst.seq_children:
            out = module_shape(child, out)
            if out is None:
                return None
        return out
    return None


def einsum(equation: str, shapes: Sequence[Shape | None]) -> Shape | None:
    """The output shape of `torch.einsum(equation, ...)` with an explicit `->` and no `...`."""
    eq = equation.replace(" ", "")
    if "->" not in eq or "." in eq:
        return None
    inputs, output = eq.split("->")
    specs = inputs.split(",")
    if len(specs) != len(shapes) or not all(s.isalpha() for s in specs) or not output.isalpha() and output:
        return None
    sizes: dict[str, int | None] = {}
    for spec, shape in zip(specs, shapes, strict=True):
        if shape is not None and len(shape) != len(spec):
            return None
        for i, letter in enumerate(spec):
            size = shape[i] if shape is not None else None
            if size is not None and size != 1:
                sizes[letter] = size
            else:
                sizes.setdefault(letter, None)
    if not all(letter in sizes for letter in output):
        return None
    return tuple(sizes[letter] for letter in output)
