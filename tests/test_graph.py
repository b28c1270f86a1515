"""The graph view's model (engine/graph.py): the abstract graph of one backward call, read from the
facts that produce the findings. Each program here is a rule example or the same shape, whose run
under torch the rule examples already prove (the raising pass is the one torch makes raise)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from gradguard.api import autograd_graph, fix_id
from gradguard.engine import inspect
from gradguard.engine.graph import MAX_NODES, AutogradGraph
from gradguard.rules import examples


def _graph(source: str, needle: str = "backward(", last: bool = False) -> AutogradGraph:
    source = textwrap.dedent(source)
    lines = [i for i, text in enumerate(source.splitlines(), 1) if needle in text]
    line = lines[-1] if last else lines[0]
    graph = inspect(source, "t.py").graph(line)
    assert graph is not None
    return graph


def _by_label(graph: AutogradGraph, label: str) -> list:
    return [n for n in graph.nodes if n.label == label]


def _lane(graph: AutogradGraph, node_id: str) -> str:
    node = next(n for n in graph.nodes if n.id == node_id)
    return next(lane.label for lane in graph.lanes if lane.id == node.lane)


def test_a_module_forward_is_one_node_with_its_parameters_and_the_loop_reaches_into_it() -> None:
    graph = _graph(
        """\
        import torch
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(4, 8)
                self.fc2 = nn.Linear(8, 1)

            def forward(self, x):
                return self.fc2(torch.relu(self.fc1(x)))


        model = Net()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        feats = model(torch.randn(16, 4))
        for step in range(3):
            loss = (feats - 1).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """
    )
    assert [lane.label for lane in graph.lanes] == [
        "before the loop",
        "iteration 1 of `for step in range(3)`",
        "iteration 2 of `for step in range(3)`",
    ]
    [feats] = [n for n in graph.nodes if n.name == "feats"]
    assert feats.kind == "module" and feats.label == "model(torch.randn(16, 4))" and feats.saves
    assert not any("fc1" in n.label for n in graph.nodes)  # the forward's inside is that one node
    [params] = [n for n in graph.nodes if n.kind == "leaf"]
    assert params.label == "model parameters" and (params.id, feats.id) in {
        (e.src, e.dst) for e in graph.edges
    }
    first, second = graph.passes
    assert feats.id in first.frees and feats.freed_by == first.id and not first.raises
    assert second.raises and second.frees == ()
    assert graph.reach is not None and graph.reach[0] == feats.id
    assert _lane(graph, graph.reach[1]).startswith("iteration 2")
    assert [e for e in graph.edges if e.reach] == [e for e in graph.edges if (e.src, e.dst) == graph.reach]


def test_two_backwards_of_one_loss_show_the_first_as_an_earlier_pass() -> None:
    source = examples("GG101")[1][0].source
    graph = _graph(source, last=True)
    first, second = graph.passes
    assert not first.own and not first.raises and first.frees
    assert second.own and second.raises
    # The second pass meets the freed nodes at its own root: no edge leads into them.
    assert graph.reach is None and second.reaches in first.frees


def test_a_gan_step_shows_the_discriminator_pass_that_freed_the_fake() -> None:
    graph = _graph(examples("GG105")[1][0].source, "g_loss.backward(")
    d_pass, g_pass = graph.passes
    [fake] = [n for n in graph.nodes if n.name == "fake"]
    assert not d_pass.own and d_pass.frees == (fake.id,) and "d_loss.backward()" in d_pass.label
    assert g_pass.raises and graph.reach is not None and graph.reach[0] == fake.id


def test_an_in_place_change_of_a_saved_output_names_the_node_and_the_write() -> None:
    graph = _graph(examples("GG107")[1][1].source)
    [run] = graph.passes
    [probs] = [n for n in graph.nodes if n.name == "probs"]
    assert run.raises and run.changed == probs.id and run.changed_by == "probs.mul_(2) (line 8)"


def test_a_retained_pass_frees_nothing() -> None:
    graph = _graph(examples("GG302")[1][1].source)
    assert all(p.retains and p.frees == () for p in graph.passes)
    assert not any(n.freed_by for n in graph.nodes)


def test_a_clean_loop_has_no_raising_pass_and_no_reach() -> None:
    source = examples("GG103")[0][0].source
    graph = _graph(source)
    assert graph.passes and not any(p.raises for p in graph.passes) and graph.reach is None


def test_a_big_graph_keeps_the_nodes_nearest_the_backward() -> None:
    body = "".join(f"h = h * {i + 2}\n" for i in range(MAX_NODES + 20))
    source = f"import torch\nw = torch.ones(3, requires_grad=True)\nh = w\n{body}h.sum().backward()\n"
    graph = _graph(source)
    assert graph.truncated and len(graph.nodes) == MAX_NODES
    assert graph.passes[0].root in {n.id for n in graph.nodes}
    assert "h * 2" not in {n.label for n in graph.nodes}  # the farthest from the backward


def test_no_backward_no_graph() -> None:
    assert inspect("import torch\nx = torch.ones(2, requires_grad=True) * 2\n", "t.py").graph(2) is None


def test_a_fix_s_effect_is_the_graph_of_the_fixed_text() -> None:
    source = examples("GG103")[1][0].source
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "backward(" in text)
    answer = autograd_graph(source, line)
    assert answer is not None and answer.finding is not None and answer.finding.code == "GG103"
    after = autograd_graph(source, line, fix=fix_id(answer.finding, 0))
    assert after is not None and after.applied == answer.finding.fixes[0]
    assert after.finding is None and after.graph.reach is None
    assert not any(p.raises for p in after.graph.passes)
    assert autograd_graph(source, line, fix="GG103:1:9") is None  # no such fix


def test_the_reach_edge_enters_the_freed_region_where_the_new_iteration_meets_it() -> None:
    # The pass meets `backbone(x)` first, but the edge into the freed region is `feats` ->
    # iteration 2's `head(feats)`.
    graph = _graph(
        """\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        backbone, head = nn.Linear(4, 8), nn.Linear(8, 1)
        x, y = torch.randn(16, 4), torch.randn(16, 1)
        feats = torch.tanh(backbone(x))
        opt = torch.optim.SGD([*backbone.parameters(), *head.parameters()], lr=0.1)
        for epoch in range(3):
            opt.zero_grad()
            loss = F.mse_loss(head(feats), y)
            loss.backward()
            opt.step()
        """
    )
    [feats] = [n for n in graph.nodes if n.name == "feats"]
    assert graph.reach is not None and graph.reach[0] == feats.id
    target = next(n for n in graph.nodes if n.id == graph.reach[1])
    assert target.label == "head(feats)" and _lane(graph, target.id).startswith("iteration 2")


def _rule_example_graphs() -> list[tuple[str, AutogradGraph, bool]]:
    """(rule code and example, graph, whether the example is an invalid one that a backward makes
    raise) for every backward call of every rule example."""
    from gradguard import registry
    from gradguard.engine.graph import backward_lines

    out = []
    for rule in registry.all_rules():
        valid, invalid = examples(rule.code)
        for index, example in enumerate((*valid, *invalid)):
            analysis = inspect(example.source, "t.py")
            reporter = analysis._reporter
            if reporter is None:
                continue  # nothing analysed: a source that never mentions torch, or does not parse
            # An invalid example whose error is not a backward's (a PGD loop's `requires_grad = True`
            # on the moved input) has no raising pass to show.
            error = getattr(example, "error", None) or ""
            by_backward = index >= len(valid) and not error.startswith(_NOT_A_PASS)
            for line in backward_lines(reporter):
                graph = analysis.graph(line)
                assert graph is not None
                out.append((f"{rule.code}#{index}", graph, by_backward))
    return out


_NOT_A_PASS = ("RuntimeError: you can only change requires_grad flags",)


def test_every_rule_example_s_graph_is_whole_and_every_raising_pass_tells_why() -> None:
    graphs = _rule_example_graphs()
    assert len(graphs) > 100
    # The invalid examples of rules whose bug makes a backward raise (errors the rule examples' own
    # tests prove under torch): a pass in their graph raises.
    raising = ("GG101", "GG102", "GG103", "GG104", "GG105", "GG111")
    for example in {w for w, _, invalid in graphs if invalid and w.startswith(raising)}:
        assert any(p.raises for w, g, _ in graphs if w == example for p in g.passes), example
    for where, graph, _ in graphs:
        ids = {n.id for n in graph.nodes}
        lanes = {lane.id for lane in graph.lanes}
        assert all(e.src in ids and e.dst in ids for e in graph.edges), where
        assert all(n.lane in lanes for n in graph.nodes) and all(p.lane in lanes for p in graph.passes), where
        assert all(set(p.frees) <= ids and (p.root is None or p.root in ids) for p in graph.passes), where
        if graph.reach is not None:
            assert [(e.src, e.dst) for e in graph.edges if e.reach] == [graph.reach], where
        for p in graph.passes:
            if p.raises:
                # Torch raises there: the picture shows through what (an edge into freed buffers, the
                # freed node met, or the saved tensor changed in place).
                assert graph.reach is not None or p.reaches is not None or p.changed is not None, where
                assert p.frees == (), where


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from gradguard.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_graph_command_tells_the_seed_s_story(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed = tmp_path / "seed.py"
    seed.write_text(examples("GG103")[1][0].source)
    line = next(i for i, t in enumerate(seed.read_text().splitlines(), 1) if "backward(" in t)
    code, out, err = _cli(capsys, "graph", f"{seed}:{line}")
    assert code == 0, err
    text = out.splitlines()
    assert text[0] == f"{seed}:{line}: loss.backward()" and text[1].startswith("  GG103 `y` was computed")
    assert "before the loop" in text and any(t.startswith("iteration 2 of") for t in text)
    assert any("y = t @ a  [saves tensors for backward; freed by pass 1]" in t for t in text)
    assert any("from y = t @ a  <- reaches freed buffers" in t for t in text)
    assert any(
        t.startswith("  pass 2:") and "raises: reaches y = t @ a, freed, through x + y" in t for t in text
    )

    code, out, _ = _cli(capsys, "graph", str(seed), "--format", "json")  # no line: the nearest to 1
    assert code == 0
    answer = json.loads(out)
    assert answer["backward"]["location"]["row"] == line and answer["finding"]["code"] == "GG103"
    [y] = [n for n in answer["nodes"] if n["name"] == "y"]
    assert [e for e in answer["edges"] if e["reach"]][0]["from"] == y["id"]
    assert [p["raises"] for p in answer["passes"]] == [False, True]


def test_the_graph_command_says_when_there_is_nothing_to_draw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain.py"
    plain.write_text("import torch\nx = torch.ones(2, requires_grad=True) * 2\n")
    assert _cli(capsys, "graph", str(plain))[0:3:2] == (
        1,
        f"gradguard: {plain}: no backward call the analysis ran\n",
    )
    code, _, err = _cli(capsys, "graph", str(tmp_path / "missing.py"))
    assert code == 2 and "missing.py" in err
    code, _, err = _cli(capsys, "graph", str(tmp_path / "train.ipynb"))
    assert code == 2 and "notebooks" in err
