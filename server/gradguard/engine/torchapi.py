"""What gradguard knows of torch's API: which calls make, keep, break or save graphs.

Facts checked on torch 2.13 (see shared/research/autograd-pitfalls.md). Anything not
listed here is unknown, and unknown never produces a finding.
"""

from __future__ import annotations

# Tensor methods / torch functions whose backward saves no tensor.
NO_SAVE = frozenset(
    {
        "add",
        "sub",
        "neg",
        "sum",
        "mean",
        "view",
        "view_as",
        "reshape",
        "reshape_as",
        "flatten",
        "t",
        "transpose",
        "permute",
        "squeeze",
        "unsqueeze",
        "expand",
        "expand_as",
        "contiguous",
        "clone",
        "narrow",
        "select",
        "cat",
        "concat",
        "concatenate",
        "stack",
        "hstack",
        "vstack",
        "float",
        "double",
        "half",
        "bfloat16",
        "to",
        "cpu",
        "cuda",
        "type_as",
        "unflatten",
        "movedim",
        "swapaxes",
        "repeat",
        "tile",
        "chunk",
        "split",
        "unbind",
        "flip",
        "roll",
        "negative",
        "positive",
        "squeeze_",
    }
)

# Ops that save their own output for backward (in-place on the output breaks backward).
SAVES_OUTPUT = frozenset(
    {
        "exp",
        "sigmoid",
        "tanh",
        "relu",
        "sqrt",
        "rsqrt",
        "softmax",
        "log_softmax",
        "exp2",
        "expm1",
        "reciprocal",
    }
)

# Ops that save their first (self) input when it requires grad.
SAVES_SELF = frozenset(
    {
        "log",
        "log2",
        "log10",
        "log1p",
        "sin",
        "cos",
        "tan",
        "abs",
        "pow",
        "clamp",
        "clip",
        "leaky_relu",
        "gelu",
        "silu",
        "elu",
        "selu",
        "softplus",
        "mish",
        "hardswish",
        "erf",
        "atan",
        "asin",
        "acos",
        "sinh",
        "cosh",
        "square",
        "prod",
        "norm",
        "var",
        "std",
        "max",
        "min",
        "amax",
        "amin",
        "logsumexp",
        "cumprod",
        "masked_fill",
        "where",
        "gather",
        "index_select",
        "dropout",
        "layer_norm",
        "batch_norm",
        "group_norm",
        "normalize",
    }
)

# Binary ops that save each operand for the other's gradient.
SAVES_OTHER = frozenset(
    {
        "mul",
        "multiply",
        "matmul",
        "mm",
        "bmm",
        "mv",
        "dot",
        "div",
        "divide",
        "true_divide",
        "outer",
        "einsum",
        "linear",
        "bilinear",
        "conv1d",
        "conv2d",
        "conv3d",
        "baddbmm",
        "addmm",
    }
)

GRAPH_OPS = (
    NO_SAVE
    | SAVES_OUTPUT
    | SAVES_SELF
    | SAVES_OTHER
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
    # name -> saves its output (in-place on the output then breaks backward)
    "ReLU": True,
    "Sigmoid": True,
    "Tanh": True,
    "Softmax": True,
    "LogSoftmax": True,
    "ReLU6": False,
    "LeakyReLU": False,
    "GELU": False,
    "SiLU": False,
    "ELU": True,
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
NO_GRAD_CMS = frozenset(
    {
        "torch.no_grad",
        "torch.inference_mode",
        "torch.autograd.no_grad",
        "torch.autograd.grad_mode.no_grad",
        "torch.autograd.inference_mode",
    }
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
