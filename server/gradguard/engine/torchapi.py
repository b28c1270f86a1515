"""What gradguard knows of torch's API: which calls make, keep, break or save graphs.

Facts checked on torch 2.13 (see shared/research/autograd-pitfalls.md). Anything not
listed here is unknown, and unknown never produces a finding.
"""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Callable
from typing import Any

# ---- What each op saves for backward: derived from torch itself -----------------------------------------
# data/autograd_ops.json is written by scripts/probe_autograd_ops.py, which applies every op to fresh
# float64 inputs under torch 2.13, changes each input / the output in place, and records which changes
# make backward raise "modified by an inplace operation" (tests/test_autograd_ops_table.py keeps it
# current). It is read once here, as plain JSON: torch is never imported at run time.


def _read_data(name: str) -> dict[str, object]:
    """A table of data/ (see the scripts that write them), as plain JSON."""
    path = os.path.join(os.path.dirname(__file__), "data", name)
    if os.path.isfile(path):
        # A plain read: importlib.resources costs a check a tenth of its start-up time.
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    else:  # installed inside a zip archive
        from importlib import resources

        package = resources.files(__package__ or "gradguard.engine")
        text = package.joinpath(f"data/{name}").read_text(encoding="utf-8")
    table = json.loads(text)
    assert isinstance(table, dict)
    return table


def _load_table() -> dict[str, dict[str, object]]:
    ops = _read_data("autograd_ops.json")["ops"]
    assert isinstance(ops, dict)
    return ops


# The qual of a mixed-precision loss scaler (`torch.amp.GradScaler`, also the cuda/cpu spellings):
# `scaler.scale(loss)` is a node on the loss's graph, `scaler.step(optimizer)` that optimizer's step.
GRAD_SCALER = "torch.amp.GradScaler"

_TABLE = _load_table()

# ---- Which ops return one tensor: derived from torch itself ------------------------------------------------
# data/tensor_returns.json is written by scripts/probe_tensor_returns.py from the type stubs torch ships
# (every overload annotated `-> Tensor`). Read on first use: only an op the engine does not model needs it.
_TENSOR_RETURNS: tuple[frozenset[str], frozenset[str]] | None = None


def returns_tensor(name: str, method: bool) -> bool:
    """Does the ``Tensor`` method (``method``) or the ``torch.*`` / ``F.*`` function ``name`` always
    return one tensor?"""
    global _TENSOR_RETURNS
    if _TENSOR_RETURNS is None:
        table: dict[str, Any] = _read_data("tensor_returns.json")
        functions = frozenset(table["torch"]) | frozenset(table["functional"])
        _TENSOR_RETURNS = (frozenset(table["methods"]), functions)
    return name in _TENSOR_RETURNS[0 if method else 1]


# ---- Which parameters each layer has: derived from torch itself ------------------------------------------
# data/layer_params.json is written by scripts/probe_layer_params.py, which builds every layer class below
# with each combination of the options that change its parameters and records `named_parameters()`.
# Read on first use: only a loop that freezes parameters by name needs it.
_LAYER_PARAMS: dict[str, Any] | None = None


def layer_param_names(cls_name: str, given: dict[str, object], unknown: object) -> tuple[str, ...] | None:
    """The names of a torch layer's parameters, in torch's order, for the arguments it was built
    with (``given``: keyword or ``arg<i>`` -> the value, ``unknown`` where not known); None when the
    table does not say (a layer or an argument it does not cover, a value not known)."""
    global _LAYER_PARAMS
    if _LAYER_PARAMS is None:
        _LAYER_PARAMS = _read_data("layer_params.json")["layers"]  # type: ignore[assignment]
    assert _LAYER_PARAMS is not None
    row = _LAYER_PARAMS.get(cls_name)
    if row is None:
        return None
    positional: list[str] = row["positional"]
    chosen: dict[str, object] = dict(row["defaults"])
    for key, value in given.items():
        arg = key
        if key.startswith("arg") and key[3:].isdigit():
            index = int(key[3:])  # the index-th positional argument
            if index >= len(positional):
                return None
            arg = positional[index]
        if arg in chosen:
            if value is unknown:
                return None
            chosen[arg] = value
        elif arg not in row["neutral"]:
            return None  # an argument that may change the parameters (`kdim`, `proj_size`)
    for variant in row["variants"]:
        if variant["options"] == chosen:
            return tuple(variant["names"])
    return None  # a value not tried (`num_layers=6`)


# Out-of-place ops (methods and functions) and in-place ops (``x.relu_()``, ``F.elu(x, inplace=True)``).
_OPS = {name: row for name, row in _TABLE.items() if row["kind"] != "inplace"}
_INPLACE = {name: row for name, row in _TABLE.items() if row["kind"] == "inplace"}


def _where(rows: dict[str, dict[str, object]], test: Callable[[dict[str, object]], object]) -> frozenset[str]:
    return frozenset(name for name, row in rows.items() if test(row))


# Hand-written entries, kept ONLY for names the table does not cover (ops the probe could not run here):
# "cuda" needs a CUDA device. Any name the table covers is taken from the table, never from here.
_HAND_NO_SAVE = frozenset({"cuda"}) - _TABLE.keys()

# Tensor methods / torch functions whose backward saves no tensor at all (so a second backward through
# them works, and no in-place change can break them). In-place ops that save nothing are listed too.
NO_SAVE = _where(_TABLE, lambda r: not r["saves_any"]) | _HAND_NO_SAVE

# Ops that save their own output for backward (in-place on the output breaks backward).
SAVES_OUTPUT = _where(_OPS, lambda r: r["saves_output"])

# Ops that save their first (self) input for their own gradient, i.e. even when no other input requires
# grad (for ``torch.where`` the first input is the condition).
SAVES_SELF = _where(_OPS, lambda r: r["saves_self"] and r["saves_self_without_other"])

# Ops with several inputs that save the other operands (weights, indices, masks) for self's gradient,
# and/or self for the others' gradients (mul, matmul, linear, masked_fill, gather, ...).
SAVES_OTHER = _where(
    _OPS, lambda r: r["saves_other"] or (r["saves_self"] and not r["saves_self_without_other"])
)

# Ops whose backward saves only a tensor the user never sees (dropout's mask): a second backward through
# them fails, but no in-place change of an input or the output breaks them.
SAVES_HIDDEN = _where(
    _OPS, lambda r: r["saves_any"] and not (r["saves_self"] or r["saves_other"] or r["saves_output"])
)

# In-place ops whose own backward saves their result, so a LATER in-place change of the tensor breaks
# backward (relu_, sigmoid_, exp_, sqrt_, elu_, ...). In-place ops not listed here but whose out-of-place
# twin saves its input (abs_, log_, sin_, clamp_, pow_, ...) keep a private copy of the original input:
# a later in-place change of their result is harmless.
INPLACE_SAVES_OUTPUT = _where(_INPLACE, lambda r: r["saves_output"])
# In-place ops that save another operand (mul_, div_, masked_fill_, addcmul_, ...): changing that
# operand in place afterwards breaks backward.
INPLACE_SAVES_OTHER = _where(_INPLACE, lambda r: r["saves_other"])
INPLACE_OPS = frozenset(_INPLACE)

# Shape facts (not from the probe): elementwise ops whose result has their input's shape.
ELEMENTWISE = frozenset(
    {
        *("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal"),
        *("sigmoid", "tanh", "relu", "softmax", "log_softmax", "sin", "cos", "tan", "abs", "pow"),
        *("clamp", "clip", "clamp_min", "clamp_max", "leaky_relu", "gelu", "silu", "elu", "selu"),
        *("softplus", "mish", "hardswish", "erf", "atan", "asin", "acos", "sinh", "cosh", "square"),
        *("cumprod", "cumsum", "masked_fill", "dropout", "layer_norm", "batch_norm", "group_norm"),
        *("normalize", "neg", "logsigmoid", "relu6", "hardtanh", "hardsigmoid", "softmin", "celu"),
        *("softsign", "tanhshrink", "hardshrink", "softshrink", "logit", "sign", "floor", "ceil"),
    }
)

GRAPH_OPS = (
    NO_SAVE
    | SAVES_OUTPUT
    | SAVES_SELF
    | SAVES_OTHER
    | SAVES_HIDDEN
    | frozenset(
        {
            "cumsum",
            "diag",
            "tril",
            "triu",
            "trace",
            "lerp",
            "addcmul",
            "addcdiv",
            "cross_entropy",
            "mse_loss",
            "l1_loss",
            "nll_loss",
            "binary_cross_entropy",
            "binary_cross_entropy_with_logits",
            "smooth_l1_loss",
            "huber_loss",
            "kl_div",
            "cosine_similarity",
            "pairwise_distance",
            "cosine_embedding_loss",
            "margin_ranking_loss",
            "hinge_embedding_loss",
            "soft_margin_loss",
            "triplet_margin_loss",
            "poisson_nll_loss",
            "gaussian_nll_loss",
            "embedding",
            "pad",
            "interpolate",
            "max_pool1d",
            "max_pool2d",
            "avg_pool1d",
            "avg_pool2d",
            "adaptive_avg_pool2d",
            "relu6",
            "hardtanh",
            "logsigmoid",
            "softmin",
            "glu",
            "one_hot_float",
            "sign_grad",
            "square",
            "rsub",
        }
    )
)

# Losses: scalar unless reduction="none"; all save their inputs.
LOSS_FUNCS = frozenset(
    {
        "mse_loss",
        "l1_loss",
        "nll_loss",
        "cross_entropy",
        "binary_cross_entropy",
        "binary_cross_entropy_with_logits",
        "smooth_l1_loss",
        "huber_loss",
        "kl_div",
        "cosine_embedding_loss",
        "margin_ranking_loss",
        "hinge_embedding_loss",
        "soft_margin_loss",
        "triplet_margin_loss",
        "poisson_nll_loss",
        "gaussian_nll_loss",
        "multilabel_margin_loss",
        "multi_margin_loss",
    }
)

# Full reductions give a scalar when called with no dim.
REDUCTIONS = frozenset(
    {"sum", "mean", "prod", "norm", "max", "min", "amax", "amin", "std", "var", "logsumexp"}
)

# Results without a graph (integer/bool tensors, or no tensor).
BREAK_TO_TENSOR = frozenset(
    {
        "detach",
        "argmax",
        "argmin",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "isnan",
        "isinf",
        "isfinite",
        "long",
        "int",
        "bool",
        "byte",
        "short",
        "char",
        "nonzero",
        "logical_not",
        "logical_and",
        "logical_or",
        "bincount",
        "argsort",
        "zeros_like",
        "ones_like",
        "rand_like",
        "randn_like",
        "empty_like",
        "full_like",
        "randint_like",
        "sort_indices",
        "new_zeros",
        "new_ones",
        "new_empty",
        "new_full",
        "new_tensor",
    }
)
BREAK_TO_NUMBER = frozenset(
    {
        "item",
        "dim",
        "numel",
        "nelement",
        "ndimension",
        "element_size",
        "is_contiguous",
        "is_floating_point",
        "data_ptr",
        "get_device",
        "equal",
        "allclose",
        "stride",
        "storage_offset",
    }
)
BREAK_TO_OTHER = frozenset(
    {
        "tolist",
        "size",
        "numpy",
        "type",
        "__repr__",
        "__str__",
        "register_hook",
        "retain_grad",
        "storage",
        "untyped_storage",
    }
)

# Constructors that make a fresh tensor (a leaf when requires_grad=True).
CONSTRUCTORS = frozenset(
    {
        "randn",
        "rand",
        "zeros",
        "ones",
        "empty",
        "full",
        "eye",
        "arange",
        "linspace",
        "logspace",
        "tensor",
        "as_tensor",
        "randint",
        "randperm",
        "normal",
        "from_numpy",
        "zeros_like",
        "ones_like",
        "randn_like",
        "rand_like",
        "empty_like",
        "full_like",
        "FloatTensor",
        "Tensor",
        "LongTensor",
    }
)
SHAPE_CONSTRUCTORS = frozenset({"randn", "rand", "zeros", "ones", "empty"})

# nn layers that hold parameters.
PARAM_LAYERS = frozenset(
    {
        "Linear",
        "Bilinear",
        "LazyLinear",
        "Conv1d",
        "Conv2d",
        "Conv3d",
        "ConvTranspose1d",
        "ConvTranspose2d",
        "ConvTranspose3d",
        "BatchNorm1d",
        "BatchNorm2d",
        "BatchNorm3d",
        "LayerNorm",
        "GroupNorm",
        "InstanceNorm1d",
        "InstanceNorm2d",
        "Embedding",
        "EmbeddingBag",
        "RNN",
        "LSTM",
        "GRU",
        "RNNCell",
        "LSTMCell",
        "GRUCell",
        "MultiheadAttention",
        "TransformerEncoderLayer",
        "TransformerDecoderLayer",
        "TransformerEncoder",
        "TransformerDecoder",
        "Transformer",
        "PReLU",
        "RMSNorm",
    }
)
# Parameter-free modules: output requires grad only if the input does.
ACTIVATIONS = {
    # name -> saves its output (in-place on the output then breaks backward); checked against torch
    # by tests/test_autograd_ops_table.py
    "ReLU": True,
    "Sigmoid": True,
    "Tanh": True,
    "Softmax": True,
    "LogSoftmax": True,
    "ReLU6": False,
    "LeakyReLU": False,
    "GELU": False,
    "SiLU": False,
    "ELU": False,  # saves its input (torch 2.13), unless built with inplace=True
    "SELU": False,
    "Softplus": False,
    "Mish": False,
    "Hardswish": False,
    "Hardtanh": False,
    "Dropout": False,
    "Dropout2d": False,
    "Flatten": False,
    "Unflatten": False,
    "Identity": False,
    "MaxPool1d": False,
    "MaxPool2d": False,
    "AvgPool1d": False,
    "AvgPool2d": False,
    "AdaptiveAvgPool1d": False,
    "AdaptiveAvgPool2d": False,
    "Upsample": False,
    "Softmin": True,
    "LogSigmoid": False,
    "PixelShuffle": False,
    "PixelUnshuffle": False,
    "MaxPool3d": False,
    "AvgPool3d": False,
    "AdaptiveAvgPool3d": False,
    "AdaptiveMaxPool1d": False,
    "AdaptiveMaxPool2d": False,
    "ZeroPad2d": False,
    "ReflectionPad2d": False,
    "ReplicationPad2d": False,
    "Hardsigmoid": False,
    "Softsign": False,
    "Tanhshrink": False,
    "CELU": False,
    "GLU": False,
    "Dropout1d": False,
    "Dropout3d": False,
}
# Where an activation module's `inplace` flag goes when passed by position (`nn.ReLU(True)`, as the
# DCGAN example writes it); checked against torch's signatures by tests/test_autograd_ops_table.py.
INPLACE_ARG = {
    "ReLU": 0,
    "ReLU6": 0,
    "SiLU": 0,
    "SELU": 0,
    "Mish": 0,
    "Hardswish": 0,
    "Hardsigmoid": 0,
    "LeakyReLU": 1,
    "ELU": 1,
    "CELU": 1,
    "Dropout": 1,
    "Dropout1d": 1,
    "Dropout2d": 1,
    "Dropout3d": 1,
    "Hardtanh": 2,
}
LOSS_MODULES = frozenset(
    {
        "MSELoss",
        "L1Loss",
        "CrossEntropyLoss",
        "NLLLoss",
        "BCELoss",
        "BCEWithLogitsLoss",
        "SmoothL1Loss",
        "HuberLoss",
        "KLDivLoss",
        "CosineEmbeddingLoss",
        "MarginRankingLoss",
        "HingeEmbeddingLoss",
        "SoftMarginLoss",
        "TripletMarginLoss",
        "PoissonNLLLoss",
        "GaussianNLLLoss",
        "MultiLabelMarginLoss",
        "MultiMarginLoss",
        "CTCLoss",
    }
)
CONTAINERS = frozenset({"Sequential", "ModuleList", "ModuleDict"})
RECURRENT = frozenset({"RNN", "LSTM", "GRU"})

OPTIMIZERS = frozenset(
    {
        "SGD",
        "Adam",
        "AdamW",
        "RMSprop",
        "Adagrad",
        "Adadelta",
        "Adamax",
        "NAdam",
        "RAdam",
        "LBFGS",
        "SparseAdam",
        "ASGD",
        "Rprop",
        "Adafactor",
    }
)

# Context managers that change grad mode, and ones known to leave it alone.
NO_GRAD_CMS = frozenset({"torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"})
# Inference mode, told apart before the others (Evaluator.inference_item): nothing inside records a
# graph, whatever grad mode says (`enable_grad()` or `set_grad_enabled(True)` inside it turn grad
# mode on, not recording); `inference_mode(False)` turns grad mode on.
INFERENCE_CMS = frozenset(
    {"torch.inference_mode", "torch.autograd.inference_mode", "torch.autograd.grad_mode.inference_mode"}
)
ENABLE_GRAD_CMS = frozenset({"torch.enable_grad", "torch.autograd.enable_grad"})
SET_GRAD_CMS = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"})
NEUTRAL_CM_PREFIXES = (
    "open",
    "tqdm",
    "torch.autocast",
    "torch.cuda.amp",
    "torch.amp",
    "torch.cpu.amp",
    "torch.profiler",
    "torch.autograd.profiler",
    "torch.autograd.set_detect_anomaly",
    "torch.autograd.detect_anomaly",
    "warnings",
    "contextlib.suppress",
    "contextlib.nullcontext",
    "contextlib.redirect_stdout",
    "mlflow",
    "wandb",
    "time",
    "timeit",
    "torch.random.fork_rng",
    "torch.device",
    "torch.cuda.device",
    "torch.backends",
    "threading",
    "multiprocessing",
    "tempfile",
    "io",
    "zipfile",
    "tarfile",
)

# Builtins a loop may call without being able to clear gradients (GG201 looks for calls that could).
HARMLESS_BUILTINS = frozenset(
    {
        "print",
        "len",
        "range",
        "enumerate",
        "zip",
        "float",
        "int",
        "str",
        "sum",
        "min",
        "max",
        "abs",
        "round",
        "isinstance",
        "list",
        "tuple",
        "dict",
        "sorted",
        "next",
        "iter",
        "repr",
        "format",
        "bool",
        "set",
        "type",
        "hasattr",
        "getattr",
        "id",
    }
)


# Well-known factories outside torch that return a trainable `nn.Module` (the documented table of
# cross-file analysis: these are the only library calls whose result is known to be a network).
_TORCHVISION_MODEL = re.compile(
    r"^torchvision\.models(?:\.(?:detection|segmentation|video|quantization|optical_flow))?\.[a-z][a-z0-9_]*$"
)
_TRANSFORMERS_MODEL = re.compile(r"^transformers\.(?:Auto\w*Model\w*|\w+(?:Model|For\w+))\.from_pretrained$")
_NOT_MODELS = frozenset({"get_model", "get_weight", "list_models", "get_model_weights", "get_model_builder"})


def model_factory(qual: str) -> bool:
    """Does calling ``qual`` make a trainable network? (torchvision.models.*, timm.create_model,
    transformers' model classes' from_pretrained)"""
    if qual == "timm.create_model":
        return True
    if _TORCHVISION_MODEL.match(qual):
        return qual.rsplit(".", 1)[-1] not in _NOT_MODELS
    return bool(_TRANSFORMERS_MODEL.match(qual))


def requires_grad_flag(call: ast.Call) -> ast.expr | None:
    """The flag of a `requires_grad_(...)` call, given by position or as `requires_grad=` (None:
    not given, so True)."""
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "requires_grad"), None)
