"""Ask torch which parameters each layer class has; write the table gradguard reads.

Freezing by name (``for name, p in model.named_parameters(): if "head" not in name: ...``) can
only be followed when the analysis knows every parameter name a model has. For each torch layer
class gradguard models, this script builds the layer with small required arguments and every
combination of the options that may change its parameters (``bias``, ``affine``, ``num_layers``,
``bidirectional``...), and records ``[name for name, _ in layer.named_parameters()]``, in torch's
order. Nothing is written by hand but the option values tried: a layer built with any other value,
or with an option not listed, has names the engine does not claim to know.

    python3 scripts/probe_layer_params.py          # (re)write server/gradguard/engine/data/layer_params.json
    python3 scripts/probe_layer_params.py --check  # exit 1 with a diff if that file is stale
"""

from __future__ import annotations

import argparse
import difflib
import inspect
import itertools
import json
import sys
from pathlib import Path
from typing import Any

import torch
import torch.nn as nn

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "server" / "gradguard" / "engine" / "data" / "layer_params.json"
GENERATED_BY = "scripts/probe_layer_params.py"

BOOL = (True, False)
# class -> (required arguments, {option: values tried}); the first value tried is not necessarily
# torch's default: the table records the default from the signature.
LAYERS: dict[str, tuple[tuple[Any, ...], dict[str, tuple[Any, ...]]]] = {
    "Linear": ((4, 3), {"bias": BOOL}),
    "Bilinear": ((4, 4, 3), {"bias": BOOL}),
    "Conv1d": ((4, 4, 3), {"bias": BOOL}),
    "Conv2d": ((4, 4, 3), {"bias": BOOL}),
    "Conv3d": ((4, 4, 3), {"bias": BOOL}),
    "ConvTranspose1d": ((4, 4, 3), {"bias": BOOL}),
    "ConvTranspose2d": ((4, 4, 3), {"bias": BOOL}),
    "ConvTranspose3d": ((4, 4, 3), {"bias": BOOL}),
    "BatchNorm1d": ((4,), {"affine": BOOL}),
    "BatchNorm2d": ((4,), {"affine": BOOL}),
    "BatchNorm3d": ((4,), {"affine": BOOL}),
    "InstanceNorm1d": ((4,), {"affine": BOOL}),
    "InstanceNorm2d": ((4,), {"affine": BOOL}),
    "LayerNorm": ((4,), {"elementwise_affine": BOOL, "bias": BOOL}),
    "GroupNorm": ((2, 4), {"affine": BOOL}),
    "RMSNorm": ((4,), {"elementwise_affine": BOOL}),
    "Embedding": ((5, 3), {}),
    "EmbeddingBag": ((5, 3), {}),
    "PReLU": ((), {}),
    "RNN": ((3, 4), {"num_layers": (1, 2, 3, 4), "bias": BOOL, "bidirectional": BOOL}),
    "LSTM": ((3, 4), {"num_layers": (1, 2, 3, 4), "bias": BOOL, "bidirectional": BOOL}),
    "GRU": ((3, 4), {"num_layers": (1, 2, 3, 4), "bias": BOOL, "bidirectional": BOOL}),
    "RNNCell": ((3, 4), {"bias": BOOL}),
    "LSTMCell": ((3, 4), {"bias": BOOL}),
    "GRUCell": ((3, 4), {"bias": BOOL}),
    "MultiheadAttention": ((4, 2), {"bias": BOOL, "add_bias_kv": BOOL}),
    "TransformerEncoderLayer": ((4, 2), {"bias": BOOL}),
    "TransformerDecoderLayer": ((4, 2), {"bias": BOOL}),
}
# The recurrent layers take ``*args, **kwargs``: their positional order, as their docs give it.
RNN_ORDER = ("input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional")
POSITIONAL = {
    "RNN": ("input_size", "hidden_size", "num_layers", "nonlinearity", *RNN_ORDER[3:]),
    "LSTM": (*RNN_ORDER, "proj_size"),
    "GRU": RNN_ORDER,
}
RNN_DEFAULTS = {"num_layers": 1, "bias": True, "bidirectional": False}
RNN_OTHERS = {"nonlinearity": "tanh", "batch_first": False, "dropout": 0.0, "proj_size": 0}
# Values tried for the other arguments, to tell which ones leave the names as they are.
SPECIAL_TRIES: dict[str, tuple[Any, ...]] = {"device": ("cpu",), "dtype": (torch.float64,)}


def _signature(cls: type) -> tuple[list[str], dict[str, Any]]:
    """Positional parameter names and option defaults of a layer's constructor."""
    name = cls.__name__
    if name in POSITIONAL:
        others = {k: v for k, v in RNN_OTHERS.items() if k in POSITIONAL[name]}
        return list(POSITIONAL[name]), {**RNN_DEFAULTS, **others}
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    positional = [
        p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    defaults = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}
    return positional, defaults


def _tries(name: str, default: Any) -> tuple[Any, ...]:
    if name in SPECIAL_TRIES:
        return SPECIAL_TRIES[name]
    if isinstance(default, bool):
        return (not default,)
    if isinstance(default, int):
        return (default + 1, default + 2)
    if isinstance(default, float):
        return (0.5,)
    return ()  # a string or None: no value is known to be valid, so the argument stays untested


def _neutral(cls: type, required: tuple[Any, ...], arg: str, default: Any, names: list[str]) -> bool:
    """Does giving ``arg`` leave the parameter names as they are, for every value tried (and at
    least one value was accepted)?"""
    accepted = False
    for value in _tries(arg, default):
        try:
            layer = cls(*required, **{arg: value})
        except (TypeError, ValueError, RuntimeError, AssertionError):
            continue
        accepted = True
        if [n for n, _ in layer.named_parameters()] != names:
            return False
    return accepted


def build_table() -> dict[str, Any]:
    layers: dict[str, Any] = {}
    for name, (required, options) in LAYERS.items():
        cls = getattr(nn, name)
        positional, defaults = _signature(cls)
        for option in options:
            assert option in defaults, (name, option)
        variants = []
        keys = sorted(options)
        for values in itertools.product(*(options[k] for k in keys)):
            chosen = dict(zip(keys, values, strict=True))
            torch.manual_seed(0)
            layer = cls(*required, **chosen)
            variants.append({"options": chosen, "names": [n for n, _ in layer.named_parameters()]})
        plain = [n for n, _ in cls(*required).named_parameters()]
        # Sizes and the like: the required arguments, and the others that change no name.
        neutral = positional[: len(required)] + [
            arg
            for arg, default in defaults.items()
            if arg not in options and _neutral(cls, required, arg, default, plain)
        ]
        layers[name] = {
            "positional": positional,
            "defaults": {k: defaults[k] for k in keys},
            "neutral": sorted(neutral),
            "variants": variants,
        }
    return {
        "header": {"generated_by": GENERATED_BY, "torch": torch.__version__.split("+")[0]},
        "layers": layers,
    }


def render(table: dict[str, Any]) -> str:
    return json.dumps(table, indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed table is stale")
    args = parser.parse_args(argv)
    text = render(build_table())
    if args.check:
        old = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if old == text:
            return 0
        diff = difflib.unified_diff(old.splitlines(True), text.splitlines(True), "committed", "torch")
        sys.stdout.writelines(diff)
        return 1
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}: {len(LAYERS)} layer classes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
