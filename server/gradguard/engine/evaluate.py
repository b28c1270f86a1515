"""Expressions: what each one evaluates to, and the graph effects of calls.

Graph effects are: making new graph nodes (sites), freeing saved buffers (backward),
changing saved tensors in place, and stepping optimizers.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, cast

from .. import observations as obs
from ..record import field, record, replace
from . import shapes as shp
from . import torchapi as api
from .classes import ClassInfo, SuperRef, mro, saved_by_forward
from .modules import LINE_BLOCK, LazyImport, Namespace
from .report import Reporter
from .state import BackwardRun, Dirt, LoopFrame, State, join_states
from .values import (
    EMPTY,
    FALSE,
    GRAD_OFF_CAUSES,
    INFERENCE_CAUSE,
    NO_GRAD_CAUSE,
    NONE_VAL,
    NUMBER,
    NUMPY_CAUSE,
    OTHER,
    TRUE,
    UNKNOWN,
    Grad,
    GradMode,
    IPath,
    ModuleInst,
    OneParam,
    OptimizerInfo,
    Site,
    Taint,
    Ty,
    Val,
    elements,
    held_sites,
    join,
    param_module,
    remap_module,
)

_EXPR_DISPATCH: dict[type, Any] = {}
_OBJECT_TYS = (Ty.MODULE, Ty.OTHER)
# Objects made from keywords alone, each an attribute (`opt = SimpleNamespace(lr=0.1)`).
_NAMESPACES = frozenset({"types.SimpleNamespace", "argparse.Namespace"})
_DISTRIBUTION = "torch.distributions"  # the qual of a torch.distributions object
# Distributions whose every element is drawn on its own: a draw (and log_prob) has the broadcast
# shape of the parameters.
_ELEMENTWISE_DISTRIBUTIONS = frozenset(
    {"Normal", "Laplace", "Cauchy", "LogNormal", "Uniform", "Beta", "Gamma", "Exponential", "Bernoulli"}
)
GRAD_SCALER = api.GRAD_SCALER
_GRAD_SCALERS = frozenset({GRAD_SCALER, "torch.cuda.amp.GradScaler", "torch.cpu.amp.GradScaler"})
_OVERRIDES = ("backward", "step")  # a user module's own methods of these names win over torch's
_BUILTIN_NAMES = frozenset(vars(builtins))
# What cut the graph of a value computed with recording off; GG106 says "{cause} on line N cut it off".
MAX_INLINE_DEPTH = 10
MAX_INLINES = 400
# Of those, what one unit (a top-level function or class analysed on its own, see Interpreter.run)
# may use: units are independent of each other, so each has its own share, not what earlier ones left.
UNIT_INLINES = 100


# A loop or comprehension over a known sequence is followed element by element up to this length.
MAX_EXACT_ELEMENTS = 8
# Torch functions that make a new tensor each call.
_TENSOR_FACTORIES = frozenset(
    "torch." + n
    for n in (
        "zeros", "ones", "empty", "full", "rand", "randn", "randint", "tensor", "arange", "eye",
        "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like",
    )
)
# Strings made by the program (`"conv_" + str(i)`) are known up to this length.
_MAX_KNOWN_STR = 256
# A loop over a container's layers (a feature extractor rebuilt layer by layer, VGG-19's 37) is
# followed layer by layer up to this many.
MAX_LAYER_SEQUENCE = 40
# A comprehension of plain numbers or strings computed from plain numbers or strings (`[f"model.{i}."
# for i in range(10)]`, `any(n in name for n in names)`) costs an expression per element: followed
# element by element up to this length.
MAX_EXACT_SCALARS = 64
# Functions that reparametrize a module's weight in place and return the module itself.
_REPARAMETRIZE = frozenset(
    {
        "torch.nn.utils.weight_norm",
        "torch.nn.utils.spectral_norm",
        "torch.nn.utils.parametrizations.weight_norm",
        "torch.nn.utils.parametrizations.spectral_norm",
        "torch.nn.utils.parametrizations.orthogonal",
        "torch.nn.utils.parametrize.register_parametrization",
    }
)
# A layer's kwargs entry: the names of its tensors a reparametrization computes (weight_norm).
_COMPUTED = "@computed"
# A forward hook registered on a module may replace or change its output (`output.requires_grad_()`
# in `enable_input_require_grads()`): what it returns from then on is not known.
_HOOKED = "@hooked"
_FORWARD_HOOKS = frozenset({"register_forward_hook", "register_forward_pre_hook"})
# Container methods that keep a reference to what they are given (Grad-CAM's `acts.append(output)`)
# and return None; with the ones that only take out, all the ways a hook fills or empties a
# container it closes over.
_HOOK_SINKS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "put"})
_CONTAINER_CHANGES = _HOOK_SINKS | {"pop", "remove", "clear"}
# Hooks run when torch calls them (a forward, a backward), not where they are registered.
_HOOK_REGISTRATIONS = frozenset(
    {
        *_FORWARD_HOOKS,
        "register_full_backward_hook",
        "register_backward_hook",
        "register_full_backward_pre_hook",
        "register_hook",
        "register_post_accumulate_grad_hook",
    }
)
_GLOBAL_FORWARD_HOOKS = frozenset(
    {
        "torch.nn.modules.module.register_module_forward_hook",
        "torch.nn.modules.module.register_module_forward_pre_hook",
    }
)
# In-place clipping of a gradient (`p.grad.data.clamp_(-c, c)`): it bounds, it does not clear.
_CLAMPS = frozenset({"clamp_", "clip_", "clamp_min_", "clamp_max_"})
# Torch functions and tensor methods that may return their input itself (same object, so its
# grad_fn too, even under no_grad), or that are containers' methods as much as tensors'.
_MAY_RETURN_INPUT = frozenset(
    {
        *("as_tensor", "asarray", "to", "cuda", "cpu", "float", "double", "half", "bfloat16", "type"),
        *("int", "long", "bool", "contiguous", "dropout", "alpha_dropout", "feature_alpha_dropout"),
        *("dropout1d", "dropout2d", "dropout3d", "type_as", "requires_grad_", "pop", "get", "copy"),
        *("item", "tolist", "numpy", "detach", "values", "keys", "items", "index", "count"),
    }
)
_MULTI_OUTPUT = frozenset(
    {
        *("max", "min", "median", "mode", "sort", "topk", "kthvalue", "chunk", "split", "unbind"),
        *("tensor_split", "unique", "aminmax", "std_mean", "var_mean", "meshgrid", "broadcast_tensors"),
        *("svd", "qr", "eig", "eigh", "slogdet", "lu", "frexp", "hsplit", "vsplit", "dsplit", "where"),
    }
)
# Ops returning a fixed number of tensors that each carry the graph (checked on torch 2.13: every
# output requires grad when the input does). max/min/sort/topk give (values, indices) elsewhere.
_TENSOR_OUTPUTS = {"eigh": 2, "qr": 2, "svd": 3, "slogdet": 2, "aminmax": 2, "std_mean": 2, "var_mean": 2}
_NEW_TENSOR_FUNCS = frozenset({"interpolate", "pad", "grid_sample", "affine_grid", "one_hot", "embedding"})
_SEQ_TIMES_INT = ({Ty.LIST, Ty.NUMBER}, {Ty.TUPLE, Ty.NUMBER})


GLOBAL_CELL = "@global."  # heap cells of module-level containers (Evaluator.global_cell)


@record(slots=True)
class Frame:
    func: ast.FunctionDef | ast.AsyncFunctionDef
    returns: list[tuple[State, Val]] = field(default_factory=list)
    self_inst: ModuleInst | None = None
    yields: list[Val] = field(default_factory=list)
    # Inlined at a call: the caller's statement, and each parameter's argument there (node, value).
    call_stmt: ast.stmt | None = None
    passed: dict[str, tuple[ast.expr, Val]] = field(default_factory=dict)
    # A function of another module of the project: the names it reads as globals (its module's).
    globals: dict[str, Val] | None = None


class Evaluator:
    st: State | None

    def __init__(self, reporter: Reporter) -> None:
        self.rep = reporter
        self.pos = reporter.pos
        # The arms of `if` statements (id of the statement, True for its body) that ran, and those
        # a known test skipped: an arm skipped and never run is dead code (see ``dead_arms``).
        self.arms_run: set[tuple[int, bool]] = set()
        self.arms_skipped: dict[tuple[int, bool], ast.If] = {}
        self.st = State()
        self.globals_env: dict[str, Val] = self.st.env
        self.loops: list[LoopFrame] = []
        self.comprehending = 0  # inside the abstract pass of a comprehension over many elements
        # A clear in a per-micro-batch helper that threw gradients away (check_discard), by
        # optimizer, with its loop: reported when that optimizer steps after the loop.
        self.pending_discards: dict[int, tuple[obs.DiscardedGradients, ast.AST, Any]] = {}
        # getattr/setattr calls as the attribute accesses they spell, made once per call and name.
        self.spelled: dict[tuple[int, str], ast.Attribute] = {}
        self.spread: dict[ast.Starred, Val] = {}
        # `f(**batch)` spread from a dict whose keys and values are known, at its last evaluation.
        self.spread_dicts: dict[int, bool] = {}
        self.frames: list[Frame] = []
        self.stmt_stack: list[ast.stmt] = []
        self._rebound: dict[int, frozenset[str]] = {}
        self._growing: dict[int, frozenset[str]] = {}  # Interpreter.growing_lists
        self.seq = 0
        self.inlines = 0
        self._element_names: dict[int, frozenset[str]] = {}  # per loop: see _element_names
        self._element_sites: dict[tuple[frozenset[Site], int, int], Site] = {}  # see element_graphs
        self._indexed_sites: dict[tuple[int, int], tuple[Val, Site]] = {}  # see indexed_element
        self.cut_in_place: list[Val] = []  # tensors `detach_()` cut in the running call (see inline)
        self._order_kept: dict[str, bool] = {}  # by a list's name: see _keeps_order
        self._lambdas: dict[int, ast.FunctionDef] = {}  # per lambda: see lambda_function
        self._factory_calls: dict[int, ast.Call] = {}  # per subscript: see default_entry
        # Arms of `if`s of other modules whose condition is unknown, entered now: what runs there
        # may not run at all, so a finding there is not shown on this file's calling statement.
        self.foreign_doubt = 0
        self.unnamed_input: ModuleInst | None = None  # see run_children
        # Per loop (by id; the tree outlives the analysis): the inner `for` binding each call's
        # receiver (see training_loop._walked_optimizers).
        self.for_binding: dict[int, dict[int, ast.For]] = {}
        self.classes: dict[str, Any] = {}
        self.defined_in: dict[int, Any] = {}  # id of a method -> the ClassInfo whose body defines it
        self.grad_inputs: frozenset[object] = frozenset()
        self.module_env: dict[str, Val] | None = None
        self._generators: dict[int, bool] = {}
        # Closures made while the program ran: the enclosing function, and its names when the closure
        # was made (see Interpreter.s_FunctionDef).
        self.closures: dict[ast.AST, tuple[ast.FunctionDef | ast.AsyncFunctionDef, dict[str, Val]]] = {}
        self.callers: list[State] = []  # the states of the calls being inlined, outermost first
        self.no_grad_at: ast.With | ast.AsyncWith | None = None  # the `with` that turned grad off
        # Inside `torch.inference_mode()` (None: maybe). Dynamic, as torch's: calls made in the block
        # run in it.
        self.inference: bool | None = False
        # Forward hooks registered: "some" (their modules are marked), "all" (on every module, by
        # `register_module_forward_hook`), "" (none).
        self.hooks = ""
        self.param_cells = False  # a parameter's flag was set alone (see set_param_flag)
        self._plain_classes: dict[int, bool] = {}  # see _plain_module_class
        self.optimizers: list[OptimizerInfo] = []
        # The module's names read while one unit runs, and while module code runs, what the
        # functions it calls read and run (see engine.incremental).
        self.global_reads: set[str] | None = None
        self.module_calls: dict[int, tuple[set[int], set[str]]] | None = None

    # -- helpers ---------------------------------------------------------------------

    def ipath(self) -> IPath:
        return tuple((id(f.node), f.iteration) for f in self.loops)

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def new_site(
        self,
        node: ast.AST,
        saves: bool,
        inputs: tuple[Val, ...] = (),
        saved: frozenset[object] = frozenset(),
        module: ModuleInst | None = None,
        call_args: tuple[tuple[ast.expr, Val], ...] = (),
    ) -> Site:
        site = Site(
            node,
            tuple(self.stmt_stack),
            saves,
            self.ipath(),
            saved,
            module,
            call_args,
            inputs,
        )
        site.seq = self.next_seq()
        site.per_element = self.comprehending > 0
        return site

    def lookup(self, name: str) -> Val:
        st = self.st
        if st is None:
            return UNKNOWN
        val = st.env.get(name)
        if val is None:
            if self.frames and (own := self.frames[-1].globals) is not None:
                # A function of another module reads that module's names, never this file's.
                val = own.get(name)
                if val is None:
                    builtin = name in _BUILTIN_NAMES
                    return Val(Grad.NONE, Ty.QUAL, qual="builtins." + name) if builtin else UNKNOWN
            else:
                if self.global_reads is not None and self.frames:
                    self.global_reads.add(name)
                elif self.module_calls is not None and self.frames and self.stmt_stack:
                    self.module_calls.setdefault(id(self.stmt_stack[0]), (set(), set()))[1].add(name)
                val = st.env.get(GLOBAL_CELL + name)  # a module's list this call changed
                if val is None and self.module_env is not None:
                    # Inside a function called from module code: the module's names as they are now.
                    val = self.module_env.get(name)
                if val is None:
                    val = self.globals_env.get(name)
                if val is None:
                    if name in self.classes:
                        return Val(Grad.NONE, Ty.FUNC, qual=name, info=self.classes[name])
                    if name in _BUILTIN_NAMES:
                        return Val(Grad.NONE, Ty.QUAL, qual="builtins." + name)
                    return UNKNOWN
        if val.ty is Ty.QUAL and type(val.info) is LazyImport:  # an imported name, first read
            return self.resolve_import(val.info, Val(Grad.NONE, Ty.QUAL, qual=val.qual))
        return val

    def resolve_import(self, lazy: LazyImport, fallback: Val) -> Val:
        return fallback  # provided by Interpreter: the project's own modules

    def path_of(self, node: ast.expr) -> str | None:
        """The state key of a name or attribute chain: ``a.b.c``, or ``@7.c`` for an attribute of
        a known object (a heap cell shared by every name and ``self`` that refers to it), or
        ``@global.losses`` for a module's list or dict that a function changes (see global_cell)."""
        if isinstance(node, ast.Name):
            st = self.st
            if st is None or not self.frames or node.id in st.env:
                return node.id  # a local name, or module code's own (the common case, first)
            return self.global_cell(node.id) or node.id
        if isinstance(node, ast.Attribute):
            base = self.path_of(node.value)
            if base is None:
                if isinstance(node.value, ast.Subscript):
                    # `self.particles[i].saved`: an attribute of an object taken from a list or dict
                    # by a known key is that object's heap cell.
                    held = self.peek(node.value)
                    if held.module is not None and held.ty in _OBJECT_TYS:
                        return held.module.key + "." + node.attr
                return None
            owner = self.cell(base)
            if owner is not None and owner.module is not None and owner.ty in _OBJECT_TYS:
                return owner.module.key + "." + node.attr
            return base + "." + node.attr
        return None

    def global_cell(self, name: str) -> str | None:
        """Inside a function of this file, a module-level list or dict that the function does not
        bind itself: the heap cell its changes go to (`losses.append(loss)`), so that later reads,
        other functions and the caller see the one object Python has. Module code gets the cell
        back under the name when the call returns (inline)."""
        st = self.st
        if st is None or not self.frames or name in st.env or self.frames[-1].globals is not None:
            return None
        cell = GLOBAL_CELL + name
        if cell in st.env:
            return cell
        val = self.module_env.get(name) if self.module_env is not None else None
        if val is None:
            val = self.globals_env.get(name)
        return cell if val is not None and val.ty in (Ty.LIST, Ty.DICT) else None

    def cell(self, path: str) -> Val | None:
        """The value under a state key, if the state has one (names also from the module scope)."""
        st = self.st
        if st is None:
            return None
        val = st.env.get(path)
        if val is None and "." not in path:
            val = self.lookup(path)
        return val

    def qual_of(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            val = self.lookup(node.id)
            return val.qual if val.ty is Ty.QUAL else None
        if isinstance(node, ast.Attribute):
            base = self.qual_of(node.value)
            return None if base is None else base + "." + node.attr
        return None

    def peek(self, node: ast.expr) -> Val:
        """The value of a name or attribute path without evaluating anything."""
        if isinstance(node, ast.Name):
            return self.lookup(node.id)
        path = self.path_of(node)
        if path is not None and self.st is not None and path in self.st.env:
            return self.st.env[path]
        if isinstance(node, ast.Attribute):
            return self.attribute(node, self.peek(node.value))
        if isinstance(node, ast.Subscript):
            seq = self.peek(node.value)
            item = _item_at(seq, self.key_node(node.slice))
            if item is None and seq.ty is Ty.LIST and seq.elts is None and seq.item is not None:
                if seq.item.module is not None and seq.item.ty in _OBJECT_TYS:
                    item = seq.item  # one of alike objects (`self.particles[i]`): what holds of each
            return item if item is not None else UNKNOWN
        return UNKNOWN

    def python_number(self, node: ast.expr) -> bool:
        return self.peek(node).ty is Ty.NUMBER

    def key_node(self, key: ast.expr) -> ast.expr:
        """A subscript's key as a constant when it is one, or a name bound to a known dict key."""
        if isinstance(key, ast.Subscript) and self.st is not None:
            read = self.peek(key)  # `features[layers[name]]`: a key read from a known dict
            known = read.lit[0] if read.lit is not None else None
            if isinstance(known, (str, int)) and not isinstance(known, bool):
                return ast.Constant(value=known)
        if isinstance(key, ast.Name) and self.st is not None:
            val = self.st.env.get(key.id)
            if val is not None and val.lit is not None and isinstance(val.lit[0], (str, int)):
                return ast.Constant(value=val.lit[0])
        if isinstance(key, ast.Attribute) and self.st is not None:
            val = self.peek(key)  # `self.cache[self.dataset_name]`: a name kept on an object
            known = val.lit[0] if val.lit is not None else None
            if isinstance(known, (str, int)) and not isinstance(known, bool):
                return ast.Constant(value=known)
        if (
            isinstance(key, ast.UnaryOp)
            and isinstance(key.op, ast.USub)
            and isinstance(key.operand, ast.Constant)
            and type(key.operand.value) is int
        ):
            return ast.Constant(value=-key.operand.value)  # `layers[-1]`
        if (
            isinstance(key, ast.BinOp)
            and isinstance(key.op, (ast.Add, ast.Sub))
            and all(isinstance(side, (ast.Name, ast.Constant)) for side in (key.left, key.right))
        ):
            # `laterals[i - 1]` with `i` known in this iteration.
            left, right = (self.key_node(side) for side in (key.left, key.right))
            a = left.value if isinstance(left, ast.Constant) else None
            b = right.value if isinstance(right, ast.Constant) else None
            if type(a) is int and type(b) is int:
                return ast.Constant(value=a + b if isinstance(key.op, ast.Add) else a - b)
        return key

    def default(self, node: ast.expr, func: ast.AST | None = None) -> Val:
        """A parameter's default: a literal, or an imported function (`activation=torch.relu`),
        which Python looked up once, where the function was defined; or a class or function of the
        project named there (`actor_critic=ExerciseActorCritic`), as the module binds it."""
        if isinstance(node, ast.Name) and func is not None:
            globs = self.module_globals(func)
            found = (self.globals_env if globs is None else globs).get(node.id)
            if found is not None and found.ty is Ty.FUNC:
                return found
        if isinstance(node, ast.Attribute):
            qual = self.qual_of(node)
            if qual is not None and qual.split(".")[0] in ("torch", "math", "numpy"):
                return Val(Grad.NONE, Ty.QUAL, qual=qual)
        if isinstance(node, ast.Lambda):
            # `preprocess=lambda img: F.interpolate(img, ...)`: a function, called where it is called.
            return Val(Grad.NONE, Ty.FUNC, info=self.lambda_function(node))
        return _default(node)

    def slice_bounds(self, key: ast.Slice) -> tuple[int | None, int | None] | None:
        """A slice with known integer bounds (or none) and no step: its bounds."""
        if key.step is not None:
            return None
        out: list[int | None] = []
        for end in (key.lower, key.upper):
            if end is None:
                out.append(None)
                continue
            known = self.key_node(end)
            if not (isinstance(known, ast.Constant) and type(known.value) is int):
                return None
            out.append(known.value)
        return out[0], out[1]

    def mode(self) -> GradMode:
        return self.st.mode if self.st is not None else GradMode.MAYBE

    # -- expressions -----------------------------------------------------------------

    def expr(self, node: ast.expr) -> Val:
        if self.st is None:
            return UNKNOWN
        kind = type(node)
        method = _EXPR_DISPATCH.get(kind)
        if method is None:
            # Plain functions, looked up once per node type (bound methods kept on self would make
            # a reference cycle through the whole AST).
            method = _EXPR_DISPATCH[kind] = getattr(type(self), "e_" + kind.__name__, None) or (
                type(self)._visit_children
            )
        result: Val = method(self, node)
        return result

    def _visit_children(self, node: ast.AST) -> Val:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child)
        return UNKNOWN

    def e_Constant(self, node: ast.Constant) -> Val:
        return constant(node)

    def e_Name(self, node: ast.Name) -> Val:
        return self.lookup(node.id)

    def e_JoinedStr(self, node: ast.JoinedStr) -> Val:
        parts: list[str] | None = []
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                val = self.expr(v.value)
                # `f"conv_{i}"` with `i` known: the very string (plain `{x}` of a str or int only).
                known = val.lit[0] if val.lit is not None else None
                plain = v.conversion == -1 and v.format_spec is None and type(known) in (str, int)
                if parts is not None and plain:
                    parts.append(str(known))
                else:
                    parts = None
            elif parts is not None and isinstance(v, ast.Constant) and isinstance(v.value, str):
                parts.append(v.value)
        return OTHER if parts is None else Val(Grad.NONE, Ty.OTHER, lit=("".join(parts),))

    def default_entry(self, node: ast.Subscript, d: Val, key: ast.expr) -> Val | None:
        """`meters["loss"]` of a `defaultdict(AverageMeter)` missing that key: a new instance, kept
        in the dict (the next read gets the same one), as Python does. Only for a constant key of
        a dict whose keys are known, held by a name or an attribute."""
        st = self.st
        path = self.path_of(node.value)
        if (
            st is None
            or path is None
            or st.env.get(path) is not d
            or d.keys is None
            or d.elts is None
            or not isinstance(key, ast.Constant)
            or type(key.value) not in (str, int)
            or key.value in d.keys
        ):
            return None
        factory = d.info
        assert isinstance(factory, DefaultFactory)
        call = self._factory_calls.get(id(node))
        if call is None:
            call = self._factory_calls[id(node)] = ast.copy_location(ast.Call(factory.node, [], []), node)
        made = self.call_value(factory.val, call, [], {})
        if self.st is None or self.st.env.get(path) is not d:
            return made  # the factory changed the dict itself: leave it as it is now
        self.st.env[path] = d.with_(elts=(*d.elts, made), keys=(*d.keys, key.value))
        return made

    def e_Tuple(self, node: ast.Tuple | ast.List) -> Val:
        elts = tuple(self.expr(e.value if isinstance(e, ast.Starred) else e) for e in node.elts)
        starred = [isinstance(e, ast.Starred) for e in node.elts]
        if elts and all(starred) and all(v.ty is Ty.PARAMS for v in elts):
            return Val(Grad.NONE, Ty.PARAMS, info=tuple(m for v in elts for m in (v.info or ())))
        ty = Ty.TUPLE if isinstance(node, ast.Tuple) else Ty.LIST
        if any(starred):
            spliced: list[Val] = []
            for v, star in zip(elts, starred, strict=True):
                if not star:
                    spliced.append(v)
                elif v.ty in (Ty.LIST, Ty.TUPLE) and v.elts is not None:
                    spliced.extend(v.elts)  # `[obs_dim, *hidden, act_dim]` with `hidden` known
                else:
                    # Its length is unknown; an accumulator spliced in is still handed on with it
                    # (`torch.cat((*obs, *actions))` consumes the list the loop filled).
                    marks = frozenset(t for x in elts for t in x.taints if t.kind == "accumulated")
                    return Val(Grad.NONE, ty, taints=marks)
            return Val(Grad.NONE, ty, elts=tuple(spliced))
        return Val(Grad.NONE, ty, elts=elts)

    e_List = e_Tuple

    def e_Starred(self, node: ast.Starred) -> Val:
        # The spread value itself, for the calls that read it (nn.Sequential(*layers)); as an
        # argument it stands for an unknown number of values.
        self.spread[node] = self.expr(node.value)
        return UNKNOWN

    def e_Compare(self, node: ast.Compare) -> Val:
        vals = [self.expr(node.left)] + [self.expr(c) for c in node.comparators]
        if self.same_storage(node):
            return Val(Grad.NONE, Ty.OTHER, truth=True)
        if (
            len(node.ops) == 1
            and isinstance(node.ops[0], (ast.In, ast.NotIn))
            and vals[0].lit is not None
            and vals[1].ty in (Ty.LIST, Ty.TUPLE)
            and vals[1].elts is not None
            and all(e.lit is not None for e in (vals[0], *vals[1].elts))
        ):
            # `name not in ["fc.weight", "fc.bias"]`: a known value among known ones.
            among = any(e.lit == vals[0].lit for e in vals[1].elts)
            return Val(Grad.NONE, Ty.OTHER, truth=among is isinstance(node.ops[0], ast.In))
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) and vals[1].ty is Ty.DICT:
            # `"neg_bias" in cfg.logit_reg` on a dict whose keys are all known.
            found = contains(vals[0], vals[1])
            if found is not None:
                return Val(Grad.NONE, Ty.OTHER, truth=found if isinstance(node.ops[0], ast.In) else not found)
        if any(v.is_tensor for v in vals) and all(
            isinstance(o, (ast.Lt, ast.Gt, ast.LtE, ast.GtE, ast.Eq, ast.NotEq)) for o in node.ops
        ):
            shapes = [v.shape if v.is_tensor else () if v.ty is Ty.NUMBER else None for v in vals]
            shape: shp.Shape | None = shapes[0]
            for other in shapes[1:]:
                shape = shp.broadcast(shape, other)
            return Val(Grad.NONE, Ty.TENSOR, shape=shape)  # a mask of the operands' broadcast shape
        if all(v.ty in (Ty.NUMBER, Ty.OTHER) for v in vals):
            return Val(Grad.NONE, Ty.OTHER, truth=compare_truth(node, vals))
        return UNKNOWN

    def same_storage(self, node: ast.Compare) -> bool:
        """`query.data_ptr() == key.data_ptr() == value.data_ptr()` (fairseq's self-attention
        test) when the same variable was passed for each parameter (`attn(x, x, x)`), or the same
        name is compared: the very same tensor, not merely one that shares memory (a view, or
        another piece of one `chunk()`, starts elsewhere)."""
        if not all(isinstance(op, ast.Eq) for op in node.ops):
            return False
        names: list[str] = []
        for part in (node.left, *node.comparators):
            if not (
                isinstance(part, ast.Call)
                and isinstance(part.func, ast.Attribute)
                and part.func.attr == "data_ptr"
                and not part.args
                and not part.keywords
                and isinstance(part.func.value, ast.Name)
            ):
                return False
            names.append(part.func.value.id)
        if not self.peek(ast.Name(names[0], ast.Load())).is_tensor:
            return False
        if len(set(names)) == 1:
            return True
        passed = self.frames[-1].passed if self.frames else {}
        given = [passed[n][0] if n in passed else None for n in names]
        return (
            all(isinstance(g, ast.Name) for g in given)
            and len({g.id for g in given if isinstance(g, ast.Name)}) == 1
        )

    def e_BoolOp(self, node: ast.BoolOp) -> Val:
        """`feature_map or default_map`: the operand Python returns, where each one's truth is known
        (None, a known number or string, a function or module); else unknown."""
        want = isinstance(node.op, ast.Or)  # `or` stops at the first true operand, `and` at a false one
        for i, v in enumerate(node.values):
            val = self.expr(v)
            truth = known_truth(val)
            if truth is None and isinstance(v, ast.Compare):
                # `epoch + 1 <= n and layers is not None`: a comparison decided here is a bool.
                truth = self.static_truth(v)
                truth = val.truth if truth is None and not val.is_tensor else truth
                if truth is not None:
                    val = Val(Grad.NONE, Ty.OTHER, truth=truth)
            if truth is None and _string_call(v):
                truth = val.truth  # `name.startswith("fc") or ...` of a known name
            if truth is None:
                for rest in node.values[i + 1 :]:
                    self.expr(rest)
                return UNKNOWN
            if truth is want or i == len(node.values) - 1:
                return val
        return UNKNOWN

    def e_IfExp(self, node: ast.IfExp) -> Val:
        test = self.expr(node.test)
        truth = self.static_truth(node.test)
        if truth is None and isinstance(node.test, ast.Compare):
            truth = test.truth
        if truth is not None:
            return self.expr(node.body if truth else node.orelse)
        doubt = int(node.lineno >= LINE_BLOCK)
        self.foreign_doubt += doubt
        try:
            return join(self.expr(node.body), self.expr(node.orelse))
        finally:
            self.foreign_doubt -= doubt

    def static_truth(self, test: ast.expr) -> bool | None:  # provided by the Interpreter
        return None

    def e_UnaryOp(self, node: ast.UnaryOp) -> Val:
        val = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            # `optimize_class = not optimize_class`: a flag known here stays known.
            truth = val.truth if val.truth is not None else known_truth(val) if val.ty in _SIZED else None
            return OTHER if truth is None else FALSE if truth else TRUE
        if isinstance(node.op, ast.USub) and val.requires_grad:
            return self.op_result(node, (val,), saves=False, shape=val.shape)
        if val.ty is Ty.NUMBER and not isinstance(node.op, ast.UAdd):
            known = val.lit[0] if val.lit is not None else None
            if type(known) in (int, float) and isinstance(node.op, ast.USub):
                return Val(Grad.NONE, Ty.NUMBER, lit=(-known,))  # type: ignore[operator]
            if type(known) is int and isinstance(node.op, ast.Invert):
                return Val(Grad.NONE, Ty.NUMBER, lit=(~known,))
            return NUMBER
        if val.ty is Ty.OTHER and _numpy_made(val):
            return val
        return (
            val
            if val.ty is Ty.NUMBER
            else (
                Val(val.grad, val.ty, shape=val.shape, taints=val.taints, cause=val.cause)
                if val.is_tensor
                else UNKNOWN
            )
        )

    def e_BinOp(self, node: ast.BinOp) -> Val:
        left = self.expr(node.left)
        right = self.expr(node.right)
        return self.binop_val(node.op, left, right, node)

    def binop_val(self, op: ast.operator, left: Val, right: Val, node: ast.AST) -> Val:
        if not (left.is_tensor or right.is_tensor):
            if left.ty is Ty.PARAMS and right.ty is Ty.PARAMS and isinstance(op, ast.Add):
                return Val(Grad.NONE, Ty.PARAMS, info=tuple(left.info or ()) + tuple(right.info or ()))
            if left.ty is Ty.NUMBER and right.ty is Ty.NUMBER:
                if isinstance(op, (ast.BitOr, ast.BitAnd)) and None not in (left.truth, right.truth):
                    either = bool(left.truth) | bool(right.truth)
                    both = either if isinstance(op, ast.BitOr) else bool(left.truth) & bool(right.truth)
                    return TRUE if both else FALSE  # `self.training |= self.export`
                if left.lit is not None and right.lit is not None:
                    # Arithmetic on known numbers (`hidden * 2`, a step counter in the iterations
                    # the loop is followed over).
                    return _fold(op, left.lit[0], right.lit[0])
                why = _best_cause((left, right))  # `rl_loss -= logp.item() * reward`: still a float
                return NUMBER if why is None else Val(Grad.NONE, Ty.NUMBER, cause=why)
            if (
                isinstance(op, ast.Add)
                and left.lit is not None
                and right.lit is not None
                and type(left.lit[0]) is str
                and type(right.lit[0]) is str
                and len(left.lit[0]) + len(right.lit[0]) <= _MAX_KNOWN_STR
            ):
                return Val(Grad.NONE, Ty.OTHER, lit=(left.lit[0] + right.lit[0],))  # `"conv_" + str(i)`
            if isinstance(op, ast.Mult) and {left.ty, right.ty} in _SEQ_TIMES_INT:
                # `[0] * n`: the elements repeated (exact when n is known and small).
                seq, count = (left, right) if left.ty is not Ty.NUMBER else (right, left)
                n = count.lit[0] if count.lit is not None and type(count.lit[0]) is int else None
                if seq.elts is not None and n is not None and 0 <= n * len(seq.elts) <= MAX_EXACT_ELEMENTS:
                    return Val(Grad.NONE, seq.ty, elts=seq.elts * n, taints=seq.taints)
                if seq.elts is not None and seq.elts:
                    each: Val | None = seq.elts[0]
                    for nxt in seq.elts[1:]:
                        each = join(each, nxt) if each is not None else None
                    return Val(Grad.NONE, seq.ty, item=each, taints=seq.taints)
                return UNKNOWN
            if left.ty is right.ty and left.ty in (Ty.LIST, Ty.TUPLE) and isinstance(op, ast.Add):
                taints = left.taints | right.taints
                if left.elts is not None and right.elts is not None:
                    return Val(Grad.NONE, left.ty, elts=left.elts + right.elts, taints=taints)
                item = [elements(v) for v in (left, right)]
                known = [i for i in item if i is not EMPTY]
                joined = None if any(i is None for i in known) or not known else known[0]
                for other in known[1:]:
                    joined = join(joined, other) if joined is not None and other is not None else None
                # The graphs either side certainly holds (its appends, its known elements) stay
                # held: `sum(styles_l + contents_l)` adds every one of them.
                known_elts = [*(left.elts or ()), *(right.elts or ())]
                held = left.held | right.held | frozenset(held_sites(known_elts))
                return Val(Grad.NONE, left.ty, item=joined, taints=taints, held=held)
            array = _from_numpy(left, right)
            if array is not None:
                return array  # arithmetic on NumPy arrays made from tensors: an array, no graph
            return (
                UNKNOWN.with_(taints=left.taints | right.taints) if left.taints or right.taints else UNKNOWN
            )
        shape = (
            shp.matmul(left.shape, right.shape)
            if isinstance(op, ast.MatMult)
            else shp.broadcast(left.shape, right.shape)
        )
        if left.ty is Ty.NUMBER and right.is_tensor:
            shape = right.shape
        if right.ty is Ty.NUMBER and left.is_tensor:
            shape = left.shape
        left, right = _gradient_terms(op, left, right)
        if not (left.requires_grad or right.requires_grad) and self.mode() is not GradMode.OFF:
            if left.grad is Grad.NONE and right.grad is Grad.NONE:
                return Val(
                    Grad.NONE,
                    Ty.TENSOR,
                    shape=shape,
                    taints=left.taints | right.taints,
                    cause=_best_cause((left, right)),
                )
            return Val(Grad.UNKNOWN, Ty.TENSOR, shape=shape, taints=left.taints | right.taints)
        saves = not isinstance(op, (ast.Add, ast.Sub))
        saved: set[object] = set()
        if isinstance(op, (ast.Mult, ast.MatMult, ast.Div, ast.Pow)):
            # Each operand is saved for the other's gradient; pow saves its base for its own, and
            # div its divisor (`x / t` keeps `t`, not `x`: changing `x` in place after it is safe).
            if right.requires_grad and left.obj is not None and left.is_tensor:
                saved.add(left.obj)
            if left.requires_grad and right.obj is not None and right.is_tensor:
                saved.add(right.obj)
            if isinstance(op, ast.Pow) and left.requires_grad and left.obj is not None:
                saved.add(left.obj)
            if isinstance(op, ast.Div) and right.requires_grad and right.obj is not None:
                saved.add(right.obj)
        if saves:
            # Scaling a loss that holds a penalty by a constant keeps the penalty a term of it
            # (`0.5 * (loss + penalty)`); a constant times a graph (`weights * per_sample`) is a
            # weight, not a penalty.
            left, right = _unmark_weights(left, right), _unmark_weights(right, left)
        out = self.op_result(
            node, (left, right), saves=saves, shape=shape, saved=frozenset(saved), linear=True
        )
        if shape is None and not isinstance(op, ast.MatMult) and (_plural(left) or _plural(right)):
            out = out.with_(plural=True)  # broadcasting never makes fewer elements
        return out

    def op_result(
        self,
        node: ast.AST,
        inputs: tuple[Val, ...],
        saves: bool,
        shape: shp.Shape | None = None,
        saved: frozenset[object] = frozenset(),
        saves_output: bool = False,
        module: ModuleInst | None = None,
        call_args: tuple[tuple[ast.expr, Val], ...] = (),
        ty: Ty = Ty.TENSOR,
        linear: bool = False,
    ) -> Val:
        """The value of a differentiable op on ``inputs`` under the current grad mode. A constant
        gradient (GG202's) given to a layer with a graph (`model(x + r_adv)`: a perturbation) is
        no longer a penalty added to the loss: it is no longer marked, unless ``linear`` (the
        caller decided)."""
        mode = self.mode()
        taints = frozenset().union(*(v.taints for v in inputs)) if inputs else frozenset()
        if mode is GradMode.OFF:
            cause = self.no_grad_cause(node)
            return Val(Grad.NONE, ty, shape=shape, obj=object(), cause=cause, taints=taints)
        if mode is GradMode.MAYBE:
            return Val(Grad.UNKNOWN, ty, shape=shape, taints=taints)
        if not any(v.requires_grad for v in inputs) and module is None:
            if all(v.grad is Grad.NONE for v in inputs):
                why = _best_cause(inputs)
                return Val(Grad.NONE, ty, shape=shape, obj=object(), cause=why, taints=taints)
            return Val(Grad.UNKNOWN, ty, shape=shape, taints=taints)
        site = self.new_site(node, saves, inputs, saved, module, call_args)
        if saves_output:
            site.saves_own_output = True
        sites = frozenset({site}).union(*(v.sites for v in inputs))
        if module is not None and not linear:
            taints = _without_penalty(taints)
        return Val(Grad.GRAPH, ty, sites=sites, root=site, obj=site, shape=shape, taints=taints)

    def e_Subscript(self, node: ast.Subscript) -> Val:
        base = self.expr(node.value)
        sliced = self.expr(node.slice)
        key = self.key_node(node.slice)
        if (
            base.module is not None
            and base.module.alike
            and len(base.module.seq_children) == 1
            and not isinstance(node.slice, ast.Slice)
        ):
            return Val(Grad.NONE, Ty.MODULE, module=base.module.seq_children[0])  # one of alike layers
        if base.module is not None and base.module.seq_children and isinstance(key, ast.Constant):
            i = key.value
            children = base.module.seq_children
            if isinstance(i, int) and not isinstance(i, bool) and -len(children) <= i < len(children):
                return Val(Grad.NONE, Ty.MODULE, module=children[i])
            return UNKNOWN
        if base.module is not None and base.module.seq_children and isinstance(node.slice, ast.Slice):
            bounds = self.slice_bounds(node.slice)
            if bounds is not None:
                # `self.layers[:-1]`: the children it selects, in order (iterated like a list).
                chosen = base.module.seq_children[bounds[0] : bounds[1]]
                elts = tuple(Val(Grad.NONE, Ty.MODULE, module=m) for m in chosen)
                return Val(Grad.NONE, Ty.LIST, elts=elts)
        if (
            base.ty is Ty.MODULE
            and base.module is not None
            and base.module.cls_name == "ModuleDict"
            and isinstance(node.slice, ast.Constant)
        ):
            child = base.module.children.get(str(node.slice.value))
            return Val(Grad.NONE, Ty.MODULE, module=child) if child is not None else UNKNOWN
        user = base.module.user_class if base.module is not None and base.ty is not Ty.MODULE else None
        if user is not None and isinstance(node.ctx, ast.Load) and "__getitem__" in user.methods:
            # `frame[idx]` of an object of a class of the program: its `__getitem__`, run here.
            method = user.methods["__getitem__"]
            if self.can_inline(method):
                receiver = Val(Grad.NONE, Ty.OTHER, module=base.module)
                return self.inline(method, [receiver, sliced], {}, None, self_inst=None)
        if isinstance(base.info, DefaultFactory) and isinstance(node.ctx, ast.Load):
            made = self.default_entry(node, base, key)
            if made is not None:
                return made
        item = _item_at(base, key)
        if item is not None:
            return item
        if base.ty in (Ty.LIST, Ty.TUPLE) and isinstance(node.slice, ast.Slice):
            bounds = self.slice_bounds(node.slice)
            if base.elts is not None and bounds is not None:
                # `layers[:-1]`, `sizes[1:]` of a known sequence: the very elements.
                return base.with_(elts=base.elts[bounds[0] : bounds[1]])
            item = elements(base)  # a slice of a list holds some of its elements
            return Val(Grad.NONE, base.ty, item=item if item is not EMPTY else None, taints=base.taints)
        if base.ty in (Ty.LIST, Ty.TUPLE) and not isinstance(node.slice, ast.Slice):
            val = self.one_element(base)
            if base.ty is Ty.LIST and base.elts is None and base.item is not None:
                index = key.value if isinstance(key, ast.Constant) else None
                if isinstance(index, int) and not isinstance(index, bool):
                    return self.indexed_element(val, base, index, node.value)
            return val
        if base.is_tensor and _str_key(node.slice):
            # No tensor takes a string key: this is a structure (a detector's list of dicts, a
            # model output record) assumed to be a tensor, and which of its entries carry a graph
            # (`out["boxes"]`) and which cannot (`out["labels"]`, integers) is not known.
            return UNKNOWN
        if base.is_tensor:
            is_int = _int_items(node.slice, sliced)
            if base.requires_grad and self.mode() is GradMode.ON:
                shape = shp.index(base.shape, node.slice, self.slice_bounds, is_int)
                val = self.op_result(node, (base,), saves=False, shape=shape)
                view = base.grad is Grad.LEAF or base.leaf_view
                view = view and not base.via_data and _basic_key(node.slice, self.python_number)
                return val.with_(obj=base.obj, leaf_view=view)  # a view shares its base's version counter
            if base.grad is Grad.NONE:
                # A part of it: the same tensor's memory, and what marks it (a constant gradient).
                shape = shp.index(base.shape, node.slice, self.slice_bounds, is_int)
                return Val(
                    Grad.NONE, Ty.TENSOR, obj=base.obj, cause=base.cause, taints=base.taints, shape=shape
                )
            return Val(Grad.UNKNOWN, Ty.TENSOR, taints=base.taints)
        return UNKNOWN

    def e_Attribute(self, node: ast.Attribute) -> Val:
        path = self.path_of(node)
        if path is not None and self.st is not None and path in self.st.env:
            val = self.st.env[path]
            if path[0] == "@" and self.loops and (val.sites or val.elts):
                # What state a loop reads, and in which iteration (a read after this iteration
                # wrote the cell returns the same value, but carries nothing into the next).
                self.rep.cell_reads.setdefault(path, []).append((val, self.ipath()))
            return val
        base = self.expr(node.value)
        user = base.module.user_class if base.module is not None else None
        if user is not None and node.attr in user.properties:
            method = user.methods[node.attr]
            if self.can_inline(method):
                return self.inline(method, [base], {}, None, self_inst=None)
            return UNKNOWN
        return self.attribute(node, base)

    def super_ref(self) -> Val | None:
        """`super()` in a method of a class of the project whose bases are the project's too: the
        instance, its methods looked up from the class after the method's own."""
        if not self.frames:
            return None
        func = self.frames[-1].func
        cls = self.defined_in.get(id(func))
        params = func.args.posonlyargs + func.args.args
        if cls is None or not (cls.bases or cls.sequential) or not params:
            return None
        recv = self.lookup(params[0].arg)
        if recv.module is None or recv.module.user_class is None:
            return None
        return Val(Grad.NONE, Ty.OTHER, info=SuperRef(cls, recv.module))

    def attribute(self, node: ast.Attribute, base: Val) -> Val:
        attr = node.attr
        if isinstance(base.info, SuperRef):  # `super().__init__`: the next class's method, bound
            inst = base.info.inst
            method = inst.user_class.after(base.info.cls, attr)
            return Val(Grad.NONE, Ty.FUNC, qual=attr, info=method, module=inst) if method else UNKNOWN
        if isinstance(base.info, Namespace):  # a module of the project: `U.AverageMeter`
            found = base.info.env.get(attr)
            if isinstance(found, Val):
                return found
            sub = base.info.submodules.get(attr)
            if sub is not None:
                return Val(Grad.NONE, Ty.QUAL, qual=f"{base.qual}.{attr}", info=sub)
        if base.ty is Ty.QUAL:
            return Val(Grad.NONE, Ty.QUAL, qual=f"{base.qual}.{attr}")
        if base.module is not None:
            inst = base.module
            if inst.kind == "options":
                # An option the program never set itself: a number, string or flag, never a tensor
                # (combined with a tensor, a number: `args.beta * loss` keeps the loss's shape).
                return NUMBER
            if attr == "_modules" and base.ty is Ty.MODULE and (kids := _known_children(inst)) is not None:
                # A container's children by name (`for name, layer in vgg._modules.items()`).
                return Val(
                    Grad.NONE,
                    Ty.DICT,
                    keys=tuple(k for k, _ in kids),
                    elts=tuple(Val(Grad.NONE, Ty.MODULE, module=m) for _, m in kids),
                )
            if attr in inst.attrs:
                val = inst.attrs[attr]
                # Tensors set in __init__ may be rebound by any method: only structure is trusted.
                if val.ty in (Ty.MODULE, Ty.OPTIMIZER, Ty.QUAL, Ty.FUNC) or val.grad is Grad.LEAF:
                    return val
                if val.ty is Ty.OTHER and val.module is not None:
                    return val  # an instance of a class of this file (a meter, a buffer, a helper)
                return UNKNOWN
            if inst.cls_name == "ModuleDict" and attr in inst.children:
                # nn.Module finds a submodule by its name: `self.modules.model` is the ModuleDict's
                # entry "model".
                return Val(Grad.NONE, Ty.MODULE, module=inst.children[attr])
            layer = inst.user_class is None or inst.user_class.torch_base is not None
            if attr in ("weight", "bias") and inst.has_params and layer:
                if attr in inst.kwargs.get(_COMPUTED, ()):
                    return Val(Grad.UNKNOWN, Ty.TENSOR, info=inst)  # reparametrized: computed
                if self.trainable(inst):
                    return Val(Grad.LEAF, Ty.TENSOR, obj=inst.params_obj, info=inst)
                return Val(Grad.UNKNOWN, Ty.TENSOR, info=inst)
            if inst.user_class is not None and attr in inst.user_class.methods:
                return Val(Grad.NONE, Ty.FUNC, qual=attr, info=inst.user_class.methods[attr], module=inst)
            if inst.user_class is not None and attr in inst.user_class.consts:
                return constant(inst.user_class.consts[attr])  # a class attribute: `self.export`
            if attr == "training" and base.ty is Ty.MODULE and inst.origin is not None:
                return TRUE  # made by the program, and no .eval()/.train() since: training mode
            return UNKNOWN
        if base.ty is Ty.TUPLE and attr in ("values", "indices") and base.elts and len(base.elts) == 2:
            return base.elts[0 if attr == "values" else 1]  # torch.return_types: (values, indices)
        if base.is_tensor:
            if attr == "data":
                return Val(
                    Grad.NONE,
                    Ty.TENSOR,
                    obj=base.obj,
                    shape=base.shape,
                    via_data=True,
                    cause=("`.data`", node),
                    info=base.info if param_module(base) is not None else None,  # whose parameters
                )
            if attr == "grad":
                self.leaf_grad_read(node, base)
                return Val(Grad.NONE, Ty.TENSOR, shape=base.shape, obj=object())
            if attr in ("T", "mT", "H"):
                if base.requires_grad:
                    t_shape = base.shape[::-1] if attr == "T" and base.shape is not None else None
                    return self.op_result(node, (base,), saves=False, shape=t_shape).with_(obj=base.obj)
                return Val(base.grad, Ty.TENSOR, obj=base.obj)
            if attr == "shape" and base.shape is not None:
                return _size_val(base.shape)
            if attr == "ndim" and base.shape is not None:
                return Val(Grad.NONE, Ty.NUMBER, lit=(len(base.shape),))
            if attr in ("shape", "dtype", "device", "requires_grad", "is_leaf", "ndim", "grad_fn"):
                return OTHER
        return UNKNOWN

    def e_NamedExpr(self, node: ast.NamedExpr) -> Val:
        val = self.expr(node.value)
        if self.st is not None:
            self.st.env[node.target.id] = val
        return val

    def e_Yield(self, node: ast.Yield) -> Val:
        val = self.expr(node.value) if node.value is not None else NONE_VAL
        if self.frames:
            self.frames[-1].yields.append(val)
        return UNKNOWN

    def e_YieldFrom(self, node: ast.YieldFrom) -> Val:
        self.expr(node.value)
        if self.frames:
            self.frames[-1].yields.append(UNKNOWN)
        return UNKNOWN

    def e_Lambda(self, node: ast.Lambda) -> Val:
        # A function like any other (`output_transform=lambda x: x`, `key=lambda t: t.norm()`),
        # called with its real arguments where it is called.
        func = self.lambda_function(node)
        self.note_closure(func)
        return Val(Grad.NONE, Ty.FUNC, info=func)

    def lambda_function(self, node: ast.Lambda) -> ast.FunctionDef:
        """The lambda as the function it is: its arguments, and `return` its expression (made once
        per lambda, at the lambda's place, so what is found in it is found there)."""
        func = self._lambdas.get(id(node))
        if func is None:
            ret = ast.copy_location(ast.Return(value=node.body), node.body)
            extra: dict[str, Any] = {"type_params": []} if sys.version_info >= (3, 12) else {}
            func = ast.copy_location(
                ast.FunctionDef(name="<lambda>", args=node.args, body=[ret], decorator_list=[], **extra),
                node,
            )
            self._lambdas[id(node)] = func
        return func

    def note_closure(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> None:  # see Interpreter
        return None

    def e_ListComp(self, node: ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp) -> Val:
        """One abstract pass over the element: a list whose every element is that value."""
        st = self.st
        if st is None:
            return UNKNOWN
        bound: dict[str, Val | None] = {}
        for gen in node.generators:
            for name in _target_names(gen.target):
                bound.setdefault(name, st.env.get(name))
        out = self._comprehension(node)
        if self.st is not None:
            for name, old in bound.items():  # comprehension variables do not leak (Python 3)
                if old is None:
                    self.st.env.pop(name, None)
                else:
                    self.st.env[name] = old
        return out

    def _comprehension(self, node: ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp) -> Val:
        chosen = self.selected_parameters(node)
        if chosen is not None:
            return chosen
        first = self.expr(node.generators[0].iter)
        if first.ty is Ty.PARAMS and _selects_trainable(node):
            # `[p for p in model.parameters() if p.requires_grad]`: the parameters that train.
            return first
        exact = first.elts if first.ty in (Ty.LIST, Ty.TUPLE) else None
        if type(first.info) is KnownRange and _scalar_comprehension(node):
            # `[f"model.{x}." for x in freeze_list]`, the list a `range` of known numbers.
            exact = tuple(Val(Grad.NONE, Ty.NUMBER, lit=(k,)) for k in first.info.numbers) or None
        elif first.ty is Ty.DICT and first.keys is not None and first.elts is not None:
            exact = tuple(_key_val(k) for k in first.keys)  # iterating a dict gives its keys
        elif (
            first.ty is Ty.MODULE
            and first.module is not None
            and first.module.seq_children
            and not first.module.alike  # layers of a number not known: no exact count
        ):
            # `tuple(head(h) for head in self.heads)`: one element per layer of the container.
            exact = tuple(Val(Grad.NONE, Ty.MODULE, module=m) for m in first.module.seq_children)
        elif (layers := self.module_sequence(first, node.generators[0].iter)) is not None:
            # `[conv(x[i]) for i, conv in enumerate(self.lateral_convs)]`, `zip(self.heads, feats)`:
            # one element per layer, as a loop over them has.
            exact = layers
        elif exact is None and len(node.generators) == 1 and isinstance(node, ast.ListComp):
            # `[0 for _ in range(steps + 1)]` with `steps` known: one slot per step, each its own.
            # (Only slots of a constant: a list of layers is better followed as alike elements.)
            counted = node.generators[0].iter
            one_bound = (
                isinstance(counted, ast.Call)
                and len(counted.args) == 1
                and isinstance(node.elt, ast.Constant)
            )
            # Or fresh tensors (`[torch.zeros(shape) for _ in range(4)]`, a state cache): each its
            # own tensor, changed in place on its own.
            fresh = (
                isinstance(counted, ast.Call)
                and isinstance(node.elt, ast.Call)
                and (self.qual_of(node.elt.func) or "") in _TENSOR_FACTORIES
            )
            if one_bound or fresh:
                exact = self.counted_numbers(counted, 1, MAX_EXACT_ELEMENTS)
            gen = node.generators[0]
            if exact is None and _scalar_comprehension(node):
                # `[f"model.{x}." for x in range(10)]`: each number of the range gives its string.
                exact = self.counted_numbers(counted, 1, MAX_EXACT_SCALARS)
            if (
                exact is None
                and not gen.ifs
                and isinstance(gen.target, ast.Name)
                and _indexes_with(node.elt, gen.target.id)
            ):
                # `[self.fpn_convs[i](laterals[i]) for i in range(len(laterals))]`: element i reads
                # the i-th of known sequences, so each is followed with its own number.
                exact = self.counted_numbers(counted, 2, MAX_EXACT_ELEMENTS)
        if (
            len(node.generators) == 1
            and exact
            and (
                len(exact) <= MAX_EXACT_ELEMENTS
                or (
                    len(exact) <= MAX_EXACT_SCALARS
                    and all(e.lit is not None for e in exact)
                    and _scalar_comprehension(node)
                )
            )
        ):
            # Over a known sequence (a ModuleDict's items, a tuple of losses): once per element.
            gen = node.generators[0]
            results = []
            keys: list[object] = []
            decided = True  # every filter known True or False for every element
            for elem in exact:
                self.assign_target(gen.target, elem)
                truths = [self.expr(cond).truth for cond in gen.ifs]
                if False in truths:
                    continue  # filtered out (`if k in output` on known keys): no element
                decided = decided and None not in truths
                if isinstance(node, ast.DictComp):
                    key = self.expr(node.key)
                    if key.lit is not None and type(key.lit[0]) in (str, int):
                        keys.append(key.lit[0])
                results.append(self._comp_value(node, key_done=True))
            if isinstance(node, ast.DictComp) and decided and len(set(keys)) == len(results):
                # `{name: head(h) for name, head in self.heads.items()}`: each key and its value.
                return Val(Grad.NONE, Ty.DICT, elts=tuple(results), keys=tuple(keys))
            if not decided or not results or isinstance(node, (ast.DictComp, ast.SetComp)):
                if not results:  # every element filtered out (a DictComp returned above)
                    return OTHER if isinstance(node, ast.SetComp) else Val(Grad.NONE, Ty.LIST, elts=())
                item = results[0]
                for r in results[1:]:
                    item = join(item, r)
                return self._comp_out(node, item)
            return Val(Grad.NONE, Ty.LIST, elts=tuple(results))
        looped = self.comprehension_loop(node, first)
        if looped is not None:
            return looped
        self.comprehending += 1
        try:
            full = True  # every element of every iterable gives one: empty only if one of them is
            for i, gen in enumerate(node.generators):
                it = first if i == 0 else self.expr(gen.iter)
                full = full and not gen.ifs and _certainly_nonempty(it)
                self.assign_target(gen.target, self.iter_element(it, gen.iter))
                for cond in gen.ifs:
                    self.expr(cond)
            value = self._comp_value(node)
            if value.ty is Ty.MODULE and value.module is not None and gen_binds_fresh(node):
                value.module.many = True  # `[nn.Linear(4, 4) for _ in range(6)]`: six of them
            if value.is_tensor and value.obj is not None and gen_binds_fresh(node):
                # `[torch.randn(2, 4, requires_grad=True) for _ in range(n)]`: a tensor of its own
                # per element, not one tensor (what one's `.grad` holds says nothing of another's,
                # and an in-place change of one leaves the others as they were).
                value = value.with_(obj=None)
            out = self._comp_out(node, value)
            if out.ty is not Ty.LIST:
                return out
            # One element per element of one iterable of two or more (`range(n)` with `n` known, a
            # list made so): certainly more than one element, so `torch.stack` of it is no scalar.
            gen = node.generators[0]
            several = (
                len(node.generators) == 1
                and not gen.ifs
                and (first.ty is Ty.LIST and first.plural or (self.range_length(gen.iter) or 0) >= 2)
            )
            return out.with_(nonempty=full or several, plural=several)
        finally:
            self.comprehending -= 1

    def _comp_value(
        self, node: ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp, key_done: bool = False
    ) -> Val:
        if isinstance(node, ast.DictComp):
            if not key_done:
                self.expr(node.key)
            return self.expr(node.value)
        return self.expr(node.elt)

    @staticmethod
    def _comp_out(node: ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp, item: Val) -> Val:
        if isinstance(node, ast.DictComp):
            return Val(Grad.NONE, Ty.DICT, item=item)
        return Val(Grad.NONE, Ty.LIST, item=item) if not isinstance(node, ast.SetComp) else OTHER

    e_GeneratorExp = e_ListComp
    e_SetComp = e_ListComp
    e_DictComp = e_ListComp

    def assign_target(self, target: ast.expr, val: Val) -> None:  # provided by Interpreter.assign
        return None

    def iter_element(self, it: Val, node: ast.expr) -> Val:  # provided by the Interpreter
        return UNKNOWN

    def comprehension_loop(
        self, node: ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp, first: Val
    ) -> Val | None:  # provided by the Interpreter: a training loop written as a comprehension
        return None

    def closure_loop(self, step: ast.Call, closure: ast.expr, func: object) -> Val | None:  # see Interpreter
        return None

    def module_sequence(self, it: Val, node: ast.expr) -> tuple[Val, ...] | None:  # see Interpreter
        return None

    def counter(self, it: ast.expr) -> tuple[int, int, bool] | None:  # provided by the Interpreter
        return None

    def range_length(self, it: ast.expr) -> int | None:  # provided by the Interpreter
        return None

    def counted_numbers(self, counted: ast.expr, least: int, most: int) -> tuple[Val, ...] | None:
        """The numbers `range(...)` (or `reversed(range(...))`) gives, in order, when they are
        known and there are from ``least`` to ``most`` of them."""
        length = self.range_length(counted)
        counter = self.counter(counted) if length is not None and least <= length <= most else None
        if counter is None or length is None or counter[2]:
            return None
        start, stride, _ = counter
        return tuple(Val(Grad.NONE, Ty.NUMBER, lit=(start + k * stride,)) for k in range(length))

    def e_Dict(self, node: ast.Dict) -> Val:
        for k in node.keys:
            if k is not None:
                self.expr(k)
        values = [self.expr(v) for v in node.values]
        # Entries in order, a later one replacing an earlier of the same key, as Python builds it:
        # `{**o1, **o2}` merges two dicts whose keys are known.
        merged: dict[object, Val] = {}
        for k, v in zip(node.keys, values, strict=True):
            if k is None:
                if v.ty is not Ty.DICT or v.keys is None or v.elts is None:
                    return Val(Grad.NONE, Ty.DICT)  # `**other` of unknown contents
                merged.update(zip(v.keys, v.elts, strict=True))
            elif isinstance(k, ast.Constant) and type(k.value) in (str, int):
                merged[k.value] = v
            else:
                return Val(Grad.NONE, Ty.DICT)  # a computed key: contents unknown
        return Val(Grad.NONE, Ty.DICT, elts=tuple(merged.values()), keys=tuple(merged))

    # -- calls -----------------------------------------------------------------------

    def call_kwargs(self, node: ast.Call) -> dict[str, Val]:
        """A call's keyword arguments, with `**d` spread when ``d`` is a dict known here (a batch
        `{"input_ids": ..., "labels": ...}` given as `model(**batch)`)."""
        kwargs: dict[str, Val] = {}
        for k in node.keywords:
            if k.arg is not None:
                kwargs[k.arg] = self.expr(k.value)
                continue
            given = self.expr(k.value)
            known = (
                given.ty is Ty.DICT
                and given.keys is not None
                and given.elts is not None
                and all(type(key) is str for key in given.keys)
            )
            self.spread_dicts[id(k)] = known
            if known:
                assert given.keys is not None and given.elts is not None
                for key, val in zip(given.keys, given.elts, strict=True):
                    kwargs.setdefault(str(key), val)
        return kwargs

    def e_Call(self, node: ast.Call) -> Val:
        func = node.func
        if isinstance(func, ast.Attribute):
            recv = self.expr(func.value)
            args = [self.expr(a) for a in node.args]
            kwargs = self.call_kwargs(node)
            if isinstance(recv.info, SuperRef) and func.attr == "__init__":
                if self.sequential_init(recv.info, func.attr, node, args):
                    return NONE_VAL
            if isinstance(recv.info, (Namespace, SuperRef)):  # `U.postprocess(x)`, `super().__init__()`
                return self.call_value(self.attribute(func, recv), node, args, kwargs)
            if recv.ty is Ty.QUAL:
                return self.qual_call(f"{recv.qual}.{func.attr}", node, args, kwargs)
            if func.attr == "apply" and isinstance(recv.info, ClassInfo) and recv.info.autograd_function:
                return self.custom_function(recv.info, node, args, kwargs)
            path = self.path_of(func)
            stored = self.st.env.get(path) if path is not None and self.st is not None else None
            if stored is not None and stored.ty is not Ty.UNKNOWN:
                # A value kept in an attribute: a sub-module, a loss object, a function, an object.
                return self.call_value(stored, node, args, kwargs)
            if recv.module is not None and (
                func.attr in recv.module.attrs
                or recv.module.cls_name == "ModuleDict"
                and func.attr in recv.module.children
            ):
                # self.layer(x): a sub-module (or function) stored as an attribute; a ModuleDict's
                # entry by name (`self.modules.model(x)`)
                callee = self.attribute(func, recv)
                if callee.ty is Ty.MODULE and callee.module is not None:
                    return self.module_call(callee.module, node, args, kwargs)
                self.escape(args, kwargs)
                return UNKNOWN
            path = self.path_of(func)
            if path is not None and self.st is not None and path in self.st.env:
                callee = self.st.env[path]
                if callee.ty is Ty.MODULE and callee.module is not None:
                    return self.module_call(callee.module, node, args, kwargs)
            return self.method_call(recv, func.attr, node, args, kwargs)
        fval = self.expr(func)
        if fval.qual in ("builtins.getattr", "builtins.setattr"):
            spelled = self.spelled_attribute(node, store=fval.qual == "builtins.setattr")
            if spelled is not None:
                if isinstance(spelled.ctx, ast.Load):
                    return self.expr(spelled)  # `getattr(model, "encoder")` reads model.encoder
                self.assign_target(spelled, self.expr(node.args[2]))
                return NONE_VAL
        args = [self.expr(a) for a in node.args]
        kwargs = self.call_kwargs(node)
        if fval.ty is Ty.QUAL and fval.qual:
            return self.qual_call(fval.qual, node, args, kwargs)
        if fval.ty is Ty.FUNC:
            return self.call_local(fval, node, args, kwargs)
        return self.call_value(fval, node, args, kwargs)

    def parser_method(self, parser: Val, name: str, node: ast.Call) -> Val:
        """An `argparse.ArgumentParser`: its arguments' defaults as declared, and the options
        `parse_args` gives: strings, numbers, flags, lists of them, never a tensor (unless the
        program stores one on the result, which its heap cell then holds). Parsed from an empty
        list (`parse_args([])`, `args=[]` in a notebook), the options are the defaults."""
        spec = parser.info if isinstance(parser.info, ParserSpec) else None
        if name in ("add_argument_group", "add_mutually_exclusive_group"):
            return parser  # their arguments are the parser's
        if spec is not None and name == "add_argument":
            spec.declare(node)
        elif spec is not None and name == "set_defaults":
            spec.set_defaults(node)
        if name not in ("parse_args", "parse_known_args"):
            return OTHER
        inst = ModuleInst("Namespace", False, kind="options")
        if spec is not None and spec.complete and _empty_argv(node) and self.st is not None:
            for dest, value in spec.defaults.items():
                if isinstance(value, (int, float, str, bool)) or value is None:
                    self.st.env[f"{inst.key}.{dest}"] = constant(ast.Constant(value))
        options = Val(Grad.NONE, Ty.OTHER, module=inst)
        return options if name == "parse_args" else Val(Grad.NONE, Ty.TUPLE, elts=(options, OTHER))

    def namespace_object(self, qual: str, kwargs: dict[str, Val]) -> Val:
        """`SimpleNamespace(lr=0.1, gan_type="wgan")` (an `opt` or `args` made by hand): an object
        whose attributes are the keywords, as a plain class's instance keeps them."""
        inst = ModuleInst(qual.rsplit(".", 1)[-1], has_params=False, kind="object")
        if self.st is not None:
            for name, val in kwargs.items():
                self.st.env[f"{inst.key}.{name}"] = val
        return Val(Grad.NONE, Ty.OTHER, module=inst)

    def spelled_attribute(self, node: ast.Call, store: bool) -> ast.Attribute | None:
        """``getattr(obj, name)`` / ``setattr(obj, name, value)`` with a name known here (a constant,
        or a loop's key over a known dict) as the attribute access it spells; a default given to
        getattr is only used when the attribute is missing, which the access then leaves unknown."""
        counts = (3,) if store else (2, 3)
        starred = any(isinstance(a, ast.Starred) for a in node.args)
        if node.keywords or len(node.args) not in counts or starred:
            return None
        spelled = node.args[1]
        attr: object
        if isinstance(spelled, ast.Constant):
            attr = spelled.value
        else:
            name = self.peek(spelled)
            attr = name.lit[0] if name.lit is not None and len(name.lit) == 1 else None
        if not isinstance(attr, str) or not attr.isidentifier():
            return None
        key = (id(node), attr)
        made = self.spelled.get(key)
        if made is None:
            made = ast.Attribute(value=node.args[0], attr=attr, ctx=ast.Store() if store else ast.Load())
            ast.copy_location(made, node)
            self.spelled[key] = made
        return made

    def call_value(self, fval: Val, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        """Calling a value: a module, a function or class of this file, an object with ``__call__``."""
        if fval.ty is Ty.QUAL and fval.qual:
            return self.qual_call(fval.qual, node, args, kwargs)
        if fval.ty is Ty.FUNC:
            return self.call_local(fval, node, args, kwargs)
        if fval.ty is Ty.MODULE and fval.module is not None:
            return self.module_call(fval.module, node, args, kwargs)
        user = fval.module.user_class if fval.module is not None else None
        if fval.ty is Ty.OTHER and user is not None and "__call__" in user.methods:
            method = Val(Grad.NONE, Ty.FUNC, info=user.methods["__call__"], module=fval.module)
            return self.call_local(method, node, args, kwargs)
        self.escape(args, kwargs)
        return self.unknown_result(node)

    def checkpoint_call(self, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        """`checkpoint(fn, *inputs)`. Reentrant (`use_reentrant=True`, or not given: torch 2.13's
        default, with a warning), its output is an autograd Function's, which requires grad only
        when an input does, whatever parameters ``fn`` uses: inputs that certainly do not (a frozen
        embedding's output fed to checkpointed blocks) give an output without a graph. Anything
        else: what unknown code gives, as before."""
        inputs = args[1:]
        tensors = [a for a in inputs if a.ty is Ty.TENSOR]
        followed = (
            self.st is not None
            and self.mode() is GradMode.ON
            and self.const_kw(node, "use_reentrant") in (None, True)
            and not any(isinstance(a, ast.Starred) for a in node.args)
            and bool(tensors)
            and all(a.ty is Ty.TENSOR or a.ty is Ty.NUMBER or a.is_none_literal for a in inputs)
            and all(a.grad is Grad.NONE for a in tensors)
        )
        if not followed or self.st is None:
            self.escape(args, kwargs)
            return self.unknown_result(node)
        # Its forward runs under no_grad (the backward runs it again); what it returns has no graph.
        saved, self.st.mode = self.st.mode, GradMode.OFF
        try:
            fn_kwargs = {k: v for k, v in kwargs.items() if k not in _CHECKPOINT_OPTIONS}
            out = self.call_value(args[0], node, inputs, fn_kwargs)
        finally:
            if self.st is not None:
                self.st.mode = saved
        return _caused(out, (obs.CHECKPOINT_CAUSE, node))

    def no_grad_cause(self, node: ast.AST) -> tuple[str, ast.AST]:
        """Why a value computed at ``node`` has no graph: grad mode was off. Told at the op when it
        lies in the `with torch.no_grad():` block, else at that block (a helper called from it:
        the block is what the user changes)."""
        block = self.no_grad_at
        line = getattr(node, "lineno", 0)
        cause = INFERENCE_CAUSE if self.inference else NO_GRAD_CAUSE
        if block is not None and not block.lineno <= line <= (block.end_lineno or block.lineno):
            return (cause, block)
        return (cause, node)

    def unknown_result(self, node: ast.Call) -> Val:
        """What calling unknown code gives: under no_grad, nothing it computes has a grad_fn."""
        if self.mode() is GradMode.OFF:
            return Val(Grad.NONE, Ty.UNKNOWN, cause=self.no_grad_cause(node))
        return UNKNOWN

    def escape(self, args: list[Val], kwargs: dict[str, Val]) -> None:
        """Values handed to code we cannot see may be backpropagated there (and an optimizer or a
        model handed there may have its gradients cleared)."""
        for v in list(args) + list(kwargs.values()):
            if v.taints:
                self.rep.exempt_taints(v.taints)
            if v.grad is Grad.LEAF and v.obj is not None and self.st is not None:
                if self.leaf_grad_key(v.obj) in self.st.env:
                    self.set_leaf_grads(v.obj, None)  # unknown code may clear its grad
            if v.ty is Ty.OPTIMIZER and isinstance(v.info, OptimizerInfo):
                self.set_grads(v.info, None)
            elif v.module is not None and v.ty in (Ty.MODULE, Ty.PARAMS):
                self.forget_grads(v.module.all_params_objs())
            if v.elts:
                self.escape(list(v.elts), {})
            if v.item is not None:
                # What holds of every element (a list built by a comprehension over an accumulator,
                # `[s.view(1, -1) for s in reversed(outputs)]`): handed on with the list.
                self.escape([v.item], {})

    def const_kw(self, node: ast.Call, name: str) -> Any:
        for k in node.keywords:
            if k.arg == name:
                return self.const_value(k.value)
        if any(k.arg is None for k in node.keywords):
            return _NOT_CONST  # `f(..., **kwargs)` may pass it
        return None

    def const_value(self, expr: ast.expr) -> Any:
        """An argument's value when it is a constant or a name bound to a known one, else _NOT_CONST."""
        if isinstance(expr, ast.Constant):
            return expr.value
        if isinstance(expr, (ast.Name, ast.Attribute)):
            val = self.peek(expr)  # a name bound to a known number or string
            if val.lit is not None:
                return val.lit[0]
            if val is TRUE or val is FALSE:
                return val.truth  # a flag known here (`create_graph=create_graph`)
        return _NOT_CONST

    def kw_node(self, node: ast.Call, name: str) -> ast.keyword | None:
        for k in node.keywords:
            if k.arg == name:
                return k
        return None

    def autograd_flag(self, node: ast.Call, name: str, form: str) -> Any:
        """An argument of a backward pass (``form``: `x.backward(...)` "method",
        `torch.autograd.backward(...)` "function", `torch.autograd.grad(...)` "grad"), given by
        keyword or by position: its constant value, None when not given, _NOT_CONST when not known
        (`*args`, `**kwargs`, a value not known)."""
        found = self.const_kw(node, name)
        if found is not None:
            return found
        arg = _autograd_positional(node, name, form)
        return None if arg is None else self.const_value(arg)

    # Builtins and imported APIs, by qualified name.
    def qual_call(self, qual: str, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        parts = qual.split(".")
        name = parts[-1]
        top = parts[0]
        if top == "builtins":
            return self.builtin_call(name, node, args, kwargs)
        if top == "numpy":
            raised = False
            if name in _NUMPY_CONVERTS and args and args[0].requires_grad and node.args:
                # numpy turns the tensor into an array first (`np.clip(action, -1, 1)`); its
                # reductions (`np.sum(t)`) call the tensor's own method instead, and are left out.
                self.rep.publish(obs.NumpyOnGrad(node, node.args[0], array_call=True))
                raised = True
            elif (
                args
                and node.args
                and _holds_grad_tensor(args[0])
                and not isinstance(node.args[0], ast.Starred)
            ):
                # A list of tensors (`np.mean(losses)`): NumPy makes an array of it first, turning
                # each tensor into one, whatever the function.
                self.rep.publish(obs.NumpyOnGrad(node, node.args[0], array_call=True, in_list=True))
                raised = True
            self.escape(args, kwargs)
            if not raised:
                array = _from_numpy(*args, *kwargs.values())
                if array is not None:
                    return array  # `np.exp(log_std)` of an array made by `.numpy()`
            return UNKNOWN if raised else OTHER  # see `.numpy()` below
        if top == "math" and name not in ("inf", "nan", "pi", "e", "tau"):
            return NUMBER
        if qual in _NAMESPACES and not node.args and all(k.arg is not None for k in node.keywords):
            return self.namespace_object(qual, kwargs)
        if qual in _DATA_LOADERS:
            return self.data_loader(node, args, kwargs)
        if qual in _TENSOR_DATASETS:
            return self.tensor_dataset(node, args, kwargs)
        if qual == "argparse.ArgumentParser":
            return Val(Grad.NONE, Ty.OTHER, qual=qual, info=ParserSpec())
        if qual.startswith("torch.nn.utils.clip_grad"):
            return OTHER  # scales gradients, clears nothing (and backpropagates nothing)
        if qual in _CHECKPOINTS:
            return self.checkpoint_call(node, args, kwargs)
        if qual in _GLOBAL_FORWARD_HOOKS:
            self.hooks = "all"
            self.escape(args, kwargs)
            return OTHER
        if qual in _REPARAMETRIZE and args and args[0].ty is Ty.MODULE and args[0].module is not None:
            # It registers the reparametrization on the module and returns that module, whose
            # `weight` (the tensor named) is from then on computed, no longer a leaf.
            named = kwargs.get("name") or kwargs.get("tensor_name") or (args[1] if len(args) > 1 else None)
            known = named.lit[0] if named is not None and named.lit is not None else None
            computed = {known} if isinstance(known, str) else {"weight", "bias"} if named else {"weight"}
            inst = args[0].module
            inst.kwargs[_COMPUTED] = frozenset(inst.kwargs.get(_COMPUTED, frozenset()) | computed)
            return args[0]
        if qual in _FUNCTIONAL_CALLS:
            return self.functional_call(node, args, kwargs)
        if qual.startswith("torch.distributions.") and name[:1].isupper():
            # A distribution object: its parameters' graphs flow into log_prob/entropy/rsample.
            params = tuple(a for a in (*args, *kwargs.values()) if a.is_tensor)
            # Of one that draws each element alone (Normal, Bernoulli...): the shape of a draw,
            # the parameters' broadcast (numbers broadcast as scalars).
            batch: shp.Shape | None = None
            if name in _ELEMENTWISE_DISTRIBUTIONS and not any(k.arg is None for k in node.keywords):
                given = [a for a in (*args, *kwargs.values()) if a.is_tensor or a.ty is Ty.NUMBER]
                spread = any(isinstance(a, ast.Starred) for a in node.args)
                if len(given) == len(args) + len(kwargs) and not spread:
                    batch = ()
                    for a in given:
                        batch = shp.broadcast(batch, a.shape if a.is_tensor else ())
            return Val(Grad.NONE, Ty.OTHER, qual=_DISTRIBUTION, elts=params, shape=batch)
        if qual == "copy.deepcopy" and len(args) == 1 and args[0].ty is Ty.MODULE and args[0].module:
            return self.copy_module(args[0].module)
        if qual == "itertools.chain" and args and all(a.ty is Ty.PARAMS for a in args) and not kwargs:
            # itertools.chain(G_A.parameters(), G_B.parameters()): one optimizer for both.
            return Val(Grad.NONE, Ty.PARAMS, info=tuple(m for a in args for m in (a.info or ())))
        if qual == "collections.namedtuple" and node.args and isinstance(node.args[0], ast.Constant):
            record = self.classes.get(str(node.args[0].value))
            if record is not None and record.node.lineno == node.lineno:  # found by discover_classes
                return Val(Grad.NONE, Ty.FUNC, qual=record.node.name, info=record)
        if qual == "collections.OrderedDict":
            return self.dict_from(node, args, kwargs)
        if qual == "collections.defaultdict" and args and args[0].qual == "builtins.list" and not kwargs:
            return Val(Grad.NONE, Ty.DICT, elts=(), keys=(), info=LIST_DEFAULT)
        dict_factory = len(args) == 1 and args[0].qual == "builtins.dict"
        if qual == "collections.defaultdict" and dict_factory and not kwargs:
            return Val(Grad.NONE, Ty.DICT, elts=(), keys=(), info=DICT_DEFAULT)
        if qual == "collections.defaultdict" and len(args) == 1 and not kwargs:
            zero = {"builtins.float": 0.0, "builtins.int": 0}.get(args[0].qual or "")
            if zero is not None:
                # `defaultdict(float)`: a missing key reads as 0 (a running sum per key starts there).
                return Val(
                    Grad.NONE, Ty.DICT, elts=(), keys=(), info=DefaultValue(constant(ast.Constant(zero)))
                )
        if (
            qual == "collections.defaultdict"
            and len(args) == 1
            and not kwargs
            and node.args
            and not isinstance(node.args[0], ast.Starred)
            and args[0].ty is Ty.FUNC
            and isinstance(args[0].info, ClassInfo)
        ):
            # `defaultdict(AverageMeter)`: a missing key gets a new instance of the file's class.
            return Val(Grad.NONE, Ty.DICT, elts=(), keys=(), info=DefaultFactory(args[0], node.args[0]))
        if (
            qual == "collections.defaultdict"
            and len(node.args) == 1
            and isinstance(node.args[0], ast.Lambda)
            and not node.args[0].args.args
            and not kwargs
        ):
            # `defaultdict(lambda: torch.tensor(0.0))`: a missing key reads as what the lambda makes.
            made = self.expr(node.args[0].body)
            return Val(Grad.NONE, Ty.DICT, elts=(), keys=(), info=DefaultValue(made))
        if top in ("torchvision", "timm", "transformers") and api.model_factory(qual):
            # A well-known factory of trainable networks (torchvision.models.resnet18(),
            # timm.create_model(...), transformers' *.from_pretrained(...)): a module with parameters
            # whose forward is not followed (its output: a graph of unknown kind).
            self.escape(args, kwargs)
            inst = ModuleInst(qual.split(".")[-2] if name == "from_pretrained" else name, True, kind="opaque")
            inst.origin = node
            return Val(Grad.NONE, Ty.MODULE, module=inst)
        if top != "torch":
            self.escape(args, kwargs)
            return self.unknown_result(node)
        mod = ".".join(parts[:-1])
        if qual in ("torch.autograd.grad", "torch.autograd.backward"):
            return self.autograd_call(name, node, args, kwargs)
        if qual in _GRAD_SCALERS:
            return Val(Grad.NONE, Ty.OTHER, qual=GRAD_SCALER)
        if mod in ("torch.nn", "torch.nn.modules") or (
            mod.startswith("torch.nn.modules.") and name[:1].isupper()
        ):
            return self.nn_construct(name, node, args, kwargs)
        if mod == "torch.optim" or mod.startswith("torch.optim."):
            if name in api.OPTIMIZERS:
                if not args and "params" in kwargs:
                    args = [kwargs["params"]]  # `optim.Adam(params=model.parameters(), lr=...)`
                return self.optimizer_construct(node, args, name, kwargs)
            return OTHER
        if mod in ("torch", "torch.nn.functional", "torch.special", "torch.linalg"):
            if name in api.CONSTRUCTORS and mod == "torch":
                return self.construct(name, node, args, kwargs)
            if name in ("no_grad", "enable_grad", "inference_mode", "set_grad_enabled"):
                if name == "set_grad_enabled" and isinstance(
                    self.stmt_stack[-1] if self.stmt_stack else None, ast.Expr
                ):
                    self.set_grad_statement(node)
                return OTHER
            if name in ("manual_seed", "set_printoptions", "save", "load", "is_tensor", "numel", "device"):
                return OTHER
            if (
                self.mode() is GradMode.OFF
                and args
                and args[0].ty is Ty.UNKNOWN
                and name not in _MAY_RETURN_INPUT
                and (name in api.GRAPH_OPS or name in api.LOSS_FUNCS or name in _NEW_TENSOR_FUNCS)
            ):
                # Under no_grad a torch function's result has no grad_fn, whatever it was given
                # (those that may hand back their input unchanged aside).
                ty = Ty.TENSOR if name not in _MULTI_OUTPUT else Ty.UNKNOWN
                return Val(Grad.NONE, ty, obj=object(), cause=self.no_grad_cause(node))
            operands = self.expand_stars(node, args)
            if operands and all(e.is_tensor for e in operands):
                # `torch.min(*self.qf(obs, act))`: the spread tuple's tensors are the operands.
                return self.tensor_op(name, node, operands[0], operands[1:], kwargs, (), first_arg=None)
            if (
                args
                and (
                    args[0].is_tensor
                    # `F.linear(x, weight, bias)` on an input of unknown kind: functional layers take
                    # tensors, and a weight that requires grad gives the output a graph.
                    or mod == "torch.nn.functional"
                    and args[0].ty is Ty.UNKNOWN
                    and any(a.requires_grad for a in args[1:])
                )
            ):
                first = args[0] if args[0].is_tensor else Val(Grad.UNKNOWN, Ty.TENSOR)
                return self.tensor_op(
                    name, node, first, args[1:], kwargs, node.args[1:], first_arg=node.args[0]
                )
            if name == "einsum" and len(args) >= 2:
                # einsum(equation, *operands) or einsum(equation, [operands]).
                operands = list(args[1].elts or ()) if len(args) == 2 and args[1].elts else args[1:]
                if operands and all(a.is_tensor for a in operands):
                    out = self.tensor_op(name, node, operands[0], operands[1:], kwargs, (), first_arg=None)
                    equation = args[0].lit[0] if args[0].lit is not None else None
                    if isinstance(equation, str):
                        out = out.with_(shape=shp.einsum(equation, [o.shape for o in operands]))
                    return out
            if name in ("cat", "stack", "concat", "hstack", "vstack") and args:
                elts = args[0].elts
                if elts:
                    out = self.tensor_op(name, node, elts[0], list(elts[1:]), kwargs, (), first_arg=None)
                    dim_val = args[1] if len(args) > 1 else kwargs.get("dim")
                    dim = 0 if dim_val is None else dim_val.lit[0] if dim_val.lit is not None else None
                    shapes = [e.shape for e in elts]
                    joined = (
                        shp.stack(shapes, dim if type(dim) is int else None)
                        if name == "stack"
                        else shp.cat(shapes, dim if type(dim) is int else None)
                        if name in ("cat", "concat")
                        else None
                    )
                    # The list's own marks too (an accumulator consumed here is no leak).
                    return out.with_(shape=joined, taints=out.taints | args[0].taints)
                item = elements(args[0]) if args[0].ty in (Ty.LIST, Ty.TUPLE) else None
                if item is not None and item is not EMPTY and item.is_tensor:
                    out = self.tensor_op(name, node, item, [], kwargs, (), first_arg=None)
                    # Every element's graph, also those of the elements the loop appended. Stacking
                    # a list of more than one element makes more than one element.
                    # Elements certainly holding graphs (`ys = [y0]`, then a solver's appends): the
                    # result has one, whatever the other elements are.
                    certain = bool(args[0].held) and self.mode() is GradMode.ON
                    return out.with_(
                        grad=Grad.GRAPH if certain else out.grad,
                        taints=out.taints | args[0].taints,
                        shape=None,
                        sites=out.sites | args[0].held,
                        plural=name == "stack" and args[0].plural,
                    )
                # A list built elsewhere: the result is a tensor that carries whatever the list held.
                return Val(Grad.UNKNOWN, Ty.TENSOR, taints=args[0].taints)
            if name in api.LOSS_FUNCS and self.mode() is GradMode.OFF:
                return Val(Grad.NONE, Ty.TENSOR, obj=object(), cause=self.no_grad_cause(node))
            self.escape(args, kwargs)
            return UNKNOWN
        self.escape(args, kwargs)
        return UNKNOWN

    def set_grad_statement(self, node: ast.Call) -> None:
        if self.st is not None and node.args:
            self.st.mode = self.recording(self.flag_mode(node.args[0]))

    def recording(self, mode: GradMode) -> GradMode:
        """A grad mode as graph recording sees it: inside inference mode nothing records."""
        if self.inference is True:
            return GradMode.OFF
        if self.inference is None and mode is GradMode.ON:
            return GradMode.MAYBE
        return mode

    def inference_item(self, expr: ast.expr) -> tuple[bool, bool | None]:
        """Whether ``expr`` (a `with` item or a decorator) is `torch.inference_mode(...)`, and the
        inference mode it sets: on (the default), off (`inference_mode(False)`), None (a flag not
        known here)."""
        func = expr.func if isinstance(expr, ast.Call) else expr
        if isinstance(func, ast.Attribute) and func.attr != "inference_mode":
            return (False, None)  # (an attribute is never an alias: no name to resolve)
        if self.qual_of(func) not in api.INFERENCE_CMS:
            return (False, None)
        if not isinstance(expr, ast.Call):
            return (True, True)  # `@torch.inference_mode`
        arg = expr.args[0] if expr.args else next((k.value for k in expr.keywords if k.arg == "mode"), None)
        if arg is None:
            return (True, True if not expr.keywords else None)
        mode = self.flag_mode(arg)
        return (True, None if mode is GradMode.MAYBE else mode is GradMode.ON)

    def flag_mode(self, arg: ast.expr) -> GradMode:
        """The grad mode ``set_grad_enabled(arg)`` sets: a constant, or a flag known here
        (`train_G=False`, `loader.training`); else either."""
        if isinstance(arg, ast.Constant):
            return GradMode.ON if arg.value else GradMode.OFF
        truth = self.peek(arg).truth if isinstance(arg, (ast.Name, ast.Attribute)) else None
        if truth is not None:
            return GradMode.ON if truth else GradMode.OFF
        return GradMode.MAYBE

    def dead_arms(self) -> list[list[ast.stmt]]:
        """The arms of `if` statements a known test skipped wherever the `if` ran (dead code)."""
        return [
            node.body if body else node.orelse
            for (key, body), node in self.arms_skipped.items()
            if (key, body) not in self.arms_run
        ]

    def builtin_call(self, name: str, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        if name in ("any", "all") and len(args) == 1 and args[0].ty in (Ty.LIST, Ty.TUPLE) and not kwargs:
            # `any(x in name for x in frozen_names)` over known elements of known truth.
            truths = [e.truth if e.truth is not None else known_truth(e) for e in args[0].elts or ()]
            if args[0].elts is not None and None not in truths:
                return Val(Grad.NONE, Ty.OTHER, truth=any(truths) if name == "any" else all(truths))
        if name in ("float", "int", "bool") and args:
            if args[0].is_tensor:
                return Val(Grad.NONE, Ty.NUMBER, cause=(f"`{name}()`", node))
            return NUMBER  # whatever it converts (or it raises): a Python number
        if name == "len" and args and args[0].ty in (Ty.LIST, Ty.TUPLE, Ty.DICT) and args[0].elts is not None:
            return Val(Grad.NONE, Ty.NUMBER, lit=(len(args[0].elts),))  # a list or dict known exactly
        if name == "filter" and len(args) == 2 and args[1].ty is Ty.PARAMS and _trainable_test(node.args[0]):
            # `filter(lambda p: p.requires_grad, model.parameters())`: what an optimizer steps of
            # them is the same (a frozen parameter gets no gradient, so no step changes it).
            return args[1]
        if name == "len" and len(args) == 1 and args[0].is_tensor:
            # A tensor's first size, an int (`abs` and `round` of a tensor are tensors).
            shape = args[0].shape
            first = shape[0] if shape else None
            return Val(Grad.NONE, Ty.NUMBER, lit=(first,)) if isinstance(first, int) else NUMBER
        if (
            name == "len"
            and len(args) == 1
            and args[0].ty is Ty.MODULE
            and args[0].module is not None
            and args[0].module.seq_children
            and not args[0].module.alike
        ):
            return Val(Grad.NONE, Ty.NUMBER, lit=(len(args[0].module.seq_children),))  # its layers
        if name in ("max", "min") and args and not node.keywords:
            # `max(content_layers + style_layers)`, `min(a, b)` on known numbers.
            given = args[0].elts if len(args) == 1 and args[0].ty in (Ty.LIST, Ty.TUPLE) else tuple(args)
            nums = [
                cast(float, v.lit[0])
                for v in given or ()
                if v.lit is not None and type(v.lit[0]) in (int, float)
            ]
            if given and len(nums) == len(given) and not any(isinstance(a, ast.Starred) for a in node.args):
                return Val(Grad.NONE, Ty.NUMBER, lit=(max(nums) if name == "max" else min(nums),))
        if name in ("len", "round", "abs") and not (args and args[0].is_tensor):
            return NUMBER
        if name in ("zip", "enumerate") and args and not node.keywords:
            exact = [
                a.elts
                if a.ty in (Ty.LIST, Ty.TUPLE)
                else tuple(_key_val(k) for k in a.keys)  # a dict iterates over its keys
                if a.ty is Ty.DICT and a.keys is not None and a.elts is not None
                else None
                for a in args
            ]
            exact = [e for e in exact if e is not None]
            if len(exact) == len(args) and all(e is not None for e in exact):
                rows = list(zip(*exact, strict=False))
                if name == "enumerate":
                    rows = [(Val(Grad.NONE, Ty.NUMBER, lit=(k,)), *row) for k, row in enumerate(rows)]
                taints = frozenset().union(*(a.taints for a in args))
                pairs = tuple(Val(Grad.NONE, Ty.TUPLE, elts=tuple(row)) for row in rows)
                return Val(Grad.NONE, Ty.LIST, elts=pairs, taints=taints)
            if name == "enumerate":
                parts: tuple[Val, ...] = (NUMBER, tensor_rows(args[0]) or self.one_element(args[0]))
            else:
                parts = tuple(tensor_rows(a) or self.one_element(a) for a in args)
            taints = frozenset().union(*(a.taints for a in args))
            return Val(
                Grad.NONE,
                Ty.LIST,
                item=Val(Grad.NONE, Ty.TUPLE, elts=parts),
                taints=taints,
                nonempty=all(_certainly_nonempty(a) for a in args),
            )
        if name == "iter" and len(args) == 1 and args[0].ty in (Ty.LIST, Ty.TUPLE):
            return args[0].with_(ty=Ty.LIST)  # an iterator over it yields its elements
        if name == "next" and len(args) == 1 and args[0].ty in (Ty.LIST, Ty.TUPLE):
            # One element of what an iterator or generator yields (`next(self.dl)` of `cycle(batches)`).
            return self.one_element(args[0])
        if name == "super" and not args:
            found = self.super_ref()
            if found is not None:
                return found
        shown = args[0].lit if name == "str" and len(args) == 1 and not kwargs else None
        if shown is not None and not args[0].is_tensor:
            known = shown[0]
            if type(known) in (int, str) or (type(known) is float and len(repr(known)) <= 32):
                return Val(Grad.NONE, Ty.OTHER, lit=(str(known),))  # `"conv_" + str(i)` with `i` known
        if name in (
            "print",
            "isinstance",
            "str",
            "repr",
            "format",
            "super",
            "range",
            "enumerate",
            "zip",
            "sorted",
            "set",
        ):
            if name == "range":
                return _range_of(args, node)
            return OTHER if name not in ("enumerate", "zip") else Val(Grad.NONE, Ty.OTHER)
        if name == "dict":
            return self.dict_from(node, args, kwargs)
        if name == "sum" and args and args[0].ty in (Ty.LIST, Ty.TUPLE):
            lst = args[0]
            item = elements(lst)
            if lst.elts is not None and any(e.requires_grad for e in lst.elts):
                # Elements known one by one (a weighted dict of losses, one of them per sample):
                # added in turn, as `0 + a + b + ...` is, so the sum holds each one's graph.
                total = Val(Grad.NONE, Ty.NUMBER, lit=(0,))
                for e in lst.elts:
                    total = self.binop_val(ast.Add(), total, e, node)
                return total.with_(taints=total.taints | lst.taints, sites=total.sites | lst.held)
            if item is not None and item is not EMPTY and item.requires_grad:
                # sum() adds the elements one by one: add saves nothing. Elements of one shape (what
                # holds of every element) add up to that shape.
                out = self.op_result(node, (item,), saves=False, shape=item.shape)
                return out.with_(taints=out.taints | lst.taints, sites=out.sites | lst.held)
            if item is not None and item is not EMPTY and item.is_tensor and item.grad is Grad.NONE:
                # Tensors none of which has a graph (computed under no_grad): neither has their sum
                # (nor has 0, the sum of none).
                return Val(Grad.NONE, Ty.TENSOR, cause=item.cause, taints=lst.taints, shape=item.shape)
            if lst.taints:
                return Val(Grad.UNKNOWN, Ty.TENSOR, taints=lst.taints)
            return UNKNOWN
        if name == "reversed" and args and args[0].ty in (Ty.LIST, Ty.TUPLE):
            item = elements(args[0])
            return Val(Grad.NONE, Ty.LIST, item=item if item is not EMPTY else None, taints=args[0].taints)
        if name in ("list", "tuple") and not args and not node.keywords:
            # `list()` (a dataclass's `field(default_factory=list)`): empty, as `[]` is.
            return Val(Grad.NONE, Ty.LIST if name == "list" else Ty.TUPLE, elts=())
        if name in ("list", "tuple") and args and args[0].ty is Ty.PARAMS:
            return args[0]
        inst = args[0].module if len(args) == 1 and args[0].ty is Ty.MODULE else None
        kids = _known_children(inst) if inst is not None and not inst.alike else None
        if kids is not None and inst is not None and inst.cls_name != "ModuleDict":
            # `list(cnn)` of a Sequential or ModuleList of known layers: those layers, in order.
            layers = tuple(Val(Grad.NONE, Ty.MODULE, module=m) for _, m in kids)
            return Val(Grad.NONE, Ty.LIST if name == "list" else Ty.TUPLE, elts=layers)
        if name in ("list", "tuple") and args:
            return Val(
                Grad.UNKNOWN,
                Ty.LIST if name == "list" else Ty.TUPLE,
                elts=args[0].elts,
                item=args[0].item if args[0].ty in (Ty.LIST, Ty.TUPLE) and args[0].elts is None else None,
                taints=args[0].taints,
            )
        self.escape(args, kwargs)
        return UNKNOWN

    def dict_from(self, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        """``dict(...)`` / ``OrderedDict(...)``: keys known for keywords or a copied dict; built from
        pairs (``model.named_parameters()``, a generator of ``(name, tensor)``), what holds of every
        value."""
        if any(k.arg is None for k in node.keywords) or len(args) > 1:
            return Val(Grad.NONE, Ty.DICT)
        if not args:
            return Val(Grad.NONE, Ty.DICT, elts=tuple(kwargs.values()), keys=tuple(kwargs))
        src = args[0]
        if src.ty is Ty.DICT and not kwargs:
            return src.with_()
        pair = elements(src) if src.ty in (Ty.LIST, Ty.TUPLE, Ty.PARAMS) else None
        if (
            pair is not None
            and pair is not EMPTY
            and pair.elts is not None
            and len(pair.elts) == 2
            and not kwargs
        ):
            return Val(Grad.NONE, Ty.DICT, item=pair.elts[1], taints=src.taints)
        return Val(Grad.NONE, Ty.DICT, taints=src.taints)

    # torch.* constructors
    def construct(self, name: str, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        rg = self.const_kw(node, "requires_grad")
        shape: shp.Shape | None = None
        if name in api.SHAPE_CONSTRUCTORS:
            shape = _literal_shape(node, args)
        elif name == "randint" and args and args[-1].ty in (Ty.TUPLE, Ty.LIST):
            shape = _literal_shape(node, args[-1:])  # randint(low, high, size)
        elif name == "full" and args:
            shape = _literal_shape(node, args[:1])
        elif name in ("linspace", "logspace") and len(args) >= 3 and "steps" not in kwargs:
            steps = args[2].lit[0] if args[2].lit is not None else None
            shape = (steps,) if type(steps) is int and steps >= 0 else None
        elif (
            name == "arange"
            and 1 <= len(args) <= 3
            and not any(isinstance(a, ast.Starred) for a in node.args)
        ):
            shape = _arange_shape([a.lit[0] if a.lit is not None else None for a in args])
        elif name == "tensor" and node.args:
            shape = _data_shape(args[0])
        elif name.endswith("_like") and args:
            shape = args[0].shape
        elif name == "eye" and 1 <= len(args) <= 2:
            sizes = [a.lit[0] if a.lit is not None else None for a in args]
            if all(type(n) is int for n in sizes):
                rows = cast(int, sizes[0])
                shape = (rows, cast(int, sizes[-1]) if len(sizes) == 2 else rows)
        cause: tuple[str, ast.AST] | None = None
        if (
            name == "tensor"
            and args
            and (args[0].requires_grad or any(e.requires_grad for e in args[0].elts or ()))
        ):
            cause = ("re-wrapping it with `torch.tensor`", node)
        elif args and args[0].ty is Ty.OTHER and _numpy_made(args[0]):
            cause = args[0].cause  # back from NumPy: the trip there is what cut the graph
        elif name == "from_numpy":
            cause = ("`torch.from_numpy`", node)
        else:
            cause = (f"`torch.{name}`", node)
        if rg is True:
            if name in ("tensor",) and node.args and _is_int_literal_data(node.args[0]):
                return UNKNOWN  # an integer tensor cannot require grad: torch raises at construction
            return Val(Grad.LEAF, Ty.TENSOR, obj=object(), shape=shape)
        if rg is None or rg is False:
            return Val(Grad.NONE, Ty.TENSOR, obj=object(), shape=shape, cause=cause)
        return Val(Grad.UNKNOWN, Ty.TENSOR, obj=object(), shape=shape)

    # torch.nn.* constructors
    def nn_construct(self, name: str, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        if name == "Parameter":
            rg = self.const_kw(node, "requires_grad")
            if rg is False:
                return Val(Grad.NONE, Ty.TENSOR, obj=object())
            shape = args[0].shape if args else None
            return Val(Grad.LEAF, Ty.TENSOR, obj=object(), shape=shape)
        if name in api.PARAM_LAYERS:
            kind = (
                "lstm"
                if name == "LSTM"
                else "rnn"
                if name in ("RNN", "GRU")
                else "lstmcell"
                if name == "LSTMCell"
                else "layer"
            )
            inst = ModuleInst(name, True, kind=kind)
        elif name in api.ACTIVATIONS:
            inst = ModuleInst(name, False, kind="activation")
        elif name in api.LOSS_MODULES:
            inst = ModuleInst(name, False, kind="loss")
        elif name in api.CONTAINERS:
            inst = ModuleInst(name, False, kind="container")
            children: list[ModuleInst] = [a.module for a in args if a.module is not None]
            # `nn.Sequential(*layers)` of a list built in a loop: how many layers is not known, but
            # each is the same kind of module; it stands for them (loops run at least once).
            alike = (
                self.spread.get(node.args[0])
                if len(node.args) == 1 and isinstance(node.args[0], ast.Starred)
                else None
            )
            spread = self.spread_args(node, args)
            if spread is None and alike is not None and alike.elts is None and alike.ty is Ty.LIST:
                item = alike.item
                spread = [item] if item is not None and item.module is not None else None
                if spread is not None and item is not None and item.module is not None:
                    item.module.many = True
            if name == "Sequential" and spread is not None and all(a.module is not None for a in spread):
                inst.seq_children = [a.module for a in spread if a.module is not None]
                inst.has_params = any(c.has_params for c in inst.seq_children)
                inst.hazard = _sequential_hazard(inst.seq_children)
            elif name == "Sequential":
                inst.has_params = any(c.has_params for c in children if c is not None)
                inst.kind = "opaque"
            elif (
                name == "ModuleDict"
                and len(args) == 1
                and args[0].keys is not None
                and args[0].elts is not None
                and all(e.ty is Ty.MODULE and e.module is not None for e in args[0].elts)
            ):
                inst.kind = "opaque"  # not callable; indexed by key, iterated by items()/values()
                inst.children = {
                    str(k): e.module for k, e in zip(args[0].keys, args[0].elts, strict=True) if e.module
                }
                inst.has_params = any(c.has_params for c in inst.children.values())
            elif name == "ModuleList" and len(args) == 1 and args[0].ty in (Ty.LIST, Ty.TUPLE):
                listed = args[0].elts if args[0].elts is not None else None
                item = args[0].item
                mods = (
                    [e.module for e in listed if e.module is not None]
                    if listed is not None
                    else [item.module]
                    if item is not None and item.module is not None
                    else []
                )
                inst.kind = "opaque"
                if mods and (listed is None or len(mods) == len(listed)):
                    inst.seq_children = mods
                    inst.alike = listed is None
                    if listed is None:
                        mods[0].many = True
                    inst.has_params = any(c.has_params for c in mods)
            else:
                inst.kind = "opaque"
        else:
            return UNKNOWN
        inst.origin = node
        # Each argument given: its value when known, else _NOT_CONST (given, but not known: not
        # the layer's default either).
        for k in node.keywords:
            if k.arg:
                inst.kwargs[k.arg] = _arg_value(k.value, kwargs.get(k.arg))
        for i, (a, v) in enumerate(zip(node.args[:9], args, strict=False)):
            if isinstance(a, ast.Starred):
                break
            inst.kwargs[f"arg{i}"] = _arg_value(a, v)
        position = api.INPLACE_ARG.get(name)
        if position is not None and f"arg{position}" in inst.kwargs and "inplace" not in inst.kwargs:
            inst.kwargs["inplace"] = inst.kwargs[f"arg{position}"]  # `nn.ReLU(True)`
        starred = any(isinstance(a, ast.Starred) for a in node.args)
        starred = starred or any(k.arg is None for k in node.keywords)
        if inst.kind == "layer" and inst.has_params and not starred:
            # A norm built without its affine weights (`affine=False`, `elementwise_affine=False`,
            # InstanceNorm by default) has no parameter at all (torch's own table says which).
            if api.layer_param_names(name, inst.kwargs, _NOT_CONST) == ():
                inst.has_params = False
        return Val(Grad.NONE, Ty.MODULE, module=inst)

    def spread_args(self, node: ast.Call, args: list[Val]) -> list[Val] | None:
        """A call's positional arguments with ``*xs`` spread when ``xs`` has known elements."""
        out: list[Val] = []
        for arg_node, val in zip(node.args, args, strict=False):
            if isinstance(arg_node, ast.Starred):
                spread = self.spread.pop(arg_node, None)
                if spread is None or spread.elts is None or spread.ty not in (Ty.LIST, Ty.TUPLE):
                    return None
                out.extend(spread.elts)
            else:
                out.append(val)
        return out

    def copy_module(self, inst: ModuleInst) -> Val:
        """``copy.deepcopy(model)``: a module of the same structure with its own parameters (an EMA
        teacher, an RL target network); its attributes' heap cells are copied too."""
        memo: dict[int, ModuleInst] = {}
        new = inst.clone(memo)
        if self.st is not None:
            copies = {m.key: memo_new.key for m in inst.modules() if (memo_new := memo.get(id(m)))}
            for key, val in list(self.st.env.items()):
                head, dot, attr = key.partition(".")
                if dot and head in copies:
                    self.st.env[f"{copies[head]}.{attr}"] = remap_module(val, memo)
        return Val(Grad.NONE, Ty.MODULE, module=new)

    def optimizer_construct(self, node: ast.Call, args: list[Val], name: str, kwargs: dict[str, Val]) -> Val:
        info = OptimizerInfo()
        if name == "LBFGS" and not any(isinstance(a, ast.Starred) for a in node.args):
            # `LBFGS(params, lr=1, max_iter=20, ...)`: with max_iter >= 2 a step evaluates the closure
            # at least twice (it stops after the first only on a gradient below 1e-7).
            given = kwargs.get("max_iter", args[2] if len(args) > 2 else None)
            if given is None and not any(k.arg is None for k in node.keywords):
                info.reevaluates = True
            elif given is not None and given.lit is not None and type(given.lit[0]) is int:
                info.reevaluates = given.lit[0] >= 2
        if args:
            first = args[0]
            if first.ty is Ty.PARAMS and isinstance(first.info, tuple):
                info.modules.extend(first.info)
            elif first.elts:
                for e in first.elts:
                    if e.ty is Ty.DICT and e.keys is not None and "params" in e.keys and e.elts is not None:
                        e = e.elts[e.keys.index("params")]  # a parameter group: {"params": ..., "lr": ...}
                        if e.ty is Ty.PARAMS and isinstance(e.info, tuple):
                            info.modules.extend(e.info)
                            continue
                    if e.ty is Ty.PARAMS and e.module is not None:
                        info.modules.append(e.module)
                    elif e.grad is Grad.LEAF and e.obj is not None:
                        info.objs.add(e.obj)
        for m in info.modules:
            m.mark_trained()
            info.objs |= m.all_params_objs()
        self.optimizers.append(info)
        self.set_grads(info, frozenset())  # a new optimizer's parameters start with no gradient
        return Val(Grad.NONE, Ty.OPTIMIZER, info=info)

    # -- what `.grad` holds (GG201): which backward passes added to it since it was cleared ---------

    # The state of an optimizer's `.grad`: "new" (a backward added to it since the last step) and
    # "applied" (a step has used what it holds since it was last cleared). No cell: not known.
    def set_grads(self, info: OptimizerInfo, flags: frozenset[object] | None) -> None:
        if self.st is None:
            return
        if flags is None:
            self.st.env.pop(info.grads_key, None)
        else:
            self.st.env[info.grads_key] = Val(Grad.NONE, Ty.OTHER, info=flags)

    def grads(self, info: OptimizerInfo) -> frozenset[object] | None:
        cell = self.st.env.get(info.grads_key) if self.st is not None else None
        return cell.info if cell is not None and isinstance(cell.info, frozenset) else None

    def forget_grads(self, objs: set[object] | None = None) -> None:
        """Gradients may have been cleared or changed by code we do not follow."""
        for info in self.optimizers:
            if objs is None or info.objs & objs:
                self.set_grads(info, None)

    # -- what an input tensor's `.grad` holds (GG201, "input"): a leaf the code made itself -------

    # Its cell holds flags: "pending" (a backward added to it since it was last read or cleared),
    # "read" (read since it was last cleared), and the backward that added after a read. A cell
    # whose info is None: not known (handed to code we do not follow).
    @staticmethod
    def leaf_grad_key(obj: object) -> str:
        return f"@leafgrad{id(obj)}"

    def set_leaf_grads(self, obj: object, flags: frozenset[object] | None) -> None:
        if self.st is not None:
            self.st.env[self.leaf_grad_key(obj)] = Val(Grad.NONE, Ty.OTHER, info=flags)

    def leaf_grads_added(self, val: Val) -> None:
        st = self.st
        if st is None or not self.loops:
            return
        stmt = self.stmt_stack[-1] if self.stmt_stack else None
        for site in val.sites:
            for v in site.inputs:
                if v.grad is not Grad.LEAF or v.obj is None or v.info is not None:
                    continue  # parameters (their optimizer or module clears them) are not followed
                key = self.leaf_grad_key(v.obj)
                cell = st.env.get(key)
                flags = cell.info if cell is not None else frozenset()
                if not isinstance(flags, frozenset):
                    continue
                after_read = "read" in flags and stmt is not None and not _backward_of(flags)
                self.set_leaf_grads(v.obj, flags | {"pending", *([stmt] if after_read else [])})

    def leaf_grad_read(self, node: ast.Attribute, base: Val) -> None:
        st = self.st
        unnamed = base.grad is not Grad.LEAF or base.obj is None
        if st is not None and unnamed and id(node) in self.grad_clears():
            # A `.grad` cleared on a tensor we cannot name (`for p in params: p.grad.zero_()` over
            # several leaves): any leaf's may be clear now.
            for key in [k for k in st.env if k.startswith("@leafgrad")]:
                st.env[key] = Val(Grad.NONE, Ty.OTHER, info=None)
            return
        if st is None or base.grad is not Grad.LEAF or base.obj is None or base.info is not None:
            return
        key = self.leaf_grad_key(base.obj)
        cell = st.env.get(key)
        if cell is None or not isinstance(cell.info, frozenset):
            return
        if id(node) in self.grad_clears():
            self.set_leaf_grads(base.obj, frozenset())  # `x.grad.zero_()`, `x.grad = None`
            return
        backward = _backward_of(cell.info)
        if {"read", "pending"} <= cell.info and backward is not None and self.loops:
            self.rep.publish(obs.InputGradRead(backward, node))
        self.set_leaf_grads(base.obj, frozenset({"read"}))

    def grad_clears(self) -> frozenset[int]:  # provided by the Interpreter
        return frozenset()

    def grads_added(self, val: Val) -> None:
        """A backward adds into the `.grad` of every parameter its graph reaches."""
        self.leaf_grads_added(val)
        if not self.optimizers:
            return
        # A module's own parameters (its sub-modules make sites of their own).
        reached: set[object] = set()
        for site in val.sites:
            if site.module is not None and not site.frozen:
                reached.add(site.module.params_obj)
                reached.update(_chained_layers(site.module))
            reached.update(v.obj for v in site.inputs if v.grad is Grad.LEAF and v.obj is not None)
        stmt = self.stmt_stack[-1] if self.stmt_stack else None
        for info in self.optimizers:
            flags = self.grads(info)
            if flags is None or not info.objs & reached:
                continue
            # The first backward since the last step (of any optimizer) that adds onto applied
            # gradients: where their zero_grad() belongs.
            window_start = (
                "applied" in flags and stmt is not None and (not _backward_of(flags) or "rewindow" in flags)
            )
            if window_start:
                flags = frozenset(f for f in flags if not isinstance(f, ast.AST) and f != "rewindow")
            # Which of its parameters certainly hold a gradient now: its step changes those.
            tags: set[object] = {("reached", obj) for obj in reached & info.objs}
            # A backward whose graph reaches no other optimizer's parameters is this one's loss
            # (G's loss reaching D's weights in a GAN is not D's).
            others = set().union(*(o.objs for o in self.optimizers if o is not info))
            tags.add("shared" if reached & others else "alone")
            if stmt is not None:
                tags.add(("by", stmt))
            new = flags | {"new", *tags, *([stmt] if window_start else [])}
            if new != flags:
                self.set_grads(info, frozenset(new))

    # -- tensor ops and methods ------------------------------------------------------

    def method_call(
        self, recv: Val, name: str, node: ast.Call, args: list[Val], kwargs: dict[str, Val]
    ) -> Val:
        func = node.func
        assert isinstance(func, ast.Attribute)
        owner = func.value
        if isinstance(owner, ast.Attribute) and owner.attr == "data":
            owner = owner.value  # `p.grad.data.zero_()`
        if isinstance(owner, ast.Attribute) and owner.attr == "grad" and name not in _CLAMPS:
            self.forget_grads()  # `p.grad.zero_()` and friends: cleared by hand (clipping is not)
        user = recv.module.user_class if recv.module is not None else None
        if user is not None and name in user.methods and (recv.ty is Ty.OTHER or name in _OVERRIDES):
            # A method of a class of this file, even one named like torch's (`scaler.backward(loss)`).
            method = Val(Grad.NONE, Ty.FUNC, info=user.methods[name], module=recv.module)
            return self.call_local(method, node, args, kwargs)
        if name in _HOOK_REGISTRATIONS and args and args[0].ty is Ty.FUNC:
            self.forget_hook_writes(args[0])
        if recv.ty is Ty.OTHER and _numpy_made(recv) and name not in ("backward", "requires_grad_"):
            return Val(Grad.NONE, Ty.OTHER, cause=recv.cause)  # `pre_sum.sum(axis=-1)` of such an array
        if name == "requires_grad_" and recv.ty is Ty.UNKNOWN and not _const_false(node):
            self.thaw_unknown()  # a module or tensor not known here: maybe a frozen one's
        if name == "backward":
            made_without_grad = recv.cause is not None and recv.cause[0] in GRAD_OFF_CAUSES
            if recv.is_tensor or recv.grad is Grad.NONE and (recv.ty is Ty.NUMBER or made_without_grad):
                self.backward(node, recv, func.value, kind="backward")
            return NONE_VAL
        if (
            recv.ty is Ty.UNKNOWN
            and self.mode() is GradMode.OFF
            and name in api.GRAPH_OPS
            and name not in _MAY_RETURN_INPUT
            and not name.endswith("_")
        ):
            # A tensor method on a value of unknown kind, under no_grad: no grad_fn on the result.
            ty = Ty.TENSOR if name not in _MULTI_OUTPUT else Ty.UNKNOWN
            return Val(Grad.NONE, ty, obj=object(), cause=self.no_grad_cause(node))
        if name in ("startswith", "endswith") and recv.lit is not None and isinstance(recv.lit[0], str):
            # `name.startswith("fc")` of a known name (a parameter's, in a loop over them).
            text = recv.lit[0]
            prefix = args[0] if len(args) == 1 and not kwargs else None
            options = prefix.elts if prefix is not None and prefix.ty is Ty.TUPLE else (prefix,)
            words = [o.lit[0] for o in options or () if o is not None and o.lit is not None]
            known = prefix is not None and len(words) == len(options or ())
            if known and all(isinstance(w, str) for w in words):
                test = text.startswith if name == "startswith" else text.endswith
                return Val(Grad.NONE, Ty.OTHER, truth=any(test(cast(str, w)) for w in words))
        if recv.ty is Ty.OTHER and recv.qual == "argparse.ArgumentParser":
            return self.parser_method(recv, name, node)
        if recv.ty is Ty.OTHER and recv.qual == GRAD_SCALER:
            return self.scaler_method(name, node, args)
        if recv.ty is Ty.MODULE and recv.module is not None:
            return self.module_method(recv, name, node, args, kwargs)
        if recv.ty is Ty.OPTIMIZER:
            return self.optimizer_method(recv, name, node)
        if recv.ty is Ty.FUNC and recv.module is not None:
            return self.call_local(recv, node, args, kwargs)
        if recv.ty is Ty.FUNC and isinstance(recv.info, ClassInfo) and name in recv.info.methods:
            # `VaeGan.loss(...)`: a function called through its class binds nothing but the class of
            # a classmethod (a static method gets its arguments; a plain one, its instance by hand).
            through_class = recv.info.methods[name]
            if self.can_inline(through_class):
                given = [OTHER, *args] if binding(through_class) == "classmethod" else args
                return self.inline(through_class, given, kwargs, node, self_inst=None)
        if recv.ty is Ty.OTHER and recv.module is not None:
            meth = recv.module.user_class.methods.get(name) if recv.module.user_class else None
            if meth is not None:
                return self.call_local(
                    Val(Grad.NONE, Ty.FUNC, info=meth, module=recv.module), node, args, kwargs
                )
        if recv.ty is Ty.LIST and name in ("pop", "remove") and self.st is not None:
            path = self.path_of(func.value)
            if path is not None and path in self.st.env:
                # Which elements it still holds is no longer known.
                item = elements(recv)
                self.st.env[path] = recv.with_(
                    elts=None, item=item if item is not EMPTY else None, held=frozenset()
                )
        if name == "append" and isinstance(func.value, ast.IfExp) and len(args) == 1 and self.st is not None:
            # `(decay if "bias" not in name else no_decay).append(p)`: the list the test picks, or
            # either when it is not known.
            cond = func.value.test
            truth = self.static_truth(cond)
            if truth is None and (isinstance(cond, ast.Compare) or _string_call(cond)):
                truth = self.expr(cond).truth
            arms = [func.value.body] if truth is True else [func.value.orelse] if truth is False else []
            if truth is None:
                arms = [func.value.body, func.value.orelse]
            lists = [(self.path_of(arm), self.peek(arm)) for arm in arms]
            if all(path is not None and picked.ty is Ty.LIST for path, picked in lists):
                for path, picked in lists:
                    assert path is not None
                    if truth is None:
                        item = elements(picked)  # maybe appended to: what holds of every element
                        item = args[0] if item is EMPTY else join(item, args[0]) if item is not None else None
                        self.st.env[path] = picked.with_(elts=None, item=item)
                    else:
                        self.list_append(path, picked, args[0], node)
                return NONE_VAL
        if recv.ty is Ty.LIST and name in ("append", "extend", "insert", "clear"):
            value = args[-1] if args else UNKNOWN
            path = self.path_of(func.value)
            if name == "clear" and path is not None and self.st is not None:
                self.st.env[path] = Val(Grad.NONE, Ty.LIST, elts=())
                return NONE_VAL
            if name == "append" and path is not None and node.args:
                self.list_append(path, recv, value, node)
            elif name == "append" and node.args and isinstance(func.value, ast.Subscript):
                # A list held in a dict or list (`self.history["loss"].append(loss)`).
                holder_node = func.value.value
                holder_path = self.path_of(holder_node)
                holder = self.peek(holder_node)
                at = self.key_node(func.value.slice)
                held = _item_at(holder, at)
                if holder_path is not None and held is not None and held.ty is Ty.LIST:
                    self.list_append(holder_path, held, value, node, at=at)
                elif holder_path is not None and self.st is not None:
                    self.st.env[holder_path] = holder.with_(taints=holder.taints | value.taints)
            elif name == "insert" and path is not None and len(node.args) == 2 and not kwargs:
                # `targets.insert(0, target)` (returns built backwards): an append at the front.
                at_front = args[0].lit == (0,)
                self.list_append(path, recv, value, node, front=at_front, exact=at_front or recv.elts == ())
            elif name == "extend" and path is not None and value.elts is not None and self.st is not None:
                for elt in value.elts:  # as many appends, in order
                    self.list_append(path, self.st.env.get(path, recv), elt, node)
            elif path is not None and self.st is not None:
                self.st.env[path] = Val(Grad.NONE, Ty.LIST, taints=recv.taints | value.taints)
            return NONE_VAL
        if recv.ty is Ty.DICT:
            return self.dict_method(recv, name, node, args, kwargs)
        if recv.ty is Ty.OTHER and recv.qual == _DISTRIBUTION:
            return self.distribution_method(recv, name, node, args)
        if recv.is_tensor:
            return self.tensor_op(
                name, node, recv, args, kwargs, node.args, first_arg=func.value, method=True
            )
        self.escape(args, kwargs)
        return UNKNOWN

    def dict_method(
        self, recv: Val, name: str, node: ast.Call, args: list[Val], kwargs: dict[str, Val]
    ) -> Val:
        func = node.func
        assert isinstance(func, ast.Attribute)
        values = recv.elts
        if name == "values":
            return Val(Grad.NONE, Ty.LIST, elts=values, item=recv.item, taints=recv.taints)
        if name == "items":
            if values is None:
                pair = Val(Grad.NONE, Ty.TUPLE, elts=(OTHER, recv.item)) if recv.item else None
                return Val(Grad.NONE, Ty.LIST, item=pair, taints=recv.taints)
            keys = recv.keys if recv.keys is not None else (None,) * len(values)
            pairs = tuple(
                Val(Grad.NONE, Ty.TUPLE, elts=(_key_val(k) if k is not None else OTHER, v))
                for k, v in zip(keys, values, strict=True)
            )
            return Val(Grad.NONE, Ty.LIST, elts=pairs, taints=recv.taints)
        if name == "keys":
            if recv.keys is not None:
                return Val(Grad.NONE, Ty.LIST, elts=tuple(_key_val(k) for k in recv.keys))
            return Val(Grad.NONE, Ty.LIST, item=OTHER)
        if name == "get" and node.args:
            got = _dict_get(recv, node.args[0])
            return got if len(node.args) == 1 or got is not UNKNOWN else UNKNOWN
        if name in ("update", "pop", "popitem", "setdefault", "clear"):
            path = self.path_of(func.value)
            if path is not None and self.st is not None:
                changed, result = _dict_change(recv, name, node, args, kwargs)
                self.st.env[path] = changed
                if result is not None:
                    return result
        self.escape(args, kwargs)
        return UNKNOWN

    def distribution_method(self, dist: Val, name: str, node: ast.Call, args: list[Val]) -> Val:
        params = dist.elts or ()
        batch = dist.shape  # of one draw, when known (see qual_call)
        drawn = batch if not args and not node.keywords else None
        if name in ("sample", "sample_n"):
            return Val(Grad.NONE, Ty.TENSOR, obj=object(), shape=drawn, cause=("`.sample()`", node))
        if name in ("log_prob", "entropy", "rsample", "cdf", "icdf", "perplexity"):
            if not params:
                return UNKNOWN
            if name in ("log_prob", "cdf", "icdf"):
                value = args[0] if len(args) == 1 and not node.keywords and args[0].is_tensor else None
                shape = shp.broadcast(batch, value.shape) if value is not None else None
            else:
                shape = drawn if name != "perplexity" else None
            # Their backward needs the parameters (or values computed from them): they save.
            return self.op_result(node, (*params, *(a for a in args if a.is_tensor)), saves=True, shape=shape)
        self.escape(args, {})
        return UNKNOWN

    def list_append(
        self,
        name: str,
        lst: Val,
        value: Val,
        node: ast.Call,
        at: ast.expr | None = None,
        front: bool = False,
        exact: bool = True,
    ) -> None:
        """``name.append(value)``, or ``name[at].append(value)`` for a list held in a container;
        ``front``: ``insert(0, value)``; not ``exact``: inserted where it is not known."""
        st = self.st
        if st is None:
            return
        if lst.elts is not None and exact:
            # Exact in this iteration too: a loop that is not followed over each of its
            # iterations summarises its lists when it ends (Interpreter.loop).
            new = lst.with_(elts=(value, *lst.elts) if front else (*lst.elts, value), item=None)
        else:
            item = elements(lst)
            new = lst.with_(elts=None, item=value if item is EMPTY else join(item, value) if item else None)
        if new.elts is None and value.ty is Ty.MODULE and value.module is not None and self.loops:
            value.module.many = True  # appended in a loop not followed iteration by iteration
        if carries_graph(value) and self.loops:
            frame = self.loops[-1]
            stmt = self.stmt_stack[-1] if self.stmt_stack else None
            key = ("acc", id(stmt))
            if ("." in name or at is not None) and isinstance(stmt, ast.Expr) and stmt.value is node:
                # An object's list (`self.history.append(loss)`): a leak when what an earlier
                # iteration appended is still there (nothing reset or consumed it).
                if self.later_iteration() and any(t.kind == "carried" and t.key == key for t in lst.taints):
                    self.accumulate_in_object(stmt, node.func.value, node.args[-1], value, key)  # type: ignore[attr-defined]
                new = new.with_(taints=new.taints | acc_taints(stmt, key))
            elif (
                name in frame.starts.get(1, {})
                and name not in self.rebound_in(frame.node)
                and isinstance(stmt, ast.Expr)
                and stmt.value is node
                and self.built_while_kept(value, name, node.args[-1])
            ):
                key = ("acc", id(stmt))
                self.rep.accumulate(stmt, name, node.args[-1], value, key)
                new = new.with_(taints=new.taints | {Taint("accumulated", stmt, key)})
        if value.taints:
            new = new.with_(taints=new.taints | value.taints)
        if value.sites and value.is_tensor:
            new = new.with_(held=lst.held | value.sites)
        if not new.nonempty:
            new = new.with_(nonempty=True)
        st.env[name] = new if at is None else _store_item(st.env.get(name, UNKNOWN), at, new)

    def built_while_kept(self, value: Val, name: str, value_node: ast.expr) -> bool:
        """Was part of the value's graph built in the current iteration of a loop (of this function)
        that the accumulator ``name`` was there before? Only then does each iteration add a graph
        the accumulator keeps: values that merely pass through (the elements of a buffer filled
        earlier, unpacked again: `for s, prob in buffer: probs.append([prob])`) keep nothing that
        was not kept already. A value whose graph nodes are not known is judged as before."""
        scope = self.frames[-1].func if self.frames else None
        frames = [f for f in self.loops if f.scope is scope and name in f.starts.get(1, {})]
        loop = self.loops[-1].node if self.loops else None
        if isinstance(loop, (ast.For, ast.AsyncFor)):
            names = self._element_names.get(id(loop))
            if names is None:
                names = self._element_names[id(loop)] = _element_names(loop)
            if _only_names(value_node, names) or (
                isinstance(value_node, ast.Name) and _carried(loop, value_node.id)
            ):
                # Nothing is built in this loop's iteration that is not kept anyway: an element of
                # what it walks, or the state it carries into the next iteration (an RNN's `hx`, whose
                # graph holds every earlier step's). An enclosing loop's iteration may have built it.
                frames = [f for f in frames if f.node is not loop]
                if not frames:
                    return False
        sites = held_sites([value])  # a record's (`[prob_a]`, a transition tuple) too
        if not sites:
            return bool(frames)
        newest = max(s.seq for s in sites)
        return any(newest > f.seq_start for f in frames)

    def accumulate_in_object(
        self, stmt: ast.stmt, acc: ast.expr, value_node: ast.expr, value: Val, key: object, dead: bool = False
    ) -> None:
        """An object's attribute keeps adding up graphs (`self.sum += val * n` in a meter). When the
        value comes in as an argument of the method, the squiggle goes where the user passes the
        tensor (`meter.update(loss)`), the statement to change; the meter is a related place."""
        frame = self.frames[-1] if self.frames else None
        passed = [
            frame.passed[n.id]
            for n in ast.walk(value_node)
            if frame is not None
            and isinstance(n, ast.Name)
            and n.id in frame.passed
            and frame.passed[n.id][1].grad is Grad.GRAPH
        ]
        call = frame.call_stmt if frame is not None else None
        if call is not None and len(passed) == 1 and isinstance(acc, ast.Attribute):
            arg_node, arg_val = passed[0]
            call_node = call.value if isinstance(call, ast.Expr) else None
            if isinstance(call_node, ast.Call) and isinstance(call_node.func, ast.Attribute):
                holder = f"{self.pos.text(call_node.func.value)}.{acc.attr}"
                self.rep.accumulate(call, holder, arg_node, arg_val, key, dead, inside=stmt)
                return
        self.rep.accumulate(stmt, self.pos.text(acc), value_node, value, key, dead)

    def one_element(self, seq: Val) -> Val:
        """One element of a sequence, for code that takes them one at a time (a loop, ``l[i]``)."""
        return _element(seq, {id(f.node): f.iteration for f in self.loops})

    def raw_element(self, it: Val, node: ast.expr) -> Val | None:
        """What a loop over ``node`` binds, before ``one_element`` drops the graph nodes each
        element made in the loop that filled the list: for a list (a name or an attribute, not a
        slice) summarised by one element, and `zip`/`enumerate` of such lists. None for anything
        else."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            if node.func.id in ("zip", "enumerate") and node.args:
                if any(isinstance(a, ast.Starred) for a in node.args):
                    return None
                found = [self.raw_element(self.peek(a), a) for a in node.args]
                if all(p is None for p in found):
                    return None
                parts = [p or UNKNOWN for p in found]
                if node.func.id == "enumerate":
                    parts = [NUMBER, parts[0]]
                return Val(Grad.NONE, Ty.TUPLE, elts=tuple(parts))
            return None
        if isinstance(node, (ast.Name, ast.Attribute)) and it.ty is Ty.LIST and it.elts is None:
            return it.item
        return None

    def element_graphs(self, val: Val, raw: Val, loop: ast.AST, iteration: int, depth: int = 3) -> Val:
        """``val``, what iteration ``iteration`` of ``loop`` binds from a list filled in an earlier
        loop, with a node standing for that element's own graph where every element's graph saves
        tensors (the nodes ``one_element`` dropped, which differ from element to element).

        The node is the same each time this loop reaches the same iteration over the same list (an
        epoch loop walking a rollout buffer again meets the graphs its first pass freed), and another
        for another iteration or another loop, so no backward of one element frees another's. The
        loop must walk the whole list (no `break` or `return`): a list reordered between two walks
        (`random.shuffle`) binds other elements at the same iteration, all of which the first walk
        freed only if it went through them all."""
        dropped = frozenset(s for s in raw.sites if s not in val.sites)
        if any(s.saves for s in dropped):
            key = (dropped, id(loop), iteration)
            site = self._element_sites.get(key)
            if site is None:
                site = self.standing_site(dropped, ((id(loop), iteration),))
                self._element_sites[key] = site
            val = val.with_(sites=val.sites | {site})
        if depth > 0 and val.elts is not None and raw.elts is not None and len(val.elts) == len(raw.elts):
            pairs = zip(val.elts, raw.elts, strict=True)
            elts = tuple(self.element_graphs(v, r, loop, iteration, depth - 1) for v, r in pairs)
            if any(a is not b for a, b in zip(elts, val.elts, strict=True)):
                val = val.with_(elts=elts)
        return val

    def standing_site(self, dropped: frozenset[Site], then: IPath) -> Site:
        """A node standing for one element's own graph, made of the nodes ``dropped`` (each element
        has its own): at the latest of them, in the iterations still running, then ``then``."""
        last = max(dropped, key=lambda s: s.seq)
        active = {id(f.node): f.iteration for f in self.loops}
        prefix = []
        for part in last.ipath:
            if active.get(part[0]) != part[1]:
                break
            prefix.append(part)
        site = Site(last.node, last.stmts, True, (*prefix, *then))
        site.binding = last.binding
        site.seq = last.seq
        return site

    def indexed_element(self, val: Val, seq: Val, index: int, holder: ast.expr) -> Val:
        """``seq[index]`` of a list filled in a finished loop: ``val`` (what ``one_element`` keeps)
        with a node standing for that element's own graph, where every element's graph saves
        tensors. The node is the same for every read of the same index of the same list value, so
        an epoch loop backpropagating through ``values[0]`` again meets the graph its first
        iteration freed. A list reordered or shortened since (`pop`, `sort`, `shuffle`, `del`, an
        alias changing it) holds another element there: see ``_keeps_order``."""
        dropped = frozenset(s for s in seq.item.sites if s not in val.sites) if seq.item else frozenset()
        if not dropped or not all(s.saves for s in dropped) or not self._keeps_order(holder):
            return val
        key = (id(seq), index)
        entry = self._indexed_sites.get(key)
        if entry is None or entry[0] is not seq:
            # (The list kept in the entry: its id stays its own while the entry lives.)
            entry = (seq, self.standing_site(dropped, ()))
            self._indexed_sites[key] = entry
        return val.with_(sites=val.sites | {entry[1]})

    def _keeps_order(self, holder: ast.expr) -> bool:
        """Is the list ``holder`` names certainly neither reordered, shortened nor aliased (a text
        test: no list of the file is, since one passed to a helper takes another name there, and
        the list's own name is not bound to another name or stored into)?"""
        if isinstance(holder, ast.Attribute):
            name = holder.attr
        elif isinstance(holder, ast.Name):
            name = holder.id
        else:
            return False
        known = self._order_kept.get(name)
        if known is None:
            n = re.escape(name)
            aliased = re.compile(rf"\b{n}\s*\[[^\]]*\]\s*=[^=]|=\s*[\w.]*\b{n}\s*(#|$|;)", re.MULTILINE)
            known = _REORDERS.search(self.rep.source) is None and aliased.search(self.rep.source) is None
            self._order_kept[name] = known
        return known

    def retag_tensor(self, tensor: Val, change: Callable[[Val], Val]) -> None:
        """A tensor changed as an object (its requires_grad set, `detach_()`): every binding of it
        (names, heap cells, list and tuple elements) changes alike. Not its views (they share its
        identity but were made before, and keep what they were): only bindings with its grad and
        shape."""
        st = self.st
        if st is None:
            return
        obj = tensor.obj

        def same(v: Val) -> bool:
            return v.obj is obj and v.is_tensor and v.grad is tensor.grad and v.shape == tensor.shape

        def retag(v: Val) -> Val:
            if same(v):
                return change(v)
            if v.elts is not None and v.ty in (Ty.LIST, Ty.TUPLE) and any(same(e) for e in v.elts):
                return v.with_(elts=tuple(retag(e) for e in v.elts))
            return v

        for key, v in list(st.env.items()):
            new = retag(v)
            if new is not v:
                st.env[key] = new

    def local_loop(self) -> LoopFrame | None:
        """The innermost loop, if it is in the function running now. A local name lives for one
        call: only a loop of its own function carries it from one iteration to the next (a loop of
        a caller may hold a name spelled the same, which is another variable)."""
        if not self.loops:
            return None
        frame = self.loops[-1]
        return frame if frame.scope is (self.frames[-1].func if self.frames else None) else None

    def carried_from(self, val: Val) -> ast.stmt | None:
        """The statement that built ``val``'s graph, when that was an earlier iteration of a loop of
        the running function (state carried into this iteration), else None."""
        scope = self.frames[-1].func if self.frames else None
        loops = {id(f.node): f.iteration for f in self.loops if f.scope is scope}
        sites = sorted(val.sites, key=lambda s: s.seq)
        if val.root is not None:
            sites.insert(0, val.root)
        here = self.rep.scopes.get(id(self.stmt_stack[-1])) if self.stmt_stack else None
        for site in sites:
            if site.stmts and any(loops.get(loop, it) > it for loop, it in site.ipath):
                # The statement of this function that made it (a helper's own line is not where
                # the carried value is kept).
                own = [s for s in site.stmts if self.rep.scopes.get(id(s)) == here]
                return own[-1] if own else site.stmts[-1]
        return None

    def later_iteration(self) -> bool:
        """Is this an iteration after the first of some enclosing loop?"""
        return any(f.iteration > 1 and not f.probe for f in self.loops)

    def dead_graph(self, val: Val) -> bool:
        """Was (part of) this value's graph already backpropagated (its buffers freed)? A running
        sum of such values only grows a graph nothing can use: a leak even if it is returned.
        (Lists of them are the caller's results when returned, so appends are not judged so.)"""
        st = self.st
        return st is not None and any(s.saves and s in st.freed for s in val.sites)

    def closure_env(self, func: ast.AST) -> dict[str, Val]:  # provided by the Interpreter
        return {}

    def rebound_in(self, loop: ast.AST) -> frozenset[str]:  # overridden by Interpreter
        return frozenset()

    def tensor_op(
        self,
        name: str,
        node: ast.Call,
        recv: Val,
        args: list[Val],
        kwargs: dict[str, Val],
        arg_nodes: Any,
        first_arg: ast.expr | None,
        method: bool = False,
    ) -> Val:
        if name == "detach":
            stmt = self.stmt_stack[-1] if self.stmt_stack else None
            if isinstance(stmt, ast.Expr) and stmt.value is node and not node.args and not node.keywords:
                # `h.detach()` alone changes nothing. Is `h` state a loop carries into its next
                # iteration (read there before it is written)? Then `h = h.detach()` is the repair.
                target = node.func.value if isinstance(node.func, ast.Attribute) else None
                carried = isinstance(target, ast.Name) and any(
                    self.rep.read_before_write(frame.node, target.id)
                    and not (  # `for h in ...`: the loop itself binds h each time
                        isinstance(frame.node, ast.For | ast.AsyncFor)
                        and target.id in _target_names(frame.node.target)
                    )
                    for frame in self.loops
                )
                self.rep.publish(obs.DiscardedDetach(stmt, node, carried))
            return Val(Grad.NONE, Ty.TENSOR, obj=recv.obj, shape=recv.shape, cause=("`.detach()`", node))
        if name == "detach_":
            cut = Val(Grad.NONE, Ty.TENSOR, obj=recv.obj, shape=recv.shape, cause=("`.detach_()`", node))
            if recv.obj is not None and recv.grad is Grad.GRAPH:
                # The tensor itself is cut, under every name and in every list that holds it
                # (`for h in hidden: h.detach_()`), the callers' included (see inline).
                self.retag_tensor(recv, lambda v: cut)
                self.cut_in_place.append(recv)
            if self.st is not None:
                # A list known only by what holds of every element (filled in a loop) may hold it:
                # what its elements carry is not known any more.
                for key, held in list(self.st.env.items()):
                    item = held.item if held.ty in (Ty.LIST, Ty.TUPLE) else None
                    if item is not None and item.requires_grad and item.obj in (recv.obj, None):
                        self.st.env[key] = held.with_(item=_graph_not_known(item))
            if first_arg is not None:
                self.rebind(first_arg, cut)
            return NONE_VAL
        if name == "type" and (args or kwargs):
            name = "to"  # `x.type(torch.float32)` casts; `x.type()` names the type
        if name == "numpy":
            # `t.numpy(force=True)` detaches (and copies to the CPU) by itself: it never raises.
            forced = bool(node.args) or any(k.arg == "force" for k in node.keywords)
            if recv.requires_grad and first_arg is not None and not forced:
                self.rep.publish(obs.NumpyOnGrad(node, first_arg, array_call=False))
                # The call raises, and the analysis goes on past it (its fix changes no graph), but
                # what the array becomes downstream (a loss computed from it) is not known: a loss
                # of `criterion(out.numpy(), y)` must not be blamed on `y` next.
                return UNKNOWN
            return _numpy_array(node)
        if name in ("item",):
            return Val(Grad.NONE, Ty.NUMBER, cause=("`.item()`", node))
        if name == "size" and recv.shape is not None and not kwargs:
            torch_size = _size_val(recv.shape)  # `x.size()`, and `x.size(0)` when that size is known
            if not node.args:
                return torch_size
            at = shp.norm_dim(shp.int_const(node.args[0]), len(recv.shape))
            return torch_size.elts[at] if at is not None and torch_size.elts is not None else NUMBER
        if name in api.BREAK_TO_NUMBER:
            return NUMBER
        if name in api.BREAK_TO_OTHER:
            return OTHER
        if name in api.BREAK_TO_TENSOR:
            # A cast or an element-wise test keeps the shape (`target.long().view(-1, 1)`).
            keeps = name in _SAME_SHAPE_BREAKS and not node.args and not node.keywords
            kept_shape = recv.shape if keeps else None
            return Val(Grad.NONE, Ty.TENSOR, obj=object(), shape=kept_shape, cause=(f"`.{name}()`", node))
        if name == "requires_grad_":
            flag = api.requires_grad_flag(node)
            on = flag is None or (isinstance(flag, ast.Constant) and flag.value is True)
            off = isinstance(flag, ast.Constant) and flag.value is False
            new = recv.with_(
                grad=Grad.LEAF
                if on and recv.grad in (Grad.NONE, Grad.LEAF)
                else Grad.NONE
                if off and recv.grad in (Grad.NONE, Grad.LEAF)
                else Grad.UNKNOWN,
                cause=None,
            )
            # A tensor made in this very expression (`feats.detach()`, `img.data`, `x.clone()`) is a
            # new object: it has no `.grad` yet, whatever a tensor sharing its memory had, and
            # nothing names it to rebind (`img.data` is another new object each time it is read).
            made = isinstance(first_arg, ast.Call) or (
                isinstance(first_arg, ast.Attribute) and first_arg.attr == "data"
            )
            if first_arg is not None and method and not made:
                self.rebind(first_arg, new)
            if recv.ty is Ty.TENSOR and param_module(recv) is not None:
                self.set_param_flag(recv, True if on else False if off else None)
            elif on and recv.grad is Grad.NONE and recv.obj is not None:
                if made:
                    self.set_leaf_grads(recv.obj, frozenset())  # a leaf made here
                elif (
                    isinstance(first_arg, ast.Name)
                    and self.loops
                    and first_arg.id in _bound_in(self.loops[-1].node)
                ):
                    # Made again each iteration (`f = feats.detach()`): this one may be new.
                    self.set_leaf_grads(recv.obj, None)
            return new
        if method and name.endswith("_") and not name.endswith("__") and name not in _NOT_AUTOGRAD_WRITES:
            # An in-place tensor method.
            if first_arg is not None:
                self.inplace(first_arg, recv, node)
                if self.mode() is GradMode.MAYBE and recv.grad is not Grad.LEAF:
                    if any(a.grad is not Grad.NONE for a in args):
                        # Recording or not: whether it gains a graph is not known.
                        unknown = recv.with_(grad=Grad.UNKNOWN, cause=None)
                        if self.st is not None and isinstance(first_arg, (ast.Name, ast.Attribute)):
                            self.rebind(first_arg, unknown)
                        return unknown
                    return recv
                if self.mode() is not GradMode.ON or recv.grad is Grad.LEAF:
                    return recv  # the tensor keeps its grad status; only its version changes
                if recv.requires_grad or any(a.requires_grad for a in args):
                    known = name in api.INPLACE_OPS  # probed: else judged by its out-of-place twin
                    saves = name not in api.NO_SAVE if known else name[:-1] not in api.NO_SAVE
                    kept: set[object] = set()
                    if name in api.INPLACE_SAVES_OUTPUT and recv.obj is not None:
                        kept.add(recv.obj)  # relu_, sigmoid_, exp_...: a later in-place change breaks it
                    if name in api.INPLACE_SAVES_OTHER:
                        kept.update(a.obj for a in args if a.obj is not None and a.is_tensor)
                    new = self.op_result(
                        node, (recv, *args), saves=saves, shape=recv.shape, saved=frozenset(kept)
                    ).with_(obj=recv.obj)
                    if name == "add_" and not isinstance(first_arg, ast.Name):
                        new = self.accumulate_in_place(node, first_arg, recv, args, new)
                    if self.st is not None and isinstance(first_arg, (ast.Name, ast.Attribute)):
                        self.rebind(first_arg, new)
                    elif self.st is not None:
                        self.rebind_held(recv, new)
                    return new
            return recv
        if self.const_kw(node, "inplace") is True and first_arg is not None:
            self.inplace(first_arg, recv, node)
        if name in ("max", "min", "sort", "topk", "median", "mode", "kthvalue") and (
            args or kwargs or name in ("sort", "mode")
        ):
            if name in ("max", "min") and args and args[0].is_tensor:
                # The elementwise max/min of two tensors: torch.maximum / torch.minimum.
                pair = "maximum" if name == "max" else "minimum"
                return self.tensor_op(pair, node, recv, args, kwargs, arg_nodes, first_arg, method)
            if not (args and args[0].ty is Ty.NUMBER or "dim" in kwargs or name in ("sort", "topk", "mode")):
                return UNKNOWN
            # (values, indices): the values carry the graph; what their backward keeps is what the
            # probe found (the indices only: changing the input in place afterwards is harmless).
            dim = args[0] if args and args[0].ty is Ty.NUMBER else kwargs.get("dim")
            keep = self.const_kw(node, "keepdim")
            row = f"{name}.dim" if name in ("max", "min", "median") else name
            values = self.op_result(
                node,
                (recv,),
                saves=row not in api.NO_SAVE,
                saved=frozenset({recv.obj} - {None}) if row in api.SAVES_SELF else frozenset(),
                shape=shp.reduced(
                    recv.shape,
                    dim.lit[0]
                    if dim is not None and dim.lit is not None and type(dim.lit[0]) is int
                    else None,
                    keep if type(keep) is bool else False if keep is None else None,
                )
                if name in ("max", "min", "median", "mode")
                else None,
            )
            indices = Val(
                Grad.NONE,
                Ty.TENSOR,
                obj=object(),
                shape=values.shape,  # one index per value
                cause=(f"`.{name}()` indices", node),
            )
            return Val(Grad.NONE, Ty.TUPLE, elts=(values, indices))
        if name not in api.GRAPH_OPS:
            self.escape(args, kwargs)
            inputs = (recv, *args, *kwargs.values())
            if (
                recv.ty is Ty.TENSOR
                and all(a.grad is Grad.NONE for a in inputs)
                and self.const_kw(node, "requires_grad") in (None, False)
            ):
                # Whatever a tensor op returns, nothing in it requires grad when no input does; an op
                # torch declares to return a tensor (`x.arcsin()`, `torch.hypot(a, b)`) returns one.
                cause = next((a.cause for a in inputs if a.cause is not None), None)
                ty = Ty.TENSOR if api.returns_tensor(name, method) else Ty.UNKNOWN
                return Val(Grad.NONE, ty, obj=object() if ty is Ty.TENSOR else None, cause=cause)
            return Val(Grad.UNKNOWN, Ty.UNKNOWN) if recv.requires_grad else UNKNOWN
        if name in ("chunk", "split", "unbind", "tensor_split"):
            # Views of the input, one per piece (how many is known for `chunk(n)` only).
            piece = self.op_result(node, (recv,), saves=False)
            if piece.requires_grad:
                grad_on = self.mode() is GradMode.ON
                piece = piece.with_(obj=recv.obj, view_of=node if grad_on else None)
            # `x.chunk(n)` with `n` known (a literal, or a name or attribute bound to one).
            count = args[0].lit[0] if name == "chunk" and args and args[0].lit is not None else None
            if type(count) is int and 1 <= count <= 8:
                count, each = _chunks(node, arg_nodes, recv.shape, count)
                return Val(Grad.NONE, Ty.TUPLE, elts=(piece.with_(shape=each),) * count)
            sizes = args[0] if name == "split" and args else None
            if sizes is not None and sizes.ty in (Ty.LIST, Ty.TUPLE) and sizes.elts and len(sizes.elts) <= 8:
                return Val(Grad.NONE, Ty.TUPLE, elts=(piece,) * len(sizes.elts))  # split(x, [a, b])
            return Val(Grad.NONE, Ty.TUPLE, item=piece)
        saves = name not in api.NO_SAVE
        saved: set[object] = set()
        # Tensors given by keyword are inputs too (`F.linear(x, w, bias=b)` depends on `b`).
        all_inputs = (recv, *args, *(v for v in kwargs.values() if v.is_tensor))
        if method and name in _SIZE_ARGUMENTS:
            # Their other arguments are sizes, dims or norms: a number not known here is no input.
            all_inputs = (recv, *(a for a in args if a.is_tensor))
        elif method and name in _LIKE_METHODS:
            # The other tensor gives only a shape, dtype or device: autograd records no edge to it.
            all_inputs = (recv,)
        if name in api.SAVES_SELF and recv.obj is not None:
            saved.add(recv.obj)
        if name in api.SAVES_OTHER:
            if any(a.requires_grad for a in args) and recv.obj is not None:
                saved.add(recv.obj)
            if recv.requires_grad:
                saved.update(a.obj for a in args if a.obj is not None and a.is_tensor)
        if name in api.LOSS_FUNCS and name in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"):
            saved.update(a.obj for a in all_inputs if a.obj is not None and a.is_tensor)
        shape: shp.Shape | None = None
        plural = False
        if name in api.REDUCTIONS and not args and "dim" not in kwargs:
            shape = ()
        elif name in api.REDUCTIONS:
            shape = _reduced_shape(node, arg_nodes, recv.shape, args)
        elif name in api.LOSS_FUNCS:
            red = _reduction(
                self.const_kw(node, "reduction"),
                self.const_kw(node, "reduce"),
                self.const_kw(node, "size_average"),
            )
            shape = (
                _loss_none_shape(name, recv.shape)
                if red == "none"
                else ()
                if red in (None, "mean", "sum")
                else None
            )
        elif name in api.ELEMENTWISE:
            shape = recv.shape
            plural = recv.plural
        elif name in ("add", "sub", "mul", "div") and args:
            shape = shp.broadcast(recv.shape, args[0].shape)
            plural = shape is None and (_plural(recv) or _plural(args[0]))
        elif name in ("clone", "float", "double", "to", "cpu", "contiguous", "neg", "half", "long", "int"):
            shape = recv.shape
            plural = recv.plural
        elif name == "matmul" and args:
            shape = shp.matmul(recv.shape, args[0].shape)
        elif name in ("interpolate", "upsample", "upsample_bilinear", "upsample_nearest") and recv.shape:
            # (N, C, *spatial): the batch and channels stay, the spatial sizes are `size` when given.
            wanted = args[0] if args else kwargs.get("size")
            spatial = len(recv.shape) - 2
            given = wanted.elts if wanted is not None and wanted.elts is not None else ()
            dims = [e.lit[0] if e.lit is not None and type(e.lit[0]) is int else None for e in given]
            shape = (*recv.shape[:2], *(dims if len(dims) == spatial else [None] * spatial))
        elif name in _ADAPTIVE_POOLS and recv.shape and "return_indices" not in kwargs:
            size = args[0] if args else kwargs.get("output_size")
            shape = _adaptive_pool_shape(int(name[-2]), recv.shape, size)
        elif name == "gather" and (len(args) >= 2 or "index" in kwargs):
            shape = (args[1] if len(args) >= 2 else kwargs["index"]).shape  # the index's shape
        elif name in _SHAPE_METHODS:
            shape = _method_shape(name, node, recv.shape, args, kwargs)
            # A view, reshape, squeeze or permutation keeps the number of elements.
            plural = name not in ("view_as", "reshape_as", "expand_as") and _plural(recv)
        val = self.op_result(
            node,
            all_inputs,
            saves=saves,
            shape=shape,
            saved=frozenset(saved),
            saves_output=name in api.SAVES_OUTPUT,
        )
        if plural:
            val = val.with_(plural=True)
        if (
            name
            in (
                "view",
                "reshape",
                "flatten",
                "t",
                "transpose",
                "permute",
                "squeeze",
                "unsqueeze",
                "expand",
                "view_as",
                "expand_as",
                "narrow",
                "select",
            )
            and (
                val.requires_grad
                # Without a graph, only what is always a view: it shares its base's version
                # counter, so a write into the base changes what an op saved of the view.
                or (
                    name not in ("reshape", "flatten")
                    and val.is_tensor
                    and recv.is_tensor
                    and recv.obj is not None
                )
            )
        ):
            # Always a view (`reshape` and `flatten` may copy): of a leaf, still a leaf's view, which
            # an in-place write may not touch while recording (`p.bias.view(3, -1)[:, 4] += b`).
            view = name not in ("reshape", "flatten") and not recv.via_data
            val = val.with_(obj=recv.obj, leaf_view=view and (recv.grad is Grad.LEAF or recv.leaf_view))
        outputs = _TENSOR_OUTPUTS.get(name)
        if outputs is not None:
            # Several tensors, all from this one graph node (another object each: which of them
            # the node saved is not told apart).
            piece = val.with_(obj=object(), shape=None, plural=False)
            return Val(Grad.NONE, Ty.TUPLE, elts=(piece,) * outputs)
        return val

    def rebind(self, target: ast.expr, val: Val) -> None:
        st = self.st
        if st is None:
            return
        path = self.path_of(target)
        if path is not None:
            st.env[path] = val

    def accumulate_in_place(
        self, node: ast.Call, receiver: ast.expr | None, cur: Val, args: list[Val], new: Val
    ) -> Val:
        """`self.total.add_(loss)`, `stats.get("loss").add_(loss)`: an object's running sum, added to
        in place (a local name's is judged with `total += loss`). A leak when the sum an earlier
        iteration made is still there; ``new`` (the sum now) carries the marks that tell it."""
        stmt = self.stmt_stack[-1] if self.stmt_stack else None
        if (
            receiver is None
            or not isinstance(stmt, ast.Expr)
            or stmt.value is not node
            or len(args) != 1
            or len(node.args) != 1
            or node.keywords
            or args[0].grad is not Grad.GRAPH
            or not self.loops
        ):
            return new
        key = ("acc", id(stmt))
        if self.later_iteration() and any(t.kind == "carried" and t.key == key for t in cur.taints):
            self.accumulate_in_object(stmt, receiver, node.args[0], args[0], key, self.dead_graph(args[0]))
        if self.loops[-1].iteration == 1:
            self.loops[-1].accumulates = True
        return new.with_(taints=new.taints | acc_taints(stmt, key))

    def rebind_held(self, old: Val, new: Val) -> None:
        """An in-place op gave a graph to a tensor no name spells (`stats.get("loss").add_(loss)`, a
        helper's return): the object attributes (and their dicts' or lists' known elements) that hold
        that very value hold the changed tensor now."""
        st = self.st
        if st is None or old.obj is None:
            return
        for key, val in list(st.env.items()):
            if key[0] != "@":
                continue
            if val is old:
                st.env[key] = new
            elif val.elts is not None and val.ty in (Ty.DICT, Ty.LIST) and any(e is old for e in val.elts):
                st.env[key] = val.with_(elts=tuple(new if e is old else e for e in val.elts))

    def inplace(
        self, target: ast.expr, cur: Val, node: ast.AST, operand: Val | None = None, fixable: bool = True
    ) -> None:
        """An in-place change of the tensor ``target`` (statement or call ``node``); ``operand`` is
        the value it is combined with (`h /= h.norm()`: the norm saved h before the change).
        Not ``fixable``: no statement of the file is the change to rewrite (a layer's own)."""
        st = self.st
        if st is None:
            return
        if (cur.grad is Grad.LEAF or cur.leaf_view) and st.mode is GradMode.ON and not cur.via_data:
            stmt = self.stmt_stack[-1] if self.stmt_stack else None
            if stmt is not None:
                self.rep.publish(obs.LeafInplace(stmt, target, node, self.torch_alias()))
        if cur.view_of is not None and cur.requires_grad and st.mode is GradMode.ON:
            stmt = self.stmt_stack[-1] if self.stmt_stack else None
            if stmt is not None:
                self.rep.publish(obs.MultiviewInplace(stmt, target, node, cur.view_of))
                return
        if cur.obj is None:
            return
        if self.loops:
            self.loops[-1].changed_inplace = True
        stmt = self.stmt_stack[-1] if self.stmt_stack and fixable else None
        element = isinstance(target, ast.Subscript) and self.peek(target.value).ty in (Ty.LIST, Ty.DICT)
        dirt = Dirt(node, "data" if cur.via_data else "inplace", target, stmt=stmt, element=element)
        objs = [cur.obj]
        owner = param_module(cur)
        if owner is not None and cur.obj is owner.params_obj:
            # A module's parameters taken one by one (`for p in model.parameters()`): the change
            # reaches those of its sub-modules too (a state still valid after the loop only if
            # every iteration made it).
            objs = list(owner.all_params_objs())
            # Rewriting it out of place would only rebind the loop variable: no automatic fix.
            dirt = Dirt(node, dirt.kind, target, stmt=None)
        for site in (s for obj in objs for s in self.saved_by(obj, operand)):
            # The first change that bumps the version is the one backward trips on; a change
            # through `.data` bumps nothing, so a later real one takes its place.
            known = st.dirty.get(site)
            if known is None or known.kind == "data" and dirt.kind != "data":
                st.dirty[site] = dirt

    def torch_alias(self) -> str | None:
        """The name this file imports torch under, if any (fixes write `torch.no_grad()` with it)."""
        for name, val in self.globals_env.items():
            if val.ty is Ty.QUAL and val.qual == "torch":
                return name
        return None

    def values_in_reach(self) -> list[Val]:
        """The values the running code and its callers hold (a helper that changes a buffer or
        steps an optimizer touches the graphs its callers keep)."""
        vals = list(self.st.env.values()) if self.st is not None else []
        for outer in self.callers:
            vals.extend(outer.env.values())
        return vals

    def saved_by(self, obj: object, extra: Val | None = None) -> list[Site]:
        """Sites in the current state's graphs (and in ``extra``) that saved the tensor ``obj``."""
        if self.st is None:
            return []
        vals = self.values_in_reach() if extra is None else [*self.values_in_reach(), extra]
        return [s for s in held_sites(vals) if obj in s.saved or (s.saves_own_output and obj is s)]

    # -- modules and optimizers ------------------------------------------------------

    def module_method(
        self, recv: Val, name: str, node: ast.Call, args: list[Val], kwargs: dict[str, Val]
    ) -> Val:
        inst = recv.module
        assert inst is not None
        if name in _FORWARD_HOOKS:
            hook = args[0].info if args and args[0].ty is Ty.FUNC else None
            if not (isinstance(hook, ast.FunctionDef) and _leaves_output(hook)):
                inst.kwargs[_HOOKED] = True
                self.hooks = self.hooks or "some"
            self.escape(args, kwargs)
            return OTHER  # a handle
        if (
            name in ("register_buffer", "register_parameter")
            and len(node.args) >= 2
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and self.st is not None
            and inst.user_class is not None
        ):
            # `self.register_buffer("queue", t)` sets `self.queue` like an assignment would.
            self.st.env[f"{inst.key}.{node.args[0].value}"] = args[1]
            return NONE_VAL
        if (
            name == "add_module"
            and len(node.args) == 2
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and node.args[0].value.isidentifier()
            and inst.user_class is not None
            and isinstance(node.func, ast.Attribute)
        ):
            # `self.add_module("generator", g)` is `self.generator = g`.
            target = ast.copy_location(ast.Attribute(node.func.value, node.args[0].value, ast.Store()), node)
            self.assign_target(target, args[1])
            return NONE_VAL
        torch_sequential = inst.user_class is None and inst.cls_name == "Sequential"
        if name == "add_module" and len(args) == 2 and torch_sequential:
            # `model = nn.Sequential(); model.add_module(name, layer)`: its next layer, in order.
            layer = args[1]
            if layer.ty is Ty.MODULE and layer.module is not None:
                inst.seq_children = [*inst.seq_children, layer.module]
                inst.has_params = inst.has_params or layer.module.has_params
            else:
                inst.seq_children = []  # something not known was added: its layers are not known
            return NONE_VAL
        grows = name in ("append", "extend") and inst.user_class is None
        if grows and inst.cls_name in ("ModuleList", "Sequential"):
            # `self.layers.append(Block(...))` while building a model: the container's next layers.
            given = args[0] if len(args) == 1 and not kwargs else UNKNOWN
            added = (
                [given]
                if name == "append"
                else list(given.elts)
                if given.ty in (Ty.LIST, Ty.TUPLE) and given.elts is not None
                else None
            )
            if added is not None and all(a.ty is Ty.MODULE and a.module is not None for a in added):
                inst.seq_children = [*inst.seq_children, *(a.module for a in added if a.module is not None)]
                inst.has_params = inst.has_params or any(a.module.has_params for a in added if a.module)
            else:
                inst.seq_children = []  # something else was added: its layers are not known
            return recv  # both return the container
        kids = _known_children(inst) if name in ("named_children", "children") and not args else None
        if kids is not None:
            # `for name, layer in vgg.named_children()`: a container's children, in order.
            rows = tuple(
                Val(Grad.NONE, Ty.TUPLE, elts=(_key_val(k), Val(Grad.NONE, Ty.MODULE, module=m)))
                if name == "named_children"
                else Val(Grad.NONE, Ty.MODULE, module=m)
                for k, m in kids
            )
            return Val(Grad.NONE, Ty.LIST, elts=rows)
        if inst.cls_name == "ModuleDict" and inst.children and name in ("values", "items", "keys"):
            entries = tuple(
                Val(Grad.NONE, Ty.MODULE, module=m)
                if name == "values"
                else Val(Grad.NONE, Ty.TUPLE, elts=(_key_val(k), Val(Grad.NONE, Ty.MODULE, module=m)))
                if name == "items"
                else _key_val(k)
                for k, m in inst.children.items()
            )
            return Val(Grad.NONE, Ty.LIST, elts=entries)
        if name in ("parameters", "named_parameters"):
            # Each element knows its module (in `info`): `p.requires_grad = False` in a loop freezes it.
            leaf = (
                Val(Grad.LEAF, Ty.TENSOR, obj=inst.params_obj, info=inst)
                if self.trainable(inst)
                else Val(Grad.UNKNOWN, Ty.TENSOR, info=inst)
            )
            elt = leaf if name == "parameters" else Val(Grad.NONE, Ty.TUPLE, elts=(OTHER, leaf))
            return Val(Grad.NONE, Ty.PARAMS, module=inst, elts=(elt,), info=(inst,))
        if name in (
            "train",
            "eval",
            "to",
            "cuda",
            "cpu",
            "float",
            "double",
            "half",
            "requires_grad_",
            "apply",
            "share_memory",
            "type",
        ):
            if name == "requires_grad_":
                flag = api.requires_grad_flag(node)
                value = True if flag is None else flag.value if isinstance(flag, ast.Constant) else None
                self.set_requires_grad(inst, value if isinstance(value, bool) else None)
            elif name in ("train", "eval"):
                mode = (args[0] if args else kwargs.get("mode", TRUE)) if name == "train" else FALSE
                self.set_training(inst, mode)
            return recv
        if name == "zero_grad":
            params = inst.all_params_objs()
            for info in self.optimizers:
                if info.objs & params:
                    if info.objs <= params:
                        self.check_discard(info, node)  # `model.zero_grad()` clears what it steps
                    # All of the optimizer's parameters are cleared, or only some: then not known.
                    self.set_grads(info, frozenset() if info.objs <= params else None)
            return NONE_VAL
        if name == "forward" and (inst.user_class is None or "__call__" not in inst.user_class.methods):
            return self.module_call(inst, node, args, kwargs)
        if inst.user_class is not None and name in inst.user_class.methods:
            return self.call_local(
                Val(Grad.NONE, Ty.FUNC, info=inst.user_class.methods[name], module=inst), node, args, kwargs
            )
        self.escape(args, kwargs)
        return UNKNOWN

    def check_discard(self, info: OptimizerInfo, node: ast.Call) -> None:
        """`zero_grad()` that throws away gradients no step has applied: in a later iteration, after
        a backward that reached only this optimizer's parameters, with no step since. Reported only
        where the clear runs on every path of its loop (not a skip of a bad batch under an `if`)."""
        flags = self.grads(info)
        if flags is None or not self.loops or not self.later_iteration():
            return
        if "new" not in flags or "applied" in flags or "alone" not in flags or "shared" in flags:
            return
        backwards = [f[1] for f in flags if isinstance(f, tuple) and f[0] == "by"]
        stmt = self.stmt_stack[-1] if self.stmt_stack else None
        if not backwards or stmt is None or not self.runs_every_iteration(stmt):
            return
        backward = min(backwards, key=lambda b: (b.lineno, b.col_offset))
        loop = self.loops[-1].node
        # Where one iteration's clear, backward and step are: the loop's body, or the training-step
        # function the loop calls (`module.training_step(batch, i)`).
        region: ast.AST = loop
        if not _within(loop, stmt) and self.frames and _within(self.frames[-1].func, stmt):
            region = self.frames[-1].func
        step = self.step_after(stmt, node, region, info)
        if step is None and region is not loop and self.frames and not self.stepped_in(loop):
            # A helper called per micro-batch that clears first, its optimizer stepped after the
            # loop (`for mb in batches: trainer.forward_backward(mb)` then `trainer.optim_step()`):
            # reported if that step comes, with nothing stepped in the loop.
            if _before_in(region, stmt, backward):
                found = obs.DiscardedGradients(stmt, node, backward, None)
                self.pending_discards[id(info)] = (found, loop, self.defined_in.get(id(self.frames[-1].func)))
            return
        if step is None and _before_in(region, backward, stmt):
            # The clear ends the iteration, after a step under a condition (`backward()`, then
            # `if i % k == 0: step()`, then `zero_grad()`): it belongs inside, after the step.
            step = self.step_before(stmt, node, region, info)
            if step is None or self.rep.blocks.get(id(step)) is getattr(region, "body", None):
                return
            self.rep.publish(obs.DiscardedGradients(stmt, node, backward, step))
            return
        if step is None or self.rep.blocks.get(id(step)) is getattr(region, "body", None):
            return  # accumulation means a step under a condition (`if (i + 1) % k == 0:`)
        if not _before_in(region, stmt, self.call_into(region, backward)):
            return  # a clear between two backward passes of one iteration (gradient surgery)
        self.rep.publish(obs.DiscardedGradients(stmt, node, backward, step))

    def call_into(self, region: ast.AST, backward: ast.stmt) -> ast.stmt:
        """The statement of ``region`` that ran this backward: itself, or the call of the helper
        that ran it (`loss = self._train_step(batch)`)."""
        if _within(region, backward):
            return backward
        for run in reversed(self.rep.backward_runs):
            if run.stmt is backward:
                return next((s for s in run.stack if s is not region and _within(region, s)), backward)
        return backward

    def running(self, loop: ast.AST) -> bool:
        """Is this loop one the flow is in now?"""
        return any(f.node is loop for f in self.loops)

    def stepped_in(self, loop: ast.AST) -> bool:
        """Has an optimizer step run in this loop so far (in its body or a call it made)?"""
        return any(f.node is loop and f.stepped for f in self.loops)

    def optimizer_steps(
        self, zero_grad: ast.Call, region: ast.AST, info: OptimizerInfo
    ) -> Iterator[ast.Expr]:
        """The `<optimizer>.step()` statements in ``region`` (walk order) of the optimizer a clear
        is about: the clear's receiver, or, for a model's `zero_grad()`, the optimizer of its
        parameters."""
        if not isinstance(zero_grad.func, ast.Attribute):
            return
        owner = ast.dump(zero_grad.func.value)  # the receiver as code (messages shorten their text)
        for node in ast.walk(region):
            if (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Attribute)
                and node.value.func.attr == "step"
                and (
                    ast.dump(node.value.func.value) == owner or self.peek(node.value.func.value).info is info
                )
            ):
                yield node

    def step_after(
        self, stmt: ast.stmt, zero_grad: ast.Call, region: ast.AST, info: OptimizerInfo
    ) -> ast.stmt | None:
        """The step after ``stmt`` in the region of one iteration (under an `if` too), where the
        clear belongs."""
        here = (stmt.lineno, stmt.col_offset)
        return next(
            (s for s in self.optimizer_steps(zero_grad, region, info) if (s.lineno, s.col_offset) > here),
            None,
        )

    def step_before(
        self, stmt: ast.stmt, zero_grad: ast.Call, region: ast.AST, info: OptimizerInfo
    ) -> ast.stmt | None:
        """The last step before ``stmt`` in the region of one iteration."""
        here = (stmt.lineno, stmt.col_offset)
        earlier = [
            s for s in self.optimizer_steps(zero_grad, region, info) if (s.lineno, s.col_offset) < here
        ]
        return max(earlier, key=lambda s: (s.lineno, s.col_offset)) if earlier else None

    def runs_every_iteration(self, stmt: ast.stmt) -> bool:
        """Does this statement (and each call that led to it, up to the innermost loop) stand
        directly in a loop's or a function's body, not under an `if`, `try` or `while` test?"""
        loop = self.loops[-1].node
        chain = [stmt, *(f.call_stmt for f in reversed(self.frames))]
        funcs = [f.func for f in reversed(self.frames)]
        for i, s in enumerate(chain):
            if s is None:
                return False
            block = self.rep.blocks.get(id(s))
            if block is None:
                return False
            if block is loop.body:
                return True
            owner = funcs[i] if i < len(funcs) else None
            if owner is None or block is not owner.body:
                return False
        return False

    def scaler_method(self, name: str, node: ast.Call, args: list[Val]) -> Val:
        """A `GradScaler` (mixed precision): `scale(loss)` multiplies the loss by the scale, a node
        on its graph that saves the scale; `step(optimizer)` is that optimizer's step (skipped only
        for non-finite gradients); the others change no graph."""
        if name == "scale" and len(args) == 1 and not node.keywords and args[0].is_tensor:
            return self.op_result(node, (args[0],), saves=True, shape=args[0].shape)
        if name == "step" and args and args[0].ty is Ty.OPTIMIZER and node.args:
            return self.optimizer_method(args[0], "step", node, target=node.args[0])
        if name in ("step", "scale"):
            self.escape(args, {})
            return UNKNOWN
        return OTHER

    def optimizer_method(self, recv: Val, name: str, node: ast.Call, target: ast.expr | None = None) -> Val:
        """``target``: the optimizer's expression when the call is another object's on its behalf
        (`scaler.step(optimizer)`, whose argument is the optimizer, not a closure)."""
        info = recv.info
        given = (node.args[1:] if target is not None else node.args) or node.keywords
        if name == "zero_grad" and isinstance(info, OptimizerInfo):
            pending = self.pending_discards.get(id(info))
            if pending is not None and not self.running(pending[1]):
                del self.pending_discards[id(info)]  # cleared again after that loop: no step used them
            self.check_discard(info, node)
            self.set_grads(info, frozenset())
            if self.st is not None:
                for obj in info.objs:  # leaves handed to the optimizer itself
                    if self.leaf_grad_key(obj) in self.st.env:
                        self.set_leaf_grads(obj, frozenset())
            return NONE_VAL
        closure_result: Val | None = None
        if name == "step" and isinstance(info, OptimizerInfo) and given:
            # `optimizer.step(closure)` calls the closure (every torch optimizer does, at least once,
            # with grad mode on) before it changes the weights, and returns what the first call did.
            closure = given[0].value if isinstance(given[0], ast.keyword) else given[0]
            fval = self.peek(closure) if isinstance(closure, (ast.Name, ast.Attribute)) else UNKNOWN
            if fval.ty is Ty.FUNC and self.mode() is GradMode.ON:
                again = self.closure_loop(node, closure, fval.info) if info.reevaluates else None
                closure_result = again if again is not None else self.call_local(fval, node, [], {})
            self.set_grads(info, None)  # a closure runs its own backward passes (L-BFGS: several)
        if name == "step" and isinstance(info, OptimizerInfo):
            pending = self.pending_discards.pop(id(info), None)
            if pending is not None and not self.running(pending[1]):
                # The loop of micro-batches ended: this step applies the last one only. The clear
                # moves after this step when both are the same object's methods, spelled alike.
                found, _, cls = pending
                step_stmt = self.stmt_stack[-1] if self.stmt_stack else None
                same = (
                    isinstance(step_stmt, ast.Expr)
                    and step_stmt.value is node
                    and isinstance(node.func, ast.Attribute)
                    and isinstance(found.call.func, ast.Attribute)
                    and ast.dump(node.func.value) == ast.dump(found.call.func.value)
                    and _rooted_at_self(node.func.value)
                    and cls is not None
                    and self.frames
                    and self.defined_in.get(id(self.frames[-1].func)) is cls
                )
                self.rep.publish(replace(found, step=step_stmt) if same else found)
            for frame in self.loops:
                frame.stepped = True
            self.rep.steps_run.append((self.next_seq(), node))
            flags = self.grads(info)
            # Parameters a backward certainly gave a gradient since `.grad` was last cleared.
            changed = {f[1] for f in flags or () if isinstance(f, tuple) and f[0] == "reached"}
            if flags is not None and {"new", "applied"} <= flags:
                # New gradients were added to ones an earlier step already applied: nothing
                # cleared `.grad` in between, so this step applies their running sum.
                backward = _backward_of(flags)
                if backward is not None:
                    self.rep.grads_never_cleared(node, backward)
            if flags is not None:
                self.set_grads(info, frozenset({"applied"}))
            for other in self.optimizers:
                other_flags = self.grads(other) if other is not info else None
                if other_flags is not None and _backward_of(other_flags) is not None:
                    # A step of another optimizer ends the window: the next backward starts one. Until
                    # then the backward that added onto applied gradients is kept: both optimizers may
                    # step after one backward (an encoder's and a decoder's).
                    kept = {f for f in other_flags if isinstance(f, (str, ast.AST))}
                    self.set_grads(other, frozenset(kept | {"rewindow"}))
        if name == "step" and isinstance(info, OptimizerInfo) and self.st is not None:
            # The step changes every parameter in place: graphs that saved them are stale, those
            # the callers hold included (`take_optimisation_step(critic_opt, ...)` in a helper).
            stmt = self.stmt_stack[-1] if self.stmt_stack else node
            held = self.values_in_reach()
            optimizer = target or (node.func.value if isinstance(node.func, ast.Attribute) else node.func)
            stack, spelled = tuple(self.stmt_stack), self.spelled_by_callers(optimizer)
            for site in held_sites(held):
                if not (site.saved & info.objs):
                    continue
                retained = self.st.retained.get(site)
                self.st.dirty[site] = Dirt(
                    stmt,
                    "step",
                    optimizer,
                    retained_by=retained,
                    certain=bool(site.saved & changed),
                    stack=stack,
                    spelled=spelled,
                )
        return closure_result if closure_result is not None else NONE_VAL

    def spelled_by_callers(self, expr: ast.expr) -> tuple[tuple[ast.stmt, ast.expr | None], ...]:
        """For each call into the running helpers (innermost first), the caller's statement and how
        it spells ``expr`` (the argument a parameter was given), None once it is not a parameter."""
        out: list[tuple[ast.stmt, ast.expr | None]] = []
        cur: ast.expr | None = expr
        for frame in reversed(self.frames):
            if frame.call_stmt is None:
                break
            given = frame.passed.get(cur.id) if isinstance(cur, ast.Name) else None
            cur = given[0] if given is not None else None
            out.append((frame.call_stmt, cur))
        return tuple(out)

    def frozen(self, inst: ModuleInst) -> bool | None:
        """Are the module's parameters frozen at this point of the flow (None: not known)?"""
        cell = self.st.env.get(inst.key + ".requires_grad") if self.st is not None else None
        if cell is None or cell.truth is None:
            if self.param_cells and inst.kind == "container" and inst.seq_children and not inst.alike:
                # Its layers frozen one by one (by name): frozen when every layer with parameters is.
                layers = [c for c in inst.seq_children if c.has_params]
                if layers and all(self.frozen(c) is True for c in layers):
                    return True
            return None
        return not cell.truth

    def trainable(self, inst: ModuleInst) -> bool:
        frozen = self.frozen(inst)
        if frozen is not None:
            return not frozen
        if inst.frozen:
            return False
        # Freezing the engine follows (requires_grad_(False), `p.requires_grad = False` over a
        # module's parameters) marks that module; any other freezing in the file makes modules
        # that no optimizer steps unknown.
        return inst.trained or not self.rep.unresolved_freezes

    def forget_hook_writes(self, hook: Val) -> None:
        """A hook is registered: torch runs it at some later forward or backward, which the analysis
        does not follow, so what it writes (`self.hook_a = output.data`, `acts.append(output)`: an
        attribute of its object, a name of its enclosing scope) is unknown from here on, not the
        value it had (a `None` that would make `if self.hook_a is None: raise` look certain)."""
        func = hook.info
        if not isinstance(func, (ast.FunctionDef, ast.Lambda)) or self.st is None:
            return
        params = func.args.posonlyargs + func.args.args
        me = params[0].arg if params and hook.module is not None else None
        own = {p.arg for p in params}
        env = self.st.env
        for node in ast.walk(func):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                # A plain name bound in the hook is its own local; stores into parts of names are not.
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                changed = [t for t in targets if not isinstance(t, ast.Name)]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _CONTAINER_CHANGES
            ):
                changed = [node.func.value]  # `acts.append(output)`, `self.grads.update(...)`
            else:
                continue
            for target in changed:
                root: ast.expr = target
                while isinstance(root, ast.Subscript):
                    root = root.value
                if isinstance(root, ast.Attribute) and isinstance(root.value, ast.Name):
                    name = root.value.id
                    # `self.x` of a bound method, or of an object the hook closes over (`self` of
                    # the method that defined it).
                    if name == me:
                        inst = hook.module
                    else:
                        closed = env.get(name) if name not in own else None
                        inst = closed.module if closed is not None else None
                    if inst is not None:
                        env[f"{inst.key}.{root.attr}"] = UNKNOWN
                elif isinstance(root, ast.Name) and root.id not in own and root.id in env:
                    env[root.id] = UNKNOWN  # a container of the enclosing scope the hook fills

    def thaw_unknown(self) -> None:
        """`requires_grad = True` on a tensor not known here (`module.weight` of a module found by
        name, LoRA-GA's target layers): it may be a parameter of any module frozen so far, so none
        is known to be frozen any more."""
        if self.st is None:
            return
        env = self.st.env
        frozen = [k for k, cell in env.items() if cell.truth is False and ".requires_grad" in k]
        for key in frozen:
            env[key] = UNKNOWN

    def set_requires_grad(self, inst: ModuleInst, flag: bool | None, whole: bool = False) -> None:
        """``requires_grad`` set on (one of) a module's parameters: frozen unless set to True.

        Kept in the state (a cell per module), so it is flow-sensitive: a D frozen for the G step
        and unfrozen for its own step, a freeze under an unknown condition is unknown after it.
        A module that stands for several (``many``) set on its own (`blocks[0].requires_grad_(False)`,
        not through its container: ``whole``) leaves the others as they were: unknown."""
        if inst.many and not whole:
            flag = None
        inst.frozen = flag is not True
        if self.st is not None:
            env = self.st.env
            key = inst.key + ".requires_grad"
            env[key] = self.flag_cell(flag)
            if self.param_cells:
                # The whole module's flag replaces what was set parameter by parameter.
                for cell in [k for k in env if k.startswith(key + ":")]:
                    del env[cell]
        for child in list(inst.children.values()) + inst.seq_children:
            self.set_requires_grad(child, flag, whole=True)

    def flag_cell(self, flag: bool | None) -> Val:
        """A module's (or parameter's) `requires_grad` cell; a freeze keeps the statement that made
        it, which a backward that finds no graph tells as the cause."""
        if flag is False:
            stmt = self.stmt_stack[-1] if self.stmt_stack else None
            return FALSE.with_(cause=(FREEZE_CAUSE, stmt)) if stmt is not None else FALSE
        return TRUE if flag is True else UNKNOWN

    def freeze_statement(self, inst: ModuleInst) -> ast.AST | None:
        """Where a module known frozen was frozen (for a container frozen layer by layer, where
        its first layer was)."""
        cell = self.st.env.get(inst.key + ".requires_grad") if self.st is not None else None
        if cell is not None and cell.truth is False:
            return cell.cause[1] if cell.cause is not None else None
        if inst.kind == "container":
            first = next((c for c in inst.seq_children if c.has_params), None)
            return self.freeze_statement(first) if first is not None else None
        return None

    def set_param_flag(self, param: Val, flag: bool | None) -> None:
        """``requires_grad`` set on a parameter tensor: all of its module's when it stands for them
        (`layer.weight`, a loop over `model.parameters()`), else (a loop over `named_parameters()`
        that names each) only its own: its layer is frozen once all of the layer's are."""
        ref = param.info
        if not isinstance(ref, OneParam):
            owner = param_module(param)
            if owner is not None:
                self.set_requires_grad(owner, flag)
            return
        if self.st is None:
            return
        env = self.st.env
        self.param_cells = True
        key = ref.owner.key + ".requires_grad"
        cells = [f"{key}:{name}" for name in ref.siblings]
        whole = env.get(key)
        if whole is not None and not any(c in env for c in cells):
            for cell in cells:
                env[cell] = whole  # until now every parameter had the layer's flag
        env[f"{key}:{ref.name}"] = self.flag_cell(flag)
        truths = {env[c].truth if c in env else None for c in cells}
        common = truths.pop() if len(truths) == 1 else None
        env[key] = self.flag_cell(common)
        ref.owner.frozen = common is False
        for outer in reversed(ref.chain):
            # A model or block holding it is frozen (or trainable) as a whole when all its layers
            # are, known only when every parameter is; else its layers decide, when it is called.
            layers = [m for m in outer.modules() if m.has_params and m.user_class is None]
            layers = [m for m in layers if m.cls_name not in api.CONTAINERS]
            truths = {env[k].truth if (k := m.key + ".requires_grad") in env else None for m in layers}
            common = truths.pop() if ref.complete and len(truths) == 1 else None
            if common is not None or outer.key + ".requires_grad" in env:
                env[outer.key + ".requires_grad"] = self.flag_cell(common)
                outer.frozen = common is False

    def parameter_elements(self, params: list[tuple[str, OneParam]], named: bool) -> list[Val]:
        """What iterating `named_parameters()` (``named``) or `parameters()` gives for these
        parameters (see parameter_list): each tensor, with its name when named."""
        out = []
        for name, ref in params:
            trainable = self.trainable(ref.owner)
            tensor = Val(
                Grad.LEAF if trainable else Grad.UNKNOWN,
                Ty.TENSOR,
                obj=ref.owner.params_obj if trainable else None,
                info=ref,
            )
            named_val = Val(Grad.NONE, Ty.TUPLE, elts=(Val(Grad.NONE, Ty.OTHER, lit=(name,)), tensor))
            out.append(named_val if named else tensor)
        return out

    def selected_parameters(
        self, node: ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp
    ) -> Val | None:
        """`[p for n, p in model.named_parameters() if not n.startswith("disc")]` (a parameter group
        chosen by name): the list of the parameters whose names pass, when every parameter of the
        model is known by name and the filter is decided for each. None for anything else."""
        if not isinstance(node, ast.ListComp) or len(node.generators) != 1:
            return None
        gen = node.generators[0]
        it, target = gen.iter, gen.target
        if not (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Attribute)
            and it.func.attr == "named_parameters"
            and not it.args
            and not it.keywords
            and isinstance(target, ast.Tuple)
            and len(target.elts) == 2
            and all(isinstance(t, ast.Name) for t in target.elts)
            and isinstance(node.elt, ast.Name)
            and node.elt.id == target.elts[1].id  # type: ignore[attr-defined]
            and all(_scalar_expr(c) for c in gen.ifs)
        ):
            return None
        model = self.peek(it.func.value)
        if model.ty is not Ty.MODULE or model.module is None:
            return None
        listed = self.parameter_list(model.module)
        if listed is None or not listed[1] or not listed[0]:
            return None  # a parameter not known by name may or may not pass
        chosen = []
        for elem in self.parameter_elements(listed[0], named=True):
            self.assign_target(target, elem)
            truths = [self.expr(c).truth for c in gen.ifs]
            if None in truths:
                return None
            if all(truths):
                chosen.append(elem.elts[1])  # type: ignore[index]
        return Val(Grad.NONE, Ty.LIST, elts=tuple(chosen))

    def parameter_list(
        self, root: ModuleInst
    ) -> tuple[list[tuple[str, OneParam]], bool] | None:
        """``root.named_parameters()`` as torch lists it, from the layers known here: each name with
        its parameter, and whether the list is complete (False: a part not known may hold more,
        e.g. an attribute of unknown value; the names listed are still exact). None when a layer
        it certainly holds has parameters not known by name, or there are too many."""
        out: list[tuple[str, OneParam]] = []
        seen: set[int] = set()
        complete = True
        env = self.st.env if self.st is not None else {}

        def walk(inst: ModuleInst, prefix: str, chain: tuple[ModuleInst, ...]) -> bool:
            nonlocal complete
            if id(inst) in seen:
                return True  # a shared module: its parameters are listed once, where first met
            seen.add(id(inst))
            if len(chain) > _MAX_MODULE_DEPTH or len(out) > _MAX_NAMED_PARAMS:
                return False
            inner = (*chain, inst)
            cls = inst.user_class
            if cls is None:
                if inst.kind in ("activation", "loss"):
                    return True
                if inst.cls_name in ("Sequential", "ModuleList"):
                    if not inst.seq_children or inst.alike or inst.children:
                        return False  # a number of layers not known (or layers not known)
                    return all(walk(c, f"{prefix}{i}.", inner) for i, c in enumerate(inst.seq_children))
                if inst.cls_name == "ModuleDict":
                    if not inst.children:
                        return False
                    return all(walk(c, f"{prefix}{k}.", inner) for k, c in inst.children.items())
                origin = inst.origin
                spread = isinstance(origin, ast.Call) and (
                    any(isinstance(a, ast.Starred) for a in origin.args)
                    or any(k.arg is None for k in origin.keywords)
                )
                names = None if spread else api.layer_param_names(inst.cls_name, inst.kwargs, _NOT_CONST)
                if names is None or any(f"{inst.key}.{n}" in env for n in names):
                    return False  # not known by name, or a parameter replaced (tied weights)
                out.extend((prefix + n, OneParam(inst, n, names, chain, True)) for n in names)
                return True
            plain = self._plain_classes.get(id(cls))
            if plain is None:
                plain = self._plain_classes[id(cls)] = _plain_module_class(cls)
            if not plain:
                complete = False  # parameters of its own that no attribute shows
            head = inst.key + "."
            attrs = list(inst.attrs)
            attrs += [
                k[len(head) :]
                for k in env
                if k.startswith(head)
                and "." not in k[len(head) :]
                and k[len(head) :] not in inst.attrs
                and not k[len(head) :].startswith("requires_grad")
            ]
            for attr in attrs:
                val = env.get(head + attr) or inst.attrs.get(attr)
                if val is None:
                    continue
                if val.ty is Ty.MODULE:
                    if val.module is None or not walk(val.module, f"{prefix}{attr}.", inner):
                        complete = False
                elif val.ty is Ty.UNKNOWN or val.grad in (Grad.LEAF, Grad.UNKNOWN) and val.is_tensor:
                    complete = False  # maybe a module or an `nn.Parameter`
            return True

        if not walk(root, "", ()) or len(out) > _MAX_NAMED_PARAMS:
            return None
        if not complete:
            out = [(name, OneParam(p.owner, p.name, p.siblings, p.chain, False)) for name, p in out]
        return out, complete

    def sequential_init(self, ref: SuperRef, name: str, node: ast.Call, args: list[Val]) -> bool:
        """``super().__init__(*layers)`` in a subclass of ``nn.Sequential``: its modules, in order."""
        inst = ref.inst
        cls = inst.user_class
        if cls is None or not cls.sequential or cls.after(ref.cls, name) is not None:
            return False
        given = self.spread_args(node, args)
        if given is None or not all(a.ty is Ty.MODULE and a.module is not None for a in given):
            inst.kind = "opaque"  # modules not known one by one: calling it tells nothing
            return True
        inst.seq_children.extend(a.module for a in given if a.module is not None)
        return True

    def custom_function(self, cls: ClassInfo, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        """``MyFn.apply(x, w, ...)`` of a ``torch.autograd.Function`` of the project: one graph node
        over its tensor arguments, keeping what its ``forward`` saves (its own output included, so
        a later in-place change of the result is caught)."""
        saved = saved_by_forward(cls)
        if saved is None or kwargs or any(isinstance(a, ast.Starred) for a in node.args):
            self.escape(args, kwargs)
            return self.unknown_result(node)
        positions, keeps_output = saved
        kept = frozenset(
            a.obj for i, a in enumerate(args) if i in positions and a.is_tensor and a.obj is not None
        )
        inputs = tuple(a for a in args if a.is_tensor or a.ty is Ty.UNKNOWN)
        return self.op_result(
            node, inputs, saves=bool(positions) or keeps_output, saved=kept, saves_output=keeps_output
        )

    def functional_call(self, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        """``torch.func.functional_call(model, params, (x,))``: the model's forward with the given
        tensors for its parameters. Followed as a call of the model when every given tensor requires
        grad (its own parameters, or fast weights computed from them); the result also depends on them."""
        if len(args) < 3 or args[0].ty is not Ty.MODULE or args[0].module is None or node.keywords:
            self.escape(args, kwargs)
            return self.unknown_result(node)
        params, inputs = args[1], args[2]
        values = params.elts if params.elts is not None else (params.item,) if params.item else None
        if (
            params.ty is not Ty.DICT
            or not values
            or not all(v is not None and v.requires_grad for v in values)
        ):
            self.escape(args, kwargs)
            return self.unknown_result(node)
        given = list(inputs.elts) if inputs.ty is Ty.TUPLE and inputs.elts is not None else [inputs]
        out = self.module_call(args[0].module, node, given, {})
        if out.is_tensor and out.grad is Grad.GRAPH:
            # The forward's ops read the given tensors (and save them: `F.linear` keeps its weight):
            # one node of its own on them, so a pass stopping at the fast weights traverses it.
            used = tuple(v for v in values if v is not None)
            made = self.new_site(node, True, used)
            extra = frozenset({made}).union(*(v.sites for v in used))
            out = out.with_(sites=out.sites | extra)
        return out

    def module_call(self, inst: ModuleInst, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        out = self._module_call(inst, node, args, kwargs)
        taints = frozenset().union(*(a.taints for a in args)) if args else frozenset()
        if out.requires_grad and inst.has_params:
            # A constant gradient given to a layer that trains (`model(x + r_adv)`: a perturbation
            # of its input) is no penalty added to a loss.
            taints = _without_penalty(taints)
        if taints and not taints <= out.taints and out is not UNKNOWN:
            out = out.with_(taints=out.taints | taints)  # what a module computes from its inputs
            if out.elts is not None and out.ty is Ty.TUPLE:
                # (output, state) pairs: each tensor in it is computed from the inputs too.
                out = out.with_(
                    elts=tuple(e.with_(taints=e.taints | taints) if e.is_tensor else e for e in out.elts)
                )
        return out

    def run_children(self, inst: ModuleInst, node: ast.Call, x: Val) -> Val:
        """A Sequential of this file's modules: each child's forward runs, in order, on the output
        of the one before."""
        out = x
        # This Sequential's own input is unnamed when it is itself a later layer of another.
        unnamed = self.unnamed_input is inst
        for k, child in enumerate(inst.seq_children):
            # After the first, a layer's input is the one before's output, which no expression of
            # the file names (an in-place activation changes that, not the model's input).
            self.unnamed_input = child if k or unnamed else None
            try:
                out = self.module_call(child, node, [out], {})
            finally:
                self.unnamed_input = None
        return out

    def _module_call(self, inst: ModuleInst, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        if self.hooks and (self.hooks == "all" or any(m.kwargs.get(_HOOKED) for m in inst.modules())):
            self.escape(args, kwargs)  # it, or a module it calls, runs a hook that may change outputs
            return UNKNOWN
        x = args[0] if args else UNKNOWN
        call_args = tuple(zip(node.args, args, strict=False))
        mode = self.mode()
        if inst.kind == "loss":
            known = inst.kwargs
            red = _reduction(known.get("reduction"), known.get("reduce"), known.get("size_average"))
            shape = (
                _loss_none_shape(inst.cls_name, x.shape)
                if red == "none"
                else ()
                if red in (None, "mean", "sum")
                else None
            )
            loss_saved = (
                frozenset(a.obj for a in args if a.obj is not None and a.is_tensor)
                if inst.cls_name in ("MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss")
                else frozenset()
            )
            return self.op_result(node, tuple(args), saves=True, shape=shape, saved=loss_saved)
        if inst.kind == "activation":
            saves = inst.cls_name not in (
                "Flatten",
                "Unflatten",
                "Identity",
            ) and not inst.cls_name.startswith("Dropout")
            layer = inst.origin if self.unnamed_input is inst else None
            if inst.kwargs.get("inplace") is True and isinstance(layer, ast.Call):
                # Told at the layer: `nn.ReLU(True)` changes what the layer before it returned.
                self.inplace(layer, x, layer, fixable=False)
            elif inst.kwargs.get("inplace") is True and node.args:
                self.inplace(node.args[0], x, node)
            return self.op_result(
                node,
                (x,),
                saves=saves,
                shape=shp.module_shape(inst, x.shape),
                saves_output=api.ACTIVATIONS.get(inst.cls_name, False),
            )
        if mode is GradMode.MAYBE:
            return UNKNOWN
        definitely_frozen = mode is GradMode.ON and self.frozen(inst) is True
        # `model(**batch)` passes its inputs by keyword.
        given = [*args, *kwargs.values()] if definitely_frozen and kwargs else args
        if definitely_frozen and given and all(a.grad is Grad.NONE for a in given):
            # Frozen parameters and inputs that need no grad: nothing in the output requires grad.
            fwd = _entry(inst)
            if fwd is not None and self.can_inline(fwd):
                return self.inline(
                    fwd, [Val(Grad.NONE, Ty.MODULE, module=inst), *args], kwargs, node, self_inst=None
                )
            if inst.cls_name == "Sequential" and any(c.kind == "user" for c in inst.seq_children):
                # Its own modules' forwards tell what comes out (a detection head's tuple).
                return self.run_children(inst, node, x)
            if inst.kind in ("layer", "container"):
                # An input already cut off (no_grad, `.detach()`, a reentrant checkpoint) is the
                # cause to tell: the layer's own freezing adds nothing to undo.
                cut = next((a.cause for a in given if a.cause is not None and _cuts(a.cause)), None)
                cause = cut or (FREEZE_CAUSE, self.freeze_statement(inst) or node)
                return Val(Grad.NONE, Ty.TENSOR, obj=object(), cause=cause)
        # A network frozen at this point and called on an input that requires grad (a saliency
        # map, an attack, a perceptual loss): the output has a graph, its parameters get no grad.
        frozen_on_grad = definitely_frozen and any(a.requires_grad for a in given)
        if not inst.has_params or not self.trainable(inst):
            if inst.kind == "user" and mode is GradMode.ON and self.trainable(inst):
                pass  # a parameter-free user module: its forward decides
            elif not frozen_on_grad:
                return UNKNOWN if mode is GradMode.ON else Val(Grad.NONE, Ty.UNKNOWN)
        if mode is GradMode.OFF:
            fwd = _entry(inst)
            if fwd is not None and self.can_inline(fwd):
                # Under no_grad its forward builds nothing, but tells what it returns.
                return self.inline(
                    fwd, [Val(Grad.NONE, Ty.MODULE, module=inst), *args], kwargs, node, self_inst=None
                )
            if inst.cls_name == "Sequential" and any(c.kind == "user" for c in inst.seq_children):
                # Its modules' forwards still run: what they change in place (a noise buffer
                # resampled with `normal_()`) is changed for the graphs that saved it.
                return self.run_children(inst, node, x)
            tensor_out = inst.kind in ("layer", "container") or inst.cls_name == "Sequential"
            ty = Ty.TENSOR if tensor_out and inst.cls_name not in api.RECURRENT else Ty.UNKNOWN
            # Its output has the shape it would have with grad (`feats = backbone(x)` under no_grad).
            shape = shp.module_shape(inst, _flat(args[0]).shape) if args and ty is Ty.TENSOR else None
            return Val(Grad.NONE, ty, obj=object(), shape=shape, cause=self.no_grad_cause(node))
        args = [_flat(a) for a in args]
        x = args[0] if args else UNKNOWN
        recurrent = inst.kind in ("rnn", "lstm", "lstmcell")
        saved: set[object] = (
            {inst.params_obj}
            if (recurrent or any(a.requires_grad for a in args)) and not frozen_on_grad
            else set()
        )
        if (inst.kind == "layer" or recurrent) and x.is_tensor and x.obj is not None:
            saved.add(x.obj)
        if inst.cls_name == "Sequential" and any(c.kind == "user" for c in inst.seq_children):
            first = self.seq + 1
            out = self.run_children(inst, node, x)
            marker = self.new_site(node, False, tuple(args), frozenset(), inst, call_args)
            marker.inner_from = first
            return _add_site(out, marker)
        if inst.kind == "container" and inst.seq_children:
            saved |= {c.params_obj for c in inst.seq_children[1:] if c.has_params}
            if len([c for c in inst.seq_children if c.has_params]) >= 1 and x.requires_grad:
                saved.add(inst.seq_children[0].params_obj)
        fwd = _entry(inst) if inst.kind == "user" else None
        if fwd is None and inst.kind == "user" and inst.user_class is not None and inst.user_class.sequential:
            # A subclass of nn.Sequential without a forward of its own: its modules, in order.
            first = self.seq + 1
            out = self.run_children(inst, node, x)
            marker = self.new_site(node, False, tuple(args), frozenset(), inst, call_args)
            marker.inner_from = first
            return _add_site(out, marker)
        if fwd is not None:
            if self.can_inline(fwd):
                first = self.seq + 1
                inner = self.inline(
                    fwd, [Val(Grad.NONE, Ty.MODULE, module=inst), *args], kwargs, node, self_inst=None
                )
                marker = self.new_site(node, False, tuple(args), frozenset(), inst, call_args)
                marker.inner_from = first
                marker.frozen = frozen_on_grad
                if (
                    inner.grad is Grad.NONE
                    and inner.cause is not None
                    and not _cuts(inner.cause)
                    and any(a.cause == inner.cause for a in args)
                ):
                    # Its input came back without a graph (a stub's `return x`): nothing was cut,
                    # and what made the input (`torch.from_numpy(z)`) is no reason to tell. An
                    # input cut from its graph (computed under no_grad, detached) is still the reason.
                    inner = inner.with_(cause=None)
                return _add_site(inner, marker)
        shape = shp.module_shape(inst, x.shape)
        site = self.new_site(node, True, tuple(args), frozenset(saved), inst, call_args)
        site.frozen = frozen_on_grad
        site.hazard = inst.hazard
        last = inst.seq_children[-1] if inst.kind == "container" and inst.seq_children else None
        if last is not None and last.kind == "activation" and api.ACTIVATIONS.get(last.cls_name, False):
            # A Sequential ending in Sigmoid (Tanh, Softmax...) saved its own output for backward:
            # changing that output in place (`logits += bias`) makes the backward raise.
            site.saves_own_output = True
        sites = frozenset({site}).union(*(a.sites for a in args))
        out = Val(
            Grad.GRAPH,
            Ty.TENSOR
            if inst.kind in ("layer", "container") and inst.cls_name != "MultiheadAttention"
            else Ty.UNKNOWN,
            sites=sites,
            root=site,
            obj=site,
            shape=shape,
        )
        if inst.kind in ("rnn", "lstm"):
            h = Val(Grad.GRAPH, Ty.TENSOR, sites=sites, root=site, obj=object())
            state = (
                h
                if inst.kind == "rnn"
                else Val(
                    Grad.NONE,
                    Ty.TUPLE,
                    elts=(h, Val(Grad.GRAPH, Ty.TENSOR, sites=sites, root=site, obj=object())),
                )
            )
            return Val(Grad.NONE, Ty.TUPLE, elts=(out.with_(ty=Ty.TENSOR), state))
        if inst.cls_name == "MultiheadAttention":
            # (attn_output, attn_weights); the weights are None with need_weights=False.
            weights = Val(Grad.GRAPH, Ty.TENSOR, sites=sites, root=site, obj=object())
            if inst.kwargs.get("need_weights") is False or self.const_kw(node, "need_weights") is not None:
                weights = UNKNOWN
            return Val(Grad.NONE, Ty.TUPLE, elts=(out.with_(ty=Ty.TENSOR), weights))
        if inst.kind == "lstmcell":  # (h, c)
            c = Val(Grad.GRAPH, Ty.TENSOR, sites=sites, root=site, obj=object())
            return Val(Grad.NONE, Ty.TUPLE, elts=(out.with_(ty=Ty.TENSOR), c))
        return out

    # -- functions in this file --------------------------------------------------------

    def can_inline(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        if isinstance(func, ast.AsyncFunctionDef) or len(self.frames) >= MAX_INLINE_DEPTH:
            return False
        if self.inlines >= MAX_INLINES or any(f.func is func for f in self.frames):
            return False
        for dec in func.decorator_list:
            if self.decorator_mode(dec) is None:
                return False
        return True

    def decorator_mode(self, dec: ast.expr) -> GradMode | None:
        target = dec.func if isinstance(dec, ast.Call) else dec
        is_inference, inference = self.inference_item(dec)
        if is_inference:
            return None if inference is None else inference_grad_mode(inference)
        qual = self.qual_of(target)
        if qual in api.NO_GRAD_CMS:
            return GradMode.OFF
        if qual in api.ENABLE_GRAD_CMS:
            return GradMode.ON
        if isinstance(target, ast.Name) and target.id in ("staticmethod", "classmethod", "property"):
            return GradMode.ON
        return None

    def decorated_inference(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Is ``func`` decorated with `@torch.inference_mode()` (it runs in inference mode)?"""
        return bool(func.decorator_list) and any(
            self.inference_item(dec) == (True, True) for dec in func.decorator_list
        )

    def decorated_mode(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> GradMode:
        for dec in func.decorator_list:
            mode = self.decorator_mode(dec)
            if mode is None:
                return GradMode.MAYBE
            if mode is GradMode.OFF:
                return GradMode.OFF
        return GradMode.ON

    def decorated_enables(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Is ``func`` decorated with `@torch.enable_grad()` (or `@torch.enable_grad`)?"""
        for dec in func.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            if self.qual_of(target) in api.ENABLE_GRAD_CMS:
                return True
        return False

    def call_local(self, fval: Val, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        info = fval.info
        if info is not None and hasattr(info, "is_module"):  # a class defined in this file
            return self.instantiate(info, node, args, kwargs)
        if not isinstance(info, (ast.FunctionDef, ast.AsyncFunctionDef)) or not self.can_inline(info):
            self.escape(args, kwargs)
            return UNKNOWN
        if fval.module is not None:
            bound = binding(info)
            if bound == "classmethod":
                args = [OTHER, *args]  # the class: not modelled
            elif bound == "method":
                receiver = Ty.MODULE if fval.module.kind == "user" else Ty.OTHER
                args = [Val(Grad.NONE, receiver, module=fval.module), *args]
        return self.inline(info, args, kwargs, node, self_inst=None)

    def data_loader(self, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        """`DataLoader(dataset, batch_size=...)` over a dataset class of the program: its batches are
        what torch's default collation makes of one `dataset[i]` (tensors stacked along a new first
        dimension of unknown size: the last batch may be short). Anything it cannot follow (another
        collate_fn, a sampler of batches, an iterable dataset, spread arguments) gives batches of
        which nothing is known."""
        self.escape(args, kwargs)
        loader = Val(Grad.NONE, Ty.OTHER)
        if (
            len(args) > 3
            or any(isinstance(a, ast.Starred) for a in node.args)
            or any(k.arg is None for k in node.keywords)
            or not set(kwargs) <= _PLAIN_LOADER_OPTIONS
        ):
            return loader
        dataset = args[0] if args else kwargs.get("dataset")
        size = args[1] if len(args) > 1 else kwargs.get("batch_size")
        if dataset is None or (size is not None and (size.is_none_literal or size.ty is not Ty.NUMBER)):
            return loader  # `batch_size=None`: samples one by one, not collated
        if isinstance(dataset.info, TensorRows):
            sample = Val(Grad.NONE, Ty.TUPLE, elts=dataset.info.rows)
        else:
            user = dataset.module.user_class if dataset.module is not None else None
            if user is None or "__iter__" in user.methods or "__getitem__" not in user.methods:
                return loader
            method = Val(Grad.NONE, Ty.FUNC, info=user.methods["__getitem__"], module=dataset.module)
            sample = self.call_local(method, node, [Val(Grad.NONE, Ty.NUMBER, info=_AN_INT)], {})
        batch = _collated(sample, self.batch_rows(node, dataset, size, kwargs))
        return loader.with_(info=Batches(batch)) if batch is not None else loader

    def batch_rows(
        self, node: ast.Call, dataset: Val, size: Val | None, kwargs: dict[str, Val]
    ) -> int | None:
        """How many samples every batch holds, when that is one number: the dataset's length and
        the batch size are known, no sampler picks the samples, and either the batches divide the
        samples evenly, or the short last one is dropped, or there is only one batch."""
        batch = 1 if size is None else size.lit[0] if size.lit is not None else None
        if type(batch) is not int or batch < 1 or "sampler" in kwargs:
            return None
        drop = kwargs.get("drop_last")
        if drop is not None and drop.truth is None:
            return None
        total: object
        if isinstance(dataset.info, TensorRows):
            total = dataset.info.length
        else:
            user = dataset.module.user_class if dataset.module is not None else None
            method = user.methods.get("__len__") if user is not None else None
            if method is None:
                return None
            found = self.call_local(Val(Grad.NONE, Ty.FUNC, info=method, module=dataset.module), node, [], {})
            total = found.lit[0] if found.ty is Ty.NUMBER and found.lit is not None else None
        if type(total) is not int or total < 1:
            return None
        if total % batch == 0 or (drop is not None and drop.truth and total >= batch):
            return batch
        return total if total < batch else None

    def tensor_dataset(self, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        """`TensorDataset(x, y)`: sample i is the tuple of each tensor's row i."""
        self.escape(args, kwargs)
        dataset = Val(Grad.NONE, Ty.OTHER)
        if kwargs or not args or any(isinstance(a, ast.Starred) for a in node.args):
            return dataset
        rows = []
        lengths = set()
        for tensor in args:
            if not tensor.is_tensor or tensor.grad is not Grad.NONE:
                return dataset
            shape = tensor.shape[1:] if tensor.shape else None
            lengths.add(tensor.shape[0] if tensor.shape else None)
            rows.append(Val(Grad.NONE, Ty.TENSOR, shape=shape, cause=tensor.cause))
        length = lengths.pop() if len(lengths) == 1 else None
        return dataset.with_(info=TensorRows(tuple(rows), length))

    def set_training(self, inst: ModuleInst, mode: Val) -> None:
        """`model.train(mode)` / `model.eval()`: the module and every module under it, in this state."""
        st = self.st
        if st is None:
            return
        flag = TRUE if mode.truth is True else FALSE if mode.truth is False else NUMBER
        todo, seen = [inst], set()
        while todo:
            m = todo.pop()
            if id(m) in seen:
                continue
            seen.add(id(m))
            st.env[f"{m.key}.training"] = flag
            todo.extend(m.children.values())
            todo.extend(m.seq_children)

    def module_globals(self, func: ast.AST) -> dict[str, Val] | None:
        return None  # provided by Interpreter: a function of another module reads its module's names

    def instantiate(self, info: Any, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        raise NotImplementedError  # provided by Interpreter.instance_val

    def inline(
        self,
        func: ast.FunctionDef | ast.AsyncFunctionDef,
        args: list[Val],
        kwargs: dict[str, Val],
        node: ast.Call | None,
        self_inst: ModuleInst | None,
    ) -> Val:
        """Run a function of this file on these arguments, in the caller's state."""
        caller = self.st
        if caller is None:
            return UNKNOWN
        self.inlines += 1
        if self.module_calls is not None and self.stmt_stack:
            self.module_calls.setdefault(id(self.stmt_stack[0]), (set(), set()))[0].add(func.lineno)
        st = caller.copy()
        params = func.args.posonlyargs + func.args.args
        # The callee sees the heap (attributes of known objects), not the caller's names.
        env: dict[str, Val] = {k: v for k, v in caller.env.items() if k[0] == "@"}
        expanded = self.expand_stars(node, args) if node is not None else None
        if expanded is not None:
            args = expanded  # `super().__init__(*args, **kwargs)` with `args` a known tuple
        spread = node is not None and (
            (expanded is None and any(isinstance(a, ast.Starred) for a in node.args))
            or any(k.arg is None and not self.spread_dicts.get(id(k)) for k in node.keywords)
        )
        if spread and node is not None:
            # Positional arguments up to the first `*x` are known; after it, nothing is.
            first_star = next(
                i for i, a in enumerate([*node.args, None]) if a is None or isinstance(a, ast.Starred)
            )
            offset = len(args) - len(node.args)  # a bound `self` comes first
            args = args[: offset + first_star]
        defaults = func.args.defaults
        first_default = len(params) - len(defaults)
        for i, p in enumerate(params):
            if i < len(args):
                env[p.arg] = args[i]
            elif p.arg in kwargs:
                env[p.arg] = kwargs[p.arg]
            elif spread:
                env[p.arg] = UNKNOWN  # maybe given by `*args` / `**kwargs` at the call
            else:
                given = defaults[i - first_default] if i >= first_default else None
                env[p.arg] = self.default(given, func) if given is not None else UNKNOWN
        for p, d in zip(func.args.kwonlyargs, func.args.kw_defaults, strict=False):
            if p.arg in kwargs:
                env[p.arg] = kwargs[p.arg]
            else:
                env[p.arg] = self.default(d, func) if d is not None and not spread else UNKNOWN
        if func.args.vararg:
            # `*args`: the positional arguments beyond the parameters, when none was spread.
            extra = args[len(params) :] if not spread else None
            env[func.args.vararg.arg] = (
                Val(Grad.NONE, Ty.TUPLE, elts=tuple(extra)) if extra is not None else UNKNOWN
            )
        if func.args.kwarg:
            # `**kwargs`: the keyword arguments no parameter takes (`{}` when there are none), known
            # when nothing was spread into the call.
            if spread:
                env[func.args.kwarg.arg] = UNKNOWN
            else:
                taken = {p.arg for p in params} | {p.arg for p in func.args.kwonlyargs}
                rest = {k: v for k, v in kwargs.items() if k not in taken}
                env[func.args.kwarg.arg] = Val(
                    Grad.NONE, Ty.DICT, keys=tuple(rest), elts=tuple(rest.values())
                )
        if self_inst is not None and params:
            env[params[0].arg] = Val(
                Grad.NONE, Ty.MODULE if self_inst.kind == "user" else Ty.OTHER, module=self_inst
            )
        for name, val in self.closure_env(func).items():
            env.setdefault(name, val)  # a closure's enclosing names
        st.env = env
        mode = self.decorated_mode(func)
        if mode is not GradMode.ON:
            st.mode = mode
        elif self.decorated_enables(func):
            st.mode = GradMode.ON  # `@torch.enable_grad()` records even when called under no_grad
        frame = Frame(func, self_inst=self_inst or (args[0].module if args and params else None))
        frame.globals = self.module_globals(func)
        if node is not None and self.stmt_stack and not spread and expanded is None:
            frame.call_stmt = self.stmt_stack[-1]
            offset = len(args) - len(node.args)  # a bound `self` comes first
            for i, p in enumerate(params):
                if 0 <= i - offset < len(node.args):
                    frame.passed[p.arg] = (node.args[i - offset], args[i])
            for k in node.keywords:
                if k.arg is not None and k.arg in kwargs:
                    frame.passed[k.arg] = (k.value, kwargs[k.arg])
        outer_module_env, outer_inference = self.module_env, self.inference
        if not self.frames:
            self.module_env = caller.env
        if self.decorated_inference(func):
            self.inference = True
        self.frames.append(frame)
        self.callers.append(caller)
        self.st = st
        outer_cuts, self.cut_in_place = self.cut_in_place, []
        try:
            self.block(func.body)  # type: ignore[attr-defined]
            if self.st is not None:
                frame.returns.append((self.st, NONE_VAL))
        finally:
            self.frames.pop()
            self.callers.pop()
            self.module_env, self.inference = outer_module_env, outer_inference
            cuts, self.cut_in_place = self.cut_in_place, outer_cuts
        ends = join_states([s for s, _ in frame.returns])
        if ends is None:
            self.st = None
            return UNKNOWN
        result = frame.returns[0][1]
        for _, v in frame.returns[1:]:
            result = join(result, v)
        if frame.yields or self.is_generator(func):
            # Calling a generator function gives an iterator over what it yields. Its body ran here
            # at once, not interleaved with the consumer: only the yielded values are trusted.
            item = frame.yields[0] if frame.yields else None
            for v in frame.yields[1:]:
                item = join(item, v) if item is not None else None
            result = Val(Grad.NONE, Ty.LIST, item=item)
        # Graph effects carry back to the caller; its names and grad mode are its own.
        caller.freed = ends.freed
        caller.vfreed = ends.vfreed
        caller.dirty = ends.dirty
        caller.retained = ends.retained
        for key in [k for k in caller.env if k[0] == "@"]:
            if key not in ends.env:
                del caller.env[key]
        caller.env.update((k, v) for k, v in ends.env.items() if k[0] == "@")
        if not self.frames:
            # Back in module code: a module list the call changed is that name's value again.
            for key in [k for k in caller.env if k.startswith(GLOBAL_CELL)]:
                caller.env[key[len(GLOBAL_CELL) :]] = caller.env.pop(key)
        self.st = caller
        for tensor in cuts:
            # Detached in place by the callee (`detach_state_(state)`), on some of its paths at
            # least: the caller's bindings of it no longer certainly carry their graph.
            self.retag_tensor(tensor, _graph_not_known)
            self.cut_in_place.append(tensor)
        return result

    def expand_stars(self, node: ast.Call, args: list[Val]) -> list[Val] | None:
        """The positional arguments with each `*x` spread, when every `x` is a tuple or list of
        known elements (else None: after the first `*x` nothing is known)."""
        if not any(isinstance(a, ast.Starred) for a in node.args):
            return None
        offset = len(args) - len(node.args)  # a bound `self` comes first
        if offset < 0:
            return None
        out = list(args[:offset])
        for arg, val in zip(node.args, args[offset:], strict=True):
            if not isinstance(arg, ast.Starred):
                out.append(val)
                continue
            given = self.spread.get(arg)
            if given is None or given.elts is None or given.ty not in (Ty.TUPLE, Ty.LIST):
                return None
            out.extend(given.elts)
        return out

    def is_generator(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        found = self._generators.get(id(func))  # the tree outlives this evaluator: ids are stable
        if found is None:
            found = self._generators[id(func)] = "yield" in self.rep.segment(func) and _is_generator(func)
        return found

    # -- backward ----------------------------------------------------------------------

    def autograd_call(self, name: str, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        kind, form = ("grad", "grad") if name == "grad" else ("backward", "function")
        outputs = args[0] if args else kwargs.get("outputs", kwargs.get("tensors", UNKNOWN))
        target = (
            node.args[0]
            if node.args
            else next((k.value for k in node.keywords if k.arg in ("outputs", "tensors")), None)
        )
        vals = list(outputs.elts) if outputs.elts is not None else [outputs]
        inputs = args[1] if len(args) > 1 else kwargs.get("inputs", UNKNOWN)
        leaves: set[object] = set()
        if inputs.elts is not None and inputs.ty is not Ty.PARAMS:
            given: tuple[Val, ...] = inputs.elts
        elif inputs.ty in (Ty.LIST, Ty.TUPLE) and inputs.item is not None:
            given = (inputs.item,)  # what holds of every element (`list(fast_weights.values())`)
        else:
            given = (inputs,)
        for v in given:
            if v.ty is Ty.PARAMS and isinstance(v.info, tuple):
                for m in v.info:
                    leaves |= m.all_params_objs()
            elif v.grad is Grad.LEAF and v.obj is not None:
                leaves.add(v.obj)
            elif v.grad is Grad.GRAPH and v.root is not None:
                leaves.add(v.root)  # a non-leaf input (fast weights): the pass stops at its node
        self.grad_inputs = frozenset(leaves)
        tensors = [v for v in vals if v.is_tensor]
        if len(tensors) > 1:
            # One pass over all outputs together: their shared buffers are freed once.
            if all(v.grad is Grad.GRAPH for v in tensors):
                combined = Val(
                    Grad.GRAPH,
                    Ty.TENSOR,
                    sites=frozenset().union(*(v.sites for v in tensors)),
                    shape=(),
                    taints=frozenset().union(*(v.taints for v in tensors)),
                )
                self.backward(node, combined, None, kind=kind, form=form)
            elif tensors[0].grad is Grad.NONE:
                # The first output has no graph: the pass raises at it ("element 0 of tensors").
                self.backward(node, tensors[0], target, kind=kind, form=form)
        elif tensors:
            self.backward(node, tensors[0], target, kind=kind, form=form)
        if name == "backward":
            return NONE_VAL
        create = self.autograd_flag(node, "create_graph", "grad")
        if create is True:
            if (
                not tensors
                or not all(v.grad is Grad.GRAPH for v in tensors)
                or self.mode() is not GradMode.ON
            ):
                return Val(Grad.UNKNOWN, Ty.TUPLE)
            # The gradients are computed by a graph of their own that reads the buffers the forward
            # saved: backpropagating them walks those buffers again (a gradient penalty).
            # The gradient graph itself is a node of its own, made here, whose buffers a backward
            # through the gradient frees (Hessian rows: the second row's backward raises).
            made = self.new_site(node, True, tuple(tensors))
            sites = frozenset({made}).union(*(v.sites for v in tensors))
            taints = frozenset().union(*(v.taints for v in tensors))
            grad = Val(Grad.GRAPH, Ty.TENSOR, sites=sites, taints=taints, root=made, obj=object())
            if inputs.elts is not None and inputs.ty is not Ty.PARAMS:
                return Val(Grad.NONE, Ty.TUPLE, elts=tuple(grad for _ in inputs.elts))
            if inputs.is_tensor:
                return Val(Grad.NONE, Ty.TUPLE, elts=(grad,))
            return Val(Grad.NONE, Ty.TUPLE, item=grad)
        flag = self.kw_node(node, "create_graph")
        # A flag that is False here (`create_graph=self.training` after `model.eval()`) is as absent;
        # a literal `create_graph=False` says the constant is meant.
        off = create is False and flag is not None and not isinstance(flag.value, ast.Constant)
        if (create is None or off) and self.mode() is GradMode.ON:
            # Gradients with respect to inputs (a penalty's `mixed`) are marked: folded into a loss
            # they train nothing. With respect to parameters they are an update's step (first-order
            # MAML's `w - lr * g` is constant in `g` on purpose): not a penalty.
            # With respect to known input tensors, of a function that trains: a gradient of a
            # network nothing trains (a teacher's, a reference's) is a constant target on purpose.
            penalty = not _are_parameters(inputs) and self.of_trained(tensors)
            # What the gradient is taken with respect to: `w - lr * g` of one of them is a step.
            wrt = frozenset(v.obj for v in (inputs.elts or (inputs,)) if v.obj is not None and v.is_tensor)
            grad = Val(
                Grad.NONE,
                Ty.TENSOR,
                obj=object(),
                # Parameter gradients become a penalty only once reduced to a number and added to
                # a loss (`loss + (g - mean_g).pow(2).sum()`, see _gradient_terms).
                taints=frozenset({Taint("grad-no-graph" if penalty else "param-grad", node, wrt)}),
                cause=("`torch.autograd.grad` without `create_graph=True`", node),
            )
            inputs = args[1] if len(args) > 1 else kwargs.get("inputs", UNKNOWN)
            n = len(inputs.elts) if inputs.elts is not None else 1
            return Val(Grad.NONE, Ty.TUPLE, elts=tuple(grad for _ in range(n)))
        return UNKNOWN

    def of_trained(self, tensors: list[Val]) -> bool:
        """Do these values' graphs run through a module whose parameters an optimizer steps (or
        one not known: only a graph known to train nothing is excluded)?"""
        modules = [s.module for v in tensors for s in v.sites if s.module is not None and s.module.has_params]
        return not modules or any(m.trained for m in modules) or not self.optimizers

    def backward(
        self, node: ast.Call, val: Val, target: ast.expr | None, kind: str, form: str | None = None
    ) -> None:
        st = self.st
        if st is None:
            return
        form = form or ("grad" if kind == "grad" else "method")
        retain_kw = self.kw_node(node, "retain_graph")
        create = self.autograd_flag(node, "create_graph", form)
        retain_v = self.autograd_flag(node, "retain_graph", form)
        if self.kw_node(node, "inputs") is not None:
            return  # only part of the graph is traversed: not modelled
        if kind == "backward" and isinstance(node.func, ast.Attribute) and val.is_tensor:
            if any(k.arg is not None and k.arg not in _BACKWARD_KEYWORDS for k in node.keywords):
                # `loss.backward(retain_variables=True)` (PyTorch 0.3): a TypeError, nothing runs.
                self.rep.raised = True
                return
        # Whether this pass keeps the graph is not known: it still meets what earlier passes freed
        # or changed, but frees nothing here.
        keeps_unknown = retain_v is _NOT_CONST or create is _NOT_CONST
        retain = not keeps_unknown and (bool(retain_v) or bool(create))
        stmt = self.stmt_stack[-1] if self.stmt_stack else None
        run = BackwardRun(
            node,
            stmt,
            val,
            target,
            self.ipath(),
            self.next_seq(),
            retain,
            retain_kw if retain_v is True else None,
            kind,
            stack=tuple(self.stmt_stack),
            spelled=self.spelled_by_callers(target) if target is not None and self.frames else (),
        )
        self.rep.backward_seen(run)
        if val.taints:
            self.rep.exempt_taints(val.taints, backward=True)
        if val.grad is Grad.NONE:
            if val.ty in (Ty.TENSOR, Ty.NUMBER) and st.mode is not GradMode.MAYBE:
                cause = val.cause[1] if val.cause is not None else None
                penalty = next((t for t in _penalties(val) if t.node is cause), None)
                self.rep.publish(obs.NoGraphBackward(run, penalty, number=val.ty is Ty.NUMBER))
            return
        if val.grad is not Grad.GRAPH:
            if val.grad is Grad.UNKNOWN and val.ty is Ty.TENSOR and st.mode is GradMode.ON:
                # Whatever the rest of the loss is, a constant gradient added to it trains nothing.
                for penalty in _penalties(val):
                    self.rep.publish(obs.PenaltyBackward(run, penalty))
            if val.grad is Grad.UNKNOWN and target is not None and st.mode is not GradMode.OFF:
                # Past a backward that did not raise, the value certainly requires grad.
                path = self.path_of(target)
                if path is not None and path in st.env or isinstance(target, ast.Name):
                    self.rebind(target, Val(Grad.GRAPH, Ty.TENSOR, taints=val.taints, label=val.label))
            return
        given = self.autograd_flag(node, _GRADIENT_ARG[form], form)
        legacy = form == "function" and self.kw_node(node, "grad_variables") is not None
        has_gradient = given is not None or legacy
        if not has_gradient and (shp.not_scalar(val.shape) or val.plural):
            # `torch.autograd.grad(out, x)` without `grad_outputs=` raises as `out.backward()` does.
            self.rep.publish(obs.NonScalarBackward(run, val.shape))
        # The order matters: a freed buffer raises before a version check would.
        ordered = sorted(val.sites, key=lambda s: getattr(s, "seq", 0))
        # A graph older than a pass over nodes that are not known may have been freed by it: torch
        # would then raise that error first, not the version check, so no version error is claimed.
        blind = max((seq for seq in self.rep.blind_backwards if seq < run.seq), default=0)
        if not retain and _anonymous_part(val, self.rep.anonymous_inputs):
            self.rep.blind_backwards.append(run.seq)
        reported = False
        for site in ordered:
            if site.saves and site in st.freed:
                run.reached = site
                self.rep.reuse(run, site, st.freed[site], self.loops, virtual=False)
                reported = True
                break
        if not reported:
            changes: set[object] = set()
            for site in ordered:
                dirt = st.dirty.get(site) if site.seq > blind else None
                key = "step" if dirt is not None and dirt.kind == "step" else id(dirt.node) if dirt else None
                if dirt is not None and key not in changes:
                    # Every in-place write that alone would make this backward raise is one to fix
                    # (two noise buffers resampled in place), each reported at its own statement.
                    # Steps are one story: the loss is to be computed after them.
                    changes.add(key)
                    if run.changed is None:
                        run.changed, run.changed_by = site, dirt.node
                    self.rep.dirty_backward(run, site, dirt, self.loops, self.peek)
                    reported = True
        if not reported:
            for site in ordered:
                if site.hazard is not None and site not in st.freed:
                    self.rep.publish(obs.SequentialHazard(run, site.node, *site.hazard))
                    break
        if not any(site.saves and site in st.freed for site in ordered):
            for site in ordered:
                if site.saves and site in st.vfreed:
                    self.rep.reuse(run, site, st.vfreed[site], self.loops, virtual=True)
                    break
        for taint in _penalties(val):
            self.rep.publish(obs.PenaltyBackward(run, taint))
        if self.rep.raised and self.rep.raised_code in _FIXED_IN_PLACE:
            # The fix of that bug is a detach in the discriminator's input or a step moved after
            # this backward: the program then goes on, so a second such bug further down (the other
            # discriminator's update) is shown too. This pass is taken to change nothing: it frees
            # and adds nothing, so nothing after it can be blamed on it.
            self.rep.raised = False
            return
        if kind == "backward":
            self.grads_added(val)
        # Free what this pass traversed.
        if keeps_unknown:
            return
        if kind == "grad":
            # autograd.grad runs only the nodes between the outputs and the inputs.
            inputs = self.grad_inputs
            to_free = [s for s in ordered if s.saves and _on_path(s, inputs, {})] if inputs else []
        else:
            to_free = [s for s in ordered if s.saves]
        if not retain:
            run.frees = tuple(to_free)
        for site in to_free:
            if retain:
                st.retained[site] = run
                if run.retain_kw is not None and self.loops:
                    st.vfreed.setdefault(site, run)
            else:
                st.freed.setdefault(site, run)


class _NotConst:
    def __repr__(self) -> str:
        return "<not constant>"


_NOT_CONST = _NotConst()


# Calls a comprehension of plain values may make: of the builtins that make numbers or strings, and
# of str's methods (a number has none of these names).
_SCALAR_FUNCS = frozenset({"str", "int", "float", "len", "bool"})
_STR_METHODS = frozenset({"startswith", "endswith", "format", "lower", "upper", "strip", "replace", "join"})


def _scalar_expr(node: ast.AST) -> bool:
    """Is ``node`` computed from names and constants by operators, f-strings and plain builtins only
    (nothing that could hold or make a tensor, or change anything)?"""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        known = (isinstance(func, ast.Name) and func.id in _SCALAR_FUNCS) or (
            isinstance(func, ast.Attribute) and func.attr in _STR_METHODS and _scalar_expr(func.value)
        )
        return known and not node.keywords and all(_scalar_expr(a) for a in node.args)
    if isinstance(node, (ast.JoinedStr, ast.FormattedValue, ast.Compare, ast.BoolOp, ast.BinOp, ast.UnaryOp)):
        return all(_scalar_expr(c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr))
    if isinstance(node, ast.IfExp):
        return _scalar_expr(node.test) and _scalar_expr(node.body) and _scalar_expr(node.orelse)
    return False


def _scalar_comprehension(node: ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp) -> bool:
    """A comprehension of one loop over a plain name whose elements and filters are plain values."""
    if isinstance(node, ast.DictComp) or len(node.generators) != 1:
        return False
    gen = node.generators[0]
    return (
        isinstance(gen.target, ast.Name)
        and not gen.is_async
        and _scalar_expr(node.elt)
        and all(_scalar_expr(c) for c in gen.ifs)
    )


def _indexes_with(node: ast.expr, name: str) -> bool:
    """Does ``node`` subscript something with ``name`` (`x[i]`, `convs[i - 1]`)?"""
    return any(
        isinstance(n, ast.Subscript)
        and any(isinstance(k, ast.Name) and k.id == name for k in ast.walk(n.slice))
        for n in ast.walk(node)
    )


def _selects_trainable(node: ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp) -> bool:
    """A comprehension that keeps its elements as they are, all of them or those that require grad."""
    if isinstance(node, (ast.SetComp, ast.DictComp)) or len(node.generators) != 1:
        return False
    gen = node.generators[0]
    if not isinstance(gen.target, ast.Name) or gen.is_async:
        return False
    name = gen.target.id
    if not (isinstance(node.elt, ast.Name) and node.elt.id == name):
        return False
    return all(
        isinstance(c, ast.Attribute)
        and c.attr == "requires_grad"
        and isinstance(c.value, ast.Name)
        and c.value.id == name
        for c in gen.ifs
    )


def acc_taints(stmt: ast.stmt, key: object) -> frozenset[Taint]:
    """Marks of an accumulation: "accumulated" survives a join if any path has it (a consumer on
    any path exempts the finding); "carried" only if every path has it (what an earlier iteration
    put there is certainly still there: no path reset it)."""
    return frozenset({Taint("accumulated", stmt, key), Taint("carried", stmt, key)})


FREEZE_CAUSE = "freezing the parameters (`requires_grad = False`)"


def _plain_module_class(cls: Any) -> bool:
    """Does a module class of the project register parameters only by assigning attributes (so
    that its attributes show them all)? Not when it extends a torch layer or `nn.Sequential`, has
    other bases than `nn.Module` and the project's classes, or registers by other means."""
    for c in mro(cls):
        if c.torch_base is not None or c.sequential:
            return False
        for base in c.node.bases:
            named = _word(base)
            if named != "Module" and not any(b.node.name == named for b in c.bases):
                return False
        if {"parameters", "named_parameters", "__setattr__"} & c.methods.keys():
            return False
        for node in ast.walk(c.node):
            if _word(node).startswith(_OTHER_REGISTRATIONS):
                return False
    return True


def _word(node: ast.AST) -> str:
    """The name a name or attribute node spells last (`nn.Module` -> "Module"); else ""."""
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


# Ways a module class may register parameters or modules that its attributes do not show.
_OTHER_REGISTRATIONS = ("Parameter", "register_parameter", "register_module", "setattr", "__dict__")
_MAX_NAMED_PARAMS = 256
_MAX_MODULE_DEPTH = 12


def _string_call(node: ast.expr) -> bool:
    """`name.startswith(...)`, `any(...)`, `all(...)`: calls whose outcome the evaluation gives
    (as `truth`) for known strings."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name):
        return node.func.id in ("any", "all")
    return isinstance(node.func, ast.Attribute) and node.func.attr in ("startswith", "endswith")


def _known_children(inst: ModuleInst) -> list[tuple[object, ModuleInst]] | None:
    """A torch container's children in order, with their names (`"0"`, `"1"`... for a Sequential or
    ModuleList), when every one is known."""
    if inst.cls_name in ("Sequential", "ModuleList") and inst.seq_children and not inst.children:
        return [(str(i), m) for i, m in enumerate(inst.seq_children)]
    if inst.cls_name == "ModuleDict" and inst.children:
        return list(inst.children.items())
    return None


def _int_items(key: ast.expr, val: Val) -> Callable[[ast.expr], bool]:
    """Which items of a subscript's key are known Python ints (`h // 2` on a known size), from the
    key's value: the tuple's elements, or the key itself."""
    items = key.elts if isinstance(key, ast.Tuple) else [key]
    vals = val.elts if isinstance(key, ast.Tuple) else (val,)
    if vals is None or len(vals) != len(items):
        return lambda k: False
    known = {
        id(k)
        for k, v in zip(items, vals, strict=True)
        if v.ty is Ty.NUMBER and ((v.lit is not None and type(v.lit[0]) is int) or v.info is _AN_INT)
    }
    return lambda k: id(k) in known


def gen_binds_fresh(node: ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp) -> bool:
    """Is the element made anew for each element (a call), not a name bound by the loop?"""
    elt = node.value if isinstance(node, ast.DictComp) else node.elt
    return isinstance(elt, ast.Call)


def tensor_rows(it: Val) -> Val | None:
    """What iterating a tensor binds: its rows, views sharing its version counter, its graph (or
    why it has none). None for anything else."""
    if it.ty is not Ty.TENSOR or it.grad not in (Grad.NONE, Grad.GRAPH):
        return None
    rows = it.shape[1:] if it.shape else None
    return Val(it.grad, Ty.TENSOR, sites=it.sites, obj=it.obj, shape=rows, taints=it.taints, cause=it.cause)


def _anonymous_part(val: Val, memo: dict[Site, bool]) -> bool:
    """Does the graph hold a part whose nodes are not known (an input that has a graph, but no
    node of it is known: the joined elements of a rollout's list)? A backward then frees nodes
    the analysis cannot name. (``val.sites`` holds every node known; ``memo``: per node.)"""
    if val.grad is Grad.GRAPH and not val.sites:
        return True
    for site in val.sites:
        found = memo.get(site)
        if found is None:
            found = memo[site] = any(v.grad is Grad.GRAPH and not v.sites for v in site.inputs)
        if found:
            return True
    return False


def _chained_layers(inst: ModuleInst) -> set[object]:
    """The parameters of an `nn.Sequential`'s torch layers (nested Sequentials included): a backward
    through the container passes every one of them. A layer of the user's own class may leave some
    of its parameters out, so it adds none."""
    out: set[object] = set()
    if inst.cls_name != "Sequential" or inst.user_class is not None:
        return out
    for child in inst.seq_children:
        if child.cls_name == "Sequential":
            out |= _chained_layers(child)
        elif child.user_class is None and child.has_params and not child.frozen:
            out.add(child.params_obj)
    return out


def _size_val(shape: shp.Shape) -> Val:
    """A tensor's `torch.Size`: a tuple of its sizes, each a known number where the shape knows it."""
    return Val(
        Grad.NONE,
        Ty.TUPLE,
        elts=tuple(Val(Grad.NONE, Ty.NUMBER, lit=(d,)) if d is not None else NUMBER for d in shape),
    )


def _str_key(key: ast.expr) -> bool:
    """Is this subscript a string constant (or a tuple holding one)?"""
    if isinstance(key, ast.Tuple):
        return any(_str_key(e) for e in key.elts)
    return isinstance(key, ast.JoinedStr) or (isinstance(key, ast.Constant) and isinstance(key.value, str))


def _basic_key(key: ast.expr, number: Callable[[ast.expr], bool] | None = None) -> bool:
    """Basic indexing (ints, slices, None, ...), which gives a view; a tensor or list index copies.
    ``number``: is a name a Python number (`self.edge_base_log_probs[edge_idx]`, a counter)?"""
    parts = key.elts if isinstance(key, ast.Tuple) else [key]
    return all(
        isinstance(p, ast.Slice)
        or (isinstance(p, ast.Constant) and (type(p.value) is int or p.value is None or p.value is ...))
        or (isinstance(p, ast.UnaryOp) and type(getattr(p.operand, "value", None)) is int)
        or (number is not None and isinstance(p, ast.Name) and number(p))
        for p in parts
    )


def carries_graph(val: Val, depth: int = 3) -> bool:
    """A tensor with a graph, or a tuple/list/dict record holding one (`{"loss": loss, ...}`)."""
    if val.grad is Grad.GRAPH:
        return True
    return depth > 0 and val.elts is not None and any(carries_graph(e, depth - 1) for e in val.elts)


def _best_cause(vals: tuple[Val, ...] | list[Val]) -> tuple[str, ast.AST] | None:
    """Why a result has no graph: a cut (detach, argmax, no_grad, .item()) rather than the plain
    creation of an input tensor (`torch.randn(...)`)."""
    causes = [v.cause for v in vals if v.cause is not None]
    # A creation is said as the bare function (`torch.zeros`): one backticked word and nothing else.
    cuts = [c for c in causes if not (c[0].startswith("`torch.") and c[0].count("`") == 2)]
    if cuts:
        return cuts[0]
    # Only creations: they explain it when every tensor input is one of them. Beside a tensor without
    # a graph for no known reason (a stub model's output), the labels' `torch.ones` is no reason.
    if causes and not any(v.is_tensor and v.cause is None for v in vals):
        return causes[0]
    return None


def _loss_none_shape(name: str, shape: shp.Shape | None) -> shp.Shape | None:
    """The shape of a loss with ``reduction="none"``: per element, or per sample for class losses."""
    if shape is None:
        return None
    if name in ("CrossEntropyLoss", "NLLLoss", "cross_entropy", "nll_loss"):
        return (shape[0], *shape[2:]) if len(shape) >= 2 else None
    return shape


def _chunks(
    node: ast.Call, arg_nodes: Any, shape: shp.Shape | None, count: int
) -> tuple[int, shp.Shape | None]:
    """How many pieces ``x.chunk(count, dim)`` gives, and the shape of each (``arg_nodes``: the
    arguments after the tensor). Of a dim of known size: ceil(size / ceil(size / count)) pieces,
    fewer than ``count`` when the dim is shorter; the split size is known when ``count`` divides
    it (else the last piece is smaller); the other sizes stay."""
    dim_node = (
        arg_nodes[1] if len(arg_nodes) > 1 else next((k.value for k in node.keywords if k.arg == "dim"), None)
    )
    if shape is None:
        return count, None
    d = shp.norm_dim(0 if dim_node is None else shp.int_const(dim_node), len(shape))
    if d is None:
        return count, None
    size = shape[d]
    split = size // count if size is not None and size % count == 0 else None
    if size is not None and size > 0:
        count = -(-size // -(-size // count))
    return count, (*shape[:d], split, *shape[d + 1 :])


def _reduced_shape(
    node: ast.Call, arg_nodes: Any, shape: shp.Shape | None, args: list[Val]
) -> shp.Shape | None:
    """``x.sum(dim)`` / ``x.mean(dim=k, keepdim=...)`` / ``torch.mean(x, 1)`` with a constant dim on
    a known shape (``arg_nodes``: the arguments after the tensor)."""
    dim_node = (
        arg_nodes[0] if arg_nodes else next((k.value for k in node.keywords if k.arg == "dim"), None)
    )
    keep = next((k.value for k in node.keywords if k.arg == "keepdim"), None)
    keepdim = (
        False
        if keep is None
        else keep.value
        if isinstance(keep, ast.Constant) and type(keep.value) is bool
        else None
    )
    if isinstance(dim_node, (ast.List, ast.Tuple)) and dim_node.elts and shape is not None:
        # `x.mean([1, 2])`: each dim reduced, the highest first so the others keep their place.
        dims = [shp.norm_dim(shp.int_const(e), len(shape)) for e in dim_node.elts]
        if None in dims or len(set(dims)) != len(dims):
            return None
        out: shp.Shape | None = shape
        for d in sorted(cast(list[int], dims), reverse=True):
            out = shp.reduced(out, d, keepdim)
        return out
    dim = shp.int_const(dim_node) if dim_node is not None else None
    if dim is None and node.args and args and args[0].lit is not None and type(args[0].lit[0]) is int:
        dim = args[0].lit[0]
    return shp.reduced(shape, dim, keepdim)


def _before_this_run(ipath: IPath, active: dict[int, int]) -> bool:
    """Was a node made at ``ipath`` made before the current run of the loops that have ended: in
    an enclosing loop's earlier iteration (state carried into this run), or in no ended loop?"""
    for loop, iteration in ipath:
        if loop not in active:
            return False
        if active[loop] != iteration:
            return True
    return True


def _shared_part(val: Val, active: dict[int, int], depth: int) -> Val:
    """``val`` without the graph nodes made in loops that have ended (see ``_element``)."""
    if val.sites:
        keep = frozenset(x for x in val.sites if _before_this_run(x.ipath, active) and not x.per_element)
        if keep != val.sites:
            val = val.with_(sites=keep, root=val.root if val.root in keep else None)
    if val.elts is not None and depth > 0:
        val = val.with_(elts=tuple(_shared_part(e, active, depth - 1) for e in val.elts))
    return val


# Any list changed in a way that moves its elements (see Evaluator._keeps_order).
_REORDERS = re.compile(r"\.\s*(pop|remove|insert|sort|reverse|clear)\s*\(|shuffle|\bdel\s+[\w.]+\s*\[")


def _graph_not_known(val: Val) -> Val:
    return val.with_(grad=Grad.UNKNOWN, sites=frozenset(), root=None, cause=None)


# The positional parameters of a backward pass, by form (see Evaluator.autograd_flag): torch's
# `Tensor.backward`, `torch.autograd.backward` and `torch.autograd.grad` signatures.
_AUTOGRAD_PARAMS = {
    "method": ("gradient", "retain_graph", "create_graph", "inputs"),
    "function": ("tensors", "grad_tensors", "retain_graph", "create_graph", "grad_variables", "inputs"),
    "grad": ("outputs", "inputs", "grad_outputs", "retain_graph", "create_graph", "only_inputs"),
}
_GRADIENT_ARG = {"method": "gradient", "function": "grad_tensors", "grad": "grad_outputs"}


def _autograd_positional(node: ast.Call, name: str, form: str) -> ast.expr | None:
    """The argument given by position for parameter ``name`` of a backward pass (a `*args` spread
    before or at it: the spread itself, not known)."""
    index = _AUTOGRAD_PARAMS[form].index(name)
    for i, arg in enumerate(node.args):
        if isinstance(arg, ast.Starred):
            return arg
        if i == index:
            return arg
    return None


def _bound_in(loop: ast.AST) -> frozenset[str]:
    """The plain names a loop's body binds by assignment."""
    return frozenset(
        t.id
        for n in ast.walk(loop)
        if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))
        for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        if isinstance(t, ast.Name)
    )


def _element(seq: Val, active: dict[int, int]) -> Val:
    """One element of a sequence value (a list, a tuple, a module list), as far as it is known.

    An element summary of a list filled in a loop stands for many runtime values: the graph
    nodes made inside that (finished) loop are a different node in each element, so one
    element does not certainly hold them; nodes made before that loop are shared by all."""
    if seq.ty in (Ty.LIST, Ty.TUPLE):
        item = elements(seq)
        if item is None or item is EMPTY:
            return UNKNOWN
        if seq.elts is None:
            item = _shared_part(item, active, 3)
        return item.with_(taints=item.taints | seq.taints) if seq.taints else item
    if seq.ty is Ty.PARAMS and seq.elts:
        return seq.elts[0]
    if isinstance(seq.info, Batches):
        return seq.info.batch  # a DataLoader over a dataset of the program
    if seq.module is not None and seq.module.seq_children:
        children = seq.module.seq_children
        if all(c is children[0] for c in children):
            return Val(Grad.NONE, Ty.MODULE, module=children[0])
    return UNKNOWN


def _item_at(base: Val, key: ast.expr) -> Val | None:
    """``base[key]`` for a dict with known keys, or known elements at a constant index (UNKNOWN
    when that key or index is not there); None when the value is neither."""
    if base.ty is Ty.DICT:
        return _dict_get(base, key)
    if base.elts is not None and isinstance(key, ast.Constant) and isinstance(key.value, int):
        i = key.value
        return base.elts[i] if -len(base.elts) <= i < len(base.elts) else UNKNOWN
    return None


def _store_item(container: Val, key: ast.expr, val: Val) -> Val:
    """``container[key] = val`` on a list or dict value: exact when the key is a known constant."""
    taints = container.taints | val.taints
    if container.ty is Ty.DICT:
        if container.keys is not None and container.elts is not None and isinstance(key, ast.Constant):
            if key.value in container.keys:
                i = container.keys.index(key.value)
                elts = (*container.elts[:i], val, *container.elts[i + 1 :])
                return container.with_(elts=elts, taints=taints)
            if isinstance(key.value, (str, int)) and not isinstance(key.value, bool):
                return container.with_(
                    elts=(*container.elts, val), keys=(*container.keys, key.value), taints=taints
                )
        # A key not known (`losses[f"loss/{scale}"] = loss`): the keys are no longer known, but what
        # holds of every value still may (each value it had, and this one).
        if container.elts is not None:
            every: Val | None = val
            for old in container.elts:
                every = join(every, old) if every is not None else None
        else:
            every = join(container.item, val) if container.item is not None else None
        return Val(Grad.NONE, Ty.DICT, item=every, taints=taints)
    if container.elts is not None and isinstance(key, ast.Constant) and isinstance(key.value, int):
        i = key.value
        n = len(container.elts)
        if -n <= i < n:
            i %= n
            elts = (*container.elts[:i], val, *container.elts[i + 1 :])
            return container.with_(elts=elts, taints=taints, held=frozenset())  # an element replaced
    item = elements(container)
    joined = val if item is EMPTY else join(item, val) if item is not None else None
    return Val(Grad.NONE, Ty.LIST, item=joined, taints=taints)


def _dict_change(
    d: Val, name: str, node: ast.Call, args: list[Val], kwargs: dict[str, Val]
) -> tuple[Val, Val | None]:
    """A dict of known keys after `d.update(other)` (another of known keys, or keywords),
    `d.clear()` or `d.pop(key)` with a known key, and what the call returns (None: not known).
    Any other change: a dict of which nothing is known."""
    unknown = Val(Grad.NONE, Ty.DICT, taints=d.taints)
    if d.keys is None or d.elts is None or any(isinstance(a, ast.Starred) for a in node.args):
        return unknown, None
    if any(k.arg is None for k in node.keywords):
        return unknown, None
    if name == "clear" and not args and not kwargs:
        return d.with_(elts=(), keys=()), NONE_VAL
    if name == "pop" and len(node.args) == 1 and not kwargs and isinstance(node.args[0], ast.Constant):
        key = node.args[0].value
        for i, k in enumerate(d.keys):
            if k == key and type(k) is type(key):
                rest = (d.keys[:i] + d.keys[i + 1 :], d.elts[:i] + d.elts[i + 1 :])
                return d.with_(keys=rest[0], elts=rest[1]), d.elts[i]
        return unknown, None
    if name != "update" or len(args) > 1:
        return unknown, None
    pairs: list[tuple[Any, Val]] = []
    if args:
        other = args[0]
        if other.ty is not Ty.DICT or other.keys is None or other.elts is None:
            return unknown, None
        pairs.extend(zip(other.keys, other.elts, strict=True))
    pairs.extend(kwargs.items())
    out = d
    for key, val in pairs:
        if not isinstance(key, (str, int)) or isinstance(key, bool):
            return unknown, None
        out = _store_item(out, ast.Constant(value=key), val)
    return out, NONE_VAL


def _dict_get(d: Val, key: ast.expr) -> Val:
    """``d[key]`` for a constant key of a dict whose keys are known."""
    if d.elts is None or d.keys is None:
        return d.item or UNKNOWN  # keys unknown: what holds of every value, if anything
    if not isinstance(key, ast.Constant):
        return UNKNOWN
    for k, v in zip(d.keys, d.elts, strict=False):
        if k == key.value and type(k) is type(key.value):
            return v
    if isinstance(d.info, DefaultValue) and type(key.value) in (str, int):
        return d.info.val
    if d.info is LIST_DEFAULT and type(key.value) in (str, int):
        return Val(Grad.NONE, Ty.LIST, elts=())  # `defaultdict(list)`: a new empty list
    if d.info is DICT_DEFAULT and type(key.value) in (str, int):
        return Val(Grad.NONE, Ty.DICT, elts=(), keys=())  # `defaultdict(dict)`: a new empty dict
    return UNKNOWN


# `info` of a `defaultdict(list)` value: a missing key reads as a new empty list.
LIST_DEFAULT = "defaultdict(list)"
DICT_DEFAULT = "defaultdict(dict)"  # and of a `defaultdict(dict)`: a new empty dict


@record(frozen=True, slots=True)
class DefaultFactory:
    """`info` of a `defaultdict(SomeClass)`: a missing key read gets a new instance, kept there."""

    val: Val
    node: ast.expr


@record(frozen=True, slots=True)
class DefaultValue:
    """`info` of a `defaultdict(lambda: ...)`: what a missing key reads as."""

    val: Val


def _rooted_at_self(node: ast.expr) -> bool:
    """``self.optimizer``, ``self.opts.optimizer``: an attribute path starting at ``self``."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id == "self"


def _backward_of(flags: frozenset[object]) -> ast.AST | None:
    """The backward statement recorded in an optimizer's `.grad` state (see grads_added)."""
    return next((f for f in flags if isinstance(f, ast.AST)), None)


def _key_val(key: object) -> Val:
    """A dict's key as a value (a loop over the dict binds it)."""
    return Val(Grad.NONE, Ty.OTHER if isinstance(key, str) else Ty.NUMBER, lit=(key,))


def binding(func: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """What a call through an instance binds first: the instance, the class, or nothing."""
    for dec in func.decorator_list:
        if isinstance(dec, ast.Name) and dec.id in ("staticmethod", "classmethod"):
            return dec.id
    return "method"


def _is_generator(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Does the function's own body (not a nested function's) yield?"""
    stack: list[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _target_names(target: ast.expr) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def constant(node: ast.Constant) -> Val:
    if node.value is None:
        return NONE_VAL
    if isinstance(node.value, bool):
        return TRUE if node.value else FALSE
    value = node.value
    if isinstance(value, (int, float, str)):
        key = (type(value), value)
        known = _CONSTANTS.get(key)
        if known is None:
            known = Val(Grad.NONE, Ty.OTHER if isinstance(value, str) else Ty.NUMBER, lit=(value,))
            if len(_CONSTANTS) < 4096:  # values are never changed in place: one per literal
                _CONSTANTS[key] = known
        return known
    return OTHER


_CONSTANTS: dict[tuple[type, object], Val] = {}


def _element_names(loop: ast.For | ast.AsyncFor) -> frozenset[str]:
    """The names that hold (parts of) the element a loop is at: its targets, and names its body
    unpacks from them before anything else (`for t in buf: s, a, logp = t`)."""
    names = set(_target_names(loop.target))
    for stmt in loop.body:
        if not (isinstance(stmt, ast.Assign) and _only_names(stmt.value, frozenset(names))):
            break
        names.update(n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return frozenset(names)


def _carried(loop: ast.For | ast.AsyncFor, name: str) -> bool:
    """Is ``name`` state the loop carries: read by its body before the body binds it again?"""
    for stmt in loop.body:
        reads = any(
            isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(stmt)
        )
        if reads:
            return any(
                isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                for s in loop.body
                for n in ast.walk(s)
            )
        if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(stmt)):
            return False  # bound before any read: fresh each iteration
    return False


def _only_names(node: ast.expr, names: frozenset[str]) -> bool:
    """Is the expression made of these names only (in tuples, lists, items and attributes)?"""
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, (ast.Tuple, ast.List)):
        return bool(node.elts) and all(_only_names(e, names) for e in node.elts)
    if isinstance(node, (ast.Subscript, ast.Attribute)):
        return _only_names(node.value, names)
    return False


# Methods named like in-place ops that autograd does not see as writes: `share_memory_` moves the
# storage (allowed on a leaf that requires grad); `apply_`/`map_`/`map2_` refuse any tensor that
# requires grad with an error of their own.
_NOT_AUTOGRAD_WRITES = frozenset({"share_memory_", "apply_", "map_", "map2_"})
# Methods in BREAK_TO_TENSOR whose result, called with no argument, has the receiver's shape.
_SAME_SHAPE_BREAKS = frozenset(
    {"long", "int", "bool", "byte", "short", "char", "isnan", "isinf", "isfinite", "logical_not"}
)

# Tensor.backward's keywords: any other raises TypeError before anything is done.
_BACKWARD_KEYWORDS = frozenset({"gradient", "retain_graph", "create_graph", "inputs"})


def _are_parameters(inputs: Val) -> bool:
    """Could these `autograd.grad` inputs be a module's parameters (`model.parameters()`, a list or
    the values of a dict of them, or inputs not known)? Only gradients with respect to known other
    tensors (a penalty's `mixed`) are taken for a penalty."""
    if inputs.ty is Ty.PARAMS:
        return True
    members = [*(inputs.elts or ()), *((inputs.item,) if inputs.item is not None else ())]
    if not members and inputs.is_tensor:
        members = [inputs]
    if not members or not all(m.is_tensor or m.ty is Ty.PARAMS for m in members):
        return True  # not known to be inputs: not claimed to be a penalty
    return all(
        m.ty is Ty.PARAMS or (owner := param_module(m)) is not None and m.obj is owner.params_obj
        for m in members
    )


def _holds_grad_tensor(val: Val) -> bool:
    """A list or tuple certainly holding a tensor that requires grad: a known element, or, when
    it certainly has an element, what holds of every one."""
    if val.ty not in (Ty.LIST, Ty.TUPLE):
        return False
    if val.elts is not None:
        return any(e.requires_grad for e in val.elts)
    return _certainly_nonempty(val) and val.item is not None and val.item.requires_grad


_GRADIENT_TAINTS = frozenset({"grad-no-graph", "param-grad"})


def _gradient_terms(op: ast.operator, left: Val, right: Val) -> tuple[Val, Val]:
    """What a constant gradient (``torch.autograd.grad`` without ``create_graph=True``) still is
    after ``left + right`` or ``left - right`` with a value that may carry a graph. Added to the
    very tensor it is the gradient of (`w - lr * g`, first-order MAML), it is a step, constant on
    purpose: no penalty. A gradient of the weights counts as a penalty only once reduced to a
    number and added to a loss (`loss + 0.1 * grad_w.pow(2).sum()`); a gradient of an input
    counts wherever it goes (a PINN's `du_dt + k * u`)."""
    if not isinstance(op, (ast.Add, ast.Sub)):
        return left, right
    out = []
    for this, other in ((left, right), (right, left)):
        marked = [t for t in this.taints if t.kind in _GRADIENT_TAINTS]
        if marked and other.grad is not Grad.NONE:
            # A step whatever else went into it: DeepFool's `image + |f| / |w|**2 * w` has a graph
            # through `f`, and is still the input moved along its own gradient.
            step = {t for t in marked if isinstance(t.key, frozenset) and other.obj in t.key and other.obj}
            if step:
                this = this.with_(taints=this.taints - step)
            elif this.grad is Grad.NONE and this.shape == ():
                promoted = {Taint("grad-no-graph", t.node) for t in marked if t.kind == "param-grad"}
                this = this.with_(taints=this.taints | promoted)
        out.append(this)
    return out[0], out[1]


def _unmark_weights(this: Val, other: Val) -> Val:
    """``this`` in a product (quotient, power) with ``other``: a constant gradient in it is no
    penalty once ``other`` has a graph."""
    if not other.requires_grad:
        return this
    taints = _without_penalty(this.taints)
    return this if taints is this.taints else this.with_(taints=taints)


def _without_penalty(taints: frozenset[Taint]) -> frozenset[Taint]:
    """These marks without GG202's penalty marks (the same set when it has none)."""
    if not any(t.kind == "grad-no-graph" for t in taints):
        return taints
    return frozenset(t for t in taints if t.kind != "grad-no-graph")


def _certainly_nonempty(val: Val) -> bool:
    """Does iterating over this certainly give at least one element?"""
    if val.elts is not None:
        return bool(val.elts)
    return val.ty is Ty.LIST and (val.nonempty or bool(val.held))


def known_truth(val: Val) -> bool | None:
    """``bool(val)`` where certain: None, a known number or string, a function, class or module."""
    if val.ty is Ty.NONE_OBJ:
        return False
    if val.lit is not None and isinstance(val.lit[0], (int, float, str)):
        return bool(val.lit[0])
    if val.ty is Ty.NUMBER and val.truth is not None:
        return val.truth
    if val.ty in (Ty.FUNC, Ty.QUAL, Ty.MODULE, Ty.OPTIMIZER):
        return True
    if val.ty in (Ty.LIST, Ty.TUPLE, Ty.DICT) and val.elts is not None:
        return bool(val.elts)  # a container whose elements are all known: empty or not
    return None


def _default(node: ast.expr) -> Val:
    """A parameter's default value, when it is a literal (``None``, a number, a tuple of them)."""
    if isinstance(node, ast.Constant):
        return constant(node)
    if isinstance(node, ast.Tuple) and all(isinstance(e, ast.Constant) for e in node.elts):
        return Val(Grad.NONE, Ty.TUPLE, elts=tuple(_default(e) for e in node.elts))
    value = _literal(node)  # a negative number
    return constant(ast.Constant(value)) if isinstance(value, (int, float)) else UNKNOWN


_FUNCTIONAL_CALLS = frozenset({"torch.func.functional_call", "torch.nn.utils.stateless.functional_call"})

# Tensor methods whose arguments besides the tensor are sizes, dims, orders or flags.
_SIZE_ARGUMENTS = frozenset(
    {"view", "reshape", "repeat", "expand", "permute", "transpose", "flatten", "squeeze", "unsqueeze"}
    | {"narrow", "select", "roll", "flip", "tile", "unflatten", "movedim", "swapaxes", "swapdims"}
    | {"sum", "mean", "norm", "std", "var", "amax", "amin", "logsumexp", "cumsum", "prod"}
    | {"softmax", "log_softmax"}
)


_UNSET = object()  # an option whose default is not known here


_DATA_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
# Options that change neither what one batch is made of nor how (order, workers, memory).
_PLAIN_LOADER_OPTIONS = frozenset(
    {"dataset", "batch_size", "shuffle", "sampler", "num_workers", "drop_last", "pin_memory"}
    | {"persistent_workers", "prefetch_factor", "timeout", "worker_init_fn", "generator"}
)


_AN_INT = "a Python int"  # the `info` of a number known to be an int (the index a sampler gives)


_TENSOR_DATASETS = frozenset({"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})


class KnownRange:
    """`range(...)` of known numbers, short enough to follow number by number (see _range_of)."""

    __slots__ = ("numbers",)

    def __init__(self, numbers: tuple[int, ...]) -> None:
        self.numbers = numbers


def _range_of(args: list[Val], node: ast.Call) -> Val:
    """A `range(...)`: its numbers when every bound is a known int and there are few of them."""
    known = [a.lit[0] if a.lit is not None and a.ty is Ty.NUMBER else None for a in args]
    if node.keywords or not 1 <= len(known) <= 3 or any(type(k) is not int for k in known):
        return Val(Grad.NONE, Ty.OTHER)
    bounds = [k for k in known if type(k) is int]
    length = range_len(bounds)
    if length is None or length > MAX_EXACT_SCALARS:
        return Val(Grad.NONE, Ty.OTHER)  # raises, or too many numbers to follow
    return Val(Grad.NONE, Ty.OTHER, info=KnownRange(tuple(range(*bounds))))


def range_len(values: list[int]) -> int | None:
    """``len(range(*values))``; None where Python raises (a zero step, more items than fit)."""
    try:
        return len(range(*values))
    except (ValueError, OverflowError):
        return None


class TensorRows:
    """What a `TensorDataset` gives for one index: a row of each of its tensors."""

    __slots__ = ("rows", "length")

    def __init__(self, rows: tuple[Val, ...], length: int | None) -> None:
        self.rows = rows
        self.length = length  # how many samples (the tensors' first size), when known


class Batches:
    """What a `DataLoader` over a dataset of the program yields: one collated batch."""

    __slots__ = ("batch",)

    def __init__(self, batch: Val) -> None:
        self.batch = batch


def _collated(sample: Val, rows: int | None = None) -> Val | None:
    """What torch's default collation makes of samples like this one: a tensor (or a number) gains a
    first dimension (of ``rows`` when every batch has that many samples), a dict keeps its keys, a
    tuple or list becomes a list of the collated fields; None when that is not known (a tensor with
    a graph, an object)."""
    if sample.ty is Ty.TENSOR and sample.grad is Grad.NONE:
        shape = (rows, *sample.shape) if sample.shape is not None else None
        # No identity: each iteration binds another batch (an in-place change of one is not of the
        # tensor an earlier iteration's graph saved).
        return Val(Grad.NONE, Ty.TENSOR, shape=shape, cause=sample.cause)
    if sample.ty is Ty.NUMBER and sample.truth is None:
        return Val(Grad.NONE, Ty.TENSOR, shape=(rows,))
    if sample.ty in (Ty.TUPLE, Ty.LIST, Ty.DICT) and sample.elts is not None:
        if sample.ty is Ty.DICT and sample.keys is None:
            return None
        fields = [_collated(e, rows) for e in sample.elts]
        if any(f is None for f in fields):
            return None
        kept = tuple(f for f in fields if f is not None)
        if sample.ty is Ty.DICT:
            return Val(Grad.NONE, Ty.DICT, elts=kept, keys=sample.keys)
        return Val(Grad.NONE, Ty.LIST, elts=kept)
    return None


class ParserSpec:
    """The arguments an `argparse.ArgumentParser` declares, as far as their defaults are literal.
    Not complete when one cannot be read, or is required (then `parse_args([])` exits)."""

    __slots__ = ("defaults", "complete")

    def __init__(self) -> None:
        self.defaults: dict[str, object] = {}
        self.complete = True

    def declare(self, node: ast.Call) -> None:
        flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        keywords = {k.arg: k.value for k in node.keywords if k.arg is not None}
        if not flags or len(flags) != len(node.args) or len(keywords) != len(node.keywords):
            self.complete = False
            return
        optional = flags[0].startswith("-")
        dest_node = keywords.get("dest")
        if isinstance(dest_node, ast.Constant) and isinstance(dest_node.value, str):
            dest = dest_node.value
        elif optional:
            long = next((f for f in flags if f.startswith("--")), flags[0])
            dest = long.lstrip("-").replace("-", "_")
        else:
            dest = flags[0]
        action = _literal(keywords["action"]) if "action" in keywords else "store"
        required = _literal(keywords["required"]) if "required" in keywords else False
        nargs = _literal(keywords["nargs"]) if "nargs" in keywords else None
        if required is not False or (not optional and nargs not in ("?", "*")):
            self.complete = False  # `parse_args([])` would exit
            return
        if "default" in keywords:
            default = _literal(keywords["default"])
        elif action == "store_true":
            default = False
        elif action == "store_false":
            default = True
        elif action in ("store", "store_const", "append", "count") or action is _UNSET:
            default = None if action is not _UNSET else _UNSET
        else:
            default = _UNSET
        kind = keywords.get("type")
        if isinstance(default, str) and kind is not None:
            # argparse applies `type` to a default given as a string.
            convert = {"int": int, "float": float, "str": str}.get(
                kind.id if isinstance(kind, ast.Name) else ""
            )
            try:
                default = convert(default) if convert is not None else _UNSET
            except ValueError:
                default = _UNSET
        self.defaults[dest] = default if type(default) in (int, float, str, bool, type(None)) else _UNSET

    def set_defaults(self, node: ast.Call) -> None:
        for k in node.keywords:
            if k.arg is None:
                self.complete = False
            else:
                value = _literal(k.value)
                self.defaults[k.arg] = value if type(value) in (int, float, str, bool, type(None)) else _UNSET


def _literal(node: ast.expr) -> object:
    """A literal number, string, flag or None (a negative number too); else _UNSET."""
    if isinstance(node, ast.Constant):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, (int, float))
        and not isinstance(node.operand.value, bool)
    ):
        return -node.operand.value
    return _UNSET


def _arg_value(node: ast.expr, val: Val | None) -> object:
    """A layer's constructor argument: a literal, a tuple of literals (`kernel_size=(3, 3)`), a
    name bound to a known number or string; else _NOT_CONST."""
    if isinstance(node, ast.Tuple):
        items = tuple(_literal(e) for e in node.elts)
        return _NOT_CONST if _UNSET in items else items
    lit = _literal(node)
    if lit is not _UNSET:
        return lit
    return val.lit[0] if val is not None and val.lit is not None else _NOT_CONST


def _empty_argv(node: ast.Call) -> bool:
    """`parse_args([])`, `parse_args(args=[])`, `parse_args("")`: no command line at all."""
    given = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "args"), None)
    if isinstance(given, (ast.List, ast.Tuple)):
        return not given.elts
    return isinstance(given, ast.Constant) and given.value == ""


def _reduction(reduction: Any, reduce: Any, size_average: Any) -> Any:
    """A loss's reduction. torch 2.13 still honours the deprecated ``reduce``/``size_average``,
    and when either is given they decide, whatever ``reduction`` says (``reduce=False`` keeps
    every element)."""
    if reduce is None and size_average is None:
        return reduction
    if reduce not in (None, True, False) or size_average not in (None, True, False):
        return _NOT_CONST
    return "none" if reduce is False else "sum" if size_average is False else "mean"


_SIZED = frozenset({Ty.LIST, Ty.TUPLE, Ty.DICT, Ty.NONE_OBJ})  # whose truth known_truth can tell

_LIKE_METHODS = frozenset({"view_as", "reshape_as", "expand_as", "type_as", "to"})

_SHAPE_METHODS = frozenset(
    {"view", "reshape", "flatten", "transpose", "permute", "unsqueeze", "squeeze", "t", "softmax"}
    | {"log_softmax", "view_as", "reshape_as", "expand_as", "repeat"}
)


def _method_shape(
    name: str, node: ast.Call, shape: shp.Shape | None, args: list[Val], kwargs: dict[str, Val]
) -> shp.Shape | None:
    """The result shape of a shape-changing tensor op, from its literal or known arguments."""
    if any(isinstance(a, ast.Starred) for a in node.args):
        return None
    ints: list[int | None] = [a.lit[0] if a.lit is not None and type(a.lit[0]) is int else None for a in args]
    if name in ("view", "reshape", "repeat"):
        if len(args) == 1 and args[0].ty in (Ty.TUPLE, Ty.LIST) and args[0].elts is not None:
            ints = [e.lit[0] if e.lit is not None and type(e.lit[0]) is int else None for e in args[0].elts]
        elif not all(a.ty is Ty.NUMBER for a in args) or not args:
            return None
        return shp.repeat(shape, ints) if name == "repeat" else shp.view_shape(shape, ints)
    if name in ("view_as", "reshape_as", "expand_as"):
        return args[0].shape if args else None
    if name == "flatten":
        start = (
            ints[0]
            if args
            else kwargs["start_dim"].lit[0]
            if "start_dim" in kwargs and kwargs["start_dim"].lit
            else 0
        )
        end = ints[1] if len(args) > 1 else -1
        return shp.flatten(shape, start, end) if type(start) is int and type(end) is int else None
    if name == "transpose" and len(args) == 2:
        return shp.transpose(shape, ints[0], ints[1])
    if name == "t":
        return shape[::-1] if shape is not None and len(shape) <= 2 else None
    if name == "permute":
        order = ints
        if len(args) == 1 and args[0].elts is not None:
            order = [e.lit[0] if e.lit is not None and type(e.lit[0]) is int else None for e in args[0].elts]
        return shp.permute(shape, order)
    if name == "unsqueeze" and len(args) == 1:
        return shp.unsqueeze(shape, ints[0])
    if name == "squeeze":
        return shp.squeeze(shape, ints[0] if args else None, all_dims=not args)
    if name in ("softmax", "log_softmax"):
        return shape
    return None


# numpy functions that convert a tensor argument with `__array__` (checked under torch 2.13 and
# numpy: each raises "Can't call numpy() on Tensor that requires grad" for such a tensor).
_NUMPY_CONVERTS = frozenset(
    {"array", "asarray", "asanyarray", "exp", "log", "sqrt", "abs", "clip", "round", "argmax", "argmin"}
    | {"isnan", "isfinite", "float32", "float64", "tanh", "sign", "square", "maximum", "minimum"}
    | {"copy", "percentile", "quantile", "median"}
)


def _within(outer: ast.AST, stmt: ast.stmt) -> bool:
    """Does the statement lie in ``outer``'s lines?"""
    return getattr(outer, "lineno", 0) <= stmt.lineno <= (getattr(outer, "end_lineno", 0) or 0)


def _before_in(loop: ast.AST, first: ast.stmt, then: ast.stmt) -> bool:
    """Do both statements lie in the loop, ``first`` ahead of ``then``?"""
    inside = _within(loop, first) and _within(loop, then)
    return inside and (first.lineno, first.col_offset) < (then.lineno, then.col_offset)


def _plural(val: Val) -> bool:
    """Is this a tensor with certainly not one element?"""
    return val.plural or shp.not_scalar(val.shape)


def contains(key: Val, container: Val) -> bool | None:
    """``key in container`` for a known string or number and a dict whose keys are all known, or
    a sequence of known literals; None when not certain."""
    if key.lit is None:
        return None
    if container.ty is Ty.DICT and container.keys is not None and container.elts is not None:
        return key.lit[0] in container.keys
    if type(key.lit[0]) not in (str, int):
        return None
    if container.ty in (Ty.LIST, Ty.TUPLE) and container.elts is not None:
        lits = [e.lit[0] if e.lit is not None else None for e in container.elts]
        if key.lit[0] in lits:
            return True
        return False if all(type(x) in (str, int) for x in lits) else None
    return None


def compare_truth(node: ast.Compare, vals: list[Val]) -> bool | None:
    """The truth of a one-operator comparison of two known numbers or strings."""
    if len(node.ops) != 1 or vals[0].lit is None or vals[1].lit is None:
        return None
    a, b = vals[0].lit[0], vals[1].lit[0]
    if not (type(a) in (int, float) and type(b) in (int, float) or type(a) is str and type(b) is str):
        return None
    op = node.ops[0]
    if isinstance(op, ast.Eq):
        return a == b
    if isinstance(op, ast.NotEq):
        return a != b
    if type(a) is str:
        assert isinstance(b, str)
        if isinstance(op, (ast.In, ast.NotIn)):
            return (a in b) is isinstance(op, ast.In)  # `"lora_" in name`
        return None
    assert isinstance(a, (int, float)) and isinstance(b, (int, float))
    if isinstance(op, ast.Lt):
        return a < b
    if isinstance(op, ast.LtE):
        return a <= b
    if isinstance(op, ast.Gt):
        return a > b
    if isinstance(op, ast.GtE):
        return a >= b
    return None


def _fold(op: ast.operator, a: object, b: object) -> Val:
    """``a <op> b`` for two known numbers, when it is cheap and exact."""
    if (
        not (isinstance(a, (int, float)) and isinstance(b, (int, float)))
        or isinstance(a, bool)
        or isinstance(b, bool)
    ):
        return NUMBER
    x, y = a, b
    try:
        if isinstance(op, ast.Add):
            out = x + y
        elif isinstance(op, ast.Sub):
            out = x - y
        elif isinstance(op, ast.Mult):
            out = x * y
        elif isinstance(op, ast.FloorDiv):
            out = x // y
        elif isinstance(op, ast.Div):
            out = x / y
        elif isinstance(op, ast.Mod):
            out = x % y
        else:
            return NUMBER
    except ArithmeticError:
        return NUMBER
    if abs(out) > 1 << 31:
        return NUMBER
    return Val(Grad.NONE, Ty.NUMBER, lit=(out,))


def _data_shape(val: Val) -> shp.Shape | None:
    """The shape of ``torch.tensor(data)`` for a number or a known nest of tuples/lists of numbers."""
    if val.ty is Ty.NUMBER:
        return ()
    if val.ty in (Ty.TUPLE, Ty.LIST) and val.elts:
        inner = [_data_shape(e) for e in val.elts]
        if any(i is None for i in inner) or len(set(inner)) != 1:
            return None
        first = inner[0]
        assert first is not None
        return (len(val.elts), *first)
    return None


_ADAPTIVE_POOLS = frozenset(
    f"adaptive_{kind}_pool{k}d" for kind in ("avg", "max") for k in (1, 2, 3)
)


def _adaptive_pool_shape(k: int, shape: shp.Shape, size: Val | None) -> shp.Shape | None:
    """`F.adaptive_avg_pool2d(x, s)`: the leading sizes stay, the last ``k`` become ``s`` (an int
    for all of them, or one per dimension, `None` keeping the input's)."""
    if size is None or len(shape) not in (k + 1, k + 2):
        return None
    given = size.elts if size.elts is not None else (size,) * k
    if len(given) != k:
        return None
    dims: list[shp.Dim] = []
    for i, v in enumerate(given):
        if v.is_none_literal:
            dims.append(shape[len(shape) - k + i])
        elif v.lit is not None and type(v.lit[0]) is int:
            dims.append(v.lit[0])
        else:
            dims.append(None)
    return (*shape[: len(shape) - k], *dims)


# Builtins a hook may hand its module's output (or inputs) to without changing them.
_HOOK_READERS = frozenset({"print", "len", "isinstance", "hasattr", "getattr", "type", "id", "str", "repr"})


def _leaves_output(hook: ast.FunctionDef) -> bool:
    """Does this forward hook (or pre-hook) of the file leave its module's output and inputs as
    they are? It returns nothing, and its arguments after the module are only stored, read, or
    kept in a container: no in-place method, no store into them, not handed to other code."""
    params = hook.args.posonlyargs + hook.args.args
    if params and params[0].arg == "self":
        params = params[1:]  # a bound method (`self.save_activation`)
    if len(params) < 2 or hook.args.vararg is not None or hook.args.kwarg is not None:
        return False
    given = {p.arg for p in params[1:]} | {p.arg for p in hook.args.kwonlyargs}

    own_returns = set(_own_returns(hook))

    def rooted(node: ast.AST) -> bool:
        while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
            node = node.func if isinstance(node, ast.Call) else node.value
        return isinstance(node, ast.Name) and node.id in given

    # Nested functions are walked too: what they do to the arguments counts, wherever they run
    # (a tensor hook `output.register_hook(store)` changes no output).
    for node in ast.walk(hook):
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)):
            return False
        if isinstance(node, ast.Return) and node in own_returns and not _returns_none(node.value):
            return False
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for part in ast.walk(target):
                    stored = isinstance(part, (ast.Attribute, ast.Subscript)) and rooted(part.value)
                    if stored or isinstance(node, ast.AugAssign) and rooted(part):
                        return False
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr.endswith("_") and rooted(func.value):
                return False  # `output.requires_grad_()`, `output.mul_(2)`
            handed = [a for a in [*node.args, *(k.value for k in node.keywords)] if rooted(a)]
            sink = (
                (isinstance(func, ast.Attribute) and func.attr in _HOOK_SINKS)
                or (isinstance(func, ast.Name) and func.id in _HOOK_READERS)
                or _library_read(node)
            )
            if handed and not sink:
                return False
    return True


def _numpy_array(node: ast.Call) -> Val:
    """What `t.numpy()` gives: an array, told to carry no graph because of that call."""
    return Val(Grad.NONE, Ty.OTHER, cause=(NUMPY_CAUSE, node))


def _numpy_made(val: Val) -> bool:
    return val.cause is not None and val.cause[0] == NUMPY_CAUSE


def _from_numpy(*vals: Val) -> Val | None:
    """An array computed by NumPy from ``vals``, when one of them was made by `.numpy()` and the
    rest are arrays or numbers too (a tensor among them makes it torch's computation)."""
    made = next((v for v in vals if v.ty is Ty.OTHER and _numpy_made(v)), None)
    if made is None or any(v.is_tensor or v.ty not in (Ty.OTHER, Ty.NUMBER) for v in vals):
        return None
    return Val(Grad.NONE, Ty.OTHER, cause=made.cause)


def _const_false(node: ast.Call) -> bool:
    """Is the call's flag the constant False (`requires_grad_(False)`, `requires_grad=False`)?"""
    flag = api.requires_grad_flag(node)
    return isinstance(flag, ast.Constant) and flag.value is False


def _library_read(call: ast.Call) -> bool:
    """A function of torch or NumPy that reads its arguments (`torch.flatten(output)`): not one
    that changes them in place (`F.relu_`, `inplace=True`)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr.endswith("_"):
        return False
    if any(k.arg == "inplace" or k.arg == "out" for k in call.keywords):
        return False
    root: ast.expr = func.value
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and root.id in ("torch", "F", "np", "numpy", "math")


def _returns_none(value: ast.expr | None) -> bool:
    """Does `return <value>` return None: nothing, `None`, or a container method that returns None
    (a lambda hook `lambda m, i, o: acts.append(o)`)?"""
    if value is None or isinstance(value, ast.Constant) and value.value is None:
        return True
    func = value.func if isinstance(value, ast.Call) else None
    return isinstance(func, ast.Attribute) and func.attr in _HOOK_SINKS


def _own_returns(func: ast.FunctionDef) -> list[ast.Return]:
    """The return statements of ``func`` itself, not of functions nested in it."""
    out: list[ast.Return] = []
    todo: list[ast.AST] = list(func.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            out.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return out


def inference_grad_mode(inference: bool | None) -> GradMode:
    """The grad mode `inference_mode(flag)` sets: off for True (nothing records), on for False
    (`inference_mode(False)` turns grad mode on), maybe for a flag not known."""
    return GradMode.MAYBE if inference is None else GradMode.OFF if inference else GradMode.ON


_CHECKPOINTS = frozenset({"torch.utils.checkpoint.checkpoint"})
_CHECKPOINT_OPTIONS = frozenset(
    {"use_reentrant", "context_fn", "determinism_check", "debug", "early_stop", "preserve_rng_state"}
)


def _caused(val: Val, cause: tuple[str, ast.AST]) -> Val:
    """A value without a graph (tensors, and those a tuple, list or dict holds), told to have none
    because of ``cause``."""
    if val.elts is not None and val.ty in (Ty.TUPLE, Ty.LIST, Ty.DICT):
        return val.with_(elts=tuple(_caused(e, cause) for e in val.elts))
    if val.ty in (Ty.TENSOR, Ty.UNKNOWN):
        return val.with_(grad=Grad.NONE, cause=cause, sites=frozenset())
    return val


_CUT_CAUSES = frozenset(
    {
        *GRAD_OFF_CAUSES,
        obs.CHECKPOINT_CAUSE,
        NUMPY_CAUSE,
        "`.detach()`",
        "`.detach_()`",
        "`.item()`",
        "`.data`",
        FREEZE_CAUSE,
    }
)


def _cuts(cause: tuple[str, ast.AST]) -> bool:
    """Does this cause cut a value off a graph it had or would have had (no_grad, `.detach()`,
    `.item()`, `.data`, frozen parameters), rather than make a value that never had one
    (`torch.from_numpy`)?"""
    return cause[0] in _CUT_CAUSES


def _add_site(val: Val, marker: Site) -> Val:
    if val.grad is Grad.GRAPH:
        return val.with_(sites=val.sites | {marker})
    if val.elts is not None:
        return val.with_(elts=tuple(_add_site(e, marker) for e in val.elts))
    return val


def _trainable_test(node: ast.expr) -> bool:
    """`lambda p: p.requires_grad`."""
    if not isinstance(node, ast.Lambda) or len(node.args.args) != 1:
        return False
    body, arg = node.body, node.args.args[0].arg
    return (
        isinstance(body, ast.Attribute)
        and body.attr == "requires_grad"
        and isinstance(body.value, ast.Name)
        and body.value.id == arg
    )


def _literal_shape(node: ast.Call, args: list[Val]) -> shp.Shape | None:
    """``torch.randn(4, n)`` / ``torch.zeros((4, n))``: each size a literal or a known number."""
    vals: list[Val] = list(args)
    if len(args) == 1 and args[0].ty in (Ty.TUPLE, Ty.LIST):
        if args[0].elts is None:
            return None
        vals = list(args[0].elts)
    if any(isinstance(a, ast.Starred) for a in node.args):
        return None
    dims: list[shp.Dim] = []
    for v in vals:
        if v.ty is not Ty.NUMBER:
            return None
        dims.append(v.lit[0] if v.lit is not None and type(v.lit[0]) is int else None)
    return tuple(dims) if dims or not args else None


def _arange_shape(bounds: list[object]) -> shp.Shape | None:
    """``torch.arange(end)`` / ``(start, end)`` / ``(start, end, step)`` on known integers."""
    if not all(type(b) is int for b in bounds):
        return None
    ints = cast(list[int], bounds)
    if len(ints) == 1:
        start, end, step = 0, ints[0], 1
    else:
        start, end, step = ints[0], ints[1], ints[2] if len(ints) == 3 else 1
    if step == 0 or (end - start) * step < 0:
        return None  # torch raises
    return (-((start - end) // step),)


def _is_int_literal_data(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int)
    if isinstance(node, (ast.List, ast.Tuple)):
        return bool(node.elts) and all(_is_int_literal_data(e) for e in node.elts)
    return False


def _entry(inst: ModuleInst) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """What calling a module of this file runs: its own ``__call__`` when it overrides
    ``nn.Module.__call__``, else its ``forward``."""
    methods = inst.user_class.methods if inst.user_class is not None else {}
    found = methods.get("__call__") or methods.get("forward")
    return found if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _sequential_hazard(children: list[ModuleInst]) -> tuple[ast.AST, str] | None:
    """``nn.Sequential(..., nn.Sigmoid(), nn.ReLU(inplace=True))``: a layer changes in place the
    output that the layer before it saved for backward."""
    for prev, cur in zip(children, children[1:], strict=False):
        if cur.kwargs.get("inplace") is not True or cur.origin is None:
            continue
        if prev.kwargs.get("inplace") is True:
            saves_output = _INPLACE_TWIN.get(prev.cls_name, "") in api.INPLACE_SAVES_OUTPUT
        else:
            saves_output = api.ACTIVATIONS.get(prev.cls_name, False)
        if saves_output:
            return cur.origin, prev.cls_name
    return None


# The in-place function an activation module with ``inplace=True`` runs.
_INPLACE_TWIN = {
    "ReLU": "relu_",
    "LeakyReLU": "leaky_relu_",
    "ELU": "elu_",
    "SELU": "selu_",
    "CELU": "celu_",
    "Hardtanh": "hardtanh_",
    "ReLU6": "hardtanh_",
    "SiLU": "silu_",
    "Hardswish": "hardswish_",
    "Mish": "mish_",
}


def _flat(val: Val) -> Val:
    """A tuple of tensors (e.g. LSTM state) as one value holding all their graphs."""
    if val.elts is None or val.is_tensor:
        return val
    parts = [_flat(e) for e in val.elts]
    if any(p.grad is Grad.GRAPH for p in parts):
        return val.with_(grad=Grad.GRAPH, sites=frozenset().union(*(p.sites for p in parts)))
    if parts and all(p.grad is Grad.NONE for p in parts):
        return val
    return val.with_(grad=Grad.UNKNOWN)


def _on_path(site: Site, leaves: frozenset[object], memo: dict[int, bool]) -> bool:
    """Does this node lie between its graph's outputs and one of these leaf tensors?"""
    key = id(site)
    if key in memo:
        return memo[key]
    memo[key] = False
    found = False
    if site.module is not None and not site.frozen and site.module.all_params_objs() & leaves:
        memo[key] = True
        return True
    for inp in site.inputs:
        if inp.grad is Grad.LEAF and inp.obj in leaves or inp.root is not None and inp.root in leaves:
            found = True
        elif inp.root is not None and _on_path(inp.root, leaves, memo):
            found = True
        if found:
            break
    memo[key] = found
    return found


# Raising findings at a backward whose fix leaves the rest of the program as it is: GG105 (detach the
# fake where the discriminator takes it) and GG111 (the step after the last backward).
_FIXED_IN_PLACE = frozenset({"GG105", "GG111"})


def _penalties(val: Val) -> list[Taint]:
    """The constant gradients (`autograd.grad` without `create_graph`) in a value, in code order (a
    set's order would change the finding from one run to the next)."""
    found = [t for t in val.taints if t.kind == "grad-no-graph"]
    if len(found) > 1:
        found.sort(key=lambda t: (getattr(t.node, "lineno", 0), getattr(t.node, "col_offset", 0)))
    return found
