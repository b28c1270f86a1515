"""Cross-file analysis: imports of the user's own modules resolved by jedi, followed by the engine, and
what is found through them shown in the file being checked (engine, loader, CLI and its cache)."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from gradguard import api, projects
from gradguard.cli import main as cli_main
from gradguard.project import ProjectLoader, imports_own_code, project_root

MODEL = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        h = torch.sigmoid(self.fc(x))
        h.mul_(2)
        return h.sum()
"""

TRAIN = """\
import torch
from model import Net


def main():
    net = Net()
    loss = net(torch.randn(3, 4))
    loss.backward()


main()
"""


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    (root / "pyproject.toml").write_text("")
    return root


def check(root: Path, name: str) -> list[api.Finding]:
    path = root / name
    return api.check_source(path.read_text(), str(path), loader=ProjectLoader(str(root)))


def test_a_bug_in_an_imported_model_is_shown_on_the_line_that_runs_it(tmp_path: Path) -> None:
    root = project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    [finding] = check(root, "train.py")
    assert (finding.code, finding.span.line) == ("GG107", 7)  # `loss = net(...)` in train.py
    assert "(in model.py, line 12)" in finding.message
    assert "model.py line 11" in finding.message  # the saving op, in its own file's numbering
    here = [r for r in finding.related if r.path is not None and r.role == "note"]
    assert [(Path(r.path or "").name, r.span.line) for r in here] == [("model.py", 12)]
    assert any(r.path is None and r.span.line == 8 for r in finding.related)  # the failing backward
    assert finding.fixes == ()  # an edit would be in another file: none is offered here


BIAS = """\
import math

import torch
import torch.nn as nn


class Bias(nn.Module):
    def __init__(self, heads, uniform=False):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(heads, 1))
        if uniform:
            self.bias.uniform_(-2 * math.pi, 0.0)
"""


@pytest.mark.parametrize(("call", "shown"), [("Bias(4, flag)", False), ("Bias(4, True)", True)])
def test_a_finding_in_a_branch_the_call_may_not_take_is_left_to_its_module(
    tmp_path: Path, call: str, shown: bool
) -> None:
    # Whether `uniform` holds comes from outside: the in-place change of the parameter raises only
    # when it does, so this line is not said to raise; the module's own analysis still reports it.
    train = f"import sys\nfrom bias import Bias\n\nflag = len(sys.argv) > 1\nlayer = {call}\n"
    root = project(tmp_path, {"bias.py": BIAS, "train.py": train})
    assert [(f.code, f.span.line) for f in check(root, "train.py")] == ([("GG108", 5)] if shown else [])
    assert [(f.code, f.span.line) for f in check(root, "bias.py")] == [("GG108", 12)]


def test_without_a_loader_nothing_is_followed(tmp_path: Path) -> None:
    root = project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    assert api.check_source((root / "train.py").read_text(), str(root / "train.py")) == []
    assert check(root, "model.py") == []  # the model alone: no backward, nothing to say


@pytest.mark.parametrize(
    "files, entry",
    [
        # a package with relative imports, the model re-exported by its __init__
        (
            {
                "pkg/__init__.py": "from .models import Net\n",
                "pkg/models.py": MODEL,
                "pkg/train.py": TRAIN.replace("from model import Net", "from . import Net"),
            },
            "pkg/train.py",
        ),
        # `import utils as U`, then `U.Net()`
        (
            {
                "utils.py": MODEL,
                "train.py": TRAIN.replace("from model import Net", "import utils as U").replace(
                    "Net()", "U.Net()"
                ),
            },
            "train.py",
        ),
        # `import pkg.models`, then `pkg.models.Net()`
        (
            {
                "pkg/__init__.py": "",
                "pkg/models.py": MODEL,
                "train.py": TRAIN.replace("from model import Net", "import pkg.models").replace(
                    "Net()", "pkg.models.Net()"
                ),
            },
            "train.py",
        ),
        # a src/ layout: the package's own modules import it by name
        (
            {
                "src/pkg/__init__.py": "",
                "src/pkg/model.py": MODEL,
                "src/pkg/train.py": TRAIN.replace("from model import", "from pkg.model import"),
            },
            "src/pkg/train.py",
        ),
    ],
    ids=["relative-reexport", "module-alias", "dotted-import", "src-layout"],
)
def test_import_forms(tmp_path: Path, files: dict[str, str], entry: str) -> None:
    root = project(tmp_path, files)
    assert [f.code for f in check(root, entry)] == ["GG107"]


def test_a_subclass_of_an_imported_module_and_super_init(tmp_path: Path) -> None:
    base = """\
    import torch
    import torch.nn as nn


    class Base:
        def __init__(self, lr):
            self.model = nn.Linear(3, 1)
            self.opt = torch.optim.SGD(self.model.parameters(), lr=lr)
            self.total = 0

        def fit(self, steps):
            for _ in range(steps):
                self.step()
    """
    runner = """\
    import torch
    from base import Base


    class Runner(Base):
        def __init__(self):
            super().__init__(0.1)

        def step(self):
            loss = self.model(torch.randn(2, 3)).sum()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.total += loss


    Runner().fit(3)
    """
    root = project(tmp_path, {"base.py": base, "runner.py": runner})
    assert [(f.code, f.span.line) for f in check(root, "runner.py")] == [("GG301", 14)]


@pytest.mark.parametrize(
    "model",
    [
        "import torch\nfrom train import main\nclass Net(:\n",  # does not parse
        "from train import main\nfrom model import Net\n",  # imports itself and its importer
        "",  # empty
    ],
    ids=["syntax-error", "cycle", "empty"],
)
def test_broken_modules_degrade_to_unknown(tmp_path: Path, model: str) -> None:
    root = project(tmp_path, {"model.py": model, "train.py": TRAIN})
    assert check(root, "train.py") == []


def test_a_missing_module_and_a_library_stay_unknown(tmp_path: Path) -> None:
    root = project(tmp_path, {"train.py": TRAIN.replace("from model", "from nosuchmodule")})
    assert check(root, "train.py") == []
    loader = ProjectLoader(str(root))
    assert loader.resolve(str(root / "train.py"), "torch.nn", 0) is None
    assert loader.resolve(str(root / "train.py"), "json", 0) is None  # the standard library
    assert loader.resolve(str(root / "train.py"), "jedi", 0) is None  # installed, not the project's


def test_a_virtual_environment_inside_the_project_is_not_followed(tmp_path: Path) -> None:
    root = project(tmp_path, {"train.py": TRAIN, ".venv/lib/site-packages/model.py": MODEL})
    loader = ProjectLoader(str(root))
    assert loader._inside(str(root / ".venv/lib/site-packages/model.py")) is None
    assert loader._inside(str(root / "train.py")) == str((root / "train.py").resolve())


def test_a_module_that_imports_many_others_is_bounded(tmp_path: Path) -> None:
    files = {f"m{i}.py": f"from m{i + 1} import f\n" for i in range(80)}
    files["m80.py"] = "def f(x):\n    return x\n"
    files["train.py"] = "import torch\nfrom m0 import f\nx = f(torch.randn(2, requires_grad=True))\n"
    root = project(tmp_path, files)
    assert check(root, "train.py") == []  # and it returns: the chain stops at MAX_MODULES


def test_a_changed_module_is_read_again(tmp_path: Path) -> None:
    root = project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    loader = ProjectLoader(str(root))
    source, path = (root / "train.py").read_text(), str(root / "train.py")
    assert [f.code for f in api.check_source(source, path, loader=loader)] == ["GG107"]
    fixed = MODEL.replace("h.mul_(2)", "h = h * 2")
    (root / "model.py").write_text(fixed)
    os.utime(root / "model.py", ns=(1, 1))  # a new stamp even on a coarse clock
    assert api.check_source(source, path, loader=loader) == []


def test_project_root_and_the_cheap_import_test(tmp_path: Path) -> None:
    root = project(tmp_path, {"a/b/c.py": ""})
    assert project_root(str(root / "a" / "b" / "c.py")) == str(root)
    assert not imports_own_code("import torch\nimport os, sys\nfrom torch import nn\n")
    assert imports_own_code("from model import Net\n")
    assert imports_own_code("from . import losses\n")


# -- the CLI -------------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli_main(["check", "--isolated", *argv])
    return code, capsys.readouterr().out


def test_cli_follows_imports_and_can_be_told_not_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    code, out = run(capsys, str(root), "--no-cache")
    assert code == 1 and "train.py:7:5: GG107" in out and "(in model.py, line 12)" in out
    code, out = run(capsys, str(root), "--no-follow-imports")
    assert code == 0 and "GG107" not in out
    code, out = run(capsys, str(root / "train.py"), "--no-cache")  # a file alone finds its project
    assert "GG107" in out


def test_sarif_points_related_locations_at_the_other_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    monkeypatch.chdir(root)
    _, out = run(capsys, ".", "--no-cache", "--format", "sarif")
    [result] = json.loads(out)["runs"][0]["results"]
    places = {
        (r["physicalLocation"]["artifactLocation"]["uri"], r["physicalLocation"]["region"]["startLine"])
        for r in result["relatedLocations"]
    }
    assert ("model.py", 12) in places and ("train.py", 8) in places


def test_the_cache_is_used_and_invalidated_by_an_imported_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADGUARD_CACHE_DIR", str(tmp_path / "cache"))
    root = project(tmp_path / "p", {"model.py": MODEL, "train.py": TRAIN})
    _, first = run(capsys, str(root))
    [cache_file] = (tmp_path / "cache").glob("*.json")
    doc = json.loads(cache_file.read_text())
    assert str((root / "train.py").resolve()) in doc["files"] or str(root / "train.py") in doc["files"]
    calls: list[str] = []
    real = api.check_source

    def counting(*a: object, **k: object) -> object:
        calls.append(str(a[1]))
        return real(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "check_source", counting)
    projects._loaders.clear()
    projects._caches.clear()
    _, second = run(capsys, str(root))
    assert second == first and not any(c.endswith("train.py") for c in calls)  # served from the cache
    (root / "model.py").write_text(MODEL.replace("h.mul_(2)", "h = h * 2"))
    projects._loaders.clear()
    projects._caches.clear()
    _, third = run(capsys, str(root))
    assert "GG107" not in third and any(c.endswith("train.py") for c in calls)


@pytest.mark.parametrize(
    "garbage", ["{not json", '{"version": "0:old", "files": {}}', "[]", '{"version": 1}', ""]
)
def test_a_damaged_or_foreign_cache_is_ignored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, garbage: str
) -> None:
    monkeypatch.setenv("GRADGUARD_CACHE_DIR", str(tmp_path / "cache"))
    root = project(tmp_path / "p", {"model.py": MODEL, "train.py": TRAIN})
    projects._loaders.clear()
    projects._caches.clear()
    target = projects._cache_file(project_root(str(root / "train.py")))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(garbage)
    code, out = run(capsys, str(root))
    assert code == 1 and "GG107" in out
    assert json.loads(target.read_text())["version"] == projects._version()  # rewritten, valid


def test_a_poisoned_cache_entry_is_not_trusted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADGUARD_CACHE_DIR", str(tmp_path / "cache"))
    root = project(tmp_path / "p", {"model.py": MODEL, "train.py": TRAIN})
    projects._loaders.clear()
    projects._caches.clear()
    run(capsys, str(root))
    target = projects._cache_file(project_root(str(root / "train.py")))
    doc = json.loads(target.read_text())
    for entry in doc["files"].values():
        entry["findings"] = [{"code": "GG101"}]  # damaged: missing fields
    target.write_text(json.dumps(doc))
    projects._loaders.clear()
    projects._caches.clear()
    code, out = run(capsys, str(root))
    assert "GG107" in out and "GG101" not in out


FACTORY_LOOP = """\
import torch
{imports}

model = {make}
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(3):
    loss = model(torch.randn(2, 3, 32, 32)).sum()
    loss.backward()
    opt.step()
"""


@pytest.mark.parametrize(
    "imports, make, found",
    [
        ("import torchvision", "torchvision.models.resnet18()", True),
        ("from torchvision.models import resnet18", "resnet18(weights=None)", True),
        ("import timm", 'timm.create_model("resnet18")', True),
        ("from transformers import AutoModel", 'AutoModel.from_pretrained("bert-base-uncased")', True),
        ("import torchvision", "torchvision.models.get_model_builder('resnet18')", False),
        (
            "from transformers import AutoTokenizer",
            'AutoTokenizer.from_pretrained("bert-base-uncased")',
            False,
        ),
    ],
)
def test_well_known_model_factories_make_trainable_modules(imports: str, make: str, found: bool) -> None:
    """The documented table: only these library calls are known to return a network (no zero_grad
    in the loop is then GG201); anything else from a library stays unknown."""
    source = FACTORY_LOOP.format(imports=imports, make=make)
    assert [f.code for f in api.check_source(source, "t.py")] == (["GG201"] if found else [])


def test_a_notebook_follows_its_project_imports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sources = [
        ["import torch\n", "from model import Net\n"],
        ["net = Net()\n", "loss = net(torch.randn(3, 4))\n", "loss.backward()\n"],
    ]
    cells = [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": src}
        for src in sources
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    root = project(tmp_path, {"model.py": MODEL, "nb.ipynb": json.dumps(notebook)})
    code, out = run(capsys, str(root), "--no-cache")
    assert code == 1 and "nb.ipynb:cell 2:2:1: GG107" in out and "(in model.py, line 12)" in out


def test_a_notebook_is_answered_from_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADGUARD_CACHE_DIR", str(tmp_path / "cache"))
    cells = [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": [line]}
        for line in (
            "import torch\nfrom model import Net\n",
            "loss = Net()(torch.randn(3, 4))\nloss.backward()\n",
        )
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    root = project(tmp_path / "p", {"model.py": MODEL, "nb.ipynb": json.dumps(notebook)})
    projects._loaders.clear()
    projects._caches.clear()
    _, first = run(capsys, str(root))
    assert "nb.ipynb:cell 2:1:1: GG107" in first
    monkeypatch.setattr(api, "check_notebook", lambda *a, **k: pytest.fail("analysed again"))
    projects._loaders.clear()
    projects._caches.clear()
    _, second = run(capsys, str(root))
    assert second == first


TRAIN_FUNCTIONS = """\
import torch
from model import Net


def train():
    net = Net()
    loss = net(torch.randn(3, 4))
    loss.backward()


def evaluate():
    x = torch.ones(2, requires_grad=True)
    y = x * x
    y.sum().backward()
    y.sum().backward()


train()
"""


def test_an_edit_of_a_file_that_runs_its_imports_is_analysed_incrementally(tmp_path: Path) -> None:
    """The findings through imports are a whole analysis's; units are replayed once the project's
    modules are warm, and not when an imported module changed."""
    from gradguard import engine

    root = project(tmp_path, {"model.py": MODEL, "train.py": TRAIN_FUNCTIONS})
    path = str(root / "train.py")
    loader = ProjectLoader(str(root))
    source = TRAIN_FUNCTIONS
    memo = engine.inspect(source, path, loader).memo
    for k in range(3):
        source = source.replace("train()\n", f"train()\n_edit = {k}\n")
        after = engine.inspect(source, path, loader, memo)
        whole = engine.inspect(source, path, loader)
        assert after.findings == whole.findings
        assert sorted(f.code for f in whole.findings) == ["GG102", "GG107"]
        assert after.memo is not None
        memo = after.memo
    assert memo.replayed == len(memo.units) == 2
    (root / "model.py").write_text(MODEL.replace("h.mul_(2)", "h = h * 2"))
    changed = engine.inspect(source + "\n", path, loader, memo)
    assert changed.memo is not None and changed.memo.replayed == 0
    assert changed.findings == engine.inspect(source + "\n", path, loader).findings
    assert [f.code for f in changed.findings] == ["GG102"]
