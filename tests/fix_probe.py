"""Run whole programs under torch, each in a fresh process, and record which leaves got gradients.

Used by ``scripts/fix_eval.py`` to compare a buggy program with its fixed version. Two halves:

- the *server* (``python tests/fix_probe.py --serve``) imports torch once, then forks a fresh child
  per program: the child patches torch (see ``_Probe``), guards writes, runs the program as a fresh
  ``__main__`` module (as ``python file.py`` would; optionally with ``soften_asserts``) in a
  temporary working directory and sends a JSON result back through a pipe. A crash, a hang or
  ``os._exit`` in one program costs only that child. The server never imports gradguard.
- ``run_programs`` (parent side, standard library only) starts a few servers and feeds them jobs.

What the probe records: every ``torch.nn.Parameter`` and every leaf given ``requires_grad`` through
a common factory (``torch.zeros(..., requires_grad=True)``), ``.requires_grad_()`` or
``.requires_grad = True`` gets a key (kind, index in creation order within its kind, shape) and a
post-accumulate-grad hook that notes the key. "Received a gradient" is therefore "``.grad`` was
accumulated into at least once", whatever ``zero_grad(set_to_none=True)`` did afterwards. Gradients
taken with ``torch.autograd.grad`` are not accumulated and not recorded.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import types
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# (kind, index within kind, shape at creation). Kinds are counted separately so that a fix adding
# `.detach().requires_grad_()` leaves does not shift the indices of the model's parameters.
Key = tuple[str, int, tuple[int, ...]]

PROBE_FILE = Path(__file__).resolve()
# The hard limit is the soft one (an exception raised inside the program) plus this grace.
KILL_GRACE_SECONDS = 10.0
MAX_KEYS = 5000  # a program making leaves in a loop must not flood the result pipe


@dataclass(frozen=True)
class Program:
    name: str  # file name the program runs as (its __file__ in the temporary directory)
    source: str
    # Turn script-level asserts into recorded witnesses (see ``soften_asserts``).
    soft_asserts: bool = False


@dataclass(frozen=True)
class RunResult:
    # f"{type(e).__name__}: {e}" of the exception the program ended with, None when it ran clean.
    error: str | None
    line: int | None  # innermost line of the program in the traceback
    timed_out: bool
    crashed: str | None  # the child died without a result (signal, os._exit), or the harness failed
    received: frozenset[Key]
    created: tuple[Key, ...]
    optimized: frozenset[Key]  # keys handed to a torch.optim optimizer while requiring grad
    seconds: float
    output_tail: str
    # Softened asserts that did not hold: (line, "false" or "raised <exception type>").
    witnesses_failed: tuple[tuple[int, str], ...] = ()

    @property
    def clean(self) -> bool:
        return self.error is None and not self.timed_out and self.crashed is None

    @property
    def failure(self) -> str | None:
        """One line saying why the run was not clean, or None."""
        if self.crashed is not None:
            return f"crashed: {self.crashed}"
        if self.timed_out:
            return "timed out"
        if self.error is not None:
            where = f" (line {self.line})" if self.line is not None else ""
            return self.error.splitlines()[0][:200] + where
        return None


def _key(raw: Sequence[Any]) -> Key:
    kind, index, shape = raw
    return (str(kind), int(index), tuple(int(n) for n in shape))


def _result(raw: dict[str, Any]) -> RunResult:
    return RunResult(
        error=raw.get("error"),
        line=raw.get("line"),
        timed_out=bool(raw.get("timed_out")),
        crashed=raw.get("crashed"),
        received=frozenset(_key(k) for k in raw.get("received", ())),
        created=tuple(_key(k) for k in raw.get("created", ())),
        optimized=frozenset(_key(k) for k in raw.get("optimized", ())),
        seconds=float(raw.get("seconds", 0.0)),
        output_tail=str(raw.get("output_tail", "")),
        witnesses_failed=tuple((int(n), str(why)) for n, why in raw.get("witnesses_failed", ())),
    )


def _crashed(reason: str) -> RunResult:
    return _result({"crashed": reason})


# ---------------------------------------------------------------------------------------------
# Parent side


class _Server:
    """One ``--serve`` process; restarted by its thread if it dies."""

    def __init__(self, time_limit: float) -> None:
        env = {
            **os.environ,
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1",
            "MPLBACKEND": "Agg",
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        env.pop("PYTHONPATH", None)  # the server must not see server/ (gradguard) or the repository
        self.log = tempfile.TemporaryFile(mode="w+")  # server stderr; a pipe could fill and block it
        self.proc = subprocess.Popen(
            [sys.executable, str(PROBE_FILE), "--serve", str(time_limit)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            cwd=tempfile.gettempdir(),
            env=env,
        )

    def run(self, program: Program) -> RunResult:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            job = {"name": program.name, "source": program.source, "soft_asserts": program.soft_asserts}
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            self.log.seek(0)
            tail = self.log.read()[-300:].strip().replace("\n", " | ")
            return _crashed(f"probe server died: {tail}")
        return _result(json.loads(line))

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def run_programs(programs: Sequence[Program], workers: int = 2, time_limit: float = 60.0) -> list[RunResult]:
    """Run every program in its own fresh process; one result per program, in order."""
    results: list[RunResult | None] = [None] * len(programs)
    jobs: queue.Queue[int] = queue.Queue()
    for i in range(len(programs)):
        jobs.put(i)

    def work() -> None:
        server = _Server(time_limit)
        try:
            while True:
                try:
                    i = jobs.get_nowait()
                except queue.Empty:
                    return
                results[i] = server.run(programs[i])
                if not server.alive:
                    server.close()
                    server = _Server(time_limit)
        finally:
            server.close()

    threads = [threading.Thread(target=work) for _ in range(max(1, min(workers, len(programs))))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [r if r is not None else _crashed("not run") for r in results]


# ---------------------------------------------------------------------------------------------
# Child side: everything below runs only in the server process and its forked children.

# Factories whose requires_grad=True result is a leaf the program will train.
FACTORIES = (
    "tensor", "zeros", "ones", "randn", "rand", "empty", "full", "arange", "eye", "linspace",
    "logspace", "zeros_like", "ones_like", "randn_like", "rand_like", "empty_like", "full_like",
)  # fmt: skip

# Audit events that modify the file system, with the argument positions naming the target.
WRITE_EVENTS: dict[str, tuple[int, ...]] = {
    "os.remove": (0,),
    "os.rename": (0, 1),
    "os.mkdir": (0,),
    "os.rmdir": (0,),
    "os.symlink": (1,),
    "os.link": (1,),
    "os.truncate": (0,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.utime": (0,),
    "os.setxattr": (0,),
    "os.removexattr": (0,),
    "shutil.rmtree": (0,),
    "shutil.copyfile": (1,),
    "shutil.copytree": (1,),
    "shutil.move": (0, 1),
}


class _Probe:
    """Patches torch so that trainable leaves are keyed and their gradient accumulation noted."""

    def __init__(self, torch: Any) -> None:
        from torch.utils.weak import WeakIdKeyDictionary  # tensors compare elementwise: key by id

        self.torch = torch
        self.keys: Any = WeakIdKeyDictionary()
        self.counters: dict[str, int] = {}
        self.created: list[Key] = []
        self.hooked: set[Key] = set()
        self.received: set[Key] = set()
        self.optimized: set[Key] = set()
        self.quiet = 0  # > 0 while a Parameter is built (its own requires_grad_ is not a new leaf)

    def track(self, t: Any, kind: str) -> None:
        if not isinstance(t, self.torch.Tensor):
            return
        key = self.keys.get(t)
        if key is None:
            index = self.counters.get(kind, 0)
            self.counters[kind] = index + 1
            key = (kind, index, tuple(int(n) for n in t.shape))
            self.keys[t] = key
            self.created.append(key)
        if key not in self.hooked and t.requires_grad and t.is_leaf:
            # Registered once per leaf: the hook survives requires_grad being switched off and on.
            t.register_post_accumulate_grad_hook(lambda _t, key=key: self.received.add(key))
            self.hooked.add(key)

    def install(self) -> None:
        torch, probe = self.torch, self
        parameter = torch.nn.Parameter
        original_new = parameter.__new__

        def new(cls: Any, data: Any = None, requires_grad: bool = True) -> Any:
            probe.quiet += 1
            try:
                p = original_new(cls, data, requires_grad)
            finally:
                probe.quiet -= 1
            probe.track(p, "param")
            return p

        parameter.__new__ = new  # covers deepcopy and unpickling too: both call Parameter(...)

        def factory(fn: Any) -> Any:
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                out = fn(*args, **kwargs)
                if kwargs.get("requires_grad"):
                    probe.track(out, "leaf")
                return out

            wrapper.__name__ = getattr(fn, "__name__", "factory")
            wrapper.__doc__ = getattr(fn, "__doc__", None)
            return wrapper

        for name in FACTORIES:
            if hasattr(torch, name):
                setattr(torch, name, factory(getattr(torch, name)))

        base_requires_grad_ = torch._C.TensorBase.requires_grad_

        def requires_grad_(self: Any, requires_grad: bool = True) -> Any:
            out = base_requires_grad_(self, requires_grad)
            if requires_grad and not probe.quiet and self.is_leaf:
                probe.track(self, "rg")
            return out

        torch.Tensor.requires_grad_ = requires_grad_

        # `x.requires_grad = True` goes through the C descriptor: shadow it with a property that
        # delegates to it (C code reading the flag is unaffected).
        descriptor = torch._C.TensorBase.__dict__["requires_grad"]

        def set_requires_grad(self: Any, value: bool) -> None:
            descriptor.__set__(self, value)
            if value and self.is_leaf:
                probe.track(self, "rg")

        torch.Tensor.requires_grad = property(descriptor.__get__, set_requires_grad)

        optimizer = torch.optim.Optimizer
        base_add_param_group = optimizer.add_param_group

        def add_param_group(self: Any, param_group: Any) -> None:
            base_add_param_group(self, param_group)
            for p in self.param_groups[-1]["params"]:
                key = probe.keys.get(p)
                # A frozen leaf handed over with all of model.parameters() is not trained by it.
                if key is not None and p.requires_grad:
                    probe.optimized.add(key)

        optimizer.add_param_group = add_param_group


WITNESS = "__fix_probe_witness__"


def soften_asserts(tree: Any) -> Any:
    """Rewrite ``assert T, M`` outside any function or class, or in a top-level ``main()``, to
    ``__fix_probe_witness__(line, lambda: T)``, which records instead of raising.

    The corpora's scripts end with asserts that witness their bug ("every step's graph is kept
    alive"): a correct fix must break them. Asserts in other functions are the program's own
    logic and stay. Positions are kept, so tracebacks still name the original lines."""
    import ast

    class Soften(ast.NodeTransformer):
        def __init__(self) -> None:
            self.depth = 0  # enclosing functions and classes, a top-level main() not counted

        def visit_Assert(self, node: ast.Assert) -> ast.AST:
            if self.depth:
                return node
            thunk = ast.Lambda(
                ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), node.test
            )
            call = ast.Call(ast.Name(WITNESS, ast.Load()), [ast.Constant(node.lineno), thunk], [])
            return ast.fix_missing_locations(ast.copy_location(ast.Expr(ast.copy_location(call, node)), node))

        def _scope(self, node: ast.AST, counts: bool) -> ast.AST:
            self.depth += counts
            self.generic_visit(node)
            self.depth -= counts
            return node

        def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
            return self._scope(node, not (self.depth == 0 and node.name == "main"))

        def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
            return self._scope(node, True)

        def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
            return self._scope(node, True)

    return Soften().visit(tree)


class _ProgramTimeout(BaseException):  # BaseException: a program's `except Exception` must not eat it
    pass


def _write_guard(root: str) -> Any:
    """An audit hook refusing writes outside ``root`` made through Python (open, os.*, shutil.*).
    Writes done in C by a library (torch.save to a path) are not seen; cwd is ``root`` for those."""
    allowed = {os.devnull}
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC

    def inside(path: Any) -> bool:
        if isinstance(path, int):
            return True  # an already open descriptor
        try:
            real = os.path.realpath(os.fsdecode(os.fspath(path)))
        except TypeError:
            return True
        return real in allowed or real == root or real.startswith(root + os.sep)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & write_flags
            )
            if writing and not inside(path):
                raise PermissionError(f"fix_probe: write outside the working directory refused: {path}")
        elif event in WRITE_EVENTS:
            for i in WRITE_EVENTS[event]:
                if i < len(args) and args[i] is not None and not inside(args[i]):
                    raise PermissionError(f"fix_probe: {event} outside the working directory refused")

    return hook


def _child(job: dict[str, Any], run_dir: str, time_limit: float) -> dict[str, Any]:
    """Runs in the forked child: set up, run the program, report."""
    import ast
    import builtins
    import contextlib
    import random
    import signal
    import time
    import traceback

    import torch

    os.setsid()  # its own process group, so the server can kill whatever the program spawned
    os.chdir(run_dir)
    output = os.path.join(run_dir, "output.txt")
    out_fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    null_fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null_fd, 0)
    # The inherited sys.std* may hold the server's buffered protocol lines: replace them.
    sys.stdin = open(os.devnull)
    sys.stdout = sys.stderr = open(1, "w", buffering=1, closefd=False)
    for var in ("HOME", "TMPDIR", "XDG_CACHE_HOME", "MPLCONFIGDIR", "TORCH_HOME"):
        os.environ[var] = run_dir
    tempfile.tempdir = run_dir
    path = os.path.join(run_dir, job["name"])
    with open(path, "w", encoding="utf-8") as f:
        f.write(job["source"])
    sys.argv = [path]  # as `python script.py` sees it
    sys.path[0] = run_dir  # ... and its imports resolve from its own directory, not tests/
    tree = ast.parse(job["source"], path)
    if job.get("soft_asserts"):
        tree = soften_asserts(tree)
    code = compile(tree, path, "exec")
    witnesses_failed: list[tuple[int, str]] = []

    def witness(line: int, test: Any) -> None:
        try:
            held = bool(test())
        except Exception as e:
            witnesses_failed.append((line, f"raised {type(e).__name__}"))
        else:
            if not held:
                witnesses_failed.append((line, "false"))

    setattr(builtins, WITNESS, witness)
    # What runpy.run_path does: a fresh module as __main__ (pickle and dataclasses look it up).
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__builtins__ = builtins  # type: ignore[attr-defined]
    sys.modules["__main__"] = main

    torch.manual_seed(0)
    random.seed(0)
    with contextlib.suppress(ImportError):
        import numpy

        numpy.random.seed(0)
    probe = _Probe(torch)
    probe.install()
    sys.addaudithook(_write_guard(os.path.realpath(run_dir)))

    def alarm(signum: int, frame: Any) -> None:
        raise _ProgramTimeout(f"no result after {time_limit:g} s")

    signal.signal(signal.SIGALRM, alarm)
    error: str | None = None
    line: int | None = None
    timed_out = False
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, time_limit)
    try:
        exec(code, main.__dict__)
    except _ProgramTimeout:
        timed_out = True
    except SystemExit as e:  # sys.exit(0) is a clean end, any other code is not
        if e.code not in (None, 0):
            error = f"SystemExit: {e.code}"
    except BaseException as e:
        error = f"{type(e).__name__}: {e}"
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == path]
        line = frames[-1].lineno if frames else None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    seconds = time.perf_counter() - start
    sys.stdout.flush()
    with open(output, encoding="utf-8", errors="replace") as f:
        tail = f.read()[-1000:]
    return {
        "error": error[:2000] if error else None,
        "line": line,
        "timed_out": timed_out,
        "received": sorted(probe.received)[:MAX_KEYS],
        "created": probe.created[:MAX_KEYS],
        "optimized": sorted(probe.optimized)[:MAX_KEYS],
        "seconds": seconds,
        "output_tail": tail,
        "witnesses_failed": witnesses_failed,
    }


def _run_forked(job: dict[str, Any], time_limit: float) -> dict[str, Any]:
    """Fork a child for one program, wait for its JSON line (or the hard limit), clean up."""
    import select
    import shutil
    import signal
    import time

    run_dir = tempfile.mkdtemp(prefix="gg-fix-")
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(rfd)
        try:
            payload = json.dumps(_child(job, run_dir, time_limit)) + "\n"
        except BaseException as e:  # a harness failure, reported as such
            payload = json.dumps({"crashed": f"harness: {type(e).__name__}: {e}"}) + "\n"
        data = payload.encode()
        while data:
            data = data[os.write(wfd, data) :]
        os._exit(0)
    os.close(wfd)
    deadline = time.monotonic() + time_limit + KILL_GRACE_SECONDS
    buf = b""
    killed = False
    while not buf.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            killed = True
            break
        ready, _, _ = select.select([rfd], [], [], remaining)
        if ready:
            chunk = os.read(rfd, 1 << 16)
            if not chunk:
                break
            buf += chunk
    os.close(rfd)
    # Whatever the program left running (data-loader workers, threads' processes) goes too.
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    _, status = os.waitpid(pid, 0)
    shutil.rmtree(run_dir, ignore_errors=True)
    if buf.endswith(b"\n"):
        result: dict[str, Any] = json.loads(buf)
        return result
    if killed:
        return {"timed_out": True, "crashed": f"killed after {time_limit + KILL_GRACE_SECONDS:g} s"}
    if os.WIFSIGNALED(status):
        return {"crashed": f"signal {os.WTERMSIG(status)}"}
    return {"crashed": f"exit status {os.waitstatus_to_exitcode(status)} without a result"}


def _serve(time_limit: float) -> None:
    # Warm the imports every child would repeat; run no torch op here (OpenMP state and fork).
    # torch._dynamo is imported lazily by the first optimizer (its _disable_dynamo): ~2 s a child.
    import torch
    import torch._dynamo
    import torch.distributions
    import torch.nn.functional
    import torch.optim
    import torch.utils.data  # noqa: F401

    try:
        import numpy  # noqa: F401
    except ImportError:
        pass
    for line in sys.stdin:
        if line.strip():
            result = _run_forked(json.loads(line), time_limit)
            sys.stdout.write(json.dumps(result) + "\n")
            sys.stdout.flush()


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--serve":
    _serve(float(sys.argv[2]))
