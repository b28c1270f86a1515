"""The committed autograd-ops table is what torch says now, and torchapi's sets follow it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gradguard.engine import torchapi

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "probe_autograd_ops.py"
TABLE = REPO / "server" / "gradguard" / "engine" / "data" / "autograd_ops.json"


def test_table_is_current() -> None:
    pytest.importorskip("torch")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, (
        f"stale table; rerun python3 scripts/probe_autograd_ops.py\n{proc.stdout}{proc.stderr}"
    )


def test_torchapi_sets_follow_the_table() -> None:
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    assert table["header"]["generated_by"] == "scripts/probe_autograd_ops.py"
    for name, row in table["ops"].items():
        if row["kind"] == "inplace":
            assert (name in torchapi.INPLACE_SAVES_OUTPUT) == row["saves_output"], name
            assert (name in torchapi.INPLACE_SAVES_OTHER) == row["saves_other"], name
            assert name not in torchapi.SAVES_SELF | torchapi.SAVES_OTHER | torchapi.SAVES_OUTPUT, name
            continue
        assert (name in torchapi.SAVES_OUTPUT) == row["saves_output"], name
        assert (name in torchapi.NO_SAVE) == (not row["saves_any"]), name
        assert name in torchapi.GRAPH_OPS, name
    # spot checks of what torch 2.13 says (and the old hand-written sets had wrong)
    assert "tan" in torchapi.SAVES_OUTPUT and "tan" not in torchapi.SAVES_SELF
    assert "mul" in torchapi.SAVES_OTHER and "mul" not in torchapi.SAVES_SELF
    assert "masked_fill" in torchapi.SAVES_OTHER and "masked_fill" not in torchapi.SAVES_SELF
    assert "dropout" in torchapi.SAVES_HIDDEN
    assert "relu_" in torchapi.INPLACE_SAVES_OUTPUT and "abs_" not in torchapi.INPLACE_SAVES_OUTPUT
    # names the table does not cover keep their hand-written entry
    assert "cuda" in table["unprobed"] and "cuda" in torchapi.NO_SAVE


def test_layer_params_table_is_current() -> None:
    pytest.importorskip("torch")
    script = REPO / "scripts" / "probe_layer_params.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--check"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, (
        f"stale table; rerun python3 scripts/probe_layer_params.py\n{proc.stdout}{proc.stderr}"
    )


def test_layer_param_names_follow_the_arguments() -> None:
    """Names for the arguments a layer was built with; None where the table does not say."""
    unknown = object()
    assert torchapi.layer_param_names("Linear", {"arg0": 4, "arg1": 2}, unknown) == ("weight", "bias")
    assert torchapi.layer_param_names("Linear", {"arg0": 4, "arg1": 2, "bias": False}, unknown) == ("weight",)
    assert torchapi.layer_param_names("Linear", {"arg2": False}, unknown) == ("weight",)
    assert torchapi.layer_param_names("Linear", {"bias": unknown}, unknown) is None
    assert torchapi.layer_param_names("Conv2d", {"stride": 2, "padding": 1}, unknown) == ("weight", "bias")
    assert torchapi.layer_param_names("LSTM", {"num_layers": 2}, unknown) == (
        "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
        "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1",
    )  # fmt: skip
    assert torchapi.layer_param_names("LSTM", {"proj_size": 2}, unknown) is None  # adds weight_hr_l0
    assert torchapi.layer_param_names("LSTM", {"num_layers": 6}, unknown) is None  # not probed
    assert torchapi.layer_param_names("MultiheadAttention", {"kdim": 3}, unknown) is None
    assert torchapi.layer_param_names("InstanceNorm2d", {"arg0": 4}, unknown) == ()
    assert torchapi.layer_param_names("Dropout", {}, unknown) is None  # not a layer of the table
    too_many = {f"arg{i}": 1 for i in range(7)}  # more positional arguments than Linear takes
    assert torchapi.layer_param_names("Linear", too_many, unknown) is None


# Constructor arguments and input ranks the probe below needs (the rest: no argument, rank 4).
_MODULE_ARGS: dict[str, tuple[tuple[object, ...], dict[str, object]]] = {
    "Softmax": ((), {"dim": 1}),
    "LogSoftmax": ((), {"dim": 1}),
    "Softmin": ((), {"dim": 1}),
    "GLU": ((), {"dim": 1}),
    "Upsample": ((), {"scale_factor": 2}),
    "Unflatten": ((1, (2, 2)), {}),
    "PixelShuffle": ((2,), {}),
    "PixelUnshuffle": ((2,), {}),
    "ZeroPad2d": ((1,), {}),
    "ReflectionPad2d": ((1,), {}),
    "ReplicationPad2d": ((1,), {}),
}


def test_activation_modules_save_their_output_as_torch_says() -> None:
    """torchapi.ACTIVATIONS[name] is True exactly when changing the module's output in place makes
    backward raise "modified by an inplace operation" (torch 2.13)."""
    torch = pytest.importorskip("torch")
    for name, saves_output in torchapi.ACTIVATIONS.items():
        args, kwargs = _MODULE_ARGS.get(name, ((), {}))
        if name.endswith(("Pool1d", "Pool2d", "Pool3d")):
            args = (1,) if name.startswith("Adaptive") else (2,)
        module = getattr(torch.nn, name)(*args, **kwargs)
        rank = 3 if "1d" in name else 5 if "3d" in name else 2 if name == "Unflatten" else 4
        shape = {2: (2, 4), 3: (2, 4, 8), 4: (2, 4, 8, 8), 5: (2, 4, 4, 4, 4)}[rank]
        x = torch.randn(*shape, dtype=torch.float64, requires_grad=True).clone()
        out = module(x)
        kept = out.clone()
        out.add_(1.0)
        try:
            kept.sum().backward()
            raised = False
        except RuntimeError as exc:
            raised = "modified by an inplace operation" in str(exc)
        assert raised == saves_output, name


def test_inplace_flags_given_by_position_go_where_torch_takes_them() -> None:
    """torchapi.INPLACE_ARG[name] is the position of `inplace` among the module's constructor
    parameters in torch 2.13, for exactly the activation modules that have one."""
    torch = pytest.importorskip("torch")
    import inspect

    found = {}
    for name in torchapi.ACTIVATIONS:
        params = list(inspect.signature(getattr(torch.nn, name).__init__).parameters)[1:]
        if "inplace" in params:
            found[name] = params.index("inplace")
    assert found == torchapi.INPLACE_ARG


def test_tensor_returns_table_is_current() -> None:
    pytest.importorskip("torch")
    script = REPO / "scripts" / "probe_tensor_returns.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--check"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, f"stale table; rerun python3 {script.name}\n{proc.stdout}{proc.stderr}"
    assert torchapi.returns_tensor("arcsin", True) and torchapi.returns_tensor("hypot", False)
    assert not torchapi.returns_tensor("tolist", True) and not torchapi.returns_tensor("chunk", True)
