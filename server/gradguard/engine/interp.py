"""The abstract interpreter: statements and control flow.

It walks ``ast`` statements in order, keeping a ``State`` per program point. Branches
are joined (a fact survives only if it holds on every path), loops are unrolled twice
so that iteration 2 meets what iteration 1's backward freed, and functions defined in
the file are analysed on their own and inlined at their calls (to a small depth).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, cast

from .. import observations as obs
from ..record import field, record, replace
from . import torchapi as api
from .classes import (
    ClassInfo,
    autograd_function_base,
    is_module_base,
    namedtuple_class,
    record_fields,
    sequential_base,
    torch_layer_base,
)
from .evaluate import (
    MAX_EXACT_ELEMENTS,
    MAX_INLINES,
    MAX_LAYER_SEQUENCE,
    UNIT_INLINES,
    Batches,
    Evaluator,
    Frame,
    _key_val,
    _store_item,
    _string_call,
    _target_names,
    acc_taints,
    binding,
    carries_graph,
    compare_truth,
    constant,
    contains,
    inference_grad_mode,
    known_truth,
    range_len,
    tensor_rows,
)
from .incremental import Calls, Replay, Unit
from .modules import LINE_BLOCK, MAX_MODULES, NEVER_FOLLOWED, ForeignModule, LazyImport, Loader, Namespace
from .report import Reporter, name_loads
from .state import LoopFrame, State, join_states
from .training_loop import check_misplaced
from .values import (
    EMPTY,
    NONE_VAL,
    NUMBER,
    OTHER,
    UNKNOWN,
    Grad,
    GradMode,
    ModuleInst,
    Taint,
    Ty,
    Val,
    elements,
    param_module,
)


def _accumulation_gate(test: ast.expr) -> bool:
    """`if i % k == 0:` / `if (step + 1) % accumulation == 0:`: a condition on a counter modulo
    something, the shape of a step taken every k-th iteration."""
    return (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and any(
            isinstance(side, ast.BinOp) and isinstance(side.op, ast.Mod)
            for side in (test.left, test.comparators[0])
        )
    )


def _threshold_gate(node: ast.If, loop: ast.AST | None) -> bool:
    """`if seen >= 128: optimizer.step(); seen = 0` where the loop adds to `seen` each iteration
    (`seen += len(batch)`): a step once enough samples have accumulated, the other shape of
    gradient accumulation."""
    test = node.test
    if loop is None or not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Gt, ast.GtE))
    ):
        return False
    counter = test.left
    if not isinstance(counter, (ast.Name, ast.Attribute)):
        return False
    resets = any(
        isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and _same_target(s.targets[0], counter)
        and isinstance(s.value, ast.Constant)
        and s.value.value == 0
        for s in node.body
    )
    return resets and any(
        isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and _same_target(n.target, counter)
        for n in ast.walk(loop)
    )


_STMT_DISPATCH: dict[type, Any] = {}
MAX_UNROLL_DEPTH = 4
# A clear written after a backward and before a step (the order GG201's misplaced case needs).
_CLEAR_AFTER_BACKWARD = re.compile(r"\.backward\([\s\S]*zero_grad\([\s\S]*\.step\(")
# The builtin classes `isinstance` is asked about a known number or string.
_BUILTIN_TYPES: dict[str, type] = {
    "builtins." + t.__name__: t for t in (int, float, str, bool, list, tuple, dict, set, bytes)
}

_CALLED = re.compile(r"(\w+)\(")  # the names a text calls
_STEPS_TEXT = re.compile(r"\.step\s*\(")  # as Reporter.steps_around reads the whole text
_GRAD_ON_METHODS = frozenset({"__init__", "forward", "__call__"})  # run with grad mode on in training
_TENSOR_CLASSES = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter"})
# A loop that assembles layers: `layers.append(nn.Linear(...))`, `layers += [...]`, `add_module(`.
_BUILDS_LAYERS = re.compile(r"\bnn\.[A-Z]\w*\(|add_module\(|\.append\([A-Z]\w*\(|\+= \[[A-Z]\w*\(")


def _backprops(text: str) -> bool:
    """Does the text run a backward (the words `backward` or `autograd`)? Substring tests: an
    alternation pattern is several times slower on long functions."""
    return "backward" in text or "autograd" in text


class Interpreter(Evaluator):
    def __init__(
        self, tree: ast.Module, reporter: Reporter, loader: Loader | None = None, filename: str = "<string>"
    ) -> None:
        super().__init__(reporter)
        self.tree = tree
        self.loader = loader
        self.filename = filename
        self._lazy_done: dict[int, Val] = {}
        self._lazy_keep: list[LazyImport] = []
        self.class_infos: dict[int, ClassInfo] = {}  # by id of the class statement
        self.classes: dict[str, ClassInfo] = {}
        self.function_imported = False  # `from torch.autograd import Function` (see discover_classes)
        self.module_aliases: set[str] = set()
        self._self_instances: dict[str, Val] = {}
        self._backprop_funcs: set[str] | None = None
        self._backprop_modules = 0  # modules run when _backprop_funcs was made
        self._local_calls: tuple[tuple[str, bool, frozenset[str]], ...] | None = None
        self._deep_backprops: dict[str, bool] = {}  # see reaches_backward
        self._defs_by_name: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] | None = None
        self._comp_steps: dict[int, bool] = {}  # id(comprehension) -> may run a backward
        self._grad_aliases: tuple[str, ...] | None = None
        self._bindings: dict[ast.AST, _Bindings] = {}
        self._free: dict[ast.AST, set[str]] = {}
        self._feeds: dict[tuple[int, str, int], bool] = {}
        self._grad_clears: dict[int, frozenset[int]] = {}  # by statement
        self._self_refs: dict[int, bool] = {}
        self.namespaces: dict[str, dict[str, Val]] = {}  # project module path -> its names
        self._loop_facts: dict[tuple[int, object], bool] = {}  # by loop and fact (see loop_fact)
        self._counter_indexed: dict[int, list[ast.expr]] = {}  # by loop (see counter_indexed)
        self._later_truths: dict[tuple[Any, ...], bool] = {}  # see truth_later
        # Comprehensions followed as loops, each with the `for` statement standing for it.
        self._comp_loops: dict[int, tuple[ast.AST, ast.For]] = {}
        self._closure_loops: dict[int, ast.For] = {}  # id of an L-BFGS step -> its loop of closure calls
        self._all_functions: (
            tuple[int, list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ClassInfo | None]]] | None
        ) = None
        # What the next analysis of this document may reuse (see engine.incremental).
        self.units: dict[int, Unit] = {}
        self.idle: set[int] = set()  # top-level statements with no function to analyse on its own
        self.replayed = 0
        self.facts: tuple[Any, ...] = ()
        self.calls: Calls = {}
        self.modules_run: dict[int, int] = {}  # the other modules module code ran (see Memo)
        self.misplaced = False  # the text has backward .. zero_grad .. step (see check_misplaced)
        self.optimizers_made = 0  # by module code
        self.replayable = False
        self.track = True

    # -- entry point ---------------------------------------------------------------

    def run(self, replay: Replay | None = None, track: bool = True) -> None:
        """Module code, then every function on its own, unit by unit (see engine.incremental);
        with ``replay``, the units an edit cannot have changed are taken from the last analysis.
        ``track``: note what each unit reads (for a memo of this analysis; a check keeps none)."""
        self.track = track or replay is not None
        self.discover_classes(self.tree.body, self.filename)
        self.st = State()
        self.globals_env = self.st.env
        self.calls = {}
        self.module_calls = self.calls if self.track else None
        try:
            self.block(self.tree.body)
        finally:
            self.module_calls = None
        final_globals = dict(self.st.env) if self.st is not None else dict(self.globals_env)
        self.globals_env = final_globals
        misplaced = _CLEAR_AFTER_BACKWARD.search(self.rep.source) is not None
        if misplaced:
            check_misplaced(self.rep, self.tree, self)
        self.misplaced, self.optimizers_made = misplaced, len(self.optimizers)
        self.modules_run = {block: id(mod) for block, mod in self.rep.modules.items()}
        if replay is not None and not replay.settle(self.file_facts(), self.calls, self.modules_run):
            replay = None
        # Every function on its own, parameters unknown (finds bugs inside training functions).
        base = self.unit_base()
        self.units = {}
        # The functions of each top-level statement, listed once (all_functions reads the same list).
        per_stmt = [list(_function_defs([stmt], None, self.classes)) for stmt in self.tree.body]
        self._all_functions = (len(self.classes), [fc for fcs in per_stmt for fc in fcs])
        for stmt, defs in zip(self.tree.body, per_stmt, strict=True):
            unit = replay.unit(stmt) if replay is not None else None
            if unit is not None:
                self.rep.merge(unit.facts)
                self.units[id(stmt)] = unit
                self.replayed += 1
                continue
            if replay is not None and replay.idle(stmt):
                self.idle.add(id(stmt))
                continue
            funcs = [(f, c) for f, c in defs if self.rep.relevant(f)]
            checked = []
            if misplaced:
                checked = [f for f, _ in defs if _CLEAR_AFTER_BACKWARD.search(self.rep.segment(f))]
            if funcs or checked:
                self.units[id(stmt)] = self.run_unit(stmt, funcs, checked, base)
            else:
                self.idle.add(id(stmt))
        # A unit that ran another module first (an import read only there) left it to the units
        # after it: those are not independent, and nothing is replayed next time.
        self.replayable = len(self.rep.modules) == len(self.modules_run)
        self.rep.finish()

    def run_unit(
        self,
        stmt: ast.stmt,
        funcs: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ClassInfo | None]],
        checked: list[ast.FunctionDef | ast.AsyncFunctionDef],
        base: tuple[Any, ...],
    ) -> Unit:
        """One top-level statement's functions, each on its own, from the module's final names and
        nothing an earlier unit left: the result can be replayed while its inputs are the same."""
        seq, inlines, optimizers, closures, discards, spread, spread_dicts, instances = base
        self.seq, self.inlines = seq, max(inlines, MAX_INLINES - UNIT_INLINES)
        self.optimizers, self.closures = list(optimizers), dict(closures)
        self.pending_discards, self.spread = dict(discards), dict(spread)
        self.spread_dicts, self._self_instances = dict(spread_dicts), dict(instances)
        saved = self.rep.unit_begin()
        reads: set[str] = set()
        self.global_reads = reads if self.track else None
        try:
            for func, cls in funcs:
                self.analyse_standalone(func, cls)
            self.st = State()
            for func in checked:
                check_misplaced(self.rep, func, self)
        finally:
            self.global_reads, self.inference = None, False
            facts = self.rep.unit_end(saved)
        return Unit(stmt, facts, frozenset(reads))

    def unit_base(self) -> tuple[Any, ...]:
        """What every unit starts from: the interpreter's state after module code."""
        return (
            self.seq,
            self.inlines,
            list(self.optimizers),
            dict(self.closures),
            dict(self.pending_discards),
            dict(self.spread),
            dict(self.spread_dicts),
            dict(self._self_instances),
        )

    def file_facts(self) -> tuple[Any, ...]:
        """What the analysis reads from the whole file's text or module code rather than from one
        function: a unit replayed from the last analysis needs these unchanged. Made only for a
        replay or a memo (a check in the terminal keeps none): some cost a pass over every function."""
        if self.facts:
            return self.facts
        self.facts = (
            frozenset(self.backprop_names()),
            self.grad_aliases(),
            self.torch_alias(),
            self.rep.unresolved_freezes,
            bool(_STEPS_TEXT.search(self.rep.source)),
            self.misplaced,
            self.function_imported,
            frozenset(self.module_aliases),
            frozenset(self.module_class_names()),
            self.optimizers_made,
            frozenset(self.classes),
        )
        return self.facts

    # -- other modules of the project ---------------------------------------------------

    def resolve_import(self, lazy: LazyImport, fallback: Val) -> Val:
        """What a name bound by an import is, on its first use: a class, function or value of a
        module of the project (that module run as an import runs it), a module of the project as a
        namespace, or, for anything else (torch, a library, a name not found), the import's name."""
        done = self._lazy_done.get(id(lazy))
        if done is not None:
            return done
        val = fallback
        loader = self.loader
        if loader is not None:
            if lazy.name is not None:
                named = lazy.module or lazy.level
                mod = loader.load(lazy.importer, lazy.module, lazy.level) if named else None
                env = self.run_module(mod) if mod is not None else None
                found = env.get(lazy.name) if env is not None else None
                if found is not None and not isinstance(found.info, LazyImport):
                    val = found
                elif found is not None:
                    val = self.resolve_import(found.info, found)  # re-exported: `from .models import G`
                else:
                    sub_name = f"{lazy.module}.{lazy.name}" if lazy.module else lazy.name
                    sub = loader.load(lazy.importer, sub_name, lazy.level)
                    sub_env = self.run_module(sub) if sub is not None else None
                    if sub is not None and sub_env is not None:
                        val = Val(Grad.NONE, Ty.QUAL, qual=fallback.qual, info=Namespace(sub, sub_env))
            else:
                val = self.namespace_chain(lazy, fallback)
        self._lazy_done[id(lazy)] = val
        self._lazy_keep.append(lazy)  # ids stay unique while the analysis runs
        return val

    def namespace_chain(self, lazy: LazyImport, fallback: Val) -> Val:
        """`import a.b.c` binds `a` (with `b` and `c` under it); `import a.b as x` binds x to a.b."""
        assert self.loader is not None
        parts = lazy.module.split(".")
        spaces: list[Namespace] = []
        for k in range(1, len(parts) + 1):
            mod = self.loader.load(lazy.importer, ".".join(parts[:k]), 0)
            env = self.run_module(mod) if mod is not None else None
            spaces.append(Namespace(mod, env if env is not None else {}))
        if not any(sp.module is not None for sp in spaces):
            return fallback
        for name, outer, inner in zip(parts[1:], spaces, spaces[1:], strict=False):
            outer.submodules[name] = inner
        return Val(Grad.NONE, Ty.QUAL, qual=fallback.qual, info=spaces[0] if lazy.top else spaces[-1])

    def run_module(self, mod: ForeignModule) -> dict[str, Val] | None:
        """Run another module of the project as an import runs it (its `__main__` block skipped),
        once per analysis: its names are the namespace its importers see. The analysis in progress
        is put aside meanwhile; objects the module makes stay on the heap."""
        env = self.namespaces.get(mod.path)
        if env is not None or mod.path == self.filename:
            return env  # run, or running (an import cycle sees the names bound so far, as Python)
        if len(self.namespaces) >= MAX_MODULES:
            return None
        self.rep.add_module(mod)
        cached = mod.env_cache
        if cached is not None and self.loader is not None:
            if all(self.loader.current(path) is dep for path, dep in cached[1]):
                self.namespaces[mod.path] = cached[0]
                return cached[0]
        saved = (self.st, self.globals_env, self.loops, self.frames, self.stmt_stack, self.module_env)
        saved_more = (self.callers, self.grad_inputs, self.rep.raised)
        self.discover_classes(mod.tree.body, mod.path)
        st = State()
        self.st, self.globals_env, self.loops, self.frames, self.stmt_stack = st, st.env, [], [], []
        self.module_env, self.callers = None, []
        self.namespaces[mod.path] = st.env  # its functions called while it runs see its names
        try:
            self.block(mod.tree.body)
        finally:
            env = self.st.env if self.st is not None else st.env
            self.namespaces[mod.path] = env
            self.st, self.globals_env, self.loops, self.frames, self.stmt_stack, self.module_env = saved
            self.callers, self.grad_inputs, self.rep.raised = saved_more
        if all(key[0] != "@" and _shareable(val) for key, val in env.items()) and self.loader is not None:
            deps = tuple((path, self.loader.current(path)) for path in self.namespaces if path != mod.path)
            mod.env_cache = (env, tuple((p, m) for p, m in deps if m is not None))
        elif self.st is not None:
            for key, val in env.items():
                if key[0] == "@":
                    self.st.env.setdefault(key, val)  # a meter or a model the module made
        return env

    def module_globals(self, func: ast.AST) -> dict[str, Val] | None:
        """The names a function of another module reads as globals: its module's (None: this file's)."""
        line = getattr(func, "lineno", 0)
        if line < LINE_BLOCK:
            return None
        mod = self.rep.modules.get(line // LINE_BLOCK)
        return self.namespaces.get(mod.path, {}) if mod is not None else {}

    def grad_clears(self) -> frozenset[int]:
        """The `x.grad` nodes of the current statement that clear it rather than read it: assigned
        (`x.grad = None`) or changed in place (`x.grad.zero_()`, `x.grad.data.zero_()`)."""
        stmt = self.stmt_stack[-1] if self.stmt_stack else None
        if stmt is None:
            return frozenset()
        found = self._grad_clears.get(id(stmt))
        if found is None:
            out: set[int] = set()
            for node in ast.walk(stmt):
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    out.update(id(t) for t in targets if isinstance(t, ast.Attribute) and t.attr == "grad")
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    if node.func.attr.endswith("_") and not node.func.attr.startswith("_"):
                        recv = node.func.value
                        if isinstance(recv, ast.Attribute) and recv.attr == "data":
                            recv = recv.value
                        if isinstance(recv, ast.Attribute) and recv.attr == "grad":
                            out.add(id(recv))
            found = self._grad_clears[id(stmt)] = frozenset(out)
        return found

    def all_functions(self) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ClassInfo | None]]:
        """Every function and method of the file, with the class a method belongs to."""
        # Listed once; again only if an imported module added classes (a method's class may be one).
        if self._all_functions is None or self._all_functions[0] != len(self.classes):
            self._all_functions = (
                len(self.classes),
                list(_function_defs(self.tree.body, None, self.classes)),
            )
        return iter(self._all_functions[1])

    def analyse_standalone(self, func: ast.FunctionDef | ast.AsyncFunctionDef, cls: ClassInfo | None) -> None:
        st = State()
        st.mode = self.decorated_mode(func)
        self.inference = self.decorated_inference(func)
        self.st = st
        self.loops = []
        params = func.args.posonlyargs + func.args.args
        for a in params + func.args.kwonlyargs:
            st.env[a.arg] = UNKNOWN
        if cls is not None and params and binding(func) == "method":
            inst = self._self_instances.get(cls.node.name)
            if inst is None:
                self.st = State()
                inst = self._self_instances[cls.node.name] = self.instance_val(cls, None)
                self.st = st
            st.env[params[0].arg] = inst
        self.frames.append(Frame(func))
        # Called from nowhere in this file, it runs in whatever grad mode its callers elsewhere set:
        # a helper that runs no backward itself (copying or converting weights, predicting) is
        # often called under `torch.no_grad()`, so an error only grad mode would raise is not
        # claimed there. A function that runs a backward needs grad mode on anyway, and a module's
        # constructor and forward run with it in training.
        assumed = func.name not in _GRAD_ON_METHODS and not _backprops(self.rep.segment(func))
        try:
            self.block_catching(func.body, assumed)
        finally:
            self.frames.pop()

    def block_catching(self, body: Sequence[ast.stmt], catches: bool) -> None:
        """Run ``body``; when ``catches``, the errors it raises are not findings (see Reporter.add)."""
        self.rep.catching += catches
        try:
            self.block(body)
        finally:
            self.rep.catching -= catches

    # -- classes --------------------------------------------------------------------

    def discover_classes(self, body: Sequence[ast.stmt], importer: str) -> None:
        own = importer == self.filename  # this file's classes win over same-named imported ones
        self.function_imported = any(
            isinstance(n, ast.ImportFrom)
            and n.module == "torch.autograd"
            and any(a.name == "Function" and a.asname is None for a in n.names)
            for n in body
        )
        imported: dict[str, tuple[ast.ImportFrom, str]] = {}
        local = {n: c for n, c in self.classes.items()} if own else {}  # classes a base may name
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.note_import_aliases(node)
            if isinstance(node, ast.ImportFrom) and self.loader is not None:
                for alias in node.names:
                    imported[alias.asname or alias.name] = (node, alias.name)
        for node in body:
            if isinstance(node, ast.ClassDef):
                bases = [self.base_name(b) for b in node.bases]
                is_mod = any(is_module_base(b, self.module_class_names(), self.module_aliases) for b in bases)
                layer = next(
                    (
                        found
                        for b in bases
                        if (found := torch_layer_base(b, self.module_aliases, api.PARAM_LAYERS))
                    ),
                    None,
                )
                user_bases: list[ClassInfo] = []
                for b in bases:
                    base_info: ClassInfo | None = local.get(b)
                    if base_info is None and b in imported:
                        # `class Net(BaseModel)` with BaseModel from another module of the project.
                        imp, name = imported[b]
                        lazy = LazyImport(importer, imp.module or "", imp.level or 0, name)
                        base = self.resolve_import(lazy, UNKNOWN)
                        base_info = base.info if isinstance(base.info, ClassInfo) else None
                    if base_info is not None:
                        user_bases.append(base_info)
                        is_mod = is_mod or base_info.is_module
                        layer = layer or base_info.torch_base
                info = ClassInfo(
                    node, is_mod or layer is not None, fields=record_fields(node), torch_base=layer
                )
                info.sequential = any(sequential_base(b, self.module_aliases) for b in bases) or any(
                    base.sequential for base in user_bases
                )
                if info.sequential:
                    info.is_module = True
                info.autograd_function = any(
                    autograd_function_base(b, self.function_imported) for b in bases
                ) or any(base.autograd_function for base in user_bases)
                for item in node.body:  # `export = False` in the class body
                    if (
                        isinstance(item, ast.Assign)
                        and len(item.targets) == 1
                        and isinstance(item.targets[0], ast.Name)
                        and isinstance(item.value, ast.Constant)
                    ):
                        info.consts[item.targets[0].id] = item.value
                info.bases = tuple(user_bases)
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        info.methods[item.name] = item
                        if any(isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list):
                            info.properties.add(item.name)
                    elif (  # `__call__ = forward`
                        isinstance(item, ast.Assign)
                        and isinstance(item.value, ast.Name)
                        and item.value.id in info.methods
                    ):
                        for t in item.targets:
                            if isinstance(t, ast.Name):
                                info.methods[t.id] = info.methods[item.value.id]
                info.inherit()
                local[node.name] = info
                self.class_infos[id(node)] = info
                for method in info.own.values():
                    self.defined_in[id(method)] = info
                if own:
                    self.classes[node.name] = info
                else:
                    self.classes.setdefault(node.name, info)
            elif isinstance(node, ast.Assign) and (record := namedtuple_class(node)) is not None:
                if own or record.name not in self.classes:
                    self.classes[record.name] = ClassInfo(record, False, fields=record_fields(record))
            elif isinstance(node, (ast.If, ast.Try)):
                inner = [n for n in ast.iter_child_nodes(node) if isinstance(n, ast.stmt)]
                self.discover_classes(inner, importer)

    def instantiate(self, info: ClassInfo, node: ast.Call, args: list[Val], kwargs: dict[str, Val]) -> Val:
        return self.instance_val(info, node, args, kwargs)

    def module_class_names(self) -> set[str]:
        return {name for name, info in self.classes.items() if info.is_module}

    def note_import_aliases(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "torch.nn":
                    self.module_aliases.add(alias.asname or "torch.nn")
                if alias.name == "torch" and alias.asname is None:
                    self.module_aliases.add("torch.nn")
        elif node.module in ("torch", "torch.nn"):
            for alias in node.names:
                if node.module == "torch" and alias.name == "nn":
                    self.module_aliases.add(alias.asname or "nn")
                if node.module == "torch.nn" and alias.name == "Module":
                    self.module_aliases.add("Module" if alias.asname is None else alias.asname)

    def base_name(self, expr: ast.expr) -> str:
        if isinstance(expr, ast.Name):
            return expr.id
        if isinstance(expr, ast.Attribute):
            return self.base_name(expr.value) + "." + expr.attr
        return ""

    def instance_val(
        self,
        cls: ClassInfo,
        call: ast.Call | None,
        args: list[Val] | None = None,
        kwargs: dict[str, Val] | None = None,
    ) -> Val:
        """A new instance of a class from this file: its ``__init__`` runs on the call's arguments."""
        inst = ModuleInst(
            cls.node.name, has_params=False, user_class=cls, kind="user" if cls.is_module else "object"
        )
        val = Val(Grad.NONE, Ty.MODULE if cls.is_module else Ty.OTHER, module=inst)
        inst.origin = call  # made by the program (None: an instance assumed for a method alone)
        init = cls.methods.get("__init__")
        if init is not None and self.can_inline(init):
            self.inline(init, [val, *(args or ())], kwargs or {}, call, self_inst=inst)
        elif init is None and cls.fields:
            self.init_fields(cls, inst, args or [], kwargs or {})
        if cls.is_module:
            inst.has_params = (
                cls.torch_base is not None
                or any(c.has_params for c in inst.children.values())
                or any(c.has_params for c in inst.seq_children)
                or any(v.grad is Grad.LEAF for v in inst.attrs.values())
            )
        return val

    def init_fields(self, cls: ClassInfo, inst: ModuleInst, args: list[Val], kwargs: dict[str, Val]) -> None:
        """A record's generated ``__init__``: each field becomes a heap cell of the instance."""
        st = self.st
        if st is None:
            return
        for i, (name, default) in enumerate(cls.fields):
            if i < len(args):
                val = args[i]
            elif name in kwargs:
                val = kwargs[name]
            elif default is not None and isinstance(default, (ast.Constant, ast.Tuple, ast.UnaryOp)):
                val = self.expr(default)
            elif default is not None and (factory := _default_factory(default)) is not None:
                val = self.expr(factory)  # `field(default_factory=lambda: dict(neg_bias=0.05))`
            else:
                val = UNKNOWN
            st.env[f"{inst.key}.{name}"] = val

    # -- blocks and statements ------------------------------------------------------

    def block(self, stmts: Sequence[ast.stmt]) -> None:
        for stmt in stmts:
            if self.st is None:
                return
            if stmt.lineno >= LINE_BLOCK:
                self.rep.ran_from(stmt, self.stmt_stack, certain=not self.foreign_doubt)
            self.stmt_stack.append(stmt)
            try:
                self.statement(stmt)
            finally:
                self.stmt_stack.pop()
            if self.rep.raised:
                # That statement raises: what follows never runs (and must not be reported).
                self.rep.raised = False
                self.st = None
                return

    def statement(self, node: ast.stmt) -> None:
        kind = type(node)
        method = _STMT_DISPATCH.get(kind)
        if method is None:
            method = _STMT_DISPATCH[kind] = getattr(type(self), "s_" + kind.__name__, None) or (
                type(self)._visit_children
            )
        method(self, node)

    def s_Expr(self, node: ast.Expr) -> None:
        call = node.value
        if (  # `total.add_(loss)`: the in-place spelling of `total += loss`
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "add_"
            and isinstance(call.func.value, ast.Name)
            and len(call.args) == 1
            and isinstance(call.args[0], ast.Name | ast.Attribute)
            and not call.keywords
        ):
            cur = self.peek(call.func.value)
            self.expr(call)
            if cur.is_tensor:
                self.check_accumulate(node, call.func.value.id, call.args[0], self.peek(call.args[0]), cur)
            return
        self.expr(node.value)

    def s_Assign(self, node: ast.Assign) -> None:
        target = node.targets[0] if len(node.targets) == 1 else None
        # Only a later iteration can fold a previous iteration's value in (check_running_update).
        before = (
            self.peek(target)
            if self.loops and isinstance(target, (ast.Name, ast.Attribute)) and self.later_iteration()
            else None
        )
        if before is not None and (before.grad is not Grad.GRAPH or not self.self_ref(node)):
            before = None  # only a graph the statement folds into itself is a running update
        cell_sum = (
            isinstance(target, (ast.Attribute, ast.Subscript))
            and isinstance(node.value, ast.BinOp)
            and isinstance(node.value.op, ast.Add)
            and _same_target(node.value.left, target)
            and bool(self.loops)
        )
        cur = self.peek(target) if cell_sum and target is not None else None
        val = self.expr(node.value)
        for t in node.targets:
            self.assign(t, val, node)
        if isinstance(target, ast.Name):
            self.check_accumulate_rebind(node, target.id, node.value)
        elif cur is not None and target is not None and isinstance(node.value, ast.BinOp):
            # `self.total = self.total + loss` adds up like `self.total += loss`.
            self.check_accumulate_cell(node, target, val, cur, node.value.right)
        if before is not None and target is not None:
            self.check_running_update(node, target, before, val)

    def s_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.assign(node.target, self.expr(node.value), node)

    def s_AugAssign(self, node: ast.AugAssign) -> None:
        value = self.expr(node.value)
        target = node.target
        cur = self.peek(target)
        if cur.is_tensor:
            self.inplace(target, cur, node, value)
            # Under no_grad (or on a leaf) an in-place op keeps the tensor's grad status.
            if self.st is not None and self.st.mode is GradMode.ON and cur.grad is not Grad.LEAF:
                new = self.binop_val(node.op, cur, value, node)
                # Still the same tensor (and, through `.data`, still a change autograd never sees).
                new = new.with_(obj=cur.obj, taints=new.taints | cur.taints, via_data=cur.via_data)
                self.assign(target, new, node, keep_binding=True)
            elif self.st is not None and self.st.mode is GradMode.MAYBE and value.grad is not Grad.NONE:
                # Recording or not (`set_grad_enabled(flag)`): whether it gains a graph is not known.
                self.assign(target, cur.with_(grad=Grad.UNKNOWN, cause=None), node, keep_binding=True)
        else:
            new = self.binop_val(node.op, cur, value, node)
            self.assign(target, new.with_(taints=new.taints | cur.taints), node)
        if isinstance(target, ast.Name) and isinstance(node.op, ast.Add):
            self.check_accumulate(node, target.id, node.value, value, cur)
        elif isinstance(target, (ast.Attribute, ast.Subscript)) and isinstance(node.op, ast.Add):
            self.check_accumulate_cell(node, target, value, cur, node.value)

    def s_Delete(self, node: ast.Delete) -> None:
        if self.st is None:
            return
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.st.env.pop(target.id, None)
            elif isinstance(target, ast.Subscript):
                path = self.path_of(target.value)
                base = self.peek(target.value)
                if path is None or base.ty not in (Ty.LIST, Ty.DICT):
                    continue
                if (
                    base.ty is Ty.LIST
                    and isinstance(target.slice, ast.Slice)
                    and not any((target.slice.lower, target.slice.upper, target.slice.step))
                ):
                    self.st.env[path] = Val(Grad.NONE, Ty.LIST, elts=())  # `del buf[:]` empties it
                else:
                    self.st.env[path] = Val(Grad.NONE, base.ty)

    def s_Return(self, node: ast.Return) -> None:
        val = self.expr(node.value) if node.value is not None else NONE_VAL
        if self.frames and self.st is not None:
            self.frames[-1].returns.append((self.st, val))
        self.escape([val], {})  # what a function returns is its caller's to use (or backpropagate)
        self.st = None

    def s_Raise(self, node: ast.Raise) -> None:
        self.st = None

    def s_Break(self, node: ast.Break) -> None:
        if self.loops and self.st is not None:
            self.loops[-1].breaks.append(self.st)
        self.st = None

    def s_Continue(self, node: ast.Continue) -> None:
        if self.loops and self.st is not None:
            self.loops[-1].continues.append(self.st)
        self.st = None

    def s_Pass(self, node: ast.Pass) -> None:
        return

    def s_Import(self, node: ast.Import) -> None:
        if self.st is None:
            return
        for alias in node.names:
            if alias.asname:
                val = Val(Grad.NONE, Ty.QUAL, qual=alias.name)
            else:
                top = alias.name.split(".")[0]
                val = Val(Grad.NONE, Ty.QUAL, qual=top)
            if self.loader is not None and alias.name.split(".")[0] not in NEVER_FOLLOWED:
                lazy = LazyImport(self.importer_of(node), alias.name, 0, None, top=alias.asname is None)
                val = replace(val, info=lazy)
            self.st.env[alias.asname or alias.name.split(".")[0]] = val

    def s_ImportFrom(self, node: ast.ImportFrom) -> None:
        if self.st is None:
            return
        mod = node.module or ""
        follow = self.loader is not None and (node.level or mod.split(".")[0] not in NEVER_FOLLOWED)
        for alias in node.names:
            if alias.name == "*":
                continue
            val = Val(Grad.NONE, Ty.QUAL, qual=f"{mod}.{alias.name}")
            if follow:
                val = replace(val, info=LazyImport(self.importer_of(node), mod, node.level or 0, alias.name))
            self.st.env[alias.asname or alias.name] = val

    def importer_of(self, node: ast.stmt) -> str:
        if node.lineno < LINE_BLOCK:
            return self.filename
        mod = self.rep.modules.get(node.lineno // LINE_BLOCK)
        return mod.path if mod is not None else self.filename

    def s_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if self.st is None:
            return
        self.st.env[node.name] = Val(Grad.NONE, Ty.FUNC, qual=node.name, info=node)
        self.note_closure(node)

    def note_closure(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if self.frames and self.st is not None:
            # A closure (a training step a factory returns): the enclosing names it reads, as they
            # are now, when they are bound once, before it (they hold the same value when it runs).
            # The maker's names as they are (the dict itself: the names a closure may keep are bound
            # once, before it, so later statements never change them); decided when it is called.
            self.closures[func] = (self.frames[-1].func, self.st.env)

    s_AsyncFunctionDef = s_FunctionDef

    def s_ClassDef(self, node: ast.ClassDef) -> None:
        if self.st is None:
            return
        info = self.class_infos.get(id(node)) or self.classes.get(node.name)
        self.st.env[node.name] = Val(Grad.NONE, Ty.FUNC, qual=node.name, info=info) if info else OTHER

    def s_If(self, node: ast.If) -> None:
        test = self.expr(node.test)
        truth = self.static_truth(node.test)
        if truth is None and (isinstance(node.test, (ast.Compare, ast.BoolOp)) or _string_test(node.test)):
            # `if (i + 1) % k == 0:` on known numbers, `if key in cfg:`, `if epoch + 1 <= n and
            # layers is not None:` (the operand a decided `and`/`or` returns).
            truth = test.truth
        if truth is not None and self.loops and self.loops[-1].counter is not None:
            truth = self.truth_later(node.test, truth)
        if truth is not None and self.loops and not self.loops[-1].skipped_backprop:
            passed_by = node.orelse if truth else node.body
            if passed_by and self.arm_backprops(passed_by):
                for frame in self.loops:
                    frame.skipped_backprop = True
        if truth is True:
            self.arms_run.add((id(node), True))
            self.arms_skipped[(id(node), False)] = node
            self.block(node.body)
            return
        if truth is False:
            self.arms_run.add((id(node), False))
            self.arms_skipped[(id(node), True)] = node
            self.block(node.orelse)
            return
        pre = self.st
        if pre is None:
            return
        self.arms_run.update(((id(node), True), (id(node), False)))
        doubt = int(node.lineno >= LINE_BLOCK)
        self.foreign_doubt += doubt
        try:
            self.st = pre.copy()
            self.block(node.body)
            after_body = self.st
            self.st = pre
            self.block(node.orelse)
            skipped = self.st
            self.st = join_states([after_body, skipped])
            gated = _accumulation_gate(node.test) or _threshold_gate(
                node, self.loops[-1].node if self.loops else None
            )
            if gated and self.st is not None and after_body is not None:
                self.keep_unstepped(after_body, skipped)
        finally:
            self.foreign_doubt -= doubt

    def keep_unstepped(self, stepped: State, skipped: State) -> None:
        """After `if i % k == 0: optimizer.step()` with `k` not known: gradient accumulation, so
        some iterations skip the step (every one but the k-th). What an optimizer's gradients hold
        is what those iterations leave, not unknown: a clear in every iteration throws them away."""
        st = self.st
        if st is None:
            return
        for info in self.optimizers:
            key = info.grads_key
            before, after = skipped.env.get(key), stepped.env.get(key)
            if before is None or after is None:
                continue
            flags, applied = before.info, after.info
            if isinstance(flags, frozenset) and isinstance(applied, frozenset) and flags != applied:
                st.env[key] = before
                if self.loops:
                    self.loops[-1].unstepped.add(id(info))

    def static_truth(self, test: ast.expr) -> bool | None:
        if isinstance(test, ast.Constant):
            return bool(test.value)
        if isinstance(test, (ast.Name, ast.Attribute)):
            val = self.peek(test)
            if val.truth is not None:
                return val.truth  # a flag known to be True or False (a default, a constant)
            return known_truth(val) if val.ty in (Ty.LIST, Ty.TUPLE, Ty.DICT, Ty.NONE_OBJ) else None
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.static_truth(test.operand)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp):
            # `if key not in stats or stats[key] is None:` where each operand is known (or one decides).
            decides = isinstance(test.op, ast.Or)
            parts = []
            for operand in test.values:
                part = self.static_truth(operand)
                if part is decides:
                    return decides
                parts.append(part)
            return None if None in parts else not decides
        if (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.In, ast.NotIn))
        ):
            found = self.membership(test.left, test.comparators[0])
            return None if found is None else found is isinstance(test.ops[0], ast.In)
        if (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None
        ):
            # `x is None` on a value known to be None, or known to be a tensor, module or object.
            val = self.peek(test.left)
            is_none = True if val.is_none_literal else False if _never_none(val) else None
            if is_none is None:
                return None
            return is_none if isinstance(test.ops[0], ast.Is) else not is_none
        # `if __name__ == "__main__":` runs when the file is run as a script: analyse it as run.
        if (
            isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name)
            and test.left.id == "__name__"
            and len(test.comparators) == 1
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__"
            and isinstance(test.ops[0], ast.Eq)
        ):
            return test.lineno < LINE_BLOCK  # an imported module's block does not run
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            kind = self.type_test_truth(test)
            if kind is not None:
                return kind
        if (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and all(
                isinstance(e, (ast.Constant, ast.Name, ast.Attribute)) for e in (test.left, *test.comparators)
            )
        ):
            # `if order == 2:` on known numbers or strings (constants, defaults, arguments).
            sides = (test.left, *test.comparators)
            return compare_truth(
                test, [constant(e) if isinstance(e, ast.Constant) else self.peek(e) for e in sides]
            )
        if (
            isinstance(test, ast.Call)
            and isinstance(test.func, ast.Name)
            and test.func.id == "isinstance"
            and len(test.args) == 2
            and not test.keywords
        ):
            return self.isinstance_truth(self.peek(test.args[0]), test.args[1])
        return None

    def truth_later(self, test: ast.expr, truth: bool) -> bool | None:
        """A test on the loop's counter in the last iteration followed, which stands for every later
        one: known only if it is the same for all of their numbers (`if step <= warmup:` with
        warmup 20 holds in iterations 0 and 1, not after: there both arms run)."""
        frame = self.loops[-1]
        if frame.iteration < 2 or frame.exact or frame.counter is None or self.st is None:
            return truth
        name, start, stride, trips = frame.counter
        if trips <= frame.iteration or not isinstance(test, ast.Compare):
            return truth
        if frame.scope is not (self.frames[-1].func if self.frames else None):
            return truth  # a test in a function the loop calls: its names are its own
        if not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(test)):
            return truth
        later = range(start + (frame.iteration - 1) * stride, start + trips * stride, stride)
        # Every later number, or (past 10,000) the first ones and the last.
        numbers: Sequence[int] = later if len(later) <= 10_000 else [*later[:10_000], later[-1]]
        resolved: dict[int, float] = {}

        def known(node: ast.expr) -> float:
            if id(node) not in resolved:
                resolved[id(node)] = self.known_number(node)
            return resolved[id(node)]

        try:
            _counter_test(test, name, later[0], known)  # the other names' numbers, once
        except _NotPlain:
            return None  # not arithmetic on known numbers: its truth later is not known
        # The same test over the same numbers is met again in every call of its function.
        key = (id(test), later.start, later.stop, later.step, truth, tuple(sorted(resolved.items())))
        same = self._later_truths.get(key)
        if same is None:
            same = all(_counter_test(test, name, n, known) is truth for n in numbers)
            self._later_truths[key] = same
        return truth if same else None

    def known_number(self, node: ast.expr) -> float:
        """A name or attribute bound to a known number (see _counter_test)."""
        val = self.peek(node) if isinstance(node, (ast.Name, ast.Attribute)) else UNKNOWN
        known = val.lit[0] if val.lit is not None else None
        if type(known) not in (int, float):
            raise _NotPlain
        return cast(float, known)

    def membership(self, item: ast.expr, container: ast.expr) -> bool | None:
        """``item in container`` for a known string or number and a dict (or its ``.keys()``) whose
        keys are all known, or a sequence of known literals; None when not certain."""
        if not isinstance(item, (ast.Constant, ast.Name, ast.Attribute, ast.Subscript)):
            return None
        key = constant(item) if isinstance(item, ast.Constant) else self.peek(item)
        if key.lit is None or type(key.lit[0]) not in (str, int):
            return None
        if (
            isinstance(container, ast.Call)
            and isinstance(container.func, ast.Attribute)
            and container.func.attr == "keys"
            and not container.args
            and not container.keywords
        ):
            container = container.func.value
        if not isinstance(container, (ast.Name, ast.Attribute, ast.Subscript)):
            return None
        return contains(key, self.peek(container))

    def type_test_truth(self, test: ast.Compare) -> bool | None:
        """``type(x).__name__ == "list"``, ``type(x) is list`` and their negations, for a value whose
        kind is known (a plain list, tuple or dict, or a tensor)."""
        left, op, right = test.left, test.ops[0], test.comparators[0]
        by_name = isinstance(left, ast.Attribute) and left.attr == "__name__"
        call = left.value if by_name and isinstance(left, ast.Attribute) else left
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "type"
            and len(call.args) == 1
            and not call.keywords
            and isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot))
        ):
            return None
        if by_name:
            if not (isinstance(right, ast.Constant) and isinstance(right.value, str)):
                return None
            wanted = right.value
        elif isinstance(right, ast.Name) and right.id in ("list", "tuple", "dict"):
            wanted = right.id
        else:
            return None
        val = self.peek(call.args[0])
        kinds = {Ty.LIST: "list", Ty.TUPLE: "tuple", Ty.DICT: "dict"}
        if val.ty in kinds and val.qual is None:
            actual = kinds[val.ty]  # a plain container (a namedtuple has a qual: left unknown)
        elif val.is_tensor and wanted in ("list", "tuple", "dict"):
            actual = "Tensor"  # a tensor (or a subclass): none of those
        else:
            return None
        same = actual == wanted
        return same if isinstance(op, (ast.Eq, ast.Is)) else not same

    def isinstance_truth(self, val: Val, classes: ast.expr) -> bool | None:
        """``isinstance(val, classes)`` for builtin containers and tensors, when the value's kind
        is known (a tuple of losses is a tuple, a list or a dict; a tensor is none of them)."""
        names = classes.elts if isinstance(classes, ast.Tuple) else [classes]
        quals = []
        for n in names:
            q = self.qual_of(n)
            if q is None:
                return None
            quals.append(q)
        kinds = {"builtins.tuple": Ty.TUPLE, "builtins.list": Ty.LIST, "builtins.dict": Ty.DICT}
        if val.ty in (Ty.TUPLE, Ty.LIST, Ty.DICT) and val.qual is None:
            if all(q in kinds or q in _TENSOR_CLASSES for q in quals):
                # A plain tuple, list or dict is no tensor (a namedtuple has a qual: left unknown).
                return val.ty in {kinds[q] for q in quals if q in kinds}
            return None
        if val.is_tensor and all(q in kinds or q == "torch.Tensor" for q in quals):
            return "torch.Tensor" in quals
        if val.lit is not None and not val.is_tensor and all(q in _BUILTIN_TYPES for q in quals):
            # A known number or string (`isinstance(args.freeze, list)` with `freeze=10`).
            return isinstance(val.lit[0], tuple(_BUILTIN_TYPES[q] for q in quals))
        inst = val.module if val.ty is Ty.MODULE else None
        if inst is not None and inst.user_class is None and inst.cls_name in DISJOINT_LAYERS:
            # `isinstance(layer, nn.Conv2d)` over a torch model's children (built by the style
            # transfer tutorial's loop): each layer's own class, or one no layer here subclasses.
            named = [q.rsplit(".", 1)[-1] for q in quals if q.startswith("torch.nn.")]
            if len(named) != len(quals):
                return None
            if inst.cls_name in named or "Module" in named:
                return True
            return False if all(n in DISJOINT_LAYERS for n in named) else None
        return None

    def s_Match(self, node: ast.Match) -> None:
        self.expr(node.subject)
        pre = self.st
        if pre is None:
            return
        outs: list[State | None] = [pre.copy()]
        for case in node.cases:
            self.st = pre.copy()
            self.block(case.body)
            outs.append(self.st)
        self.st = join_states(outs)

    def s_Try(self, node: ast.Try) -> None:
        pre = self.st
        if pre is None:
            return
        self.st = pre.copy()
        self.block_catching(node.body, any(_catches_runtime_error(h.type) for h in node.handlers))
        body_end = self.st
        ends: list[State | None] = []
        if node.orelse and body_end is not None:
            self.st = body_end
            self.block(node.orelse)
            ends.append(self.st)
        else:
            ends.append(body_end)
        for handler in node.handlers:
            # A handler may start anywhere in the body: only what holds before and after it.
            self.st = join_states([pre.copy(), body_end])
            if self.st is None:
                continue
            if handler.name:
                self.st.env[handler.name] = OTHER
            self.block(handler.body)
            ends.append(self.st)
        self.st = join_states(ends)
        if node.finalbody:
            if self.st is None:
                self.st = pre.copy()
                self.block(node.finalbody)
                self.st = None
            else:
                self.block(node.finalbody)

    s_TryStar = s_Try

    def s_With(self, node: ast.With | ast.AsyncWith) -> None:
        if self.st is None:
            return
        saved_mode, saved_inference = self.st.mode, self.inference
        new_mode = saved_mode
        for item in node.items:
            is_inference, inference = self.inference_item(item.context_expr)
            if is_inference:
                self.inference = inference
            mode = inference_grad_mode(inference) if is_inference else self.context_mode(item.context_expr)
            if mode is not None:
                mode = self.recording(mode)
                new_mode = mode if mode is not GradMode.MAYBE or new_mode is GradMode.ON else new_mode
                if mode is GradMode.MAYBE:
                    new_mode = GradMode.MAYBE
            val = self.expr(item.context_expr)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, UNKNOWN if val.ty is not Ty.OTHER else OTHER, node)
        self.st.mode = new_mode
        outer_block = self.no_grad_at
        if new_mode is GradMode.OFF and saved_mode is not GradMode.OFF:
            self.no_grad_at = node
        try:
            # `with pytest.raises(RuntimeError):` / `self.assertRaises(...)`: the error is expected.
            self.block_catching(node.body, any(_expects_error(item.context_expr) for item in node.items))
        finally:
            self.no_grad_at, self.inference = outer_block, saved_inference
        if self.st is not None:
            self.st.mode = saved_mode

    s_AsyncWith = s_With

    def context_mode(self, expr: ast.expr) -> GradMode | None:
        """The grad mode a ``with`` item sets, None for one known to leave it alone
        (`inference_mode` items are told apart before: see Evaluator.inference_item)."""
        func = expr.func if isinstance(expr, ast.Call) else expr
        qual = self.qual_of(func)
        if qual is None:
            if isinstance(func, ast.Name) and func.id in ("open", "tqdm", "nullcontext", "suppress"):
                return None
            return GradMode.MAYBE
        if qual in api.NO_GRAD_CMS:
            return GradMode.OFF
        if qual in api.ENABLE_GRAD_CMS:
            return GradMode.ON
        if qual in api.SET_GRAD_CMS and isinstance(expr, ast.Call) and expr.args:
            return self.flag_mode(expr.args[0])
        if any(qual == p or qual.startswith(p + ".") for p in api.NEUTRAL_CM_PREFIXES):
            return None
        if qual.split(".")[0] in ("tqdm", "contextlib", "warnings"):
            return None
        return GradMode.MAYBE

    # -- loops ----------------------------------------------------------------------

    def s_For(self, node: ast.For | ast.AsyncFor) -> None:
        iter_val = self.expr(node.iter)
        elem = self.iter_element(iter_val, node.iter)
        trips = _literal_trips(node.iter)
        if trips is None and self.range_length(node.iter) == 0:
            trips = 0  # `for k in range(1, steps)` with `steps` known to be 1: the body never runs
        if trips == 0:
            if node.orelse:
                self.block(node.orelse)
            return
        named = self.parameters_by_name(node)
        if named is not None:
            # `for name, p in model.named_parameters(): p.requires_grad = "lora_" in name`: each
            # parameter in turn, with its name, so freezing by name freezes what it names.
            self.each_element(node, named, elem, every=True)
            return
        exact = iter_val.elts if iter_val.ty in (Ty.LIST, Ty.TUPLE) else None
        keys = iter_val.keys if iter_val.ty is Ty.DICT and iter_val.elts is not None else None
        if keys and len(keys) <= MAX_EXACT_ELEMENTS and any(carries_graph(e) for e in iter_val.elts or ()):
            # Over a dict of graph values (`for key in losses:`): one iteration per key, in order.
            self.each_element(node, [_key_val(k) for k in keys], elem, every=True)
            return
        if (
            exact is not None
            and 2 <= len(exact) <= MAX_EXACT_ELEMENTS
            and any(carries_graph(e) for e in exact)
        ):
            # Over a known sequence (a dict's items, a tuple of losses): iteration k binds element k,
            # so distinct losses are backpropagated one after the other as the program does, and
            # `sums[idx] += v` adds each to its own slot.
            every = (
                self.loop_fact(node, _indexes_by_target)
                or self.loop_fact(node, _changes_bound_in_place)
                or self.loop_fact(node, _folds_bound)
            )
            self.each_element(node, exact, elem, every=every)
            return
        if exact is not None and (len(exact) == 1 or self.each_in_turn(node, exact)):
            # One element (a config list of one hook): the loop runs once, on exactly it.
            self.each_element(node, exact, elem, every=True)
            return
        trips_known = self.range_length(node.iter)
        if (
            trips_known is not None
            and 1 <= trips_known <= MAX_EXACT_ELEMENTS
            and (
                self.builds_modules(node)
                or self.branches_on_counter(node)
                or self.gates_on_counter(node)
                or self.walks_objects(node)
            )
        ):
            counter = self.counter(node.iter)
            assert counter is not None
            start, stride, _ = counter
            numbers = [Val(Grad.NONE, Ty.NUMBER, lit=(start + k * stride,)) for k in range(trips_known)]
            self.each_element(node, numbers, elem, every=True, numbered=True)
            return
        layers = self.module_sequence(iter_val, node.iter)
        if layers is not None:
            # Over a ModuleList / Sequential of distinct layers (a forward pass): one iteration per
            # layer, in order, each binding its own layer.
            self.each_element(node, layers, elem, every=True)
            return
        counter = self.counter(node.iter)
        raw = self.raw_element(iter_val, node.iter)
        if raw is not None and _leaves_early(node):
            raw = None  # asked only here: _leaves_early walks the loop's whole body

        def head() -> None:
            # The loop's iterations are followed one by one: iteration k of `range`/`enumerate`
            # binds its k-th number (`if step == 0:` then takes one arm in each).
            val = elem
            if raw is not None:
                val = self.element_graphs(val, raw, node, self.loops[-1].iteration)
            if counter is not None:
                start, stride, paired = counter
                number = Val(Grad.NONE, Ty.NUMBER, lit=(start + (self.loops[-1].iteration - 1) * stride,))
                if not paired:
                    val = number
                elif elem.ty is Ty.TUPLE and elem.elts is not None and len(elem.elts) == 2:
                    val = elem.with_(elts=(number, elem.elts[1]))
            self.assign(node.target, val, node)

        known = trips or self.range_length(node.iter) or (len(exact) if exact is not None else None)
        counted = None
        if counter is not None and known is not None:
            name = node.target if not counter[2] else _first_of_pair(node.target)
            if isinstance(name, ast.Name):
                counted = (name.id, counter[0], counter[1], known)
        self.loop(node, head, max_iterations=trips or 2, trips=known, counted=counted)

    def comprehension_loop(
        self, node: ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp, first: Val
    ) -> Val | None:
        """`[self.train_step() for _ in range(steps)]`: a comprehension whose element runs a backward
        is a training loop. It is followed as the loop it is (iterations, what the first one freed),
        its element computed in each; None for every other comprehension (one abstract pass)."""
        if not isinstance(node, ast.ListComp | ast.GeneratorExp) or len(node.generators) != 1:
            return None
        gen = node.generators[0]
        if gen.ifs or gen.is_async or not any(isinstance(n, ast.Call) for n in ast.walk(node.elt)):
            return None
        steps = self._comp_steps.get(id(node))
        if steps is None:
            # (`[sampler.sample() for _ in range(n)]`: its gradients may be a few calls down)
            steps = self.may_backpropagate(node) or self.text_backprops(self.rep.segment(node))
            self._comp_steps[id(node)] = steps
        if not steps:
            return None
        found = self._comp_loops.get(id(node))
        if found is None:
            # A `for` statement of the same text: `for <target> in <iter>: <temp> = <element>`,
            # kept for the analysis (its identity keys the loop's facts).
            temp = ast.copy_location(ast.Name(id=_COMP_ELEMENT, ctx=ast.Store()), node.elt)
            body = ast.copy_location(ast.Assign(targets=[temp], value=node.elt), node.elt)
            synth = ast.copy_location(ast.For(target=gen.target, iter=gen.iter, body=[body], orelse=[]), node)
            for made in (temp, body, synth):
                made.end_lineno = (node.elt if made is not synth else node).end_lineno
                made.end_col_offset = (node.elt if made is not synth else node).end_col_offset
            found = self._comp_loops[id(node)] = (node, synth)
        synth = found[1]
        elem = self.iter_element(first, gen.iter)
        self.loop(synth, lambda: self.assign(gen.target, elem, synth))
        st = self.st
        if st is None:
            return UNKNOWN
        item = st.env.pop(_COMP_ELEMENT, None)
        return Val(Grad.NONE, Ty.LIST, item=item)

    def closure_loop(self, step: ast.Call, closure: ast.expr, func: object) -> Val | None:
        """`lbfgs.step(closure)`: the step calls the closure again and again, so it is followed as a
        loop of closure calls (what the first call's backward freed, the second call meets); it returns
        what the calls returned."""
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        synth = self._closure_loops.get(id(step))
        if synth is None:
            # `for _ in <step>: <temp> = closure()`, at the step's place (its identity keys the facts).
            temp = ast.copy_location(ast.Name(id=_CLOSURE_RESULT, ctx=ast.Store()), step)
            call = ast.copy_location(ast.Call(func=closure, args=[], keywords=[]), step)
            body = ast.copy_location(ast.Assign(targets=[temp], value=call), step)
            under = ast.copy_location(ast.Name(id="_", ctx=ast.Store()), step)
            synth = ast.copy_location(ast.For(target=under, iter=step, body=[body], orelse=[]), step)
            for made in (temp, call, body, under, synth):
                made.end_lineno, made.end_col_offset = step.end_lineno, step.end_col_offset
            self._closure_loops[id(step)] = synth
            self.rep.closure_steps[id(synth)] = (step, func)
        self.loop(synth, lambda: None)
        return self.st.env.pop(_CLOSURE_RESULT, UNKNOWN) if self.st is not None else UNKNOWN

    def loop_fact(self, loop: ast.For | ast.AsyncFor, fact: Callable[[ast.For | ast.AsyncFor], bool]) -> bool:
        """A fact of a loop's text, found once per loop (loops are met again in every call of their
        function)."""
        key = (id(loop), fact)
        found = self._loop_facts.get(key)
        if found is None:
            found = self._loop_facts[key] = fact(loop)
        return found

    def parameters_by_name(self, loop: ast.For | ast.AsyncFor) -> list[Val] | None:
        """The elements of a loop over `m.named_parameters()` / `m.parameters()` (or `enumerate` of
        it) that sets their `requires_grad` or sorts them into lists by name or index, one per
        parameter with its name, when the model's
        layers are known (see parameter_list). A list that may miss parameters of parts not known
        serves only a loop whose iterations do not depend on their order or number."""
        it = loop.iter
        counted = isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate"
        if counted:
            assert isinstance(it, ast.Call)
            if len(it.args) != 1 or it.keywords:
                return None
            it = it.args[0]
        if not (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Attribute)
            and it.func.attr in ("named_parameters", "parameters")
            and not it.args
            and not it.keywords
        ):
            return None
        named = it.func.attr == "named_parameters"
        if not counted and not (named and self.loop_fact(loop, _reads_param_name)):
            return None  # every parameter treated alike: the loop's summary says as much
        if not (self.loop_fact(loop, _sets_requires_grad) or self.loop_fact(loop, _files_params)):
            return None
        model = self.peek(it.func.value)
        if model.ty is not Ty.MODULE or model.module is None:
            return None
        listed = self.parameter_list(model.module)
        if listed is None:
            return None
        params, complete = listed
        if not params or not complete and (counted or not named or self.loop_fact(loop, _order_matters)):
            return None
        out: list[Val] = []
        for k, elt in enumerate(self.parameter_elements(params, named)):
            number = Val(Grad.NONE, Ty.NUMBER, lit=(k,))
            out.append(Val(Grad.NONE, Ty.TUPLE, elts=(number, elt)) if counted else elt)
        return out

    def each_in_turn(self, loop: ast.For | ast.AsyncFor, exact: tuple[Val, ...]) -> bool:
        """Is a loop over this short known sequence, which carries no graph, followed element by
        element? When each element goes somewhere of its own:

        - filed under a key the loop binds (`features[layers[name]] = x`, `meters[name].update(v)`),
          so the dict keeps its exact keys;
        - a tensor whose `requires_grad` it sets (`for p in parameters: p.requires_grad = True`);
        - one of a few objects of the project's classes or records (`for loader in self.loaders:`,
          `for i, batch in enumerate(batches)` over `SimpleNamespace`s), each keeping its own
          fields and state;
        - a known key the body reads by (`for name in POLLUTANTS: train(models[name])`);
        - an attribute name it gets or sets (`for name in ("W", "Z"): getattr(model, name)`);
        - or the loop only builds layers (`for units in hidden: layers.append(nn.Linear(...))`),
          so the list keeps its exact layers."""
        if not 1 <= len(exact) <= MAX_EXACT_ELEMENTS:
            return False
        if self.loop_fact(loop, _indexes_by_target):
            return True
        tensors = any(e.is_tensor and e.obj is not None for e in exact)
        if tensors and self.loop_fact(loop, _sets_requires_grad):
            return True
        if len(exact) >= 2 and all(_project_object(e) or _pairs_object(e) for e in exact):
            return True
        if all(e.ty is Ty.OPTIMIZER and e.info is not None for e in exact):
            return True  # `for opt in (opt_g, opt_d): opt.zero_grad()`: each optimizer in turn
        if all(e.lit is not None for e in exact) and self.loop_fact(loop, _subscripts_by_target):
            return True
        return self.loop_fact(loop, _spells_attributes) or self.builds_modules(loop)

    def closure_env(self, func: ast.AST) -> dict[str, Val]:
        """The enclosing names a closure keeps: those bound once, before it, outside loops."""
        made = self.closures.get(func)
        if made is None:
            return {}
        outer, made_env = made
        free = self._free.get(func)
        if free is None:
            free = self._free[func] = _free_names(func)  # type: ignore[arg-type]
        if self.frames and self.frames[-1].func is outer and self.st is not None:
            # Called from the function that made it, which is still running: its names as they are now.
            env = self.st.env
            return {name: env[name] for name in free if name in env}
        binds = self._bindings.get(outer)
        if binds is None:
            binds = self._bindings[outer] = _bindings_of(outer)
        return {
            name: made_env[name]
            for name in free
            if name in made_env and _bound_once_before(binds, name, func)
        }

    def builds_modules(self, loop: ast.For | ast.AsyncFor) -> bool:
        """Does the loop only build a model or a few objects (appends or adds `nn.` layers, makes
        objects of the project's classes: one agent, particle or worker per iteration), and run
        no backward?"""
        text = self.rep.segment(loop)
        builds = bool(_BUILDS_LAYERS.search(text)) or self.loop_fact(loop, self._makes_project_objects)
        return builds and not self.may_backpropagate(loop)

    def walks_objects(self, loop: ast.For | ast.AsyncFor) -> bool:
        """Does a loop that runs no backward take, by its counter, one of several distinct objects
        of the project's classes (`self.particles[i].reset()`)? Each number then reaches its own
        object: one iteration would stand for the others wrongly (their state untouched)."""
        if self.may_backpropagate(loop):
            return False  # a training loop's second iteration already meets a second object
        held = self.counter_indexed(loop)
        for node in held:
            seq = self.peek(node)
            if seq.ty is Ty.LIST and seq.elts is not None and len(seq.elts) >= 2:
                objs = [e.module for e in seq.elts if e.module is not None and e.module.user_class]
                if len(objs) == len(seq.elts) and len({id(o) for o in objs}) == len(objs):
                    return True
        return False

    def counter_indexed(self, loop: ast.For | ast.AsyncFor) -> list[ast.expr]:
        """The sequences the loop's body indexes by its counter (`xs` of `xs[i]`), found once."""
        found = self._counter_indexed.get(id(loop))
        if found is None:
            name = loop.target.id if isinstance(loop.target, ast.Name) else None
            found = [
                n.value
                for stmt in loop.body
                for n in ast.walk(stmt)
                if name is not None
                and isinstance(n, ast.Subscript)
                and isinstance(n.slice, ast.Name)
                and n.slice.id == name
                and isinstance(n.value, (ast.Name, ast.Attribute))
            ]
            self._counter_indexed[id(loop)] = found
        return found

    def _makes_project_objects(self, loop: ast.For | ast.AsyncFor) -> bool:
        """Does the loop's body only make objects of the project's classes (not records) and their
        optimizers, appending them to lists (`policy = Particle(...); particles.append(policy)`)?"""
        made: set[str] = set()
        appended = False
        for stmt in loop.body:
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
            if isinstance(stmt, ast.Assign) and isinstance(target, ast.Name):
                if not self._makes_object(stmt.value):
                    return False
                made.add(target.id)
                continue
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if not (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == "append"
                and len(call.args) == 1
            ):
                return False
            arg = call.args[0]
            if isinstance(arg, ast.Name) and arg.id in made or self._makes_object(arg):
                appended = appended or not _optimizer_call(arg)
            else:
                return False
        return appended

    def _makes_object(self, node: ast.expr) -> bool:
        """A call of a class of the project that is not a record, or of an optimizer."""
        if not isinstance(node, ast.Call):
            return False
        if _optimizer_call(node):
            return True
        cls = self.classes.get(node.func.id) if isinstance(node.func, ast.Name) else None
        return cls is not None and not cls.fields

    def branches_on_counter(self, loop: ast.For | ast.AsyncFor) -> bool:
        """Does a loop that runs no backward take an arm by its counter (`if i in content_layers:`,
        `if i == n - 1:`)? Then each number gets its iteration: one would stand for none of them."""
        return self.loop_fact(loop, _branches_on_target) and not self.may_backpropagate(loop)

    def gates_on_counter(self, loop: ast.For | ast.AsyncFor) -> bool:
        """Does an arm the loop takes by its counter run the backward (`if (t + 1) % k == 0:
        loss.backward()`)? Two iterations would stand for none of the ones it runs in: over a short
        known range each number gets its iteration, as for a loop that runs no backward."""
        return self.loop_fact(loop, self._backprops_by_counter)

    def _backprops_by_counter(self, loop: ast.For | ast.AsyncFor) -> bool:
        name = loop.target.id if isinstance(loop.target, ast.Name) else None
        return name is not None and any(
            isinstance(n, ast.If)
            and any(isinstance(r, ast.Name) and r.id == name for r in ast.walk(n.test))
            and (self.arm_backprops(n.body) or self.arm_backprops(n.orelse))
            for stmt in loop.body
            for n in ast.walk(stmt)
        )

    def range_length(self, it: ast.expr) -> int | None:
        """How often `range(...)` (or `reversed(range(...))`) of known numbers runs."""
        inner = _reversed_range(it)
        if inner is not None:
            return self.range_length(inner)
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
            return None
        if it.keywords or not 1 <= len(it.args) <= 3:
            return None
        known = [self.literal_int(a) for a in it.args]
        if any(k is None for k in known) or (len(known) == 3 and not known[2]):
            return None
        return range_len([k for k in known if k is not None])

    def counter(self, it: ast.expr) -> tuple[int, int, bool] | None:
        """(first number, stride, paired with an element) of `range(...)` or `enumerate(...)` when
        they are known numbers."""
        inner = _reversed_range(it)
        if inner is not None:
            # `for t in reversed(range(n))` (GAE): from the last number down.
            length, forward = self.range_length(inner), self.counter(inner)
            if length is None or forward is None or length < 1:
                return None
            return forward[0] + (length - 1) * forward[1], -forward[1], False
        if not isinstance(it, ast.Call) or not isinstance(it.func, ast.Name) or it.keywords:
            return None
        known = [self.literal_int(a) for a in it.args]
        if it.func.id == "range" and 1 <= len(it.args) <= 3:
            start = known[0] if len(it.args) >= 2 else 0
            stride = known[2] if len(it.args) == 3 else 1
            if start is None or not stride:
                return None
            return start, stride, False
        if it.func.id == "enumerate" and len(it.args) in (1, 2):
            start = known[1] if len(it.args) == 2 else 0
            return (start, 1, True) if start is not None else None
        return None

    def literal_int(self, node: ast.expr) -> int | None:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.literal_int(node.operand)  # `range(n - 1, 0, -1)`
            return None if inner is None else -inner
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            left, right = self.literal_int(node.left), self.literal_int(node.right)  # `steps + 1`
            if left is None or right is None:
                return None
            return (
                left + right
                if isinstance(node.op, ast.Add)
                else left - right
                if isinstance(node.op, ast.Sub)
                else left * right
            )
        if isinstance(node, ast.Constant):
            val = constant(node)
        elif isinstance(node, (ast.Name, ast.Attribute)):
            val = self.peek(node)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and len(node.args) == 1
            and not node.keywords
            and isinstance(node.args[0], (ast.Name, ast.Attribute))
            and self.lookup(node.func.id).qual == "builtins.len"
        ):
            # `range(1, len(channels))` over a list of known elements (`MLP([c_in, 32, c_out])`).
            seq = self.peek(node.args[0])
            known_elts = seq.elts is not None and seq.ty in (Ty.LIST, Ty.TUPLE, Ty.DICT)
            if known_elts and seq.elts is not None:
                return len(seq.elts)
            val = self.expr(node)  # `len(net)` of a container of known layers
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "size"
            and isinstance(node.func.value, (ast.Name, ast.Attribute))
            and all(isinstance(a, ast.Constant) and type(a.value) is int for a in node.args)
            and not node.keywords
            and self.peek(node.func.value).is_tensor
        ):
            val = self.expr(node)  # `range(x.size(1))`: a size of a tensor of known shape
        elif _pure_number(node) and all(
            self.lookup(n.func.id).qual == f"builtins.{n.func.id}"
            for n in ast.walk(node)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        ):
            # `range(max(content_layers + style_layers) + 1)`: arithmetic and len/max/min on known
            # values, which evaluating again changes nothing.
            val = self.expr(node)
        else:
            return None
        known = val.lit[0] if val.lit is not None else None
        return known if type(known) is int else None

    def each_element(
        self,
        node: ast.For | ast.AsyncFor,
        elements: Sequence[Val],
        other: Val,
        every: bool,
        numbered: bool = False,
    ) -> None:
        """A loop whose iteration k binds element k; ``every``: followed over each element even
        when no backward runs in it. Else, when not followed one by one, it binds ``other``."""

        def head() -> None:
            frame = self.loops[-1]
            self.assign(node.target, elements[frame.iteration - 1] if frame.exact else other, node)

        self.loop(node, head, max_iterations=len(elements), exact=True, every=every, numbered=numbered)

    def module_sequence(self, it: Val, node: ast.expr) -> tuple[Val, ...] | None:
        """The elements of a loop over a module container's distinct children (or ``enumerate``
        of one), when there are few enough to follow one by one."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            if node.func.id == "enumerate" and len(node.args) == 1:
                inner = self.module_sequence(self.peek(node.args[0]), node.args[0])
                if inner is None:
                    return None
                return tuple(
                    Val(Grad.NONE, Ty.TUPLE, elts=(Val(Grad.NONE, Ty.NUMBER, lit=(k,)), e))
                    for k, e in enumerate(inner)
                )
            if node.func.id == "zip" and node.args and not any(isinstance(a, ast.Starred) for a in node.args):
                # `zip(self.heads, strides)`: the layers, each with its partner, when every other
                # sequence certainly lasts as long (else the loop may stop before a layer).
                layers = self.module_sequence(self.peek(node.args[0]), node.args[0])
                if layers is None:
                    return None
                columns: list[tuple[Val, ...]] = [layers]
                for arg in node.args[1:]:
                    literal = isinstance(arg, ast.List | ast.Tuple) and all(
                        isinstance(e, ast.Constant) for e in arg.elts
                    )
                    other = self.expr(arg) if literal else self.peek(arg)  # constants evaluate freely
                    if (
                        other.ty in (Ty.LIST, Ty.TUPLE)
                        and other.elts is not None
                        and len(other.elts) >= len(layers)
                    ):
                        columns.append(other.elts[: len(layers)])
                    elif (
                        other.is_tensor
                        and other.shape
                        and other.shape[0] is not None
                        and other.shape[0] >= len(layers)
                    ):
                        columns.append((self.iter_element(other, arg),) * len(layers))
                    else:
                        return None
                return tuple(Val(Grad.NONE, Ty.TUPLE, elts=row) for row in zip(*columns, strict=False))
            return None
        if it.ty in (Ty.LIST, Ty.TUPLE) and it.elts and all(e.ty is Ty.MODULE and e.module for e in it.elts):
            # A slice or list of layers (`self.layers[:-1]`): one iteration per layer, as for the
            # container itself. One layer is followed too: the loop binds exactly it.
            if len(it.elts) <= MAX_LAYER_SEQUENCE:
                return it.elts
            return None
        children = it.module.seq_children if it.module is not None and it.ty is Ty.MODULE else None
        if (
            not children
            or not 2 <= len(children) <= MAX_LAYER_SEQUENCE
            or all(c is children[0] for c in children)
        ):
            return None
        return tuple(Val(Grad.NONE, Ty.MODULE, module=c) for c in children)

    s_AsyncFor = s_For

    def s_While(self, node: ast.While) -> None:
        self.loop(node, lambda: self.expr(node.test))

    def loop(
        self,
        node: ast.For | ast.While | ast.AsyncFor,
        head: object,
        max_iterations: int = 2,
        exact: bool = False,
        every: bool = False,
        trips: int | None = None,
        numbered: bool = False,
        counted: tuple[str, int, int, int] | None = None,
    ) -> None:
        """Follow a loop (see LoopFrame); ``trips``: how often it runs, when that is known."""
        frame = LoopFrame(
            node,
            scope=self.frames[-1].func if self.frames else None,
            parent=self.loops[-1] if self.loops else None,
            numbered=numbered,
            counter=counted,
        )
        self.loops.append(frame)
        # The second iteration meets what the first freed. An inner loop needs it only while every
        # enclosing loop is in its first iteration: later ones would repeat the same findings.
        second = self.unroll_allowed() and self.may_backpropagate(node)
        # Over a known sequence every element gets its iteration; else at most two iterations.
        frame.exact = exact and (second or every)
        iterations = max_iterations if frame.exact else min(max_iterations, 2 if second else 1)
        if (trips is not None and trips <= 1) or (frame.exact and max_iterations == 1):
            # Over one hook, one batch: no second iteration meets what the first freed; a backward
            # after the loop does (see Reporter.reuse).
            iterations = 1
            self.rep.single_trips.add(id(node))
        may_probe = iterations == 1 and max_iterations >= 2 and not frame.exact and trips != 1
        ends: list[State | None] = []
        backwards_before = len(self.rep.backward_runs)
        seen_backward = False  # iteration 1 ran a backward the text did not show (through a call)
        try:
            it = 0
            while it < iterations:
                it += 1
                if self.st is None:
                    break
                real = seen_backward or frame.accumulates or frame.skipped_backprop
                if it == 2 and may_probe and not real:
                    frame.probe = True
                frame.iteration = it
                if it == 2 and not frame.exact:
                    _widen_changed_numbers(frame.starts[1], self.st.env)
                frame.starts[it] = dict(self.st.env)
                frame.seq_start = self.seq
                head()  # type: ignore[operator]
                self.block(node.body)
                end = join_states([self.st, *frame.continues])
                frame.continues = []
                ends.append(end)
                self.st = end
                if it == 1 and may_probe and self.unroll_allowed():
                    # A backward ran (`self.step_fn(batch)` holding the training step): the
                    # second iteration meets what it freed, as for a loop whose text shows one.
                    seen_backward = len(self.rep.backward_runs) > backwards_before
                    if seen_backward or frame.changed_inplace or frame.accumulates or frame.skipped_backprop:
                        iterations = 2
        finally:
            self.loops.pop()
        if frame.starts and ".backward(" in self.rep.segment(node):
            self.rep.training_loop(node, frame.starts[1], self)
        # A loop over a known sequence, followed element by element, leaves after its last element
        # (or at a break); any other may leave after any iteration.
        leaving = ends[-1:] if frame.exact and len(ends) == iterations else ends
        self.st = join_states([*leaving, *frame.breaks])
        for info in self.optimizers:
            if id(info) in frame.unstepped:
                # The last micro-batch may or may not have been stepped (`len(loader) % k`): what the
                # gradients hold after the loop is not known (a clear at the next epoch's start is
                # no finding).
                self.set_grads(info, None)
        if frame.probe and self.st is not None and len(ends) == 2 and ends[1] is not None:
            # A loop repeats (as everywhere here): what its second pass changed in place stays
            # changed for the graphs saved before, which a backward after the loop meets.
            self.st.dirty = dict(ends[1].dirty)
        if self.st is not None and not frame.exact:
            # Lists that every path of an iteration appended to, in a loop known to run two or
            # more times without a break: two or more elements after it, whatever they are.
            grown = (
                _appended_lists(self.growing_lists(node), frame.starts.get(1, {}), ends[0])
                if trips is not None and trips >= 2 and not frame.breaks and ends and ends[0] is not None
                else []
            )
            _summarise_grown_lists(frame.starts.get(1, {}), self.st)
            for key in grown:
                val = self.st.env.get(key)
                if val is not None and val.ty is Ty.LIST:
                    self.st.env[key] = val.with_(plural=True, nonempty=True)
        if node.orelse and self.st is not None:
            self.block(node.orelse)

    def unroll_allowed(self) -> bool:
        """May the innermost loop get a second iteration? Only while every enclosing loop is in its
        first: later ones would repeat the same findings."""
        return len(self.loops) <= MAX_UNROLL_DEPTH and all(f.iteration == 1 for f in self.loops[:-1])

    def may_backpropagate(self, loop: ast.AST) -> bool:
        """Can an iteration of this loop run a backward (directly or in a function of this file)?

        Only then can iteration 2 meet something iteration 1 freed; other loops run once."""
        text = self.rep.segment(loop)
        if _backprops(text):
            return True
        if any(alias in text for alias in self.grad_aliases()):
            return True
        return any(name + "(" in text for name in self.backprop_names())

    def backprop_names(self) -> set[str]:
        """``backprop_functions``, made again only when another module ran meanwhile."""
        if self._backprop_funcs is None or self._backprop_modules != len(self.rep.modules):
            self._backprop_modules = len(self.rep.modules)
            self._backprop_funcs = self.backprop_functions()
        return self._backprop_funcs

    def grad_aliases(self) -> tuple[str, ...]:
        if self._grad_aliases is None:
            # `from torch.autograd import grad` then `grad(...)`: the word "autograd" is not there.
            self._grad_aliases = tuple(
                name + "("
                for name, val in self.globals_env.items()
                if val.ty is Ty.QUAL and val.qual in ("torch.autograd.grad", "torch.autograd.backward")
            )
        return self._grad_aliases

    def backprop_functions(self) -> set[str]:
        """Names of the functions (of this file, and of the project's modules it ran) that may run a
        backward: directly, or by calling one that does (a few levels)."""
        if not self.rep.modules:
            # One file: the functions that backpropagate themselves, as always. Through other
            # modules the backward is usually a few calls down (`agent.train()` -> `_update()`), so
            # callers of callers count there; in one file that would unroll many more loops.
            return {f.name for f, _ in self.all_functions() if _backprops(self.rep.segment(f))}
        if self._local_calls is None:
            self._local_calls = self.function_calls(f for f, _ in self.all_functions())
        rows = list(self._local_calls)
        found = {name for name, backprops, _ in rows if backprops}
        for mod in self.rep.modules.values():
            if mod.backprop_calls is None:
                defs = _function_defs(mod.tree.body, None, {})
                mod.backprop_calls = self.function_calls(f for f, _ in defs)
            rows.extend(mod.backprop_calls)
            found.update(name for name, backprops, _ in mod.backprop_calls if backprops)
        calls = [(name, called) for name, _, called in rows if name not in found]
        for _ in range(4):
            more = {name for name, called in calls if name not in found and called & found}
            if not more:
                break
            found |= more
        return found

    def arm_backprops(self, arm: list[ast.stmt]) -> bool:
        """May these statements run a backward, directly or through the file's functions?"""
        return self.text_backprops("\n".join(self.rep.segment(stmt) for stmt in arm))

    def text_backprops(self, text: str) -> bool:
        """May this code run a backward, directly or through the file's functions (a few calls
        down: `agent.learn()` -> `update()` -> `loss.backward()`)?"""
        if _backprops(text):
            return True
        return any(self.reaches_backward(name, set()) for name in set(_CALLED.findall(text)))

    def reaches_backward(self, name: str, visiting: set[str]) -> bool:
        """Does a function of this file called ``name`` run a backward, itself or through the ones
        it calls? Only the functions reached are read (most calls are of torch, not of the file)."""
        found = self._deep_backprops.get(name)
        if found is not None:
            return found
        if self._defs_by_name is None:
            self._defs_by_name = {}
            for f, _ in self.all_functions():
                self._defs_by_name.setdefault(f.name, []).append(f)
        defs = self._defs_by_name.get(name, [])
        visiting.add(name)
        texts = [self.rep.segment(f) for f in defs]
        found = any(_backprops(t) for t in texts) or any(
            self.reaches_backward(callee, visiting)
            for callee in {c for t in texts for c in _CALLED.findall(t)}
            if callee not in visiting
        )
        self._deep_backprops[name] = found
        return found

    def function_calls(
        self, funcs: Iterable[ast.FunctionDef | ast.AsyncFunctionDef]
    ) -> tuple[tuple[str, bool, frozenset[str]], ...]:
        """Per function: its name, whether its text runs a backward, and the names it calls."""
        rows = []
        for f in funcs:
            text = self.rep.segment(f)
            rows.append((f.name, _backprops(text), frozenset(_CALLED.findall(text))))
        return tuple(rows)

    def iter_element(self, it: Val, node: ast.expr) -> Val:
        """What certainly holds of every element a loop over ``node`` binds."""
        if it.ty is Ty.PARAMS:
            return it.elts[0] if it.elts else UNKNOWN
        if isinstance(it.info, Batches):
            return it.info.batch  # a DataLoader over a dataset of the program
        rows = tensor_rows(it)
        if rows is not None:
            return rows  # views that share its version counter and its graph
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            fn = node.func.id
            if fn == "range":
                return NUMBER
            if fn == "enumerate" and node.args and it.item is None:
                inner = self.iter_element(self.peek(node.args[0]), node.args[0])
                return Val(Grad.NONE, Ty.TUPLE, elts=(NUMBER, inner))
            if fn in ("reversed", "list", "tuple", "sorted") and len(node.args) == 1:
                return self.iter_element(self.peek(node.args[0]), node.args[0])
        if it.ty is Ty.DICT:
            return OTHER  # its keys
        if it.ty in (Ty.LIST, Ty.TUPLE):
            # What is built from the elements consumes the list (GG301 follows its taints).
            return self.one_element(it)
        if it.module is not None and it.module.seq_children:
            # Iterating an nn.Sequential / ModuleList: any of its children.
            first = Val(Grad.NONE, Ty.MODULE, module=it.module.seq_children[0])
            if all(c is it.module.seq_children[0] for c in it.module.seq_children):
                return first
        return UNKNOWN

    def assign_target(self, target: ast.expr, val: Val) -> None:
        if self.stmt_stack:
            self.assign(target, val, self.stmt_stack[-1])

    # -- assignment -----------------------------------------------------------------

    def assign(self, target: ast.expr, val: Val, stmt: ast.stmt, keep_binding: bool = False) -> None:
        st = self.st
        if st is None:
            return
        if isinstance(target, ast.Name):
            if val.root is not None and val.root.binding is None and not keep_binding:
                val.root.binding = (target.id, target.lineno)
            if val.module is not None and val.module.name is None and val.ty is Ty.MODULE:
                val.module.name = target.id
            # Labels name tensors in the hover's chain; other values need none.
            st.env[target.id] = (
                val.with_(label=target.id) if val.label != target.id and val.is_tensor else val
            )
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = any(isinstance(e, ast.Starred) for e in target.elts)
            if val.elts is not None and len(val.elts) == len(target.elts) and not starred:
                for sub, sub_val in zip(target.elts, val.elts, strict=False):
                    self.assign(sub, sub_val, stmt)
            else:
                # A sequence of unknown length: each name gets what holds of every element.
                each = val.item if val.ty in (Ty.TUPLE, Ty.LIST) and val.item is not None else UNKNOWN
                for sub in target.elts:
                    if isinstance(sub, ast.Starred):
                        self.assign(sub.value, UNKNOWN, stmt)
                    else:
                        self.assign(sub, UNKNOWN if starred else each, stmt)
        elif isinstance(target, ast.Attribute):
            path = self.path_of(target)
            if target.attr == "grad":
                self.forget_grads()  # `p.grad = None`: cleared by hand
            if target.attr == "requires_grad":
                base = self.peek(target.value)
                if base.grad is Grad.GRAPH and base.ty is Ty.TENSOR:
                    # Only a leaf's flag can change: torch raises "you can only change
                    # requires_grad flags of leaf variables".
                    self.rep.publish(obs.FlagOnNonLeaf(stmt, target, self.carried_from(base)))
                    return
                flag = target_const(stmt)
                if flag is None and val.ty in (Ty.NUMBER, Ty.OTHER):
                    # A flag passed in (`def set_requires_grad(net, flag)`), a known test
                    # (`p.requires_grad = "lora_" in name`).
                    flag = val.truth
                if base.ty is Ty.TENSOR and param_module(base) is not None:
                    self.set_param_flag(base, flag)
                if base.is_tensor and isinstance(target.value, (ast.Name, ast.Attribute)):
                    grad = Grad.LEAF if flag is True else Grad.NONE if flag is False else Grad.UNKNOWN
                    if base.obj is not None and base.grad in (Grad.NONE, Grad.LEAF, Grad.UNKNOWN):
                        # The tensor itself changes, under every name and in every list that holds
                        # it (`for p in parameters: p.requires_grad = True`).
                        self.retag_tensor(base, lambda v: v.with_(grad=grad))
                    new = base.with_(grad=grad)
                    self.assign(target.value, new, stmt)
                elif base.ty is Ty.UNKNOWN and flag is True and isinstance(target.value, ast.Name):
                    # Only a leaf tensor takes `requires_grad = True` (a non-leaf raises): from here on
                    # the name is one, whatever made it (`img = x.data.clone()` of an unknown x).
                    self.assign(target.value, Val(Grad.LEAF, Ty.TENSOR, obj=object()), stmt)
                if base.ty is Ty.UNKNOWN and flag is not False:
                    self.thaw_unknown()
                return
            # How the code names it (a heap cell always has a name chain: `self.hidden`).
            chain = _chain(target)
            text = ".".join(chain) if chain is not None else ""
            if val.is_tensor:
                text = text or self.pos.text(target)
                if val.root is not None and val.root.binding is None and not keep_binding:
                    val.root.binding = (text, target.lineno)
                if val.label != text:
                    val = val.with_(label=text)
            owner = self.peek(target.value)
            if owner.module is not None and self.frames and self.frames[-1].self_inst is owner.module:
                owner.module.attrs[target.attr] = val  # __init__ of a class in this file
                if val.ty is Ty.MODULE and val.module is not None and owner.module.user_class is not None:
                    owner.module.children[target.attr] = val.module
                    if owner.module.user_class.sequential:
                        owner.module.seq_children.append(val.module)  # registered in order
            if path is not None:
                st.env[path] = val
                if path[0] == "@":
                    self.rep.cell_writes[path] = stmt
                    self.rep.cell_names[path] = text
        elif isinstance(target, ast.Subscript):
            base = self.peek(target.value)
            if base.is_tensor and isinstance(target.value, ast.Attribute):
                # A write into part of an object's tensor keeps the rest: it reads the old value
                # (so state an earlier iteration left in `self.cache` is carried by this one).
                self.expr(target.value)
            self.expr(target.slice)
            if isinstance(target.value, ast.Subscript) and val.requires_grad and st.mode is GradMode.ON:
                self.write_through_index(target.value, val, stmt)
            if isinstance(target.value, ast.Subscript) and not base.is_tensor:
                # `T[b][t] = x`: plain indexes are views, so the write changes `T` itself in place.
                root, views = self.view_root(target.value)
                owner = self.peek(root)
                if views and isinstance(root, (ast.Name, ast.Attribute)) and owner.is_tensor:
                    self.inplace(root, owner, stmt)
            if base.is_tensor:
                self.inplace(target.value, base, stmt)
                if (
                    isinstance(target.value, (ast.Name, ast.Attribute))
                    and val.requires_grad
                    and st.mode is GradMode.ON
                ):
                    path = self.path_of(target.value)
                    if path is not None and path[0] == "@":
                        self.rep.cell_writes[path] = stmt  # a graph written into an object's tensor
                    self.assign(
                        target.value,
                        base.with_(grad=Grad.GRAPH, sites=base.sites | val.sites),
                        stmt,
                        keep_binding=True,
                    )
            elif base.ty in (Ty.LIST, Ty.DICT):
                path = self.path_of(target.value)
                if path is not None:
                    st.env[path] = _store_item(base, self.key_node(target.slice), val)
                    if path[0] == "@" and carries_graph(val):
                        self.rep.cell_writes[path] = stmt  # `self.cache[name] = embeds`: a graph kept
                        self.rep.cell_names.setdefault(path, self.pos.text(target.value))
                elif isinstance(target.value, ast.Subscript):
                    self.store_nested(target.value, _store_item(base, self.key_node(target.slice), val))
        elif isinstance(target, ast.Starred):
            self.assign(target.value, UNKNOWN, stmt)

    def store_nested(self, node: ast.Subscript, new: Val) -> None:
        """`meters[tag][name] = meter`: the inner container changed, so every container on the way
        to the name or attribute holding the outermost one is stored again with it (a dict of dicts
        of known keys stays known; a key not known keeps only what holds of every value)."""
        st = self.st
        while st is not None:
            outer = self.peek(node.value)
            if outer.ty not in (Ty.LIST, Ty.DICT):
                return  # an item of a tensor or an object: not followed here
            new = _store_item(outer, self.key_node(node.slice), new)
            if isinstance(node.value, ast.Subscript):
                node = node.value
                continue
            path = self.path_of(node.value)
            if path is not None:
                st.env[path] = new
            return

    def write_through_index(self, target: ast.Subscript, val: Val, stmt: ast.stmt) -> None:
        """`fx[i][j] = f(x[i][j])`: the write goes through `fx[i]` into `fx` when every index on
        the way is a plain one (a view); after a mask or an index tensor it lands in a copy. Either
        way `fx` is no longer known to be without a graph."""
        root, views = self.view_root(target)
        owner = self.peek(root)
        if isinstance(root, (ast.Name, ast.Attribute)) and owner.is_tensor and owner.grad is not Grad.LEAF:
            grown = (
                owner.with_(grad=Grad.GRAPH, sites=owner.sites | val.sites)
                if views
                else owner.with_(grad=Grad.UNKNOWN, cause=None)
            )
            self.assign(root, grown, stmt, keep_binding=True)

    def view_root(self, target: ast.Subscript) -> tuple[ast.expr, bool]:
        """The expression under a chain of subscripts (`fx` of `fx[i][j]`), and whether every
        index on the way is a plain one (so the part is a view of it)."""
        root: ast.expr = target
        views = True
        while isinstance(root, ast.Subscript):
            views = views and self._plain_index(root.slice)
            root = root.value
        return root, views

    def _plain_index(self, index: ast.expr) -> bool:
        """Does indexing with this give a view (a number, a slice, or a tuple of them)?"""
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        return all(
            isinstance(p, ast.Slice)
            or (isinstance(p, ast.Constant) and (type(p.value) is int or p.value in (None, ...)))
            or (isinstance(p, (ast.Name, ast.BinOp, ast.UnaryOp)) and self.peek(p).ty is Ty.NUMBER)
            for p in parts
        )

    # -- accumulation (GG301) -------------------------------------------------------

    def check_accumulate(self, stmt: ast.stmt, name: str, value_node: ast.expr, value: Val, cur: Val) -> None:
        frame = self.local_loop()
        if value.grad is not Grad.GRAPH or frame is None or self.mode() is not GradMode.ON:
            return  # a sum made under no_grad records no graph (it keeps none of the value's)
        if name not in frame.starts.get(1, {}) or name in self.rebound_in(frame.node):
            return
        if self.feeds(frame.node, name, stmt):
            return  # a running state the loop computes with (coverage, a moving sum): consumed
        if not self.built_while_kept(value, name, value_node):
            return
        key = ("acc", id(stmt))
        self.rep.accumulate(stmt, name, value_node, value, key, self.dead_graph(value))
        self.mark_acc(name, key, stmt)

    def check_accumulate_cell(
        self, stmt: ast.AugAssign | ast.Assign, target: ast.expr, value: Val, cur: Val, value_node: ast.expr
    ) -> None:
        """``self.total += loss`` / ``d[k] += loss`` (or ``self.total = self.total + loss``): a leak
        when the sum an earlier iteration made is still there (nothing reset, returned or
        backpropagated it in between)."""
        if value.grad is not Grad.GRAPH or not self.loops or self.st is None:
            return
        key = ("acc", id(stmt))
        holder = self.peek(target.value) if isinstance(target, ast.Subscript) else cur
        carried = cur.taints | holder.taints
        if self.later_iteration() and any(t.kind == "carried" and t.key == key for t in carried):
            self.accumulate_in_object(stmt, target, value_node, value, key, self.dead_graph(value))
        if self.peek(target).grad is Grad.GRAPH:
            self.add_taints(target, acc_taints(stmt, key), stmt)
            if self.loops[-1].iteration == 1:
                self.loops[-1].accumulates = True

    def check_running_update(self, stmt: ast.Assign, target: ast.expr, before: Val, after: Val) -> None:
        """``avg = 0.9 * avg + 0.1 * loss`` (also on ``self._value``): a running value built on its
        previous self. A leak when what it folds in was already backpropagated: that graph is dead
        weight every later iteration keeps (a recurrent state whose graph is still needed is not)."""
        if not self.later_iteration() or before.grad is not Grad.GRAPH or after.grad is not Grad.GRAPH:
            return
        frame = self.local_loop() if isinstance(target, ast.Name) else self.loops[-1]
        if frame is None:
            return
        path = self.path_of(target)
        if path is None or frame.starts.get(frame.iteration, {}).get(path) is not before:
            return  # not the value the previous iteration left: a step within this iteration
        if not before.sites <= after.sites or not self.dead_graph(before):
            return
        if isinstance(target, ast.Name) and self.feeds(frame.node, target.id, stmt):
            return
        key = ("acc", id(stmt))
        # Pending: if the value is backpropagated later, that backward fails instead (GG104).
        # Returned or handed on, it is still dead weight: only that backward consumes it.
        self.rep.dead_kept.add(key)
        folded = [
            n
            for n in ast.walk(stmt.value)
            if isinstance(n, (ast.Name, ast.Attribute))
            and not _same_target(n, target)
            and self.peek(n).grad is Grad.GRAPH
        ]
        # What to detach is what it folds in (`loss`), when one value is that; else the whole.
        value_node, value = (folded[0], self.peek(folded[0])) if len(folded) == 1 else (stmt.value, after)
        self.rep.accumulate(stmt, self.pos.text(target), value_node, value, key)
        self.add_taints(target, frozenset({Taint("accumulated", stmt, key)}), stmt)

    def add_taints(self, target: ast.expr, taints: frozenset[Taint], stmt: ast.stmt) -> None:
        """Mark the value now held by ``target`` (an attribute or an item)."""
        val = self.peek(target)
        self.assign(target, val.with_(taints=val.taints | taints), stmt, keep_binding=True)

    def check_accumulate_rebind(self, stmt: ast.Assign, name: str, value: ast.expr) -> None:
        # `total = total + loss` is the same accumulation as `total += loss`; so is a dict of
        # running sums made again with every key's sum grown (`{k: totals[k] + x for k in totals}`).
        # A decayed or subtracted one too (`h = 0.99 * h + loss`, `h = h - g`): each iteration's
        # value still holds all the earlier ones' graphs.
        added = self.running_sum_added(value, name) if isinstance(value, ast.BinOp) else None
        if added is None:
            added = _dict_sum_added(value, name)
        if added is None or self.local_loop() is None or self.mode() is not GradMode.ON:
            return
        frame = self.loops[-1]
        if name not in frame.starts.get(1, {}) or self.feeds(frame.node, name, stmt):
            return
        if isinstance(value, ast.BinOp):
            other = self.peek(added)
        else:
            # The sums the comprehension made (its key's name is gone): one that has a graph.
            sums = self.peek(ast.Name(name, ast.Load()))
            other = next((e for e in sums.elts or () if e.grad is Grad.GRAPH), UNKNOWN)
        if other.grad is Grad.GRAPH:
            key = ("acc", id(stmt))
            self.rep.accumulate(stmt, name, added, other, key, self.dead_graph(other))
            self.mark_acc(name, key, stmt)

    def running_sum_added(self, value: ast.BinOp, name: str) -> ast.expr | None:
        """What `name = name + x` (or `x + name`, `name - x`, with `name` maybe scaled by a number:
        `0.99 * name + x`) adds to the running value: `x`."""

        def is_running(e: ast.expr) -> bool:
            if isinstance(e, ast.Name):
                return e.id == name
            if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mult):
                for own, scale in ((e.left, e.right), (e.right, e.left)):
                    if isinstance(own, ast.Name) and own.id == name:
                        known = constant(scale) if isinstance(scale, ast.Constant) else self.peek(scale)
                        return known.ty is Ty.NUMBER
            return False

        if isinstance(value.op, (ast.Add, ast.Sub)) and is_running(value.left):
            return value.right
        if isinstance(value.op, ast.Add) and is_running(value.right):
            return value.left
        return None

    def mark_acc(self, name: str, key: object, stmt: ast.stmt) -> None:
        st = self.st
        if st is not None and name in st.env:
            cur = st.env[name]
            st.env[name] = cur.with_(taints=cur.taints | {Taint("accumulated", stmt, key)})

    def self_ref(self, node: ast.Assign) -> bool:
        """Does the assignment read its own (single) target: ``x = f(x, ...)``?"""
        found = self._self_refs.get(id(node))
        if found is None:
            found = self._self_refs[id(node)] = _reads(node.value, node.targets[0])
        return found

    def feeds(self, loop: ast.AST, name: str, acc: ast.stmt) -> bool:
        key = (id(loop), name, id(acc))  # the tree outlives the interpreter: ids are stable
        found = self._feeds.get(key)
        if found is None:
            found = self._feeds[key] = _feeds_computation(loop, name, acc)
        return found

    def growing_lists(self, loop: ast.For | ast.While | ast.AsyncFor) -> frozenset[str]:
        """Names of lists every iteration of ``loop`` appends to (see _growing_lists), once per loop."""
        cached = self._growing.get(id(loop))
        if cached is None:
            cached = self._growing[id(loop)] = _growing_lists(loop)
        return cached

    def rebound_in(self, loop: ast.AST) -> frozenset[str]:
        """Names a loop body rebinds with a plain assignment on every path (reset each iteration);
        a reset under an `if` (every 100 steps) leaves the sum growing in between."""
        cached = self._rebound.get(id(loop))
        if cached is not None:
            return cached
        out = frozenset(_reset_every_iteration(getattr(loop, "body", [])))
        self._rebound[id(loop)] = out
        return out


# Calls that only report or store a value (a read there does not compute with the sum).
_REPORTING = frozenset(
    {"print", "format", "str", "repr", "len", "float", "int", "round", "log", "info", "debug"}
    | {"append", "extend", "insert", "add_scalar", "add_scalars", "set_postfix", "update"}
)


def _reads_name(expr: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(expr))


def _feeds_computation(loop: ast.AST, name: str, acc: ast.stmt, depth: int = 0) -> bool:
    """Is ``name`` read in the loop body, outside its accumulating statement, other than to report it
    (print, f-strings, ``.item()``, logging, or a name made from it only to be reported:
    ``avg = total / n; print(avg.item())``)? Then the sum is state the loop computes with."""
    skip: set[int] = set()
    for stmt in getattr(loop, "body", []):
        for node in ast.walk(stmt):
            if (
                isinstance(node, ast.Assign)
                and node is not acc
                and depth < 2
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id != name
                and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.value))
                # (a running value made from it, `cov_loss = cov_loss + min(a, coverage)`, is a
                # computation, whatever reads it later)
                and not _reads_name(node.value, node.targets[0].id)
                and not _feeds_computation(loop, node.targets[0].id, node, depth + 1)
            ):
                skip.update(id(n) for n in ast.walk(node))
            if node is acc or isinstance(node, ast.JoinedStr):
                skip.update(id(n) for n in ast.walk(node))
            elif isinstance(node, ast.Call):
                func = node.func
                called = (
                    func.id
                    if isinstance(func, ast.Name)
                    else func.attr
                    if isinstance(func, ast.Attribute)
                    else ""
                )
                if called in _REPORTING or called in ("item", "detach", "cpu", "tolist", "numpy"):
                    skip.update(id(n) for n in ast.walk(node))
        if next(name_loads(stmt, name, skip), None) is not None:
            return True
    return False


def _catches_runtime_error(kind: ast.expr | None) -> bool:
    """Does an `except` clause of this type catch the RuntimeError torch raises?"""
    if kind is None:
        return True  # a bare `except:`
    kinds = kind.elts if isinstance(kind, ast.Tuple) else [kind]
    return any(
        isinstance(k, (ast.Name, ast.Attribute))
        and (k.id if isinstance(k, ast.Name) else k.attr) in ("RuntimeError", "Exception", "BaseException")
        for k in kinds
    )


def _expects_error(expr: ast.expr) -> bool:
    """`pytest.raises(RuntimeError)`, `self.assertRaises(RuntimeError)` (or `Exception`), also with
    a message pattern: a block that expects torch's error."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.args):
        return False
    return expr.func.attr in ("raises", "assertRaises", "assertRaisesRegex") and _catches_runtime_error(
        expr.args[0]
    )


def _sets_requires_grad(loop: ast.For | ast.AsyncFor) -> bool:
    """Does the loop body set `.requires_grad` of what its target names (or call `requires_grad_`)?"""
    names = set(_target_names(loop.target))
    for stmt in loop.body:
        for n in ast.walk(stmt):
            if (
                isinstance(n, ast.Attribute)
                and n.attr == "requires_grad"
                and isinstance(n.ctx, ast.Store)
                and isinstance(n.value, ast.Name)
                and n.value.id in names
            ):
                return True
            if (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr == "requires_grad_"
                and isinstance(n.func.value, ast.Name)
                and n.func.value.id in names
            ):
                return True
    return False


def _string_test(test: ast.expr) -> bool:
    """`any(k in name for k in keys)`, `name.startswith("fc")` (or of such tests): tests whose
    truth the evaluation gives for known strings."""
    if isinstance(test, ast.BoolOp):
        return all(isinstance(v, ast.Compare) or _string_call(v) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return isinstance(test.operand, ast.Compare) or _string_call(test.operand)
    return _string_call(test)


def _reads_param_name(loop: ast.For | ast.AsyncFor) -> bool:
    """Does the body of `for name, p in ...named_parameters()` read `name` (`enumerate` of it:
    `for i, (name, p) in ...`)?"""
    target = loop.target
    if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Tuple):
        target = target.elts[1]
    if not (isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name)):
        return False
    name = target.elts[0].id
    return any(isinstance(n, ast.Name) and n.id == name for stmt in loop.body for n in ast.walk(stmt))


def _files_params(loop: ast.For | ast.AsyncFor) -> bool:
    """Does the loop's body append what its target names to a list (`groups[...].append(p)`,
    `(decay if ... else no_decay).append(p)`): parameters sorted into groups, say by name?"""
    names = set(_target_names(loop.target))
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "append"
        and len(n.args) == 1
        and isinstance(n.args[0], ast.Name)
        and n.args[0].id in names
        for stmt in loop.body
        for n in ast.walk(stmt)
    )


def _dict_sum_added(value: ast.expr, name: str) -> ast.expr | None:
    """In `{k: totals[k] + x for k in totals}` (or `totals.keys()`) bound to `totals`: `x`, what
    every key's running sum adds."""
    if not isinstance(value, ast.DictComp) or len(value.generators) != 1:
        return None
    gen = value.generators[0]
    it = gen.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "keys":
        it = it.func.value if not it.args else it
    if not (isinstance(gen.target, ast.Name) and isinstance(it, ast.Name) and it.id == name) or gen.ifs:
        return None
    key, total = gen.target.id, value.value
    if not (isinstance(value.key, ast.Name) and value.key.id == key):
        return None
    if (
        isinstance(total, ast.BinOp)
        and isinstance(total.op, ast.Add)
        and isinstance(total.left, ast.Subscript)
        and isinstance(total.left.value, ast.Name)
        and total.left.value.id == name
        and isinstance(total.left.slice, ast.Name)
        and total.left.slice.id == key
    ):
        return total.right
    return None


class _NotPlain(Exception):
    """A test that is not arithmetic on the counter and known numbers."""


_ARITHMETIC: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
}
_ORDER: dict[type[ast.cmpop], Callable[[float, float], bool]] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}


def _counter_test(test: ast.Compare, name: str, number: int, known: Callable[[ast.expr], float]) -> bool:
    """The truth of ``test`` with the counter ``name`` at ``number`` (`(step + 1) % k == 0`,
    `step <= warmup`); ``known`` gives the other names' numbers. Raises _NotPlain otherwise."""

    def value(node: ast.expr) -> float:
        if isinstance(node, ast.Name) and node.id == name:
            return number
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value  # type: ignore[return-value]
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            right = value(node.right)
            if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and right == 0:
                raise _NotPlain
            return _ARITHMETIC[type(node.op)](value(node.left), right)
        if isinstance(node, (ast.Name, ast.Attribute)):
            return known(node)
        raise _NotPlain

    left = value(test.left)
    for op, right_node in zip(test.ops, test.comparators, strict=True):
        right = value(right_node)
        if type(op) not in _ORDER or not _ORDER[type(op)](left, right):
            if type(op) not in _ORDER:
                raise _NotPlain
            return False
        left = right
    return True


def _first_of_pair(target: ast.expr) -> ast.expr | None:
    """`i` of `for i, x in enumerate(xs)`."""
    return target.elts[0] if isinstance(target, ast.Tuple) and len(target.elts) == 2 else None


def _optimizer_call(node: ast.expr) -> bool:
    """`optim.Adam(...)`, `torch.optim.SGD(...)`: an optimizer made (by its spelling)."""
    func = node.func if isinstance(node, ast.Call) else None
    return isinstance(func, ast.Attribute) and isinstance(func.value, (ast.Name, ast.Attribute)) and (
        func.value.id if isinstance(func.value, ast.Name) else func.value.attr
    ) == "optim"


def _order_matters(loop: ast.For | ast.AsyncFor) -> bool:
    """May what an iteration does depend on the iterations before it (a `break`, a counter)?"""
    return any(isinstance(n, (ast.Break, ast.AugAssign, ast.Nonlocal, ast.Global)) for n in ast.walk(loop))


def _project_object(val: Val) -> bool:
    """An instance of a plain class of the project (not a torch module): a loader, an agent, a meter;
    or a record made by hand (`SimpleNamespace(text=..., label=...)`), which keeps its fields too."""
    inst = val.module
    return val.ty is Ty.OTHER and inst is not None and (inst.user_class is not None or inst.kind == "object")


def _pairs_object(val: Val) -> bool:
    """A pair of `enumerate` or `zip` holding such an object (`for i, batch in enumerate(batches)`)."""
    return val.ty is Ty.TUPLE and val.elts is not None and any(_project_object(e) for e in val.elts)


def _subscripts_by_target(loop: ast.For | ast.AsyncFor) -> bool:
    """Does the loop body read a subscript keyed by exactly the name its target binds (`models[name]`)?"""
    if not isinstance(loop.target, ast.Name):
        return False
    name = loop.target.id
    return any(
        isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name) and n.slice.id == name
        for stmt in loop.body
        for n in ast.walk(stmt)
    )


def _spells_attributes(loop: ast.For | ast.AsyncFor) -> bool:
    """Does the loop body get or set an attribute named by what its target binds
    (`getattr(model, name)`, `setattr(self, key, value)`)?"""
    names = set(_target_names(loop.target))
    for stmt in loop.body:
        for n in ast.walk(stmt):
            if (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Name)
                and n.func.id in ("getattr", "setattr")
                and len(n.args) >= 2
                and isinstance(n.args[1], ast.Name)
                and n.args[1].id in names
            ):
                return True
    return False


def _free_names(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names a function reads that it does not bind itself (its parameters included)."""
    bound = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
    bound |= {a.arg for a in (func.args.vararg, func.args.kwarg) if a is not None}
    loads: set[str] = set()
    for n in ast.walk(func):
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Load):
                loads.add(n.id)
            else:
                bound.add(n.id)
    return loads - bound


@record(slots=True)
class _Bindings:
    """How a function binds its names, read once per function (closures ask per name)."""

    params: set[str] = field(default_factory=set)
    stores: dict[str, list[ast.Name]] = field(default_factory=dict)
    others: dict[str, int] = field(default_factory=dict)  # defs, classes, imports
    declared: set[str] = field(default_factory=set)  # global / nonlocal
    loop_targets: set[str] = field(default_factory=set)
    loops: list[ast.AST] = field(default_factory=list)


def _bindings_of(outer: ast.FunctionDef | ast.AsyncFunctionDef) -> _Bindings:
    out = _Bindings(
        params={a.arg for a in (*outer.args.posonlyargs, *outer.args.args, *outer.args.kwonlyargs)}
    )
    for n in ast.walk(outer):
        kind = type(n)
        if isinstance(n, ast.Name):
            if type(n.ctx) is not ast.Load:
                out.stores.setdefault(n.id, []).append(n)
            continue
        if kind not in _BINDING_NODES:
            continue
        if kind is ast.Global or kind is ast.Nonlocal:
            out.declared.update(n.names)  # type: ignore[attr-defined]
        elif kind is ast.Import or kind is ast.ImportFrom:
            for a in n.names:  # type: ignore[attr-defined]
                name = a.asname or a.name.split(".")[0]
                out.others[name] = out.others.get(name, 0) + 1
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            if n is not outer:
                out.others[n.name] = out.others.get(n.name, 0) + 1  # type: ignore[attr-defined]
        if kind in (ast.For, ast.AsyncFor, ast.While):
            out.loops.append(n)
        if kind in (ast.For, ast.AsyncFor, ast.comprehension):
            out.loop_targets.update(t.id for t in ast.walk(n.target) if isinstance(t, ast.Name))  # type: ignore[attr-defined]
    return out


_BINDING_NODES = frozenset(
    {
        ast.Global,
        ast.Nonlocal,
        ast.Import,
        ast.ImportFrom,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
    }
    | {ast.For, ast.AsyncFor, ast.While, ast.comprehension}
)


def _bound_once_before(binds: _Bindings, name: str, inner: ast.AST) -> bool:
    """Is ``name`` bound exactly once in the enclosing function (a parameter, or one assignment
    before ``inner``), never declared global or nonlocal, and not a loop variable?"""
    if name in binds.declared or name in binds.loop_targets:
        return False
    if name not in binds.params and any(_inside(inner, loop) for loop in binds.loops):
        return False  # made in a loop: a later iteration rebinds what it reads
    bindings = (1 if name in binds.params else 0) + binds.others.get(name, 0)
    for n in binds.stores.get(name, ()):
        if n.lineno >= getattr(inner, "lineno", 0) and not _inside(n, inner):
            return False  # rebound after the closure was made
        bindings += 1
    return bindings == 1


def _indexes_by_target(loop: ast.For | ast.AsyncFor) -> bool:
    """Does the loop body write a subscript keyed by a name the loop binds (`sums[idx] += v`), or
    call a method of what is filed under it (`meters[name].update(v)`)?"""
    bound = set(_target_names(loop.target))
    for stmt in ast.walk(ast.Module(body=loop.body, type_ignores=[])):
        if (
            isinstance(stmt, ast.Call)
            and isinstance(stmt.func, ast.Attribute)
            and isinstance(stmt.func.value, ast.Subscript)
            and any(isinstance(n, ast.Name) and n.id in bound for n in ast.walk(stmt.func.value.slice))
        ):
            return True
        if isinstance(stmt, ast.Assign):
            targets = stmt.targets
        elif isinstance(stmt, ast.AugAssign):
            targets = [stmt.target]
        else:
            continue
        for t in targets:
            if isinstance(t, ast.Subscript) and any(
                isinstance(n, ast.Name) and n.id in bound for n in ast.walk(t.slice)
            ):
                return True
    return False


def _folds_bound(loop: ast.For | ast.AsyncFor) -> bool:
    """Does the loop body fold what a name the loop binds holds into a running value (`for lp in
    memory: loss = loss + -lp`, `total += lp`)? The sum then holds every element's graph."""
    bound = set(_target_names(loop.target))
    for node in ast.walk(ast.Module(body=loop.body, type_ignores=[])):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            if any(_reads_name(node.value, name) for name in bound):
                return True
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and _reads(node.value, target):
                if any(_reads_name(node.value, name) for name in bound):
                    return True
    return False


def _changes_bound_in_place(loop: ast.For | ast.AsyncFor) -> bool:
    """Does the loop body change what a name the loop binds holds, in place (`for h in outs:
    h.masked_fill_(done, 0.0)`, `h += 1`)? Each element is then changed, one after the other."""
    bound = set(_target_names(loop.target))
    for node in ast.walk(ast.Module(body=loop.body, type_ignores=[])):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and (node.func.attr in api.INPLACE_OPS or node.func.attr == "detach_")
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in bound
        ):
            return True
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in bound:
            return True
    return False


def _shareable(val: Val) -> bool:
    """A module's name that no analysis can change: a class, function, constant or import (no
    object of the analysis that ran it, no graph)."""
    if val.module is not None or val.sites or val.obj is not None or val.item is not None:
        return False
    if val.ty in (Ty.TENSOR, Ty.OPTIMIZER, Ty.PARAMS, Ty.MODULE):
        return False
    if isinstance(val.info, (Namespace, ModuleInst)):
        return False
    return val.elts is None or all(_shareable(e) for e in val.elts)


def _inside(node: ast.AST, outer: ast.AST) -> bool:
    start, end = getattr(outer, "lineno", 0), getattr(outer, "end_lineno", 0) or 0
    return start <= getattr(node, "lineno", -1) <= end


def _never_none(val: Val) -> bool:
    if val.is_tensor or val.ty in (Ty.MODULE, Ty.OPTIMIZER, Ty.NUMBER, Ty.LIST, Ty.TUPLE, Ty.DICT, Ty.FUNC):
        return True
    return val.ty is Ty.OTHER and val.module is not None  # an instance of a class of this file


def _chain(node: ast.AST) -> tuple[str, ...] | None:
    """``("self", "_value")`` for ``self._value``; None for anything but a name or attribute chain."""
    if isinstance(node, ast.Name):
        return (node.id,)
    if isinstance(node, ast.Attribute):
        base = _chain(node.value)
        return None if base is None else (*base, node.attr)
    return None


def _reads(expr: ast.expr, target: ast.expr) -> bool:
    """Does ``expr`` read the name or attribute chain ``target``?"""
    want = _chain(target)
    kind = type(target)
    return any(isinstance(n, kind) and _chain(n) == want for n in ast.walk(expr))


def _growing_lists(loop: ast.For | ast.While | ast.AsyncFor) -> frozenset[str]:
    """Names that every iteration of ``loop`` appends to: by a statement of the body itself (not
    under an `if`, whose test may depend on the iteration), in a body without `continue`, and that
    the loop does nothing else to: no rebinding, no removal, not handed to a call that could empty
    them."""
    appended = {
        stmt.value.func.value.id
        for stmt in _straight_line(loop.body)
        if isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Attribute)
        and stmt.value.func.attr in ("append", "insert")
        and isinstance(stmt.value.func.value, ast.Name)
    }
    if not appended:
        return frozenset()
    nodes = [n for stmt in loop.body for n in ast.walk(stmt)]
    if any(isinstance(n, ast.Continue) for n in nodes):
        return frozenset()
    return frozenset(name for name in appended if all(_only_grows(n, name) for n in nodes))


def _appended_lists(growing: frozenset[str], start: dict[str, Val], end: State) -> list[str]:
    """Of the lists a loop grows every iteration (``growing``), those iteration 1 grew: known
    elements before and after it."""
    out = []
    for key in sorted(growing):
        val, before = end.env.get(key), start.get(key)
        if (
            val is not None
            and val.ty is Ty.LIST
            and val.elts is not None
            and before is not None
            and before.ty is Ty.LIST
            and before.elts is not None
            and len(val.elts) > len(before.elts)
        ):
            out.append(key)
    return out


def _straight_line(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements that run whenever ``body`` runs to its end (`with` blocks entered)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield from _straight_line(stmt.body)


_GROWS = frozenset({"append", "extend", "insert", "index", "count", "copy"})


def _only_grows(node: ast.AST, name: str) -> bool:
    """Does ``node`` leave the list ``name`` with at least the elements it had?"""
    if isinstance(node, ast.Name) and node.id == name:
        return isinstance(node.ctx, ast.Load)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name:
        return node.attr in _GROWS
    if isinstance(node, ast.Call):
        return not any(isinstance(a, ast.Name) and a.id == name for a in node.args)
    return not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Del))


def _summarise_grown_lists(start: dict[str, Val], st: State) -> None:
    """A list the loop appended to holds an unknown number of elements after it (the loop was
    followed over one or two iterations): keep only what holds of every element."""
    for key, val in list(st.env.items()):
        before = start.get(key)
        if (
            val.ty is Ty.LIST
            and val.elts is not None
            and before is not None
            and before.ty is Ty.LIST
            and before.elts is not None
            and len(before.elts) != len(val.elts)
        ):
            item = elements(val)
            st.env[key] = val.with_(elts=None, item=item if item is not EMPTY else None)


def _leaves_early(loop: ast.For | ast.AsyncFor) -> bool:
    """Can the loop stop before its last element: a `break` of its own, or a `return`?"""
    todo: list[ast.AST] = [*loop.body, *loop.orelse]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Return, ast.Break)):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            # An inner loop's `break` ends the inner loop only; a `return` in it ends this one too.
            todo.extend(n for n in ast.walk(node) if isinstance(n, ast.Return))
            continue
        todo.extend(ast.iter_child_nodes(node))
    return False


def _reset_every_iteration(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for stmt in body:
        if isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and not _reads(stmt.value, n):
                        names.add(n.id)  # `x = x + v` updates x, it does not reset it
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            names |= _reset_every_iteration(stmt.body)
        elif isinstance(stmt, ast.If) and stmt.orelse:
            names |= _reset_every_iteration(stmt.body) & _reset_every_iteration(stmt.orelse)
    return names


def target_const(stmt: ast.stmt) -> bool | None:
    value = getattr(stmt, "value", None)
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        return value.value
    return None


# The name a comprehension followed as a loop binds each element to (not a Python identifier a
# program can use, so it never meets one of the program's names).
_COMP_ELEMENT = "<element>"
_CLOSURE_RESULT = "<closure result>"


def _reversed_range(it: ast.expr) -> ast.Call | None:
    """The `range(...)` of `reversed(range(...))`."""
    if (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id == "reversed"
        and len(it.args) == 1
        and not it.keywords
        and isinstance(it.args[0], ast.Call)
        and isinstance(it.args[0].func, ast.Name)
        and it.args[0].func.id == "range"
    ):
        return it.args[0]
    return None


def _literal_trips(it: ast.expr) -> int | None:
    """How often a loop over ``range(<literal>)`` or a literal list/tuple runs, when that is 0 or 1."""
    if isinstance(it, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in it.elts):
        return len(it.elts) if len(it.elts) < 2 else None
    if (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id == "range"
        and it.args
        and all(isinstance(a, ast.Constant) and type(a.value) is int for a in it.args)
        and not it.keywords
    ):
        values = [int(a.value) for a in it.args if isinstance(a, ast.Constant) and isinstance(a.value, int)]
        n = range_len(values) if len(values) <= 3 else 2
        return n if n is not None and n < 2 else None
    return None


def _function_defs(
    body: list[ast.stmt], cls: ClassInfo | None, classes: dict[str, ClassInfo]
) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ClassInfo | None]]:
    """Functions and methods, by statements only (no walk over expressions)."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield stmt, cls
            yield from _function_defs(stmt.body, None, classes)
        elif isinstance(stmt, ast.ClassDef):
            yield from _function_defs(stmt.body, classes.get(stmt.name), classes)
        elif isinstance(stmt, (ast.If, ast.Try, ast.With)):
            yield from _function_defs(stmt.body, cls, classes)
            yield from _function_defs(getattr(stmt, "orelse", []) or [], cls, classes)


def _branches_on_target(loop: ast.For | ast.AsyncFor) -> bool:
    """Does the loop's body test its own (simple) target in a condition?"""
    if not isinstance(loop.target, ast.Name):
        return False
    name = loop.target.id
    return any(
        isinstance(n, (ast.If, ast.IfExp))
        and any(isinstance(r, ast.Name) and r.id == name for r in ast.walk(n.test))
        for stmt in loop.body
        for n in ast.walk(stmt)
    )


def _widen_changed_numbers(first: dict[str, Val], env: dict[str, Val]) -> None:
    """The second iteration of a loop not followed one by one stands for every later one: a number
    or flag the first iteration changed (`step += 1`, `done = t >= 10`, `flag = not flag`) has no
    single value there (`if step > warmup: agent.learn()` may run), so it is a number only."""
    for key, val in env.items():
        if val.ty is not Ty.NUMBER or (val.lit is None and val.truth is None):
            continue
        before = first.get(key)
        if before is None or (before.lit == val.lit and before.truth is val.truth):
            continue
        env[key] = val.with_(lit=None, truth=None)


# torch layer classes of which none subclasses another (tests/test_engine.py checks it under
# torch): `isinstance` of one's instance against another is False.
DISJOINT_LAYERS = frozenset(
    {
        *(f"{kind}{k}d" for kind in ("Conv", "ConvTranspose", "MaxPool", "AvgPool") for k in (1, 2, 3)),
        *("BatchNorm1d", "BatchNorm2d", "BatchNorm3d"),
        *("Linear", "ReLU", "LeakyReLU", "PReLU", "ELU", "GELU", "SiLU", "Tanh", "Sigmoid", "Softmax"),
        *("AdaptiveAvgPool2d", "LayerNorm", "GroupNorm", "Dropout", "Dropout2d", "Embedding", "LSTM", "GRU"),
        *("RNN", "Sequential", "ModuleList", "ModuleDict", "Identity", "Flatten", "Upsample"),
    }
)

_PURE_BUILTINS = frozenset({"len", "max", "min", "abs"})
_PURE_NODES = (
    *(ast.Name, ast.Attribute, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Subscript, ast.List, ast.Tuple),
    *(ast.expr_context, ast.operator, ast.unaryop),
)


def _pure_number(node: ast.expr) -> bool:
    """Is this expression arithmetic on names, constants, items and lists, with calls only of
    len/max/min/abs (so evaluating it has no effect on the analysis)?"""
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            if not (isinstance(n.func, ast.Name) and n.func.id in _PURE_BUILTINS and not n.keywords):
                return False
        elif not isinstance(n, _PURE_NODES):
            return False
    return True


def _default_factory(default: ast.expr) -> ast.expr | None:
    """What a dataclass field's `field(default_factory=...)` builds, as an expression: the lambda's
    body, or a call of the factory with no argument (`dict()`, `Generator()`)."""
    if not (isinstance(default, ast.Call) and isinstance(default.func, (ast.Name, ast.Attribute))):
        return None
    name = default.func.id if isinstance(default.func, ast.Name) else default.func.attr
    if name != "field":
        return None
    for k in default.keywords:
        if k.arg == "default_factory":
            if isinstance(k.value, ast.Lambda) and not k.value.args.args:
                return k.value.body
            if isinstance(k.value, (ast.Name, ast.Attribute)):
                # `field(default_factory=Generator)`: called with no argument, like `Generator()`.
                return ast.copy_location(ast.Call(k.value, [], []), k.value)
        if k.arg == "default":
            return k.value
    return None


def _same_target(a: ast.expr, b: ast.expr) -> bool:
    """The same name, attribute chain or subscript as code (`self.total` and `self.total`)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (ast.Name, ast.Attribute)):
        chain = _chain(a)
        return chain is not None and chain == _chain(b)
    return ast.dump(a) == ast.dump(b)
