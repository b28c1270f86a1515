"""The engine's own contract: the story it tells, positions, determinism and restraint."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from gradguard.engine import analyze, inspect
from gradguard.findings import Span
from gradguard.rules import examples
from torch_runner import Result, Snippet, run_snippets

SEED = textwrap.dedent(
    """\
    import torch

    measure = torch.nn.MSELoss()
    x = torch.tensor([1, 0], dtype=torch.float64)
    t = torch.eye(2, dtype=torch.float64, requires_grad=True)
    a = torch.ones(2, dtype=torch.float64, requires_grad=True)
    y = t @ a

    for _ in range(2):
        x_out = t @ (x + y)
        loss = measure(x_out, x)
        loss.backward()
    """
)


def test_seed_case_tells_the_whole_story() -> None:
    (finding,) = analyze(SEED)
    assert finding.code == "GG103"
    # The squiggle is on the statement to change: `y`, bound before the loop (item 7).
    assert (finding.span.line, finding.span.col, finding.span.end_col) == (7, 0, 1)
    assert finding.chain == "loss (line 11) <- x_out (line 10) <- y (line 7, before the loop) <- t, a"
    roles = [(r.role, r.span.line) for r in finding.related]
    assert roles == [("built", 7), ("reused", 10), ("freed", 12), ("reused", 12)]
    assert finding.fixes[0].kind == "move-into-loop"
    assert finding.fixes[0].params["stmts"] == [[7, 0, 7, 9]]


def test_backward_facts_for_hover() -> None:
    (info,) = inspect(SEED).backwards
    assert info.span.line == 12
    assert info.target == "loss"
    assert not info.retains
    assert ("t @ a", 7) in info.frees
    assert info.needed_later


def test_backward_without_reuse_is_not_needed_later() -> None:
    src = "import torch\nw = torch.ones(3, requires_grad=True)\nloss = (w * w).sum()\nloss.backward()\n"
    (info,) = inspect(src).backwards
    assert info.frees == (("w * w", 3),) and not info.needed_later


def test_columns_count_code_points_not_bytes() -> None:
    prefix = "# 训练 🚀 résumé\n"
    src = SEED.replace("y = t @ a", "s = '🚀训练'; y = t @ a")
    (finding,) = analyze(prefix + src)
    line = (prefix + src).splitlines()[finding.span.line - 1]
    assert line[finding.span.col : finding.span.end_col] == "y"


def test_results_are_deterministic() -> None:
    from gradguard.rules import examples

    _, invalid = examples("GG105")
    runs = {tuple((f.code, f.span, f.message) for f in analyze(invalid[1].source)) for _ in range(5)}
    assert len(runs) == 1


@pytest.mark.parametrize(
    "loop",
    ["for _ in range(1):", "for _ in [0]:", "for step in range(5):\n    if step:\n        break"],
)
def test_a_loop_that_cannot_repeat_the_backward_is_not_flagged(loop: str) -> None:
    body = "loss = (h * 2).sum()\nloss.backward()\n"
    if "break" in loop:
        src_loop = "for step in range(5):\n" + textwrap.indent(body, "    ") + "    break\n"
    else:
        src_loop = loop + "\n" + textwrap.indent(body, "    ")
    src = "import torch\nw = torch.randn(3, requires_grad=True)\nh = w.exp()\n" + src_loop
    assert analyze(src) == []
    # The same loop repeated twice does fail at run time, and is flagged.
    repeated = src.replace("range(1)", "range(2)").replace("[0]", "[0, 1]")
    if "break" not in loop:
        assert [f.code for f in analyze(repeated)] == ["GG103"]


def test_unknown_values_never_produce_findings() -> None:
    src = textwrap.dedent(
        """\
        import torch
        from mylib import build_model, loader

        model = build_model()
        feats = model(torch.randn(4, 3))
        for batch in loader:
            loss = (feats * batch).sum()
            loss.backward()
        """
    )
    assert analyze(src) == []


def test_files_without_torch_are_skipped_and_bad_input_gives_gg000_alone() -> None:
    assert analyze("x = 1\nfor i in range(3):\n    x += i\n") == []
    assert analyze("x = 1\nfor x in (:\n") == []  # never mentions torch: not read further
    [broken] = analyze("import torch\nfor x in (:\n")
    assert (broken.code, broken.span, broken.fixes) == ("GG000", Span(2, 10, 2, 11), ())
    assert "(SyntaxError: invalid syntax)" in broken.message
    [deep] = analyze("import torch\n" + "(" * 5000 + ")" * 5000 + "\n")
    assert deep.code == "GG000" and "too many nested parentheses" in deep.message


def test_retain_graph_for_two_passes_in_one_gan_iteration_is_not_flagged() -> None:
    # Found by the real-world audit (a common simple-GAN loop): retain_graph=True keeps G's graph
    # for the generator step of the same iteration. Wasteful, but correct: torch runs it clean.
    src = textwrap.dedent(
        """\
        import torch, torch.nn as nn
        D, G = nn.Linear(8, 1), nn.Linear(4, 8)
        opt_d, opt_g = torch.optim.SGD(D.parameters(), 0.1), torch.optim.SGD(G.parameters(), 0.1)
        for _ in range(3):
            fake = G(torch.randn(5, 4))
            d_loss = D(torch.randn(5, 8)).mean() - D(fake).mean()
            D.zero_grad()
            d_loss.backward(retain_graph=True)
            opt_d.step()
            g_loss = -D(fake).mean()
            G.zero_grad()
            g_loss.backward()
            opt_g.step()
        """
    )
    assert analyze(src) == []
    # Without retain_graph it does fail, and that is GG105.
    assert [f.code for f in analyze(src.replace("retain_graph=True", ""))] == ["GG105"]


def test_carried_attribute_is_the_one_the_next_iteration_reads_first() -> None:
    # An output stored on self and read later in the same forward was read in iteration 1 after it
    # was written: it carries nothing. The state the next iteration reads first is hidden_2.
    path = Path(__file__).parent / "corpus" / "lstm_module_keeps_outputs_on_self.py"
    found = analyze(path.read_text(), str(path))
    assert [(f.code, f.span.line) for f in found] == [("GG104", 20)]
    assert "`self.hidden_2`" in found[0].message and "dec_out" not in found[0].message


def test_an_accumulator_returned_after_a_loop_that_may_stop_early_is_no_leak() -> None:
    # On the path that breaks at once the sum is still the number 0; joined with the tensor sum it
    # must keep its mark, so that returning it counts as handing it on.
    src = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class Quantizers(nn.Module):
            def __init__(self):
                super().__init__()
                self.quantizers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])

            def forward(self, z, n):
                loss = 0
                for i, q in enumerate(self.quantizers):
                    if i >= n:
                        break
                    loss += q(z).mean()
                return z, loss
        """
    )
    assert analyze(src) == []
    # The same sum never handed on is still the leak it is.
    leak = src.replace("        return z, loss\n", "        return z\n")
    assert [f.code for f in analyze(leak)] == ["GG301"]


def test_a_backward_with_a_keyword_it_does_not_take_raises_type_error_first() -> None:
    # `retain_variables` (PyTorch 0.3): torch 2.13 raises TypeError on that line, so the GG102 the
    # second backward would raise is never reached; without the keyword it is.
    src = textwrap.dedent(
        """\
        import torch

        w = torch.ones(2, requires_grad=True)
        for step in range(3):
            h = torch.sigmoid(w)
            d_loss = h.sum()
            g_loss = (h * 3).sum()
            d_loss.backward(retain_variables=True)
            g_loss.backward()
        """
    )
    assert analyze(src) == []
    assert [f.code for f in analyze(src.replace("retain_variables=True", ""))] == ["GG102"]


@pytest.mark.parametrize(
    "test", ['type(parts).__name__ == "list"', "type(parts) is list", 'type(parts).__name__ != "tuple"']
)
def test_a_type_test_on_a_known_list_decides_the_branch(test: str) -> None:
    # The other arm never runs: `loss` is the stacked sum, whose graph the first backward frees.
    src = textwrap.dedent(
        f"""\
        import torch

        w = torch.ones(3, requires_grad=True)
        parts = [torch.sigmoid(w), torch.tanh(w)]
        if {test}:
            loss = torch.stack(parts).sum()
        else:
            loss = unknown_helper(parts)
        loss.backward()
        loss.backward()
        """
    )
    assert [(f.code, f.span.line) for f in analyze(src)] == [("GG101", 10)]


def test_methods_named_like_in_place_ops_that_autograd_allows_are_no_writes() -> None:
    # torch 2.13: `share_memory_()` on a leaf that requires grad is fine (SAC's shared `log_alpha`);
    # `apply_` refuses with an error of its own, not the leaf in-place error GG108 names.
    src = textwrap.dedent(
        """\
        import torch

        log_alpha = torch.zeros(1, requires_grad=True)
        log_alpha.share_memory_()
        w = torch.zeros(2, requires_grad=True)
        w.apply_(lambda x: x)
        """
    )
    assert analyze(src) == []
    zeroed = src.replace("log_alpha.share_memory_()", "log_alpha.zero_()")
    assert [f.code for f in analyze(zeroed)] == ["GG108"]


BUFFER = textwrap.dedent(
    """\
    import torch

    policy = torch.nn.Linear(4, 2)
    data = []
    for step in range(8):
        prob = torch.softmax(policy(torch.randn(4)), 0)[0]
        data.append((step, prob))  # the rollout keeps each step's graph: the leak
    steps, probs = [], []
    for transition in data:
        s, prob_a = transition
        steps.append(s)
        probs.append([prob_a])  # only passes on what `data` already keeps
    """
)


def test_rebuilding_lists_from_a_buffer_keeps_nothing_new() -> None:
    assert [(f.code, f.span.line) for f in analyze(BUFFER)] == [("GG301", 7)]


def test_an_element_built_in_an_enclosing_loop_still_counts() -> None:
    # Each epoch builds new graphs (`hs`); the inner loop only passes them on, but `total` is there
    # before the epoch loop and keeps every epoch's.
    src = textwrap.dedent(
        """\
        import torch

        net = torch.nn.Linear(4, 4)
        total = 0
        for epoch in range(3):
            hs = [torch.tanh(net(torch.randn(4))) for _ in range(2)]
            for h in hs:
                total += h
        """
    )
    assert [(f.code, f.span.line) for f in analyze(src)] == [("GG301", 8)]


def test_a_write_through_plain_indices_gives_the_tensor_a_graph() -> None:
    # `fx[i][j] = ...` writes into `fx` through the view `fx[i]`: it now has a graph, and its
    # backward runs (torch 2.13: CopySlices), so there is nothing to report.
    src = textwrap.dedent(
        """\
        import torch

        x = torch.randn(4, 4).requires_grad_()
        fx = torch.zeros_like(x)
        for i in range(x.size(0)):
            for j in range(x.size(1)):
                fx[i][j] = torch.exp(-x[i][j])
        fx.sum().backward()
        """
    )
    assert analyze(src) == []


def test_collecting_the_state_a_loop_carries_keeps_nothing_new() -> None:
    # An LSTMCell unrolled by hand: `hx` carries every earlier step's graph, so the list of the
    # steps' outputs keeps nothing the final `hx` does not.
    src = textwrap.dedent(
        """\
        import torch

        cell = torch.nn.LSTMCell(4, 3)
        hx, cx = torch.randn(2, 3), torch.randn(2, 3)
        out = []
        for x in torch.randn(5, 2, 4):
            hx, cx = cell(x, (hx, cx))
            out.append(hx)
        print(torch.stack(out).shape)
        """
    )
    assert analyze(src) == []


@pytest.mark.parametrize("bias", ["head_bias", "bias=head_bias"])
def test_an_element_of_a_collected_list_used_in_the_returned_value_hands_it_on(bias: str) -> None:
    # Transformer-XL's adaptive softmax: per-cluster weights and biases collected in lists, then
    # `biases[0]` goes (positionally or by keyword) into the logits the forward returns.
    src = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        class AdaptiveSoftmax(nn.Module):
            def __init__(self, n_token=100, d=8, cutoffs=(20, 50)):
                super().__init__()
                self.cutoffs = list(cutoffs) + [n_token]
                self.cutoff_ends = [0] + self.cutoffs
                self.out = nn.Linear(d, n_token)
                self.cluster_bias = nn.Parameter(torch.zeros(2))

            def forward(self, hidden):
                weights, biases = [], []
                for i in range(len(self.cutoffs)):
                    lo, hi = self.cutoff_ends[i], self.cutoff_ends[i + 1]
                    bias_i = self.out.bias[lo:hi]
                    if i == 0:
                        bias_i = torch.cat([bias_i, self.cluster_bias], dim=0)
                    weights.append(self.out.weight[lo:hi])
                    biases.append(bias_i)
                head_bias = biases[0]
                return F.log_softmax(F.linear(hidden, weights[0], {bias}), dim=1)
        """
    )
    assert analyze(src) == []


def test_a_lambda_is_called_with_its_real_arguments() -> None:
    # `output_transform=lambda x: x`-style helpers: what they return is followed.
    src = textwrap.dedent(
        """\
        import torch

        w = torch.ones(3, requires_grad=True)
        transform = lambda x: x * 1.0
        history = []
        for step in range(3):
            loss = (w * w).sum()
            loss.backward()
            history.append(transform(loss))
        """
    )
    assert [(f.code, f.span.line) for f in analyze(src)] == [("GG301", 9)]
    assert analyze(src.replace("lambda x: x * 1.0", "lambda x: x.item()")) == []


def test_a_loop_whose_call_ran_a_backward_gets_its_second_iteration() -> None:
    # The loop's text shows no backward (the step is a function held by an object), but its first
    # iteration ran one: the second meets the graph it freed (torch 2.13 raises there).
    src = textwrap.dedent(
        """\
        import torch

        w = torch.ones(3, requires_grad=True)
        h = torch.sigmoid(w)


        def step(x):
            (x * 2).sum().backward()


        class Runner:
            def __init__(self, fn):
                self.fn = fn


        runner = Runner(step)
        for i in range(2):
            runner.fn(h)
        """
    )
    assert [(f.code, f.span.line) for f in analyze(src)] == [("GG103", 4)]


@pytest.mark.parametrize(
    "guard",
    [
        "try:\n    {line}\nexcept RuntimeError as e:\n    print(e)\n",
        "with pytest.raises(RuntimeError):\n    {line}\n",
    ],
)
def test_an_error_the_program_catches_itself_is_not_reported(guard: str) -> None:
    # A tutorial showing the error (torch 2.13: "element 0 of tensors does not require grad").
    head = (
        "import pytest\nimport torch\n\nw = torch.ones(3, requires_grad=True)\n"
        "with torch.no_grad():\n    z = (w * 2).sum()\n"
    )
    assert analyze(head + guard.format(line="z.backward()")) == []
    assert [f.code for f in analyze(head + "z.backward()\n")] == ["GG106"]
    other = head + "try:\n    z.backward()\nexcept ValueError:\n    pass\n"
    assert [f.code for f in analyze(other)] == ["GG106"]


def test_a_helper_called_from_nowhere_here_is_not_assumed_to_run_with_grad() -> None:
    # accelerate's convert_model: its callers (in other files) run it under torch.no_grad(). Called
    # here without it, the copy into a fresh parameter raises (torch 2.13: "a leaf Variable that
    # requires grad is being used in an in-place operation").
    src = textwrap.dedent(
        """\
        import torch.nn as nn


        def convert(module):
            new = nn.Linear(4, 4)
            new.weight.copy_(module.weight)
            return new
        """
    )
    assert analyze(src) == []
    assert [f.code for f in analyze(src + "\n\nconvert(nn.Linear(4, 4))\n")] == ["GG108"]
    # A module's constructor runs with grad mode on: its in-place change of a parameter is reported.
    ctor = src.replace("def convert(module):", "class Block(nn.Module):\n    def __init__(self, module):")
    ctor = ctor.replace("\n    new = nn", "\n        new = nn")
    ctor = ctor.replace("\n    new.weight", "\n        new.weight")
    ctor = ctor.replace("\n    return new\n", "\n")
    assert [f.code for f in analyze(ctor)] == ["GG108"]


def test_state_named_by_setattr_and_getattr_is_carried_like_an_attribute() -> None:
    src = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        class Runner:
            def __init__(self):
                self.cell = nn.GRUCell(3, 3)
                self.h = torch.zeros(1, 3)
                self.opt = torch.optim.SGD(self.cell.parameters(), lr=0.1)

            def step(self, x):
                setattr(self, "h", self.cell(x, getattr(self, "h")))
                loss = self.h.pow(2).sum()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()

        r = Runner()
        for _ in range(3):
            r.step(torch.randn(1, 3))
        """
    )
    assert [(f.code, f.span.line) for f in analyze(src)] == [("GG104", 11)]


@pytest.mark.parametrize(("flag", "found"), [("True", ["GG301"]), ("False", [])])
def test_set_grad_enabled_with_a_known_flag_decides_recording(flag: str, found: list[str]) -> None:
    src = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn

        def run(model, training):
            torch.set_grad_enabled(training)
            total = 0
            for _ in range(3):
                loss = model(torch.randn(2, 4)).pow(2).mean()
                total += loss
            torch.set_grad_enabled(True)
            print(float(total))

        run(nn.Linear(4, 1), {flag})
        """
    )
    assert [f.code for f in analyze(src)] == found


@pytest.mark.parametrize(
    ("test", "reset"),
    [
        ('"train" not in meters or meters["train"] is None', True),
        ('"train" in meters and meters["train"] is not None', False),
    ],
)
def test_a_boolean_test_of_known_operands_decides_the_branch(test: str, reset: bool) -> None:
    # Known keys and None-ness decide `or`/`and`: the meter made on first use is the one updated.
    src = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn

        class Meter:
            def __init__(self):
                self.sum = 0

            def update(self, val):
                self.sum += val

        model = nn.Linear(4, 1)
        meters = {{"train": None}}
        for step in range(3):
            loss = model(torch.randn(2, 4)).pow(2).mean()
            loss.backward()
            if {test}:
                meters["train"] = Meter()
            if meters["train"] is not None:
                meters["train"].update(loss)
        """
    )
    assert [f.code for f in analyze(src)] == (["GG301"] if reset else [])


def test_a_negative_literal_keeps_its_sign_in_shapes() -> None:
    # `view(-1)` of three elements is (3,): a lost sign made it `view(1)`, one element.
    src = textwrap.dedent(
        """\
        import torch

        w = torch.randn(3, requires_grad=True)
        y = (w * 2).view(-1)
        y.backward()
        """
    )
    assert [f.code for f in analyze(src)] == ["GG109"]


def test_a_list_built_backwards_with_insert_keeps_its_graphs() -> None:
    # Lambda returns built with `targets.insert(0, ...)`, stacked: a step of the value model between
    # building them and backpropagating the actor loss changes weights that graph saved.
    src = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        value = nn.Linear(3, 1)
        value_opt = torch.optim.Adam(value.parameters())
        states = torch.randn(3, 3, requires_grad=True)
        values = value(states)
        targets = []
        nxt = values[-1]
        for t in reversed(range(3)):
            nxt = values[t] + 0.9 * nxt
            targets.insert(0, nxt)
        returns = torch.stack(targets)
        value_loss = (value(states.detach()) - returns.detach()).pow(2).mean()
        value_opt.zero_grad()
        value_loss.backward()
        value_opt.step()
        (-returns.mean()).backward()
        """
    )
    assert [(f.code, f.span.line) for f in analyze(src)] == [("GG111", 17)]


def test_a_sum_read_only_to_report_an_average_is_still_a_leak() -> None:
    src = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        model = nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        total = 0
        for it in range(1, 11):
            loss = model(torch.randn(2, 4)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss
            if it % 5 == 0:
                avg = total / 5
                total = 0
                print(f"{avg.item():.4f}")
        """
    )
    assert [(f.code, f.span.line) for f in analyze(src)] == [("GG301", 12)]


def test_an_optimizer_never_cleared_is_found_when_another_steps_first() -> None:
    # A seq2seq train() clears only the encoder's optimizer; both step after one backward.
    src = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        enc, dec = nn.Linear(4, 4), nn.Linear(4, 1)
        enc_opt = torch.optim.SGD(enc.parameters(), lr=0.1)
        dec_opt = torch.optim.SGD(dec.parameters(), lr=0.1)

        def train(x):
            enc_opt.zero_grad()
            loss = dec(enc(x)).pow(2).mean()
            loss.backward()
            enc_opt.step()
            dec_opt.step()

        for it in range(5):
            train(torch.randn(2, 4))
        """
    )
    found = analyze(src)
    assert [(f.code, f.span.line) for f in found] == [("GG201", 11)]
    assert "dec_opt.zero_grad()" in found[0].message


def test_functional_call_with_the_model_parameters_builds_a_graph_that_grad_frees() -> None:
    src = textwrap.dedent(
        """\
        from collections import OrderedDict

        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.func import functional_call

        model = nn.Linear(4, 3)
        params = OrderedDict(model.named_parameters())
        x, y = torch.randn(5, 4), torch.randint(0, 3, (5,))
        loss = F.cross_entropy(functional_call(model, params, (x,)), y)
        grads = torch.autograd.grad(loss, list(params.values()))
        loss.backward()
        """
    )
    assert [(f.code, f.span.line) for f in analyze(src)] == [("GG101", 13)]


def test_losses_made_under_no_grad_from_unknown_numbers_have_no_graph() -> None:
    # `weight * loss / 2 ** scale` with numbers not known here: under no_grad it is still no graph.
    src = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        def evaluate(model, x, weights, scales):
            with torch.no_grad():
                total = 0
                for scale in scales:
                    total += weights[scale] * model(x).mean() / 2**scale
            total.backward()

        evaluate(nn.Linear(4, 1), torch.randn(2, 4), {0: 1.0, 1: 0.5}, [0, 1])
        """
    )
    assert [(f.code, f.span.line) for f in analyze(src)] == [("GG106", 9)]


def test_a_sequential_subclass_runs_its_modules_in_order() -> None:
    src = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        class Head(nn.Sequential):
            def __init__(self, n):
                super().__init__(nn.Linear(n, n), nn.Sigmoid())

        head = Head(4)
        out = head(torch.randn(2, 4))
        out += 1
        out.sum().backward()
        """
    )
    assert [(f.code, f.span.line) for f in analyze(src)] == [("GG107", 10)]


def test_next_of_an_iterator_gives_its_elements_with_the_graph_they_share() -> None:
    # A diffusion Trainer cycles over slices of a dataset a trainable conv made before training.
    src = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        def cycle(batches):
            while True:
                for b in batches:
                    yield b

        to_input = nn.Conv1d(1, 4, kernel_size=1)
        head = nn.Conv1d(4, 1, kernel_size=1)
        opt = torch.optim.Adam(head.parameters())
        dataset = to_input(torch.randn(8, 1, 16))
        dl = cycle([dataset[i : i + 4] for i in range(0, 8, 4)])
        for step in range(3):
            loss = head(next(dl)).pow(2).mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
        """
    )
    assert [(f.code, f.span.line) for f in analyze(src)] == [("GG103", 12)]


@pytest.mark.parametrize("take", ["feats[step]", "next(stream)"])
def test_elements_a_comprehension_computed_one_by_one_share_no_graph(take: str) -> None:
    # Each element has its own graph: backpropagating one per iteration reuses nothing.
    src = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn

        enc, head = nn.Linear(4, 4), nn.Linear(4, 1)
        opt = torch.optim.SGD(head.parameters(), lr=0.1)
        feats = [enc(torch.randn(2, 4)) for _ in range(3)]
        stream = iter(feats)
        for step in range(3):
            loss = head({take}).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """
    )
    assert analyze(src) == []


def test_val_with_copies_every_field() -> None:
    """`Val.with_` spells out its field copies (the analysis' hottest copy): a field added to `Val`
    and not copied there would silently reset to its default on every copy."""
    from gradguard.engine.values import Val

    fields = list(Val.__record_fields__)  # type: ignore[attr-defined]
    assert len(fields) > 5
    marked = {name: object() for name in fields}
    original = Val(**marked)  # type: ignore[arg-type]
    assert all(getattr(original.with_(), name) is marked[name] for name in fields)
    for name in fields:
        changed = original.with_(**{name: None})
        assert getattr(changed, name) is None
        assert all(getattr(changed, other) is marked[other] for other in fields if other != name)


def test_a_local_name_is_not_carried_by_a_callers_loop() -> None:
    """`output = output * 1.0` in a method rebinds the method's own parameter: the caller's loop
    over meters, started after the caller bound its own `output`, carries nothing into it (this was
    a false GG301: a running value of an already backpropagated loss)."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class Meter:
            def __init__(self):
                self.last = 0.0

            def update(self, output):
                output = output * 1.0
                self.last = output.item()


        model = nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        meters = [Meter(), Meter()]
        for step in range(3):
            output = nn.functional.mse_loss(model(torch.randn(8, 4)), torch.randn(8, 1))
            optimizer.zero_grad()
            output.backward()
            optimizer.step()
            for meter in meters:
                meter.update(output)
        """
    )
    assert analyze(source) == []


def test_zero_grad_goes_before_an_inner_accumulation_loop() -> None:
    """A step after an inner loop of micro-batch backwards: the clear belongs before that inner loop
    (once per step), not before the backward inside it, which would keep only the last micro-batch."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        model = nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        batches = [torch.randn(8, 4) for _ in range(2)]
        for step in range(4):
            for x in batches:
                loss = model(x).pow(2).mean() / len(batches)
                loss.backward()
            optimizer.step()
        """
    )
    (finding,) = analyze(source)
    assert (finding.code, finding.span.line) == ("GG201", 10)  # the backward that adds on
    (fix,) = finding.fixes
    assert fix.kind == "insert-before"
    assert fix.params["anchor"][0] == 8  # before `for x in batches:`


def test_a_namespace_made_from_keywords_decides_branches() -> None:
    """`opt = SimpleNamespace(mode="single")`: `opt.mode` is known, so the branch for another mode
    never runs (its second backward was a false GG101 before)."""
    source = textwrap.dedent(
        """\
        from types import SimpleNamespace

        import torch

        opt = SimpleNamespace(mode="single", lr=0.1)
        w = torch.randn(3, requires_grad=True)
        loss = (w * 2).sum()
        loss.backward()
        if opt.mode == "double":
            loss.backward()
        """
    )
    assert analyze(source) == []
    assert [f.code for f in analyze(source.replace('mode="single"', 'mode="double"'))] == ["GG101"]


def test_relevance_filter_reads_statements_not_words() -> None:
    """The pre-filter's substring tests keep the patterns' meaning: a line starting a `for` or
    `while` statement counts, the same letters inside a word do not."""
    from gradguard.engine.report import _loops, _relevant_text

    assert _loops("x = 1\n    for i in y:\n        pass")
    assert _loops("while True:")
    assert not _loops("information = forward(x)  # before the loop")
    assert not _loops("for_each(x)\nwhile_loop = 1")
    assert _relevant_text("def f(x):\n    return x.detach()\n")
    assert not _relevant_text("def f(x):\n    y = x.detach().cpu()\n    return y\n")
    assert _relevant_text("def f(m, x):\n    for p in m.parameters():\n        p.data -= x\n")


_KV_CACHE = """\
import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.wk = nn.Linear(4, 4)
        self.cache = torch.zeros(2, 6, 4)

    def forward(self, x):
        n = x.shape[1]
{reset}        self.cache[:, :n] = self.wk(x)
        keys = self.cache[:, :n]
        return (x @ keys.transpose(1, 2)).softmax(-1) @ keys


attn = Attention()
opt = torch.optim.SGD(attn.parameters(), lr=0.1)
for step in range(2):
    loss = attn(torch.randn(2, 3, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


@pytest.mark.parametrize(
    "reset",
    ["", "        self.cache = self.cache.detach()\n", "        self.cache = torch.zeros(2, 6, 4)\n"],
)
def test_a_graph_written_into_part_of_an_objects_tensor_is_carried(reset: str) -> None:
    """A KV cache written by slice keeps the earlier step's graph in the rest of the tensor (torch
    2.13: "Trying to backward through the graph a second time" on the second step); detaching or
    remaking it each call runs clean."""
    codes = [(f.code, f.span.line) for f in analyze(_KV_CACHE.format(reset=reset))]
    assert codes == ([("GG104", 13)] if not reset else [])


@pytest.mark.parametrize(
    ("arguments", "flagged"),
    [
        ("reduce=False", True),
        ("reduce=False, reduction='mean'", True),  # the deprecated argument wins (torch 2.13)
        ("size_average=False", False),
        ("reduction='none'", True),
        ("reduce=True", False),
    ],
)
def test_deprecated_loss_reduction_arguments(arguments: str, flagged: bool) -> None:
    """`nn.NLLLoss(reduce=False)` keeps a loss per element (shape (3,) under torch 2.13), so a bare
    backward raises "grad can be implicitly created only for scalar outputs"."""
    for criterion in (f"nn.NLLLoss({arguments})", f"lambda a, b: F.nll_loss(a, b, {arguments})"):
        source = (
            "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
            f"criterion = {criterion}\n"
            "x = torch.randn(3, 4, requires_grad=True)\n"
            "loss = criterion(x.log_softmax(1), torch.tensor([0, 1, 2]))\n"
            "loss.backward()\n"
        )
        assert [f.code for f in analyze(source)] == (["GG109"] if flagged else []), criterion


def test_a_models_zero_grad_in_every_micro_batch_discards_gradients() -> None:
    """`model.zero_grad()` clears what the optimizer of its parameters steps: in every iteration of
    a loop whose step runs every second one, it throws away the first micro-batch's gradient (under
    torch 2.13 the step applies the second batch's gradient alone). Like `optimizer.zero_grad()`."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        model = nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for i, x in enumerate([torch.randn(8, 4) for _ in range(4)], 1):
            model.zero_grad()
            loss = model(x).pow(2).mean()
            loss.backward()
            if i % 2 == 0:
                optimizer.step()
        """
    )
    (finding,) = analyze(source)
    assert (finding.code, finding.span.line) == ("GG201", 7)
    stepped = source.replace("    if i % 2 == 0:\n        optimizer.step()", "    optimizer.step()")
    assert analyze(stepped) == []


def test_a_layer_applied_to_two_encodings_is_no_gan() -> None:
    """Two losses through one layer, the second on a value encoded again from the first (a VAE
    scoring its own output): torch 2.13 raises "Trying to backward through the graph a second
    time" at the second backward. Two losses sharing a forward (GG102), not a fake to detach for
    a discriminator (GG105), whose fix would stop the encoder training through the layer."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        enc = nn.Linear(4, 4)
        head = nn.Linear(4, 2)
        x = torch.randn(3, 4)
        h = enc(x)
        loss1 = head(h[0:2]).sum()
        h2 = enc(h)
        loss2 = head(h2[0:2]).sum()
        loss1.backward()
        loss2.backward()
        """
    )
    assert [(f.code, f.span.line) for f in analyze(source)] == [("GG102", 12)]


_ACCUMULATION = """\
import sys
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
k = int(sys.argv[1])
for i, x in enumerate([torch.randn(8, 4) for _ in range(4)], 1):
{top}    loss = model(x).pow(2).mean()
    loss.backward()
    if {gate}:
        optimizer.step()
{inside}{end}"""


@pytest.mark.parametrize(
    ("top", "gate", "inside", "end", "line"),
    [
        ("    optimizer.zero_grad()\n", "i % k == 0", "", "", 9),  # cleared before each backward
        ("", "i % k == 0", "", "    optimizer.zero_grad()\n", 13),  # cleared after the gate
        ("", "(i + 1) % k == 0", "", "    model.zero_grad()\n", 13),
        ("", "i % k == 0", "        optimizer.zero_grad()\n", "", None),  # accumulation done right
        ("", "torch.isfinite(loss)", "", "    optimizer.zero_grad()\n", None),  # a bad batch skipped
    ],
)
def test_a_clear_in_every_micro_batch_defeats_accumulation(
    top: str, gate: str, inside: str, end: str, line: int | None
) -> None:
    """A step every k-th iteration (k not known here) and a clear in every one: under torch 2.13 the
    step applies only the last micro-batch's gradient for any k > 1. Clearing inside the gate, or
    after a step skipped for a bad batch, is what the code means."""
    source = _ACCUMULATION.format(top=top, gate=gate, inside=inside, end=end)
    found = [(f.code, f.span.line) for f in analyze(source)]
    assert found == ([("GG201", line)] if line else [])


def test_a_criterion_chosen_by_mode_and_losses_summed_through_star_args() -> None:
    """`nn.MSELoss() if mode == "lsgan" else nn.BCEWithLogitsLoss()` with the mode not known is still
    a loss module, and `total(*losses)` binds its `*losses` to the losses given, whose sum holds
    each one's graph: the G loss goes through the `fake` the D loss already backpropagated, and
    torch 2.13 raises "Trying to backward through the graph a second time" (with either mode). The
    D loss on the undetached fake is the statement to change (GG105)."""
    source = textwrap.dedent(
        """\
        import sys
        import torch
        import torch.nn as nn


        class GANLoss(nn.Module):
            def __init__(self, mode):
                super().__init__()
                self.loss = nn.MSELoss() if mode == "lsgan" else nn.BCEWithLogitsLoss()

            def __call__(self, prediction, is_real):
                target = torch.ones_like(prediction) if is_real else torch.zeros_like(prediction)
                return self.loss(prediction, target)


        def total(*losses):
            return sum(losses)


        G = nn.Linear(4, 4)
        D = nn.Linear(4, 1)
        criterion = GANLoss(sys.argv[1])
        fake = G(torch.randn(8, 4))
        d_loss = criterion(D(fake), False)
        d_loss.backward()
        g_loss = total(criterion(D(fake), True), fake.pow(2).mean())
        g_loss.backward()
        """
    )
    assert [(f.code, f.span.line) for f in analyze(source)] == [("GG105", 24)]


def _codes_at(source: str) -> list[tuple[str, int]]:
    return sorted((f.code, f.span.line) for f in analyze(textwrap.dedent(source)))


def test_a_spread_tuple_gives_a_torch_function_its_operands() -> None:
    # `torch.min(*critic(obs, act))`: the actor loss reaches the critic's weights, which the
    # critic's step changes before the actor's backward (SAC, in the wrong order).
    source = """\
        import torch
        import torch.nn as nn


        class Critic(nn.Module):
            def __init__(self):
                super().__init__()
                self.q1 = nn.Linear(4, 1)
                self.q2 = nn.Linear(4, 1)

            def forward(self, x):
                return self.q1(x), self.q2(x)


        critic = Critic()
        actor = nn.Linear(3, 4)
        critic_opt = torch.optim.Adam(critic.parameters())
        for step in range(2):
            obs = torch.randn(8, 3)
            actor_loss = -torch.min(*critic(actor(obs))).mean()
            critic_loss = critic(torch.randn(8, 4))[0].pow(2).mean()
            critic_opt.zero_grad()
            critic_loss.backward()
            critic_opt.step()
            actor_loss.backward()
        """
    assert ("GG111", 24) in _codes_at(source)


def test_a_static_method_called_through_its_class_runs_with_its_arguments() -> None:
    source = """\
        import torch
        import torch.nn as nn


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 1)

            def forward(self, x):
                return self.fc(x)

            @staticmethod
            def loss(out, target):
                return ((out - target) ** 2).mean()


        model = Model()
        out = model(torch.randn(3, 4))
        loss = Model.loss(out, torch.zeros(3, 1))
        loss.backward()
        loss.backward()
        """
    assert _codes_at(source) == [("GG101", 22)]


def test_a_range_over_the_length_of_a_known_list_builds_each_layer() -> None:
    # `for i in range(1, len(channels))` over a literal list: the Sequential's layers are known,
    # so the backbone's graph is shared by both heads' losses.
    source = """\
        import torch
        import torch.nn as nn


        def mlp(channels):
            layers = []
            for i in range(1, len(channels)):
                layers += [nn.Linear(channels[i - 1], channels[i]), nn.ReLU()]
            return nn.Sequential(*layers)


        backbone = mlp([4, 8, 8])
        head1, head2 = nn.Linear(8, 1), nn.Linear(8, 1)
        feats = backbone(torch.randn(3, 4))
        loss1 = head1(feats).mean()
        loss2 = head2(feats).mean()
        loss1.backward()
        loss2.backward()
        """
    assert _codes_at(source) == [("GG102", 18)]


def test_a_known_star_argument_binds_the_callee_s_parameters() -> None:
    # `super().__init__(*args, **kwargs)`: the base class gets the backbone, so the forward's
    # `.detach()` is known to leave the loss without a graph.
    source = """\
        import torch
        import torch.nn as nn


        class Base(nn.Module):
            def __init__(self, backbone, scale=1.0):
                super().__init__()
                self.backbone = backbone
                self.scale = scale


        class Head(Base):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)

            def forward(self, x):
                return (self.backbone(x) * self.scale).detach()


        model = Head(nn.Linear(4, 2))
        loss = model(torch.randn(3, 4)).sum()
        loss.backward()
        """
    assert _codes_at(source) == [("GG106", 22)]


def test_a_value_read_only_through_item_first_is_still_named_by_its_later_read() -> None:
    source = """\
        import torch


        def forward(x, w):
            logits = x @ w
            return logits.exp().mean()


        w = torch.randn(3, 3, requires_grad=True)
        loss = forward(torch.randn(4, 3), w)
        for k in range(5):
            print(loss.item())
            w.grad = None
            loss.backward()
        """
    [finding] = analyze(textwrap.dedent(source))
    assert (finding.code, finding.span.line) == ("GG103", 10)
    assert finding.message.startswith("`loss` was computed on line 10, before the loop")


def test_a_step_once_enough_samples_accumulated_is_gradient_accumulation() -> None:
    source = """\
        import torch
        import torch.nn as nn


        def train(loader, batch_size):
            model = nn.Linear(4, 1)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            seen = 0
            for x in loader:
                opt.zero_grad()
                model(x).pow(2).mean().backward()
                seen += batch_size
                if seen >= 128:
                    opt.step()
                    seen = 0
        """
    assert _codes_at(source) == [("GG201", 10)]
    # Without the reset, the step runs in every iteration once the threshold is reached.
    assert _codes_at(source.replace("                seen = 0\n", "")) == []


def test_a_default_dict_of_numbers_sums_the_losses_per_key() -> None:
    source = """\
        from collections import defaultdict

        import torch
        import torch.nn as nn

        model = nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sums = defaultdict(float)
        for step in range(3):
            out = model(torch.randn(8, 4))
            losses = {"mse": out.pow(2).mean(), "l1": out.abs().mean()}
            opt.zero_grad()
            sum(losses.values()).backward()
            opt.step()
            for k, v in losses.items():
                sums[k] += v
        """
    assert _codes_at(source) == [("GG301", 16)]


_AMP_LOOP = """\
    import torch
    import torch.nn as nn

    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    for step in range(3):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = model(torch.randn(8, 4))
        loss_a = out[:, 0].float().pow(2).mean()
        loss_b = out[:, 1].float().abs().mean()
        scaler.scale(loss_a + loss_b).backward()
        scaler.step(opt)
        scaler.update()
    """


def test_a_mixed_precision_loop_done_right_is_clean() -> None:
    assert _codes_at(_AMP_LOOP) == []


def test_a_grad_scaler_s_scaled_losses_keep_their_graphs() -> None:
    # Each scaled loss backpropagated on its own: the second pass meets the shared model's freed graph.
    twice = _AMP_LOOP.replace(
        "scaler.scale(loss_a + loss_b).backward()",
        "scaler.scale(loss_a).backward()\n        scaler.scale(loss_b).backward()",
    )
    assert _codes_at(twice) == [("GG102", 14)]


def test_a_grad_scaler_s_step_is_the_optimizer_s_step() -> None:
    # Without a clear, each `scaler.step(opt)` applies the gradients of every earlier iteration too.
    assert _codes_at(_AMP_LOOP.replace("        opt.zero_grad()\n", "")) == [("GG201", 12)]


def test_a_string_key_on_a_value_taken_for_a_tensor_is_unknown() -> None:
    # A detector from a model factory returns a list of dicts; the engine takes a module's output
    # for a tensor, but no tensor takes a string key. Its integer labels never require grad.
    source = """\
        import torch
        import torchvision

        model = torchvision.models.detection.fasterrcnn_resnet50_fpn(weights=None)
        model.eval()
        outputs = model([torch.rand(3, 64, 64)])
        pred_labels = outputs[0]["labels"].cpu().numpy()
        scores = outputs[0]["scores"].detach().cpu().numpy()
        """
    assert _codes_at(source) == []
    # A real tensor's graph is still seen through an index.
    assert _codes_at(source.replace('outputs[0]["labels"]', "outputs[0][1]")) == [("GG110", 7)]


_TWO_ARRAYS = """\
    import torch
    import torch.nn as nn

    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    criterion = nn.MSELoss(reduction="none")
    pred = model(torch.randn(4, 3))
    loss = criterion(pred, torch.randn(4, 2))
    preds = pred.cpu().numpy()
    losses = loss.cpu().numpy()
    """


def test_each_numpy_call_on_a_grad_tensor_is_reported_not_only_the_first() -> None:
    # `.numpy()` raising ends the run, but its fix changes no autograd state: the next call is the
    # one that raises once the first is fixed, so both are shown at once.
    assert _codes_at(_TWO_ARRAYS) == [("GG110", 9), ("GG110", 10)]
    fixed = textwrap.dedent(_TWO_ARRAYS).replace("pred.cpu().numpy()", "pred.detach().cpu().numpy()")
    (first,) = run_snippets([Snippet(fixed)])
    assert first.error is not None and first.error.startswith(
        "RuntimeError: Can't call numpy() on Tensor that requires grad"
    )
    # A finding that ends the run still hides what follows it.
    double = _TWO_ARRAYS.replace(
        "    preds = pred.cpu().numpy()\n", "    loss.sum().backward()\n    loss.sum().backward()\n"
    )
    assert _codes_at(double) == [("GG102", 10)]


def test_an_input_moved_along_its_own_gradient_is_a_step_even_with_a_graph() -> None:
    # DeepFool's step `image + |f0 - f1| / |g|**2 * g` has a graph through the logits; it is still
    # the input moved along its gradient, not a penalty that create_graph=True would train.
    source = """\
        import torch
        import torch.nn as nn

        torch.manual_seed(0)
        model = nn.Linear(4, 3)
        image = torch.rand(1, 4)
        for _ in range(3):
            image = image.detach().requires_grad_()
            fs = model(image)[0]
            (g,) = torch.autograd.grad(fs[0] - fs[1], image, retain_graph=True)
            r = (fs[0] - fs[1]).abs() / g.norm() ** 2 * g
            image = torch.clamp(image + r, 0, 1)
            loss = model(image).pow(2).sum()
            loss.backward()
        """
    assert _codes_at(source) == []
    # Added to a loss instead, the same gradient is a penalty (its norm, which trains nothing). The
    # step `r` itself added to a loss is not: it trains through the logits it is scaled by.
    penalty = source.replace("image = torch.clamp(image + r, 0, 1)", "image = image + 0")
    scaled = penalty.replace("loss = model(image).pow(2).sum()", "loss = model(image).pow(2).sum() + r.sum()")
    assert _codes_at(scaled) == []
    penalty = penalty.replace(
        "loss = model(image).pow(2).sum()", "loss = model(image).pow(2).sum() + g.norm() ** 2"
    )
    assert _codes_at(penalty) == [("GG202", 10)]


def test_an_attack_that_flags_its_moved_input_again_carries_its_graph() -> None:
    source = """\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))


        def pgd(x, y, steps):
            x_adv = x.clone()
            for _ in range(steps):
                x_adv.requires_grad = True
                loss = F.cross_entropy(model(x_adv), y)
                grad = torch.autograd.grad(loss, x_adv)[0]
                x_adv = x_adv + 0.01 * grad.sign()
            return x_adv.detach()


        adv = pgd(torch.rand(4, 8), torch.randint(0, 3, (4,)), 3)
        """
    found = analyze(textwrap.dedent(source))
    assert [(f.code, f.span.line) for f in found] == [("GG104", 14)]
    assert [r.span.line for r in found[0].related] == [11]
    # Detached where it is kept, or flagged once before the loop: nothing to report.
    assert _codes_at(source.replace("x_adv + 0.01", "x_adv.detach() + 0.01")) == []
    assert _codes_at(source.replace("x_adv.requires_grad = True", "x_adv.requires_grad_()")) == []


@pytest.mark.parametrize(
    ("partner", "found"),
    [
        ("[8.0, 16.0]", True),
        ("torch.tensor([8.0, 16.0])", True),
        ("[8.0]", False),  # a shorter partner: zip stops early, and such a loop is not followed
        ("get_strides()", False),  # a length not known
    ],
)
def test_zip_of_layers_and_their_partners_follows_each_layer(partner: str, found: bool) -> None:
    source = f"""\
        import torch
        import torch.nn as nn

        heads = nn.ModuleList([nn.Linear(4, 2), nn.Linear(4, 2)])
        partner = {partner}
        for head, stride in zip(heads, partner):
            head.bias += stride
        """
    assert _codes_at(source) == ([("GG108", 7)] if found else [])


def test_a_view_of_a_parameter_is_still_a_leaf_s_view_but_a_reshape_may_copy() -> None:
    source = """\
        import torch
        import torch.nn as nn

        conv = nn.Conv2d(4, 6, 1)
        b = conv.bias.view(3, -1)
        b[:, 1] += 1.0
        """
    assert _codes_at(source) == [("GG108", 6)]
    assert _codes_at(source.replace(".view(3, -1)", ".reshape(3, -1)")) == []
    assert _codes_at(source.replace("conv.bias.view", "conv.bias.data.view")) == []


def test_a_dataclass_list_field_made_by_its_default_factory_starts_empty() -> None:
    # Log-probabilities stored under no_grad by a buffer's method, then concatenated for the loss.
    source = """\
        from dataclasses import dataclass, field
        from typing import List

        import torch
        import torch.nn as nn


        @dataclass
        class Buffer:
            logp: List[torch.Tensor] = field(default_factory=list)

            def add(self, logp):
                self.logp.append(logp)


        model = nn.Linear(4, 2)
        buffer = Buffer()
        for _ in range(3):
            with torch.no_grad():
                logp = model(torch.randn(1, 4)).log_softmax(-1)[:, 0]
            buffer.add(logp)
        loss = -(torch.cat(buffer.logp) * 2.0).mean()
        loss.backward()
        """
    assert _codes_at(source) == [("GG106", 23)]
    (result,) = run_snippets([Snippet(textwrap.dedent(source))])
    assert result.error is not None and result.error.startswith(
        "RuntimeError: element 0 of tensors does not require grad"
    )
    # Stored with their graph, they train.
    assert _codes_at(source.replace("with torch.no_grad():", "if True:")) == []


def test_an_in_place_add_into_a_running_total_accumulates_like_plus_equals() -> None:
    source = """\
        import torch
        import torch.nn as nn

        model = nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        total = torch.zeros(())
        for step in range(5):
            loss = model(torch.randn(8, 4)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total.add_(loss)
        print(total.item())
        """
    assert (
        _codes_at(source) == _codes_at(source.replace("total.add_(loss)", "total += loss")) == [("GG301", 12)]
    )
    assert _codes_at(source.replace("total.add_(loss)", "total.add_(loss.detach())")) == []
    # Summed to be backpropagated once after the loop: consumed, not leaked.
    once = """\
        import torch
        import torch.nn as nn

        model = nn.Linear(4, 1)
        total = torch.zeros(())
        for step in range(5):
            loss = model(torch.randn(8, 4)).pow(2).mean()
            total.add_(loss)
        total.backward()
        """
    assert _codes_at(once) == []


@pytest.mark.parametrize(
    ("added", "after", "kept"),
    [
        ("parts[k] * x.size(0)", "", True),
        ("parts[k].item() * x.size(0)", "", False),
        ("parts[k] * x.size(0)", "sum(totals.values()).backward()\n", False),
    ],
)
def test_a_dict_of_running_sums_made_again_each_iteration_accumulates(
    added: str, after: str, kept: bool
) -> None:
    """`totals = {k: totals[k] + parts[k] * n for k in totals}` each batch (DAVE's epoch losses)
    adds to every key's sum like `totals[k] += ...`: once the batch's backward ran, what each sum
    holds of the graphs (torch 2.13 keeps them: `grad_fn` is set after the loop) is dead weight
    (GG301, on the comprehension). Added as a number, or summed and backpropagated after the loop,
    nothing is kept for nothing."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        model = nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        totals = {"a": torch.tensor(0.0), "b": torch.tensor(0.0)}
        for step in range(3):
            x = torch.randn(8, 4)
            out = model(x)
            parts = {"a": out[:, 0].pow(2).mean(), "b": out[:, 1].abs().mean()}
            opt.zero_grad()
            (parts["a"] + parts["b"]).backward(retain_graph=True)
            opt.step()
            totals = {k: totals[k] + {added} for k in totals.keys()}
        {after}"""
    ).replace("{added}", added).replace("{after}", after)
    effect = "totals['a'].grad_fn is not None"
    (result,) = run_snippets([Snippet(source, (effect,))])
    if after:
        assert result.error is None  # the graph was retained: the last one backpropagates again
    else:
        assert result.error is None and result.effects == {effect: kept}
    assert _codes_at(source) == ([("GG301", 14)] if kept else [])


@pytest.mark.parametrize(
    ("update", "after", "leak"),
    [
        ("h = 0.99 * h + loss", "", True),
        ("h = h * 0.5 - loss", "", True),
        ("h = 0.99 * h + loss.item()", "", False),
        ("h = 0.99 * h + loss", "h.backward()\n", False),
    ],
)
def test_a_decayed_running_sum_keeps_every_graph(update: str, after: str, leak: bool) -> None:
    """`h = 0.99 * h + loss` (an influence estimate, a moving average) holds every iteration's graph
    as `h = h + loss` does (torch 2.13: `h.grad_fn` is set after the loop): a leak when nothing
    backpropagates it (GG301). Of numbers, or backpropagated once after the loop, it is not."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        model = nn.Linear(4, 3)
        x, t = torch.randn(8, 4), torch.randint(0, 3, (8,))
        h = 0
        for i in range(5):
            loss = F.cross_entropy(model(x), t)
            {update}
        {after}"""
    ).replace("{update}", update).replace("{after}", after)
    effect = "getattr(h, 'grad_fn', None) is not None"
    (result,) = run_snippets([Snippet(source, (effect,))])
    assert result.error is None and result.effects == {effect: ".item()" not in update}
    assert _codes_at(source) == ([("GG301", 10)] if leak else [])


def test_a_list_comprehension_over_an_accumulated_list_hands_it_on_when_returned() -> None:
    # A beam-search decoder keeps each step's output, then backtracks over them in reverse and
    # returns what it built: nothing outlives the call.
    source = """\
        import torch
        import torch.nn as nn


        class TopK(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.Linear(4, 4)

            def forward(self, x, max_length=3):
                stored_outputs = []
                for _ in range(0, max_length):
                    stored_outputs.append(self.rnn(x).log_softmax(-1))
                return self._backtrack(stored_outputs, max_length)

            def _backtrack(self, nw_output, max_length):
                output = []
                t = max_length - 1
                while t >= 0:
                    output.append(nw_output[t].index_select(0, torch.tensor([0])))
                    t -= 1
                return [step.view(1, -1) for step in reversed(output)]


        model = TopK()
        for _ in range(3):
            out = model(torch.randn(2, 4))
        """
    assert _codes_at(source) == []
    # Not returned, both lists keep every step's graph for nothing: reported again.
    dropped = source.replace("return [step.view(1, -1) for step in reversed(output)]", "return None")
    assert _codes_at(dropped) == [("GG301", 13), ("GG301", 20)]


def test_a_stub_module_that_returns_its_input_cuts_nothing_to_blame() -> None:
    # An exercise's `forward` still to be written returns its input: the backward raises, but not
    # because `torch.from_numpy` cut a graph (there never was one), so no cause is claimed.
    source = """\
        import numpy as np
        import torch
        import torch.nn as nn


        class Generator(nn.Module):
            def __init__(self, z_size):
                super().__init__()

            def forward(self, x):
                return x


        G = Generator(8)
        z = torch.from_numpy(np.random.uniform(-1, 1, size=(4, 8))).float()
        g_loss = nn.functional.mse_loss(G(z), torch.ones(4, 8))
        g_loss.backward()
        """
    # (Nor the labels' `torch.ones`: they never had a graph either.)
    assert _codes_at(source) == []
    # A forward that does cut the graph is still reported, with that cut as the cause.
    cut = source.replace(
        "                return x\n",
        "                with torch.no_grad():\n                    return x * 2\n",
    )
    assert _codes_at(cut) == [("GG106", 18)]


_TWO_DISCRIMINATORS = """\
    import torch
    import torch.nn as nn

    torch.manual_seed(0)
    G_xy = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4))
    G_yx = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4))
    D_x, D_y = nn.Linear(4, 1), nn.Linear(4, 1)
    opt_g = torch.optim.Adam([*G_xy.parameters(), *G_yx.parameters()])
    opt_d = torch.optim.Adam([*D_x.parameters(), *D_y.parameters()])
    for step in range(2):
        real_x, real_y = torch.randn(8, 4), torch.randn(8, 4)
        opt_g.zero_grad()
        fake_y, fake_x = G_xy(real_x), G_yx(real_y)
        (D_x(fake_y).mean() + D_y(fake_x).mean()).backward(retain_graph=True)
        opt_g.step()
        opt_d.zero_grad()
        (D_x(real_y).mean() - D_x(fake_y).mean()).backward()
        opt_d.step()
        opt_d.zero_grad()
        (D_y(real_x).mean() - D_y(fake_x).mean()).backward()
        opt_d.step()
    """


def test_a_second_discriminator_update_with_the_same_bug_is_reported_too() -> None:
    # Each discriminator's backward reaches the generator the G step changed: the first raises, and
    # once its fake is detached, the second does.
    (result,) = run_snippets([Snippet(textwrap.dedent(_TWO_DISCRIMINATORS))])
    assert result.error is not None and "modified by an inplace operation" in result.error
    assert _codes_at(_TWO_DISCRIMINATORS) == [("GG105", 17), ("GG105", 20)]
    first_fixed = textwrap.dedent(_TWO_DISCRIMINATORS).replace("D_x(fake_y)", "D_x(fake_y.detach())", 2)
    first_fixed = first_fixed.replace(
        "(D_x(fake_y.detach()).mean() + D_y", "(D_x(fake_y).mean() + D_y"
    )  # the generator's own loss keeps its graph
    (result,) = run_snippets([Snippet(first_fixed)])
    assert result.error is not None and "modified by an inplace operation" in result.error
    assert _codes_at(first_fixed) == [("GG105", 20)]


@pytest.mark.parametrize("header", ["range(10**30)", "range(1, 5, 0)", "range(100000000000000000000000)"])
def test_a_range_python_cannot_measure_is_just_unknown(header: str) -> None:
    # `len(range(...))` raises there (OverflowError, ValueError); the analysis must go on.
    source = f"""\
        import torch
        for i in {header}:
            pass
        w = torch.ones(2, requires_grad=True)
        loss = (w * 2).sum()
        loss.backward()
        loss.backward()
        """
    assert _codes_at(source) == [("GG101", 7)]


_ROLLOUT = """\
    from dataclasses import dataclass

    import torch
    import torch.nn as nn


    @dataclass
    class State:
        pos: torch.Tensor
        vel: torch.Tensor


    class Trainer:
        def __init__(self):
            self.model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 3))
            self.opt = torch.optim.Adam(self.model.parameters())
            self.state = State(torch.randn(4, 3), torch.zeros(4, 3))

        def step(self, state):
            vel = state.vel + 0.1 * self.model(state.pos)
            return State(state.pos + 0.1 * vel, vel)

        def train_window(self):
            new_state = self.step(self.step(self.state))
            loss = new_state.pos.pow(2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.state = new_state


    trainer = Trainer()
    for window in range(3):
        trainer.train_window()
    """


def test_a_record_kept_on_the_object_for_the_next_iteration_is_where_to_detach() -> None:
    # The rollout's state is a new record each window; the statement that keeps it for the next
    # window (not a line of the step function, where a detach would cut the window's own BPTT).
    (result,) = run_snippets([Snippet(textwrap.dedent(_ROLLOUT))])
    assert result.error is not None and result.error.startswith("RuntimeError: Trying to backward")
    assert _codes_at(_ROLLOUT) == [("GG104", 29)]


def test_a_meter_summing_losses_in_a_loop_without_backward_keeps_their_graphs() -> None:
    # A validation pass without no_grad: nothing backpropagates, but the meter keeps every batch's
    # graph (the loop is followed a second time to see the sum still there).
    source = """\
        import torch
        import torch.nn as nn


        class Meter:
            def __init__(self):
                self.total = 0.0

            def add(self, v):
                self.total = self.total + v


        model = nn.Linear(4, 1)
        meter = Meter()
        for batch in range(5):
            loss = model(torch.randn(8, 4)).pow(2).mean()
            meter.add(loss)
        print(meter.total)
        """
    assert _codes_at(source) == [("GG301", 17)]
    assert _codes_at(source.replace("meter.add(loss)", "meter.add(loss.item())")) == []
    # Reset every iteration: nothing is kept.
    reset = textwrap.dedent(source).replace(
        "    meter.add(loss)\n", "    meter.total = 0.0\n    meter.add(loss)\n"
    )
    assert _codes_at(reset) == []


_COMPREHENSION_LOOP = """\
    import torch


    class ScaleFitter:
        def __init__(self, log_scale, optimizer, data):
            self.log_scale = log_scale
            self.optimizer = optimizer
            self.data = data
            self.scale = self.log_scale.exp()

        def train_step(self):
            self.optimizer.zero_grad()
            loss = ((self.data * self.scale - 1.0) ** 2).mean()
            loss.backward()
            self.optimizer.step()
            return loss.item()

        def fit(self, steps=5):
            return [self.train_step() for _ in range(steps)]


    log_scale = torch.zeros(3, requires_grad=True)
    fitter = ScaleFitter(log_scale, torch.optim.Adam([log_scale], lr=0.1), torch.randn(10, 3))
    history = fitter.fit()
    """


def test_a_training_loop_written_as_a_comprehension_is_followed_as_a_loop() -> None:
    (result,) = run_snippets([Snippet(textwrap.dedent(_COMPREHENSION_LOOP))])
    assert result.error is not None and result.error.startswith("RuntimeError: Trying to backward")
    found = analyze(textwrap.dedent(_COMPREHENSION_LOOP))
    assert [(f.code, f.span.line) for f in found] == [("GG103", 9)]
    assert all(not f.fixes for f in found)  # nothing to move into a comprehension
    # The value computed in each step: clean.
    fixed = _COMPREHENSION_LOOP.replace("((self.data * self.scale", "((self.data * self.log_scale.exp()")
    assert _codes_at(fixed) == []
    # A comprehension that only builds a list is one pass, as before.
    assert _codes_at("import torch\nxs = [torch.randn(2, requires_grad=True) * 2 for _ in range(3)]\n") == []


def test_what_a_raising_numpy_call_would_give_is_unknown_downstream() -> None:
    # The analysis goes on past `.numpy()` on a grad tensor, but a loss computed from that array
    # must not be reported next (as "no graph, cut by the targets' `torch.randn`").
    source = """\
        import torch
        import torch.nn as nn

        head = nn.Linear(4, 2)
        criterion = nn.MSELoss()
        x, y = torch.randn(8, 4), torch.randn(8, 2)
        loss = criterion(head(x).numpy(), y)
        loss.backward()
        """
    assert _codes_at(source) == [("GG110", 7)]
    assert _codes_at(
        source.replace("head(x).numpy()", "np.asarray(head(x))").replace(
            "import torch\n", "import numpy as np\n        import torch\n", 1
        )
    ) == [("GG110", 8)]


_REFINE = """\
    import torch
    import torch.nn as nn

    net = nn.Linear(4, 4)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    before = net.weight.detach().clone()
    for batch in range(2):
        x = torch.randn(8, 4)
        y = x
        for _ in range(3):
            y = net(y.detach())
            loss = (y - x).pow(2).mean()
            loss.backward()
        opt.zero_grad()
        opt.step()
    """


def test_a_clear_after_a_loop_of_backwards_throws_their_gradients_away() -> None:
    # Refinement steps each backpropagate; the clear right before the step leaves it nothing.
    (result,) = run_snippets([Snippet(textwrap.dedent(_REFINE), ("torch.equal(before, net.weight)",))])
    assert result.error is None and result.effects["torch.equal(before, net.weight)"] is True
    assert _codes_at(_REFINE) == [("GG201", 14)]
    # The clear before the refinement: right.
    moved = textwrap.dedent(_REFINE).replace("    opt.zero_grad()\n    opt.step()", "    opt.step()")
    moved = moved.replace("    y = x\n", "    y = x\n    opt.zero_grad()\n")
    assert _codes_at(moved) == []
    # A loop that may stop before its backward, or may not run at all: not certain.
    assert (
        _codes_at(_REFINE.replace("range(3)", "range(n)").replace("net = ", "n = len([])\n    net = ")) == []
    )
    assert (
        _codes_at(
            _REFINE.replace(
                "loss.backward()", "if loss > 1:\n                break\n            loss.backward()"
            )
        )
        == []
    )


_PER_SEQUENCE = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.GRU(3, 3, batch_first=True)
lengths = torch.tensor([2.0, 3.0, 1.0, 4.0])
out, _ = rnn(torch.randn(4, 5, 3))
per_seq = out.sum(2).sum(1) / lengths
loss = per_seq{reshape}
loss.backward()
"""


@pytest.mark.parametrize(
    ("reshape", "flagged"),
    [
        (".unsqueeze(1)", True),
        (".unsqueeze(1).float()", True),
        (".view(-1, 1)", True),
        (".reshape(2, 2).contiguous()", True),
        (".unsqueeze(1).mean()", False),
    ],
)
def test_a_reshaped_tensor_keeps_more_than_one_element(reshape: str, flagged: bool) -> None:
    """A per-sequence loss of unknown shape, made plural by a known (4,) divisor, is still plural
    after a reshape or cast: torch 2.13 raises "grad can be implicitly created only for scalar
    outputs" at the backward (the doctr recognition loss returned `ce_loss.unsqueeze(1)`)."""
    source = _PER_SEQUENCE.format(reshape=reshape)
    (result,) = run_snippets([Snippet(source)])
    assert (result.error or "").startswith("RuntimeError: grad can be implicitly") == flagged
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG109", 10)] if flagged else [])


_CONV_MAP = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
enc = nn.Sequential({layers})
x = torch.rand(1, 1, {size}, {size})
mu, logvar = enc(x).chunk(2, dim=1)
kld = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp(), dim=1)
loss = ((enc(x) - 1) ** 2).mean() + kld
loss.backward()
"""


@pytest.mark.parametrize(
    ("layers", "size", "flagged"),
    [
        ("nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 3, padding=1)", 16, True),
        ("nn.Conv2d(1, 4, kernel_size=(3, 3)), nn.MaxPool2d(2)", 10, True),
        ("nn.ConvTranspose2d(1, 4, 4, stride=2, padding=1)", 3, True),
        ("nn.Conv2d(1, 4, 3, padding='same'), nn.AdaptiveAvgPool2d((2, None))", 5, True),
        # A 2x2 input, a 2x2 kernel: one location per channel, so the map has one element.
        ("nn.Conv2d(1, 4, 2)", 2, False),
        ("nn.Conv2d(1, 4, 3, stride=2), nn.AvgPool2d(3)", 8, False),
    ],
)
def test_convolution_and_pooling_sizes_decide_a_maps_shape(layers: str, size: int, flagged: bool) -> None:
    """A KL term averaged over channels only (`dim=1`) is a map of the spatial sizes that torch's
    convolution and pooling formulas give: more than one element raises "grad can be implicitly
    created only for scalar outputs" under torch 2.13; a 1x1 map does not."""
    source = _CONV_MAP.format(layers=layers, size=size)
    (result,) = run_snippets([Snippet(source)])
    assert (result.error or "").startswith("RuntimeError: grad can be implicitly") == flagged, result.error
    if not flagged:
        assert result.error is None
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG109", 10)] if flagged else [])


def test_a_layer_argument_not_known_is_not_its_default() -> None:
    """`stride=s` with `s` unknown: the output size is unknown (not the size for stride 1), so a
    map that could be 1x1 is not called non-scalar."""
    source = textwrap.dedent(
        """\
        import sys
        import torch
        import torch.nn as nn

        s = len(sys.argv) + 2
        conv = nn.Conv2d(1, 1, 2, stride=s)
        out = conv(torch.rand(1, 1, 3, 3))
        out.backward()
        """
    )
    (result,) = run_snippets([Snippet(source)])
    assert result.error is None  # stride 3 on a 3x3 input: one element
    assert analyze(source) == []


_GLOBAL_LIST = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
history = []
saved_log_probs = []
model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def train(x, y, epochs=4):
    for _ in range(epochs):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append({kept})


def select_action(state):
    probs = torch.softmax(model(state), dim=1)
    action = torch.distributions.Categorical(probs).sample()
    saved_log_probs.append(torch.log(probs[0, action]))


def finish_episode():
    loss = -torch.cat(saved_log_probs).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    del saved_log_probs[:]


def main():
    train(torch.randn(8, 4), torch.randint(0, 2, (8,)))
    for _ in range(3):
        for _ in range(4):
            select_action(torch.randn(1, 4))
        finish_episode()


if __name__ == "__main__":
    main()
"""


_KEPT_GRAPH = "torch.is_tensor(history[0]) and history[0].grad_fn is not None"


@pytest.mark.parametrize(
    ("kept", "flagged"), [("loss", True), ("loss.item()", False), ("loss.detach()", False)]
)
def test_a_module_list_a_function_appends_to_is_one_object(kept: str, flagged: bool) -> None:
    """A module-level list that a training function appends its loss to keeps every iteration's
    graph (under torch 2.13 the first loss still has its grad_fn after training); the module lists
    of a REINFORCE episode, consumed by one backward and emptied with `del l[:]`, keep nothing."""
    source = _GLOBAL_LIST.format(kept=kept)
    (result,) = run_snippets([Snippet(source, (_KEPT_GRAPH,))])
    assert result.error is None
    assert result.effects == {_KEPT_GRAPH: flagged}
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG301", 17)] if flagged else [])


def test_a_pyramid_level_summed_from_another_is_no_gan_fake() -> None:
    """An FPN whose level `p3 = lateral(c3) + p4` and `p4` both go through one shared head, each
    level's loss backpropagated on its own: the second backward raises "Trying to backward through
    the graph a second time" (torch 2.13) because the two losses share the backbone's forward
    (GG102). `p3` is not `p4` made again for a discriminator (GG105): a sum mixes its inputs."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        torch.manual_seed(0)
        c3, c4 = nn.Linear(6, 8), nn.Linear(8, 8)
        lateral, head = nn.Linear(8, 8), nn.Linear(8, 2)
        x = torch.randn(3, 6)
        f3 = torch.relu(c3(x))
        p4 = torch.relu(c4(f3))
        p3 = lateral(f3) + p4
        losses = {name: head(p).pow(2).mean() for name, p in (("p3", p3), ("p4", p4))}
        losses["p3"].backward()
        losses["p4"].backward()
        """
    )
    (result,) = run_snippets([Snippet(source)])
    assert (result.error or "").startswith("RuntimeError: Trying to backward through the graph a second time")
    assert [(f.code, f.span.line) for f in analyze(source)] == [("GG102", 13)]


_GATHER = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(4, 1)
replicas = 2
batch = torch.randn(8, 4)
chunks = [batch.chunk(replicas)[i] for i in range(replicas){cond}]
outputs = [net(c).pow(2).mean() for c in chunks]
loss = torch.stack([o for o in outputs]){reduce}
loss.backward()
"""


@pytest.mark.parametrize(
    ("cond", "reduce", "flagged"),
    [("", "", True), ("", ".mean()", False), (" if i == 0", "", False)],
)
def test_stacking_one_scalar_per_replica_makes_a_vector(cond: str, reduce: str, flagged: bool) -> None:
    """A DataParallel-style gather stacks one scalar loss per replica: with two replicas the loss
    has shape (2,), and torch 2.13 raises "grad can be implicitly created only for scalar outputs"
    at the backward. Reduced, it runs; a comprehension with a filter may keep one element (here it
    does: shape (1,), which backpropagates), so it is not called plural."""
    source = _GATHER.format(cond=cond, reduce=reduce)
    (result,) = run_snippets([Snippet(source)])
    assert (result.error or "").startswith("RuntimeError: grad can be implicitly") == flagged
    if not flagged:
        assert result.error is None
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG109", 11)] if flagged else [])


_REPLICA_LOOP = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(4, 1)
replicas = 4
x = torch.randn(16, 4)
losses = []
for k, part in enumerate(torch.chunk(x, replicas, dim=0)):
    {body}
loss = torch.stack(losses)
loss.backward()
"""


@pytest.mark.parametrize(
    ("body", "flagged"),
    [
        ("losses.append(net(part).pow(2).mean())", True),
        # Appended on one path only: the loop may leave one element (here it does).
        ("if k == 0:\n        losses.append(net(part).pow(2).mean())", False),
        ("losses.append(net(part).pow(2).mean())\n    break", False),
    ],
)
def test_a_list_each_iteration_of_a_known_loop_grows_has_several(body: str, flagged: bool) -> None:
    """Four chunks, one scalar loss appended per chunk on every path: `torch.stack` gives shape (4,)
    and torch 2.13 raises "grad can be implicitly created only for scalar outputs"; an append on one
    path, or a break, leaves one element, shape (1,), which backpropagates."""
    source = _REPLICA_LOOP.format(body=body)
    (result,) = run_snippets([Snippet(source)])
    assert (result.error or "").startswith("RuntimeError: grad can be implicitly") == flagged
    if not flagged:
        assert result.error is None
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG109", 12)] if flagged else [])


_MODULE_DICT = """\
import torch
import torch.nn as nn


class Norm(nn.Module):
    def forward(self, x):
        return x - x.mean()


class Brain:
    def __init__(self, modules):
        self.modules = nn.ModuleDict(modules)
        self.optimizer = torch.optim.Adam(self.modules.parameters())

    def fit_batch(self, x, y):
        {guard}
            feats = self.modules.norm(x)
        predict = self.modules.model(feats)
        loss = nn.functional.cross_entropy(predict, y)
        loss.backward()
        self.optimizer.step()


torch.manual_seed(0)
brain = Brain({{"model": nn.Linear(4, 3), "norm": Norm()}})
brain.fit_batch(torch.randn(5, 4), torch.randint(0, 3, (5,)))
"""


@pytest.mark.parametrize("guard", ["with torch.no_grad():", "if True:"])
def test_a_module_dict_entry_is_called_by_its_name(guard: str) -> None:
    """`self.modules.norm(x)` calls the ModuleDict's entry "norm" (nn.Module finds submodules by
    name). Features normalised under no_grad, then the model: training runs (torch 2.13)."""
    source = _MODULE_DICT.format(guard=guard)
    (result,) = run_snippets([Snippet(source)])
    assert result.error is None
    assert analyze(source) == []


def test_a_model_in_a_module_dict_called_under_no_grad_has_no_graph() -> None:
    """The ModuleDict's model called inside `torch.no_grad()`: torch 2.13 raises "element 0 of
    tensors does not require grad and does not have a grad_fn" at the backward (GG106)."""
    source = _MODULE_DICT.format(guard="with torch.no_grad():").replace(
        "        predict = self.modules.model(feats)", "            predict = self.modules.model(feats)"
    )
    (result,) = run_snippets([Snippet(source)])
    assert (result.error or "").startswith("RuntimeError: element 0 of tensors does not require grad")
    assert [(f.code, f.span.line) for f in analyze(source)] == [("GG106", 20)]


def test_the_pieces_of_a_split_of_unknown_count_keep_the_graph() -> None:
    """`lhs, rhs = data.split(k, -1)` with `k` a parameter: how many pieces is not known, but each
    is a view with the graph, so a gate `torch.sigmoid(rhs)` changed in place breaks the backward
    (torch 2.13: "one of the variables needed for gradient computation has been modified by an
    inplace operation")."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        def gate(layer, data, k):
            data = layer(data)
            lhs, rhs = data.split(k, -1)
            g = torch.sigmoid(rhs)
            g *= 2
            return lhs * g


        torch.manual_seed(0)
        layer = nn.Linear(4, 6)
        out = gate(layer, torch.randn(2, 4), 3)
        out.sum().backward()
        """
    )
    (result,) = run_snippets([Snippet(source)])
    _ran_as_claimed(result, "", _MODIFIED_INPLACE)
    assert [f.code for f in analyze(source)] == ["GG107"]


_MODULE_LISTS = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(n):
            self.layers.append(nn.Linear(4, 4))
        self.heads = nn.ModuleList([nn.Linear(4, 4) for _ in range(n)])

    def forward(self, x):
        {forward}
        h *= 2
        return x + h


torch.manual_seed(0)
net = Net(2)
net(torch.randn(3, 4)).sum().backward()
"""


@pytest.mark.parametrize(
    "forward",
    [
        # A ModuleList filled with `append` in `__init__`, iterated.
        "for layer in self.layers:\n            h = torch.sigmoid(layer(x))",
        # A ModuleList of a comprehension, indexed past its first layer.
        "h = torch.sigmoid(self.heads[1](x))",
    ],
)
def test_module_lists_built_by_append_and_by_a_comprehension(forward: str) -> None:
    """The forward runs through the layers of a ModuleList built with `append` or from a
    comprehension, so a sigmoid output changed in place is found (torch 2.13 raises "one of the
    variables needed for gradient computation has been modified by an inplace operation")."""
    source = _MODULE_LISTS.format(forward=forward)
    (result,) = run_snippets([Snippet(source)])
    _ran_as_claimed(result, "", _MODIFIED_INPLACE)
    assert [f.code for f in analyze(source)] == ["GG107"]


@pytest.mark.parametrize(("keep", "flagged"), [("False", True), ("True", False)])
def test_a_flag_bound_to_a_known_bool_is_that_bool(keep: str, flagged: bool) -> None:
    """`loss.backward(retain_graph=keep)` with `keep = False`: the graph is freed, and the second
    backward raises "Trying to backward through the graph a second time" (torch 2.13); with
    `keep = True` both run."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn

        torch.manual_seed(0)
        net = nn.Linear(3, 1)
        keep = {keep}
        loss = net(torch.randn(4, 3)).pow(2).mean()
        loss.backward(retain_graph=keep)
        loss.backward()
        """
    )
    (result,) = run_snippets([Snippet(source)])
    assert (result.error or "").startswith("RuntimeError: Trying to backward through the graph") == flagged
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG101", 9)] if flagged else [])


def test_not_of_a_known_flag_decides_a_branch() -> None:
    """`use_numpy = not use_numpy` after `use_numpy = True`: the flag is False, so the branch with
    `.numpy()` on a tensor that requires grad never runs (torch 2.13 runs the script clean)."""
    source = textwrap.dedent(
        """\
        import torch

        w = torch.randn(3, requires_grad=True)
        use_numpy = True
        use_numpy = not use_numpy
        out = w * 2
        if use_numpy:
            print(out.numpy())
        out.sum().backward()
        """
    )
    (result,) = run_snippets([Snippet(source)])
    assert result.error is None
    assert analyze(source) == []


def test_a_feature_pyramid_built_by_comprehensions_over_its_layers() -> None:
    """Lateral maps made by `[conv(x) for i, conv in enumerate(self.lateral_convs)]`, added top-down
    in place (`laterals[i - 1] += ...` over `range(len(laterals) - 1, 0, -1)`), then each smoothed by
    `self.fpn_convs[i](laterals[i])`: the in-place add changes a ReLU output its backward needs
    (torch 2.13: "one of the variables needed for gradient computation has been modified by an
    inplace operation")."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class FPN(nn.Module):
            def __init__(self, channels=(4, 8, 8)):
                super().__init__()
                self.lateral_convs = nn.ModuleList(
                    nn.Sequential(nn.Conv2d(c, 4, 1), nn.ReLU()) for c in channels
                )
                self.fpn_convs = nn.ModuleList(nn.Conv2d(4, 4, 3, padding=1) for _ in channels)

            def forward(self, feats):
                laterals = [conv(feats[i]) for i, conv in enumerate(self.lateral_convs)]
                for i in range(len(laterals) - 1, 0, -1):
                    laterals[i - 1] += laterals[i]
                outs = [self.fpn_convs[i](laterals[i]) for i in range(len(laterals))]
                return outs[0]


        torch.manual_seed(0)
        fpn = FPN()
        feats = [torch.randn(1, c, 6, 6) for c in (4, 8, 8)]
        fpn(feats).sum().backward()
        """
    )
    (result,) = run_snippets([Snippet(source)])
    _ran_as_claimed(result, "", _MODIFIED_INPLACE)
    assert [(f.code, f.span.line) for f in analyze(source)] == [("GG107", 16)]


@pytest.mark.parametrize(
    ("index", "flagged"),
    [("k", True), ("[k, k + 1]", False)],
)
def test_a_row_of_a_parameter_taken_with_a_counter_is_a_view_of_a_leaf(index: str, flagged: bool) -> None:
    """`row = weight[k]` with `k` a Python counter is a view of the parameter: writing into it
    raises "a view of a leaf Variable that requires grad is being used in an in-place operation"
    (torch 2.13). Indexed with a list, the rows are a copy with a graph, and the write is fine."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn

        weight = nn.Parameter(torch.randn(4, 3))
        k = 0
        for step in range(2):
            row = weight[{index}]
            row[1] = float("-inf")
            k += 1
        """
    )
    (result,) = run_snippets([Snippet(source)])
    if flagged:
        assert (result.error or "").startswith("RuntimeError: a view of a leaf Variable that requires grad")
    else:
        assert result.error is None
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG108", 8)] if flagged else [])


_LBFGS = """\
import torch
import torch.nn as nn


class Trainer:
    def __init__(self):
        self.net = nn.Linear(2, 1)
        self.optimizer = torch.optim.LBFGS(self.net.parameters(), lr=0.5, max_iter=3)
        self.losses = []

    def train(self, iterations):
        for it in range(iterations):
            x, y = torch.randn(8, 2), torch.randn(8, 1)

            def closure():
                self.optimizer.zero_grad()
                loss = ((self.net(x) - y) ** 2).mean()
                loss.backward()
                self.losses.append({kept})
                return loss

            self.optimizer.step(closure)


torch.manual_seed(0)
trainer = Trainer()
trainer.train(3)
"""


@pytest.mark.parametrize(("kept", "flagged"), [("loss", True), ("loss.item()", False)])
def test_an_optimizers_closure_runs_at_its_step(kept: str, flagged: bool) -> None:
    """`optimizer.step(closure)` calls the closure (L-BFGS several times): a closure that keeps each
    loss tensor in a list keeps every call's graph (under torch 2.13 the first loss still has its
    grad_fn after training); keeping `loss.item()` keeps numbers."""
    source = _LBFGS.format(kept=kept)
    kept_graph = "torch.is_tensor(trainer.losses[0]) and trainer.losses[0].grad_fn is not None"
    (result,) = run_snippets([Snippet(source, (kept_graph,))])
    assert result.error is None
    assert result.effects == {kept_graph: flagged}
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG301", 19)] if flagged else [])


def test_an_element_of_a_list_changed_in_place_is_fixed_out_of_place() -> None:
    """`laterals[0] += laterals[1]` changes a ReLU output its backward needs (torch 2.13 raises);
    the fix rebinds the list's element out of place (`laterals[0] = laterals[0] + laterals[1]`),
    never `laterals = laterals.clone()` (a list has no clone), and the fixed program trains both
    layers."""
    from gradguard.api import fix_source

    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        torch.manual_seed(0)
        convs = [nn.Sequential(nn.Linear(3, 3), nn.ReLU()), nn.Sequential(nn.Linear(3, 3), nn.ReLU())]
        x = torch.randn(2, 3)
        laterals = [conv(x) for conv in convs]
        laterals[0] += laterals[1]
        laterals[0].sum().backward()
        """
    )
    fixed, applied = fix_source(source, "fpn.py")
    assert applied == 1 and "laterals[0] = laterals[0] + laterals[1]" in fixed
    grads = "all(p.grad is not None for c in convs for p in c.parameters())"
    before, after = run_snippets([Snippet(source), Snippet(fixed, (grads,))])
    _ran_as_claimed(before, "", _MODIFIED_INPLACE)
    assert after.error is None and after.effects == {grads: True}
    assert analyze(fixed) == []


def test_chunks_of_a_short_dim_are_as_many_as_torch_makes() -> None:
    """`x.chunk(4)` of a dim of size 1 gives one piece (torch 2.13), so one loss per piece stacked
    is a one-element tensor, whose backward runs: no GG109."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        torch.manual_seed(0)
        net = nn.Linear(4, 1)
        x = torch.randn(1, 4)
        losses = []
        for part in x.chunk(4):
            losses.append(net(part).pow(2).mean())
        torch.stack(losses).backward()
        """
    )
    (result,) = run_snippets([Snippet(source)])
    assert result.error is None
    assert analyze(source) == []


_RECORD_BATCHES = """\
import torch
import torch.nn as nn
from types import SimpleNamespace



def clip(optimizer):
    for group in optimizer.param_groups:
        for p in group["params"]:
            if p.grad is not None:
                p.grad.data.clamp_(-10.0, 10.0)


torch.manual_seed(0)
net = nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.0)
batches = []
for _ in range(3):
    batches.append(SimpleNamespace(x=torch.randn(4, 3), y=torch.randn(4, 1)))
opt.zero_grad()
for i, batch in enumerate(batches):
    if len(batch.x) == {size}:{zero}
        loss = ((net(batch.x) - batch.y) ** 2).mean()
        loss.backward()
        clip(opt)
        opt.step()
"""


@pytest.mark.parametrize(
    ("size", "zero", "line"),
    [(4, "", 24), (4, "\n        opt.zero_grad()", None), (5, "", None)],
)
def test_a_loop_over_records_follows_each_record(size: int, zero: str, line: int | None) -> None:
    """`for i, batch in enumerate(batches)` over a few `SimpleNamespace` records binds each record
    in turn, with its own fields, and `len()` of a tensor is its first size: the guard
    `len(batch.x) == 4` holds, so the backward runs every iteration and, with no `zero_grad()` in
    the loop, each step applies the sum of all batches' gradients (torch 2.13: the gradient after
    the loop is the sum of the three batches'). A helper that only clamps the gradients clears
    none. With the guard false the body never runs."""
    source = _RECORD_BATCHES.format(size=size, zero=zero)
    summed = (
        "net.weight.grad is not None and torch.allclose(net.weight.grad, sum(torch.autograd.grad("
        "((net(b.x) - b.y) ** 2).mean(), net.weight)[0] for b in batches))"
    )
    (result,) = run_snippets([Snippet(source, (summed,))])
    assert result.error is None
    assert result.effects == {summed: line is not None}
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG201", line)] if line else [])


def test_no_missing_zero_grad_where_the_backward_never_runs() -> None:
    """A loop whose backward and step sit in an arm a known flag always skips trains nothing
    (torch 2.13: no gradient is ever made), so no zero_grad() is missing there."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        torch.manual_seed(0)
        net = nn.Linear(3, 1)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        train = False
        for step in range(3):
            x = torch.randn(4, 3)
            if train:
                loss = net(x).pow(2).mean()
                loss.backward()
                opt.step()
            else:
                print(net(x).detach().mean().item())
        """
    )
    untouched = "net.weight.grad is None"
    (result,) = run_snippets([Snippet(source, (untouched,))])
    assert result.error is None and result.effects == {untouched: True}
    assert analyze(source) == []
    assert [(f.code, f.span.line) for f in analyze(source.replace("train = False", "train = True"))] == [
        ("GG201", 12)
    ]


_ONE_HOOK = """\
import torch
import torch.nn as nn


class StepHook:
    def after_iter(self, runner):
        runner.opt.zero_grad()
        runner.loss.backward()
        runner.opt.step()


class Runner:
    def __init__(self, hooks):
        self.net = nn.Linear(3, 1)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.hooks = hooks

    def train(self, batches):
        for x in batches:
            self.loss = self.net(x).pow(2).mean()
            for hook in self.hooks:
                hook.after_iter(self)


torch.manual_seed(0)
Runner({hooks}).train([torch.randn(4, 3) for _ in range(3)])
"""


@pytest.mark.parametrize(
    ("hooks", "error"),
    [("[StepHook()]", None), ("[StepHook(), StepHook()]", "RuntimeError: Trying to backward")],
)
def test_a_loop_over_one_hook_has_no_second_iteration(hooks: str, error: str | None) -> None:
    """An mmcv-style runner calls each hook of its list after a batch's forward: with one hook the
    batch's graph is backpropagated once (torch 2.13 runs clean); with two hooks, the second
    backward meets the freed graph."""
    source = _ONE_HOOK.format(hooks=hooks)
    (result,) = run_snippets([Snippet(source)])
    if error is None:
        assert result.error is None
        assert analyze(source) == []
    else:
        assert (result.error or "").startswith(error)
        assert [f.code for f in analyze(source)] == ["GG103"]


def test_a_graph_freed_by_an_earlier_loop_that_ran_once() -> None:
    """A graph built before two loops, backpropagated in the first (one element) and again in the
    second: the second loop's first backward raises (torch 2.13). Reported where the graph is
    built, as freed by the earlier loop; no move-into-loop fix (the first loop reads it too)."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        torch.manual_seed(0)
        net = nn.Linear(3, 3)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        h = torch.tanh(net(torch.randn(2, 3)))
        for eq in [torch.randn(2, 3)]:
            opt.zero_grad()
            (h * eq).sum().backward()
            opt.step()
        for ne in [torch.randn(2, 3) for _ in range(3)]:
            opt.zero_grad()
            (h * ne).sum().backward()
            opt.step()
        """
    )
    (result,) = run_snippets([Snippet(source)])
    assert (result.error or "").startswith("RuntimeError: Trying to backward through the graph a second time")
    (finding,) = analyze(source)
    assert (finding.code, finding.span.line) == ("GG103", 7)
    assert "in an earlier loop" in finding.message and "line 10" in finding.message
    assert finding.fixes == ()


_GRAD_HELPER = """\
import torch
import torch.nn as nn


def helper(model):
{body}


torch.manual_seed(0)
net = nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.0)
xs = [torch.randn(4, 3) for _ in range(3)]
for x in xs:
    loss = net(x).pow(2).mean()
    loss.backward()
    opt.step()
    helper(net)
"""


@pytest.mark.parametrize(
    ("body", "line"),
    [
        ("    return sum(p.grad.norm().item() for p in model.parameters() if p.grad is not None)", 15),
        ("    for p in model.parameters():\n        p.grad = None", None),
        ("    for p in model.parameters():\n        p.grad.data.zero_()", None),
    ],
)
def test_a_helper_that_only_reads_gradients_clears_none(body: str, line: int | None) -> None:
    """A helper the loop calls that only reads `.grad` (a gradient norm for the log) leaves the
    gradients summing up over iterations (torch 2.13: after the loop they are the three batches'
    sum): the missing zero_grad() is GG201. One that sets `p.grad = None` or zeroes it clears them."""
    source = _GRAD_HELPER.format(body=body)
    summed = (
        "net.weight.grad is not None and torch.allclose(net.weight.grad, sum(torch.autograd.grad("
        "net(x).pow(2).mean(), net.weight)[0] for x in xs))"
    )
    (result,) = run_snippets([Snippet(source, (summed,))])
    assert result.error is None
    assert result.effects == {summed: line is not None}
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG201", line)] if line else [])


@pytest.mark.parametrize(
    "params", ["filter(lambda p: p.requires_grad, gen.parameters())", "gen.parameters()"]
)
def test_an_optimizer_of_the_trainable_parameters_steps_the_model(params: str) -> None:
    """`filter(lambda p: p.requires_grad, gen.parameters())` hands the optimizer what it would
    step of `gen.parameters()` anyway, so its step between two backwards over one graph through
    `gen` is GG111 (torch 2.13 raises at the second backward)."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn

        torch.manual_seed(0)
        gen = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
        opt_g = torch.optim.Adam({params}, lr=0.1)
        out = gen(torch.randn(5, 3))
        out.pow(2).mean().backward(retain_graph=True)
        opt_g.step()
        out.abs().mean().backward()
        """
    )
    (result,) = run_snippets([Snippet(source)])
    _ran_as_claimed(result, "", _MODIFIED_INPLACE)
    assert [(f.code, f.span.line) for f in analyze(source)] == [("GG111", 9)]


@pytest.mark.parametrize(("key", "error"), [("[:n]", True), ("[n:]", True), ("[n - 1:n]", False)])
def test_a_slice_with_known_bounds_has_its_size(key: str, error: bool) -> None:
    """A slice with bounds known here (`logps[:n]`, `n = 4`) of a dim of known size has the size
    Python gives it, so a DPO-style loss of the chosen half through `F.logsigmoid` (which keeps
    its input's shape) is a vector of four and its backward raises (torch 2.13); a one-element
    slice gives a one-element loss, whose backward runs."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        torch.manual_seed(0)
        net = nn.Linear(3, 1)
        logps = net(torch.randn(8, 3)).squeeze(-1)
        n = 4
        chosen = logps{key}
        loss = -F.logsigmoid(0.1 * chosen)
        loss.backward()
        """
    )
    (result,) = run_snippets([Snippet(source)])
    if error:
        assert (result.error or "").startswith("RuntimeError: grad can be implicitly created only for scalar")
        assert [(f.code, f.span.line) for f in analyze(source)] == [("GG109", 11)]
    else:
        assert result.error is None
        assert analyze(source) == []


@pytest.mark.parametrize(
    "wrap", ["nn.utils.parametrizations.weight_norm", "nn.utils.spectral_norm", "nn.utils.weight_norm"]
)
def test_a_reparametrized_layer_is_the_layer(wrap: str) -> None:
    """`weight_norm(conv)` and friends register a parametrization on the layer and return it
    (torch 2.13: the same object), so its output carries the graph: a running mean assigned from
    it on the module each step keeps every step's graph (GG301; the buffer's grad_fn is still set
    after training)."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = {wrap}(nn.Conv2d(1, 4, 3, padding=1))
                self.register_buffer("running", torch.zeros(4))

            def forward(self, x):
                h = self.conv(x)
                self.running = 0.9 * self.running + 0.1 * h.mean(dim=(0, 2, 3))
                return h.mean()


        torch.manual_seed(0)
        net = Net()
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for _ in range(3):
            loss = net(torch.randn(2, 1, 5, 5))
            opt.zero_grad()
            loss.backward()
            opt.step()
        """
    )
    kept = "net.running.grad_fn is not None"
    (result,) = run_snippets([Snippet(source, (kept,))])
    assert result.error is None and result.effects == {kept: True}
    assert [(f.code, f.span.line) for f in analyze(source)] == [("GG301", 13)]


@pytest.mark.parametrize(("named", "line"), [("", None), (', name="bias"', 5)])
def test_a_reparametrized_weight_is_computed_not_a_leaf(named: str, line: int | None) -> None:
    """After `weight_norm(layer)` the layer's `weight` is computed from its parametrization on each
    access, not a leaf: changing it in place runs (torch 2.13), so no GG108; with `name="bias"` the
    weight stays the leaf parameter and the same line raises."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn

        layer = nn.utils.parametrizations.weight_norm(nn.Linear(3, 3){named})
        layer.weight.mul_(2.0)
        out = layer(torch.randn(2, 3)).sum()
        out.backward()
        """
    )
    (result,) = run_snippets([Snippet(source)])
    if line is None:
        assert result.error is None
        assert analyze(source) == []
    else:
        assert (result.error or "").startswith("RuntimeError: a leaf Variable that requires grad")
        assert [(f.code, f.span.line) for f in analyze(source)] == [("GG108", line)]


# -- values the engine now follows (issue 8, session of 2026-12-02) ------------------------------

_SCALAR_ERROR = "RuntimeError: grad can be implicitly created only for scalar outputs"

_KNOWN_SHAPES = {
    # A cast keeps its tensor's shape: `gather` with `target.long().view(-1, 1)` is (4, 1).
    "cast": (
        """\
        import torch
        import torch.nn.functional as F

        scores = torch.randn(4, 5, requires_grad=True)
        target = torch.randint(0, 5, (4,))
        picked = F.softmax(scores, dim=1).gather(1, target.long().view(-1, 1))
        loss = torch.clamp(picked - 0.5, min=0){reduce}
        loss.backward()
        """,
        8,
    ),
    # `torch.linspace(0, 1, 16).repeat(4, 1)` is (4, 16); `.mean([1])` of a (4, 4) loss is (4,).
    "linspace-repeat-mean-dims": (
        """\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        enc = nn.Linear(16, 4)
        signal = torch.sin(torch.linspace(0, 6.28, 16)).repeat(4, 1)
        z = enc(signal)
        loss = F.mse_loss(z, torch.zeros_like(z), reduction="none").mean([1]){reduce}
        loss.backward()
        """,
        9,
    ),
    # An index known to be a Python int (`h // 2` of a known size) removes its dim.
    "computed-index": (
        """\
        import torch
        import torch.nn as nn

        conv = nn.Conv2d(3, 6, 3)
        act = conv(torch.randn(2, 3, 10, 10))
        unit = 2
        out = act[:, unit, act.shape[2] // 2, act.shape[3] // 2]{reduce}
        out.backward()
        """,
        8,
    ),
    # `torch.arange(2, 8)` has six elements.
    "arange": (
        """\
        import torch

        w = torch.randn((), requires_grad=True)
        out = (w * torch.arange(2, 8)){reduce}
        out.backward()
        """,
        5,
    ),
}


@pytest.mark.parametrize("case", sorted(_KNOWN_SHAPES))
@pytest.mark.parametrize("reduce", ["", ".sum()"])
def test_shapes_known_from_casts_factories_repeats_and_indices(case: str, reduce: str) -> None:
    """Each shape fact proves a non-scalar backward (torch 2.13 raises); reduced, it runs clean."""
    template, line = _KNOWN_SHAPES[case]
    source = textwrap.dedent(template).replace("{reduce}", reduce)
    (result,) = run_snippets([Snippet(source)])
    if reduce:
        assert result.error is None
        assert analyze(source) == []
    else:
        assert (result.error or "").startswith(_SCALAR_ERROR)
        assert [(f.code, f.span.line) for f in analyze(source)] == [("GG109", line)]


@pytest.mark.parametrize("reduce", [".mean([1])", ".mean()"])
def test_a_weighted_sum_over_known_keys_with_a_dataclass_factory_field(reduce: str) -> None:
    """A dataclass field `field(default_factory=Codec)` builds a Codec; `sum([w * out[k] for k, w
    in lambdas.items() if k in out])` keeps each element (the filter is decided on known keys) and
    adds them in turn, so one per-sample term makes the total per-sample (torch 2.13 raises)."""
    source = textwrap.dedent(
        f"""\
        from dataclasses import dataclass, field

        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        class Codec(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.Linear(8, 4)

            def forward(self, x):
                z = self.enc(x)
                return {{"rec": F.mse_loss(z, torch.zeros_like(z)),
                         "commit": F.mse_loss(z, torch.ones_like(z), reduction="none"){reduce}}}


        @dataclass
        class State:
            codec: Codec = field(default_factory=Codec)


        state = State()
        out = state.codec(torch.randn(3, 8))
        lambdas = {{"rec": 1.0, "commit": 0.25, "unused": 2.0}}
        loss = sum([w * out[k] for k, w in lambdas.items() if k in out])
        loss.backward()
        """
    )
    (result,) = run_snippets([Snippet(source)])
    if reduce == ".mean([1])":
        assert (result.error or "").startswith(_SCALAR_ERROR)
        assert [(f.code, f.span.line) for f in analyze(source)] == [("GG109", 28)]
    else:
        assert result.error is None
        assert analyze(source) == []


@pytest.mark.parametrize(("call", "error"), [("self.preprocess(img)", True), ("img.mean()", False)])
def test_a_lambda_default_is_called_with_its_arguments(call: str, error: bool) -> None:
    """`preprocess=lambda img: ...` as a default is a function: called, it keeps the batch of two,
    so `torch.autograd.grad` of one score per image without `grad_outputs` raises (torch 2.13)."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        class Probe:
            def __init__(self, net, preprocess=lambda img: F.interpolate(img, (6, 6), mode="bilinear")):
                self.net = net
                self.preprocess = preprocess

            def grad_of(self, codes):
                img = self.net(codes).view(-1, 1, 4, 4)
                scores = {call}
                return torch.autograd.grad(scores.flatten(1)[:, 0], codes)[0]


        codes = torch.randn(2, 8, requires_grad=True)
        Probe(nn.Linear(8, 16)).grad_of(codes)
        """
    )
    (result,) = run_snippets([Snippet(source)])
    if error:
        assert (result.error or "").startswith(_SCALAR_ERROR)
        assert [(f.code, f.span.line) for f in analyze(source)] == [("GG109", 14)]
    else:
        assert (result.error or "").startswith("IndexError")  # a 0-dim mean has no dim 1
        assert analyze(source) == []


@pytest.mark.parametrize(
    ("target", "line"),
    [
        ("target, _ = extract(torch.rand(1, 3, 8, 8))", 22),
        ("target = [t.detach() for t in extract(torch.rand(1, 3, 8, 8))[0]]", None),
    ],
)
def test_a_target_built_by_a_helper_the_loop_also_runs(target: str, line: int | None) -> None:
    """Content targets made before the loop by the feature extractor the loop runs too: the layers
    are taken by a counter over `range(max(...) + 1)` and kept by `if i in layers:`, so each number
    gets its iteration; the loss sums a list made of two lists, and holds both graphs. The squiggle
    is where the target is bound, not inside the shared extractor (torch 2.13 raises in the second
    iteration; with the target detached it runs)."""
    source = textwrap.dedent(
        f"""\
        import torch
        from torch import nn

        content_layers, style_layers = [2], [0, 2]
        features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1))
        net = nn.Sequential(*[features[i] for i in range(max(content_layers + style_layers) + 1)])


        def extract(x):
            contents, styles = [], []
            for i in range(len(net)):
                x = net[i](x)
                if i in style_layers:
                    styles.append(x)
                if i in content_layers:
                    contents.append(x)
            return contents, styles


        image = nn.Parameter(torch.rand(1, 3, 8, 8))
        opt = torch.optim.Adam([image], lr=0.1)
        {target}
        for step in range(3):
            opt.zero_grad()
            contents, styles = extract(image)
            content_l = [((c - t) ** 2).mean() for c, t in zip(contents, target)]
            style_l = [s.mean() for s in styles]
            loss = sum(style_l + content_l)
            loss.backward()
            opt.step()
        """
    )
    (result,) = run_snippets([Snippet(source)])
    found = [(f.code, f.span.line) for f in analyze(source)]
    if line is None:
        assert result.error is None
        assert found == []
    else:
        assert (result.error or "").startswith("RuntimeError: Trying to backward through the graph")
        assert found == [("GG103", line)]


@pytest.mark.parametrize(("order", "line"), [("critic_first", 26), ("actor_first", None)])
def test_a_step_in_a_helper_before_a_backward_through_its_weights(order: str, line: int | None) -> None:
    """SAC's critic is stepped by a helper (`take_step(opt, loss)`) before the same helper runs
    the actor's backward, whose graph saved the critic's weights: torch 2.13 raises the in-place
    version error. The squiggle is on the call that steps the critic, naming its optimizer and the
    actor's loss; stepping the actor first runs clean. The learning starts after a warm-up counted
    in the loop (`if steps > 3:`), which the loop's later iterations reach."""
    calls = {
        "critic_first": "take_step(critic_opt, critic_loss)\n        take_step(actor_opt, actor_loss)",
        "actor_first": "take_step(actor_opt, actor_loss)\n        take_step(critic_opt, critic_loss)",
    }[order]
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        torch.manual_seed(0)
        actor = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
        critic = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 1))
        actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
        critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)


        def take_step(optimizer, loss):
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


        steps = 0
        for _ in range(6):
            steps += 1
            if steps > 3:
                obs = torch.randn(5, 4)
                action = actor(obs)
                actor_loss = -critic(torch.cat([obs, action], dim=1)).mean()
                q = critic(torch.cat([obs, torch.randn(5, 2)], dim=1))
                critic_loss = ((q - torch.randn(5, 1)) ** 2).mean()
                CALLS
        """
    ).replace("CALLS", calls)
    (result,) = run_snippets([Snippet(source)])
    found = [(f.code, f.span.line, f.message) for f in analyze(source)]
    if line is None:
        assert result.error is None
        assert found == []
    else:
        _ran_as_claimed(result, "", _MODIFIED_INPLACE)
        ((code, at, message),) = found
        assert (code, at) == ("GG111", line)
        assert message.startswith("`critic_opt.step()` changes in place weights that the graph of")
        assert "of `actor_loss` saved on line 23, so the backward on line 27 raises" in message


_STYLE_MODEL = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class ContentLoss(nn.Module):
    def __init__(self, target):
        super().__init__()
        self.target = target{detach}

    def forward(self, input):
        self.loss = F.mse_loss(input, self.target)
        return input


cnn = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1))
content = torch.rand(1, 3, 8, 8)
model = nn.Sequential()
losses = []
i = 0
for layer in cnn.children():
    if isinstance(layer, nn.Conv2d):
        i += 1
        name = f"conv_{{i}}"
    else:
        name = f"relu_{{i}}"
    model.add_module(name, layer)
    if name == "conv_2":
        cl = ContentLoss(model(content))
        model.add_module("content_loss", cl)
        losses.append(cl)

img = nn.Parameter(torch.rand(1, 3, 8, 8))
opt = torch.optim.Adam([img], lr=0.1)
for step in range(3):
    opt.zero_grad()
    model(img)
    score = sum(cl.loss for cl in losses)
    score.backward()
    opt.step()
"""


@pytest.mark.parametrize("detach", ["", ".detach()"])
def test_a_model_built_by_add_module_over_a_cnns_children(detach: str) -> None:
    """The style-transfer tutorial's model: `nn.Sequential()` grown by `add_module` over the CNN's
    children, named `f"conv_{i}"` by `isinstance`, with a loss module after `conv_2` that keeps the
    content features. Kept with their graph, the second iteration's backward raises (torch 2.13);
    detached, it runs. GG103 is told where the target is kept."""
    source = _STYLE_MODEL.format(detach=detach)
    (result,) = run_snippets([Snippet(source)])
    found = [(f.code, f.span.line) for f in analyze(source)]
    if detach:
        assert result.error is None
        assert found == []
    else:
        assert (result.error or "").startswith("RuntimeError: Trying to backward through the graph")
        assert found == [("GG103", 9)]


def test_the_disjoint_layer_classes_subclass_none_of_each_other() -> None:
    """`isinstance(layer, nn.X)` is decided False for a layer of another class of DISJOINT_LAYERS:
    true only if no class there subclasses another (checked under torch 2.13)."""
    from gradguard.engine.interp import DISJOINT_LAYERS

    names = sorted(DISJOINT_LAYERS)
    pairs = f"for a in {names!r} for b in {names!r} if a != b"
    check = f"all(not issubclass(getattr(nn, a), getattr(nn, b)) {pairs})"
    (result,) = run_snippets([Snippet("import torch.nn as nn\n", (check,))])
    assert result.error is None and result.effects == {check: True}


@pytest.mark.parametrize(("kept", "line"), [("u", 20), ("u.detach()", None)])
def test_a_comprehension_of_steps_whose_gradients_are_a_few_calls_down(kept: str, line: int | None) -> None:
    """`[sampler.sample() for _ in range(n)]` is a loop of sampler steps: `sample` reaches
    `torch.autograd.grad` through a helper, so the comprehension is followed as the loop it is and
    the running energy kept with its graph grows every step's graph (torch 2.13: the sum still has a
    grad_fn after the loop); detached, it has none."""
    source = textwrap.dedent(
        f"""\
        import torch


        def potential_and_grad(w):
            w = w.detach().requires_grad_(True)
            u = (w ** 2).sum()
            (g,) = torch.autograd.grad(u, w)
            return u, g


        class Sampler:
            def __init__(self):
                self.w = torch.zeros(3)
                self.energy = torch.zeros(())

            def sample(self):
                u, g = potential_and_grad(self.w)
                self.w = (self.w - 0.1 * g).detach()
                kept = {kept}
                self.energy = self.energy + kept
                return self.w


        sampler = Sampler()
        draws = torch.stack([sampler.sample() for _ in range(5)])
        """
    )
    leak = "sampler.energy.grad_fn is not None"
    (result,) = run_snippets([Snippet(source, (leak,))])
    assert result.error is None and result.effects == {leak: line is not None}
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG301", line)] if line else [])


def test_a_clear_before_each_epoch_of_accumulated_steps_is_no_finding() -> None:
    """Gradient accumulation done right, with `k` not known here (an environment variable): the
    clear inside the gate follows each step, and the one before each epoch throws away at most the
    tail of the previous epoch (`len(loader) % k` micro-batches), which is what the code means.
    Whether the last micro-batch stepped is not known after the loop, so no GG201 (runs clean
    under torch 2.13)."""
    source = textwrap.dedent(
        """\
        import os
        import torch
        import torch.nn as nn


        class Trainer:
            def __init__(self):
                self.model = nn.Linear(4, 1)
                self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
                self.accum = int(os.environ.get("ACCUM", "2"))

            def train_epoch(self, loader):
                self.optimizer.zero_grad()
                for i, x in enumerate(loader):
                    loss = self.model(x).pow(2).mean() / self.accum
                    loss.backward()
                    if (i + 1) % self.accum == 0:
                        self.optimizer.step()
                        self.optimizer.zero_grad()


        trainer = Trainer()
        loader = [torch.randn(8, 4) for _ in range(5)]
        for epoch in range(2):
            trainer.train_epoch(loader)
        """
    )
    (result,) = run_snippets([Snippet(source)])
    assert result.error is None
    assert analyze(source) == []


@pytest.mark.parametrize(("passed", "line"), [("loss", 24), ("loss.item()", None)])
def test_a_meter_made_by_a_defaultdict_for_a_constant_key(passed: str, line: int | None) -> None:
    """`meters = defaultdict(AverageMeter)`: `meters["loss"]` makes one meter on the first read and
    gives the same one after, so updating it with the loss tensor keeps every iteration's graph in
    its running sum (torch 2.13: the sum still has a grad_fn after training); with `.item()` none."""
    source = textwrap.dedent(
        f"""\
        from collections import defaultdict

        import torch
        import torch.nn as nn


        class AverageMeter:
            def __init__(self):
                self.sum, self.count = 0.0, 0

            def update(self, val, n=1):
                self.sum += val * n
                self.count += n


        model = nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        meters = defaultdict(AverageMeter)
        for x in [torch.randn(2, 3) for _ in range(3)]:
            loss = model(x).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            meters["loss"].update({passed}, x.size(0))
        """
    )
    leak = "getattr(meters['loss'].sum, 'grad_fn', None) is not None"
    (result,) = run_snippets([Snippet(source, (leak,))])
    assert result.error is None and result.effects == {leak: line is not None}
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG301", line)] if line else [])


def test_a_running_state_that_feeds_a_running_loss_is_no_accumulation() -> None:
    """Attention coverage summed over the decoder steps feeds the coverage loss summed the same way
    (`cov_loss = cov_loss + torch.minimum(a, coverage).sum()`), which is backpropagated: the sum is
    state the loop computes with, not a leak (torch 2.13: runs clean, and the loss reaches the
    attention's weights)."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        torch.manual_seed(0)
        attn = nn.Linear(4, 6)
        coverage = torch.zeros(2, 6)
        cov_loss = 0.0
        for t in range(3):
            a = F.softmax(attn(torch.randn(2, 4)), dim=1)
            cov_loss = cov_loss + torch.minimum(a, coverage).sum(1).mean()
            coverage = coverage + a
        cov_loss.backward()
        """
    )
    reached = "attn.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (reached,))])
    assert result.error is None and result.effects == {reached: True}
    assert analyze(source) == []


def test_per_task_backwards_kept_for_the_next_task_are_no_finding() -> None:
    """PCGrad's shape: each task loss of a known list is backpropagated in turn through the shared
    trunk with retain_graph=True, its gradients read, and one step taken after the loop. Nothing
    changes the weights between the passes: retain_graph=True is what the code needs (torch 2.13
    runs it clean, the trunk gets its combined gradient), so no GG302."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        torch.manual_seed(0)
        trunk = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
        heads = nn.ModuleList([nn.Linear(8, 3), nn.Linear(8, 3)])
        opt = torch.optim.SGD([*trunk.parameters(), *heads.parameters()], lr=0.1)
        for step in range(3):
            h = trunk(torch.randn(4, 6))
            losses = [F.cross_entropy(head(h), torch.randint(0, 3, (4,))) for head in heads]
            grads = []
            for loss in losses:
                opt.zero_grad()
                loss.backward(retain_graph=True)
                grads.append([p.grad.clone() for p in trunk.parameters()])
            for p, g0, g1 in zip(trunk.parameters(), *grads):
                p.grad = g0 + g1
            opt.step()
        """
    )
    reached = "all(p.grad is not None for p in trunk.parameters())"
    (result,) = run_snippets([Snippet(source, (reached,))])
    assert result.error is None and result.effects == {reached: True}
    assert analyze(source) == []


@pytest.mark.parametrize("guard", ["with torch.no_grad():", "if True:"])
def test_a_helper_called_under_no_grad_is_told_at_the_block(guard: str) -> None:
    """A Grad-CAM-like helper backpropagates a score summed over `zip(targets, outputs)` (rows of
    the model's output): called inside `with torch.no_grad():` in the caller, the output has no
    graph and torch 2.13 raises; the cut is told at the `with` block (what the user changes), not
    at the op inside the helper. Without the block it runs."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn


        class Pick:
            def __init__(self, category):
                self.category = category

            def __call__(self, row):
                return row[self.category]


        def cam(model, x):
            outputs = model(x)
            targets = [Pick(c) for c in range(2)]
            loss = sum([target(out) for target, out in zip(targets, outputs)])
            loss.backward()
            return x.grad


        model = nn.Linear(4, 3)
        images = [torch.randn(2, 4, requires_grad=True) for _ in range(2)]
        {guard}
            for x in images:
                cam(model, x)
        """
    )
    (result,) = run_snippets([Snippet(source)])
    found = analyze(source)
    if guard.startswith("with"):
        assert (result.error or "").startswith("RuntimeError: element 0 of tensors does not require grad")
        ((finding),) = found
        assert (finding.code, finding.span.line) == ("GG106", 17)
        assert "`torch.no_grad()` on line 23 cut it off" in finding.message
        assert [(r.role, r.span.line) for r in finding.related] == [("built", 23)]
    else:
        assert result.error is None
        assert found == []


def test_leaves_made_by_a_comprehension_are_one_tensor_each() -> None:
    """`[torch.randn(2, 4, requires_grad=True) for _ in range(3)]` makes three leaves: the gradient
    one backward leaves in its input's `.grad` is not added onto another's, so reading each one is
    no GG201 (torch 2.13: each `.grad` equals that input's own gradient)."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        model = nn.Linear(4, 1)
        inputs = [torch.randn(2, 4, requires_grad=True) for _ in range(3)]
        saliency = []
        for x in inputs:
            model(x).sum().backward()
            saliency.append(x.grad.abs())
        """
    )
    own = "all(torch.allclose(x.grad, model.weight.expand(2, 4)) for x in inputs)"
    (result,) = run_snippets([Snippet(source, (own,))])
    assert result.error is None and result.effects == {own: True}
    assert analyze(source) == []


@pytest.mark.parametrize(
    ("loader", "detach", "line"),
    [
        ("DataLoader(Frames(), batch_size=2)", "", 26),
        ("DataLoader(Frames(), batch_size=2)", "hidden = hidden.detach()", None),
        # Another collation: what a batch holds is not known, nor how long a sequence is.
        ("DataLoader(Frames(), batch_size=2, collate_fn=lambda b: b)", "", None),
    ],
)
def test_a_backward_every_k_frames_of_batches_from_a_dataset_class(
    loader: str, detach: str, line: int | None
) -> None:
    """Batches of a `DataLoader` over a dataset class of the file are what default collation makes
    of one `dataset[i]` (here frames of known length 8), and a loop over `range(8)` whose backward
    runs in an arm taken by its counter (`if (t + 1) % 4 == 0:`) gets one iteration per number: the
    GRU state carried past the backward at t=3 makes the one at t=7 raise (torch 2.13). The running
    loss reset after each backward carries nothing; detaching the state after the step is clean."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, Dataset


        class Frames(Dataset):
            def __init__(self):
                self.x = torch.randn(4, 8, 5)
                self.y = torch.randn(4, 8, 3)

            def __len__(self):
                return self.x.shape[0]

            def __getitem__(self, i):
                return {{"x": self.x[i], "y": self.y[i]}}


        gru = nn.GRUCell(5, 3)
        opt = torch.optim.SGD(gru.parameters(), lr=0.1)
        loader = {loader}
        for batch in loader:
            x, y = batch["x"], batch["y"]
            hidden = torch.zeros(x.size(0), 3)
            total = 0
            for t in range(x.size(1)):
                hidden = gru(x[:, t], hidden)
                total += ((hidden - y[:, t]) ** 2).mean() / 4
                if (t + 1) % 4 == 0:
                    opt.zero_grad()
                    total.backward()
                    opt.step()
                    total = 0
                    {detach or "pass"}
        """
    )
    (result,) = run_snippets([Snippet(source, ("gru.weight_ih.grad is not None",))])
    if "collate_fn" not in loader:
        assert (result.error is not None) == (line is not None)
        if line is not None:
            assert result.error is not None and result.error.startswith("RuntimeError: Trying to backward")
        else:
            assert result.effects == {"gru.weight_ih.grad is not None": True}
    findings = analyze(source)
    assert [(f.code, f.span.line) for f in findings] == ([("GG104", line)] if line else [])
    if line:
        assert "`hidden` carries" in findings[0].message


@pytest.mark.parametrize(
    ("added", "line"),
    [
        ('stats.get("loss").add_(loss)', 24),
        ('stats.get("loss").add_(loss.detach())', None),
        ("stats.total.add_(loss)", 24),
    ],
)
def test_a_running_sum_added_to_in_place_through_a_helpers_return(added: str, line: int | None) -> None:
    """`stats.get("loss").add_(loss)`: the helper returns the tensor the object holds, and adding
    the loss to it in place gives that very tensor the loss's graph, so the next iteration adds to
    a sum that still holds every earlier graph (torch 2.13: it has a grad_fn after training)."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn


        class Stats:
            def __init__(self):
                self.cells = {{}}
                self.total = torch.zeros(())

            def get(self, name):
                if name not in self.cells:
                    self.cells[name] = torch.zeros(())
                return self.cells[name]


        model = nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        stats = Stats()
        for step in range(4):
            loss = model(torch.randn(2, 3)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            {added}
        """
    )
    leak = "stats.cells.get('loss', stats.total).grad_fn is not None"
    (result,) = run_snippets([Snippet(source, (leak,))])
    assert result.error is None and result.effects == {leak: line is not None}
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG301", line)] if line else [])


@pytest.mark.parametrize(
    ("made", "passed", "line"),
    [
        ("defaultdict(dict)", "loss", 32),
        ("defaultdict(dict)", "loss.item()", None),
        ('{"train": {}}', "loss", 32),
    ],
)
def test_a_meter_kept_in_a_dict_of_dicts(made: str, passed: str, line: int | None) -> None:
    """`self.meters[tag][name] = Meter()` then `return self.meters[tag][name]`: the store goes into
    the inner dict, which the outer one keeps (a `defaultdict(dict)` makes it on the first read), so
    the meter handed back is the one stored, and updating it with the loss tensor keeps every
    iteration's graph in its running sum (torch 2.13: the sum has a grad_fn after training)."""
    source = textwrap.dedent(
        f"""\
        from collections import defaultdict

        import torch
        import torch.nn as nn


        class Meter:
            def __init__(self):
                self.sum = 0.0

            def update(self, value):
                self.sum += value


        class Experiment:
            def __init__(self):
                self.meters = {made}

            def add_metric(self, tag, name):
                self.meters[tag][name] = Meter()
                return self.meters[tag][name]


        model = nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        meter = Experiment().add_metric("train", "loss")
        for step in range(3):
            loss = model(torch.randn(2, 3)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.update({passed})
        """
    )
    leak = "getattr(meter.sum, 'grad_fn', None) is not None"
    (result,) = run_snippets([Snippet(source, (leak,))])
    assert result.error is None and result.effects == {leak: line is not None}
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG301", line)] if line else [])


@pytest.mark.parametrize(("kept", "line"), [("val", 33), ("val.item()", None)])
def test_a_dict_updated_with_a_dict_of_known_keys_keeps_them(kept: str, line: int | None) -> None:
    """`status = {"total": loss}; status.update(parts)`: the dict has the keys of both, each with its
    value, so iterating it over meters passes each loss tensor to its own meter, whose running sum
    then keeps every iteration's graph (torch 2.13: the sum has a grad_fn after training)."""
    source = textwrap.dedent(
        f"""\
        from collections import defaultdict

        import torch
        import torch.nn as nn


        class Meter:
            def __init__(self):
                self.sum = 0.0

            def update(self, value):
                self.sum += value


        def losses(model, x):
            out = model(x)
            parts = {{"l1": out.abs().mean(), "l2": out.pow(2).mean()}}
            total = parts["l1"] + parts["l2"]
            status = {{"total": total}}
            status.update(parts)
            return total, status


        model = nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        meters = defaultdict(Meter)
        for step in range(3):
            loss, status = losses(model, torch.randn(2, 3))
            opt.zero_grad()
            loss.backward()
            opt.step()
            for name, val in status.items():
                meters[name].update({kept})
        """
    )
    leak = "getattr(meters['l2'].sum, 'grad_fn', None) is not None"
    (result,) = run_snippets([Snippet(source, (leak,))])
    assert result.error is None and result.effects == {leak: line is not None}
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG301", line)] if line else [])


_SECOND_TIME = "RuntimeError: Trying to backward through the graph a second time"
_NOT_SCALAR = "RuntimeError: grad can be implicitly created only for scalar outputs"
_NO_GRAD_FN = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
_MODIFIED_INPLACE = "RuntimeError: one of the variables needed for gradient computation has been modified"


def _ran_as_claimed(result: Result, effect: str, error: str | None) -> None:
    """The snippet raised ``error`` (a prefix of torch's message), or, when None, ran clean with
    ``effect`` true (gradients reached the parameters)."""
    if error is None:
        assert result.error is None and result.effects == {effect: True}
    else:
        assert result.error is not None and result.error.startswith(error)


@pytest.mark.parametrize(
    ("batch", "reduce", "line"),
    [("16", "", 14), ("16", ".mean()", None), ("16, drop_last=True", "", 14), ("10", "", None)],
)
def test_batches_of_a_tensor_dataset_have_their_size_when_it_divides(
    batch: str, reduce: str, line: int | None
) -> None:
    """`DataLoader(TensorDataset(X, y), batch_size=16)` over 64 samples: every batch has 16 rows, so
    a `reduction="none"` loss has 16 elements and its `backward()` raises (torch 2.13). With 10 per
    batch the last one has 4: the size is not one number, and nothing is claimed."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset

        X = torch.randn(64, 10)
        y = torch.randint(0, 3, (64,))
        loader = DataLoader(TensorDataset(X, y), batch_size={batch}, shuffle=True)
        model = nn.Linear(10, 3)
        crit = nn.CrossEntropyLoss(reduction="none")
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for xb, yb in loader:
            opt.zero_grad()
            loss = crit(model(xb), yb){reduce}
            loss.backward()
            opt.step()
        """
    )
    (result,) = run_snippets([Snippet(source, ("model.weight.grad is not None",))])
    _ran_as_claimed(result, "model.weight.grad is not None", None if reduce else _NOT_SCALAR)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG109", line)] if line else [])


def test_a_name_rebound_cut_at_the_loop_top_is_not_the_stale_one() -> None:
    """`u = u.clone().detach()` at the top of the loop makes `u` a fresh leaf every iteration: the
    graph the second backward meets freed is the one `c` holds (torch 2.13 raises), so GG103 names
    `c`, not `u`, whose later reads see the new value."""
    source = textwrap.dedent(
        """\
        import torch

        w = torch.ones(4, requires_grad=True)
        u, c = (w * w).chunk(2)
        for i in range(2):
            u = u.clone().detach()
            u.requires_grad = True
            loss = (u * c).sum()
            loss.backward()
        """
    )
    (result,) = run_snippets([Snippet(source, ())])
    assert result.error is not None and result.error.startswith(_SECOND_TIME)
    (finding,) = analyze(source)
    assert (finding.code, finding.span.line) == ("GG103", 4)
    assert finding.message.startswith("`c` was computed on line 4")


_SHUFFLED = "random.shuffle(buf.logprobs)\n" + " " * 16


@pytest.mark.parametrize(
    ("walk", "tail", "collect_each_epoch", "epochs", "line"),
    [
        ("for logp, r in zip(buf.logprobs, buf.rewards):", "", False, 3, 19),
        ("for logp in buf.logprobs:\n                    r = 1.0", "", False, 3, 19),
        ("for logp, r in zip(buf.logprobs, buf.rewards):", "", True, 3, None),
        ("for logp, r in zip(buf.logprobs, buf.rewards):", "", False, 1, None),
        # Shuffled, then walked in part: the elements epoch 2 reaches need not be those epoch 1 freed.
        (_SHUFFLED + "for logp in buf.logprobs[:1]:\n                    r = 1.0", "", False, 3, None),
        (_SHUFFLED + "for logp in buf.logprobs:\n                    r = 1.0", "break", False, 3, None),
    ],
)
def test_a_buffer_of_graphs_walked_again_by_every_epoch(
    walk: str, tail: str, collect_each_epoch: bool, epochs: int, line: int | None
) -> None:
    """A rollout buffer holds one log-probability per step, each with its own graph. An update
    walking the buffer backpropagates each once; the next epoch walks it again and meets graphs the
    first freed (torch 2.13 raises). Filled anew every epoch, or walked once, it runs clean: one
    element's backward never frees another's graph."""
    pad = "\n" + " " * 16
    collect = f"buf = Buffer(){pad}collect(buf, 8){pad}" if collect_each_epoch else ""
    source = textwrap.dedent(
        f"""\
        import random
        import torch
        import torch.nn as nn

        random.seed(0)
        policy = nn.Linear(4, 2)
        opt = torch.optim.Adam(policy.parameters(), lr=1e-3)


        class Buffer:
            def __init__(self):
                self.logprobs = []
                self.rewards = []


        def collect(buf, n):
            for t in range(n):
                s = torch.randn(4)
                logp = torch.log_softmax(policy(s), -1)[0]
                buf.logprobs.append(logp)
                buf.rewards.append(1.0)


        def update(buf):
            for _ in range({epochs}):
                {collect}{walk}
                    loss = -logp * r
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    {tail}


        buf = Buffer()
        collect(buf, 8)
        update(buf)
        """
    )
    (result,) = run_snippets([Snippet(source, ("policy.weight.grad is not None",))])
    _ran_as_claimed(result, "policy.weight.grad is not None", None if line is None else _SECOND_TIME)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG103", line)] if line else [])


@pytest.mark.parametrize(("where", "line"), [("no_grad", 20), ("grad", None)])
def test_a_loss_module_over_embeddings_computed_under_no_grad(where: str, line: int | None) -> None:
    """A loss module without parameters returns a loss built from its inputs only: from embeddings
    computed under no_grad it has no graph, and `backward()` raises (torch 2.13); the cut is the
    `with` block, still the reason after the module's forward."""
    forward = "with torch.no_grad():\n        e = model(x)" if where == "no_grad" else "e = model(x)"
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        class PairLoss(nn.Module):
            def forward(self, a, b):
                return F.mse_loss(a @ a.t(), b @ b.t())


        model = nn.Linear(4, 3)
        teacher = nn.Linear(4, 3)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x = torch.randn(5, 4)
        with torch.no_grad():
            t = teacher(x)
        {forward}
        loss = PairLoss()(e, t)
        loss.backward()
        """
    ).replace("{forward}", forward)
    (result,) = run_snippets([Snippet(source, ("model.weight.grad is not None",))])
    _ran_as_claimed(result, "model.weight.grad is not None", None if line is None else _NO_GRAD_FN)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG106", line)] if line else [])


@pytest.mark.parametrize(("reduce", "line"), [("", 18), (".sum()", None)])
def test_a_class_score_gathered_per_image_after_adaptive_pooling(reduce: str, line: int | None) -> None:
    """`F.adaptive_avg_pool2d(h, 1).flatten(1)` of a (4, 8, 8, 8) batch is (4, 8); the score each
    image's top class gets (`gather` at the `max(1)` indices, squeezed) has 4 elements, so its
    `backward()` raises (torch 2.13); summed, it runs."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, 3, padding=1)
                self.fc = nn.Linear(8, 5)

            def forward(self, x):
                return self.fc(F.adaptive_avg_pool2d(F.relu(self.conv(x)), 1).flatten(1))


        net = Net()
        logit = net(torch.rand(4, 3, 8, 8))
        logit.gather(1, logit.max(1)[-1].unsqueeze(1)).squeeze(1){reduce}.backward()
        """
    )
    (result,) = run_snippets([Snippet(source, ("net.fc.weight.grad is not None",))])
    _ran_as_claimed(result, "net.fc.weight.grad is not None", None if line is None else _NOT_SCALAR)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG109", line)] if line else [])


def test_a_list_of_hidden_states_from_a_forward_is_the_stale_value() -> None:
    """One forward returns the hidden state of every layer (a list filled in its loop over the
    layers); a loop then backpropagates a loss per layer, and the second meets the graph the first
    freed (torch 2.13 raises). The value the loop reuses is that list, and the statement to change
    is the model's call before the loop, not a line of its forward."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(10, 4)
                self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])

            def forward(self, ids):
                h = self.embed(ids)
                states = [h]
                for layer in self.layers:
                    h = torch.tanh(layer(h))
                    states.append(h)
                return states


        model = Encoder()
        outputs = model(torch.randint(0, 10, (3,)))
        for k in range(1, 3):
            loss = outputs[k].pow(2).mean()
            loss.backward()
        """
    )
    (result,) = run_snippets([Snippet(source, ())])
    assert result.error is not None and result.error.startswith(_SECOND_TIME)
    (finding,) = analyze(source)
    assert (finding.code, finding.span.line) == ("GG103", 21)
    assert finding.message.startswith("`outputs` was computed on line 21")


@pytest.mark.parametrize(("detach", "line"), [("", 17), (".detach()", None)])
def test_an_object_indexed_through_its_own_getitem(detach: str, line: int | None) -> None:
    """`frame[idx]` of a dataclass with a `__getitem__` runs that method: rows of a column embedded
    once, with grad, before the loop reach every iteration's loss, and the second backward meets
    the embedding's freed graph (torch 2.13 raises); detached, the loop runs."""
    source = textwrap.dedent(
        f"""\
        from dataclasses import dataclass

        import torch
        import torch.nn as nn


        @dataclass
        class Frame:
            text: torch.Tensor
            y: torch.Tensor

            def __getitem__(self, idx):
                return Frame(self.text[idx], self.y[idx])


        embedding = nn.Embedding(16, 4)
        frame = Frame(embedding(torch.randint(0, 16, (8,))){detach}, torch.randn(8))
        head = nn.Linear(4, 1)
        opt = torch.optim.SGD(head.parameters(), lr=0.1)
        for idx in torch.arange(8).split(4):
            part = frame[idx]
            loss = (head(part.text).squeeze(1) - part.y).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """
    )
    (result,) = run_snippets([Snippet(source, ("head.weight.grad is not None",))])
    _ran_as_claimed(result, "head.weight.grad is not None", None if line is None else _SECOND_TIME)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG103", line)] if line else [])


@pytest.mark.parametrize(("create", "line"), [("", 6), (", create_graph=True", None)])
def test_a_hessian_vector_product_over_several_weights(create: str, line: int | None) -> None:
    """`grad(grads, Ws, v)` over the gradients of several weights: taken without
    `create_graph=True` they have no graph, and the pass raises at the first of them ("element 0
    of tensors", torch 2.13); with it the product is computed."""
    source = textwrap.dedent(
        f"""\
        import torch
        from torch.autograd import grad

        Ws = [torch.randn(3, requires_grad=True), torch.randn(2, requires_grad=True)]
        loss = (Ws[0] ** 3).sum() + (Ws[1] ** 2).sum()
        grads = grad(loss, Ws{create})
        v = [torch.randn(3), torch.randn(2)]
        hv = grad(grads, Ws, v)
        """
    )
    (result,) = run_snippets([Snippet(source, ("hv[0] is not None",))])
    _ran_as_claimed(result, "hv[0] is not None", None if line is None else _NO_GRAD_FN)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG202", line)] if line else [])


@pytest.mark.parametrize(("reduce", "line"), [("", 14), (".mean()", None)])
def test_features_computed_under_no_grad_keep_their_shape(reduce: str, line: int | None) -> None:
    """`feats = backbone(x)` under no_grad is (8, 16) as it would be with grad: the head's
    `reduction="none"` loss over it has 8 elements, and its `backward()` raises (torch 2.13)."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn

        backbone = nn.Linear(10, 16)
        head = nn.Linear(16, 3)
        crit = nn.CrossEntropyLoss(reduction="none")
        opt = torch.optim.SGD(head.parameters(), lr=0.1)
        x = torch.randn(8, 10)
        y = torch.randint(0, 3, (8,))
        with torch.no_grad():
            feats = backbone(x)
        loss = crit(head(feats), y){reduce}
        opt.zero_grad()
        loss.backward()
        opt.step()
        """
    )
    (result,) = run_snippets([Snippet(source, ("head.weight.grad is not None",))])
    _ran_as_claimed(result, "head.weight.grad is not None", None if line is None else _NOT_SCALAR)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG109", line)] if line else [])


_CLOSURE_CALLED_AGAIN = """\
import torch
import torch.nn as nn


class Fit:
    def __init__(self):
        self.net = nn.Linear(2, 1)
        self.scale = nn.Parameter(torch.tensor(0.5))
        self.optimizer = torch.optim.{optimizer}([self.scale, *self.net.parameters()], {options})
        self.x, self.y = torch.randn(8, 2), torch.randn(8, 1)

    def step(self):
        weights = self.scale.exp()

        def closure():
            self.optimizer.zero_grad()
            loss = ((self.net(self.x) * {used} - self.y) ** 2).mean()
            loss.backward()
            return loss

        return self.optimizer.step(closure)


torch.manual_seed(0)
fit = Fit()
fit.step()
"""


@pytest.mark.parametrize(
    ("optimizer", "options", "used", "line"),
    [
        ("LBFGS", "lr=0.5", "weights", 13),  # max_iter=20: the closure runs again within the step
        ("LBFGS", "lr=0.5, max_iter=4", "weights", 13),
        ("LBFGS", "lr=0.5, max_iter=1", "weights", None),  # one call per step, and one step
        ("SGD", "lr=0.1", "weights", None),  # SGD calls its closure once
        ("LBFGS", "lr=0.5", "self.scale.exp()", None),  # the fix: computed in the closure
    ],
)
def test_an_lbfgs_step_calls_its_closure_again(
    optimizer: str, options: str, used: str, line: int | None
) -> None:
    """One `LBFGS.step(closure)` with max_iter >= 2 evaluates the closure again after its first
    search step, so a graph built before the step and read in the closure is backpropagated twice:
    torch 2.13 raises at the second call. With max_iter=1, or SGD, one step calls it once; computed
    in the closure, each call has its own graph and the weights train."""
    source = _CLOSURE_CALLED_AGAIN.format(optimizer=optimizer, options=options, used=used)
    trained = "fit.scale.grad is not None and fit.net.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _SECOND_TIME if line else None)
    findings = analyze(source)
    assert [(f.code, f.span.line) for f in findings] == ([("GG103", line)] if line else [])
    if line:
        called = "before `self.optimizer.step(closure)`, which calls `closure` more than once"
        assert called in findings[0].message
        assert "compute `weights` inside `closure`" in findings[0].message


_HELPER_BUILT = """\
import torch
import torch.nn as nn


def make_operator(alpha, n):
    ks = torch.arange(n, dtype=torch.float32)
    weights = torch.exp(torch.lgamma(ks + 1) - alpha) / n ** alpha
    return weights, ks


def train():
    alpha = nn.Parameter(torch.tensor(1.5))
    opt = torch.optim.SGD([alpha], lr=0.1)
    {before}
    for _ in range(3):
        {inside}
        opt.zero_grad()
        loss = (weights * ks).sum()
        loss.backward()
        opt.step()
    return alpha


alpha = train()
"""


@pytest.mark.parametrize("moved", [False, True])
def test_a_graph_a_helper_built_is_changed_where_the_loops_function_binds_it(moved: bool) -> None:
    """`weights, ks = make_operator(alpha, 4)` before the loop: the helper's line built the graph,
    but the statement to move into the loop is the call that binds `weights` in the loop's own
    function (the helper's line cannot move there). Moved, each iteration has its own graph and
    `alpha` trains (torch 2.13 raises at the second backward otherwise)."""
    call = "weights, ks = make_operator(alpha, 4)"
    source = _HELPER_BUILT.format(before="pass" if moved else call, inside=call if moved else "pass")
    trained = "alpha.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, None if moved else _SECOND_TIME)
    findings = [(f.code, f.span.line, f.message.split(",")[0]) for f in analyze(source)]
    assert findings == ([] if moved else [("GG103", 14, "`weights` was computed on line 14")])


_LOSS_PER_HEAD = """\
import torch
import torch.nn as nn


def train(enc, heads, opt, picks):
    for it in range(3):
        feats = torch.tanh(enc(torch.randn(2, 4)))
        opt.zero_grad()
        for k in picks:
            loss = heads(feats)[:, k].pow(2).mean()
            loss.backward({retain})
            {inner_step}
        opt.step()


torch.manual_seed(0)
enc, heads = nn.Linear(4, 4), nn.Linear(4, 3)
opt = torch.optim.SGD([*enc.parameters(), *heads.parameters()], lr=0.1)
train(enc, heads, opt, {picks})
"""


@pytest.mark.parametrize(
    ("picks", "retain", "inner_step", "expected"),
    [
        ("[0, 2]", "", "pass", [("GG102", 11)]),  # a known list: one iteration per head
        ("list(range(int(torch.tensor(3))))", "", "pass", [("GG102", 11)]),  # not known: two iterations
        ("[0, 2]", "retain_graph=True", "pass", []),  # kept for the next head, one step after
        # A step per head: the forward is stale, and the steps apply the heads' running sum.
        ("list(range(int(torch.tensor(3))))", "", "opt.step()", [("GG103", 7), ("GG201", 11)]),
    ],
)
def test_a_loss_per_head_of_one_forward_is_a_shared_forward(
    picks: str, retain: str, inner_step: str, expected: list[tuple[str, int]]
) -> None:
    """One forward, then a loop backpropagating a loss per head and one step after the loop: the
    second head's backward meets the shared forward the first freed (torch 2.13 raises). That is
    several losses over one forward (GG102, whose retain_graph=True fix trains both layers), not a
    GAN's fake (one call run in two iterations is not D called twice) nor a stale pre-loop graph;
    with a step per head the forward is stale (GG103) and the gradients are never cleared (GG201)."""
    source = _LOSS_PER_HEAD.format(picks=picks, retain=retain, inner_step=inner_step)
    trained = "enc.weight.grad is not None and heads.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _SECOND_TIME if expected else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == expected


@pytest.mark.parametrize("clear", ["p.grad.zero_()", "p.grad = None"])
def test_grads_cleared_through_a_loop_over_several_leaves_are_clear(clear: str) -> None:
    """Factors updated by hand under no_grad, their `.grad` read for each factor, then cleared by a
    loop over the tuple of factors: the loop variable is any of them, so every factor's `.grad` may
    be clear, and nothing is claimed about a running sum (the program runs clean and trains)."""
    source = textwrap.dedent(
        f"""\
        import torch

        torch.manual_seed(0)
        params = (torch.rand(6, 3, requires_grad=True), torch.rand(8, 3, requires_grad=True))
        P, Q = params
        ratings = torch.rand(6, 8)
        for i in range(3):
            loss = ((P @ Q.T - ratings) ** 2).mean()
            loss.backward()
            with torch.no_grad():
                for p in params:
                    p -= 0.01 * p.grad
            seen = [p.grad is not None for p in params]
            for p in params:
                {clear}
        """
    )
    trained = "all(seen)"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, None)
    assert [(f.code, f.span.line) for f in analyze(source)] == []


_STEP_BETWEEN = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 2))
D = nn.Sequential(nn.Linear(2, 4), nn.Sigmoid(), nn.Linear(4, 1), nn.Sigmoid())
opt_D = torch.optim.SGD(D.parameters(), lr=0.1)
opt_G = torch.optim.SGD({g_params}, lr=0.1)
for step in range(2):
    prob_fake = D(G(torch.randn(4, 2)))
    prob_real = D(torch.randn(4, 2))
    D_loss = -torch.mean(torch.log(prob_real) + torch.log(1.0 - prob_fake))
    G_loss = torch.mean(torch.log(1.0 - prob_fake))
    opt_D.zero_grad()
    D_loss.backward(retain_graph=True)
    opt_D.step()
    {g_opt}.zero_grad()
    G_loss.backward()
    {g_opt}.step()
"""


@pytest.mark.parametrize("two", [True, False])
def test_a_step_between_two_backwards_moves_only_when_one_optimizer_steps(two: bool) -> None:
    """`opt_D.step()` between D's backward (retain_graph=True) and G's through the same D output:
    torch 2.13 raises the in-place error (GG111). With G's own optimizer stepping after, moving
    D's step after G's backward would let G's loss into D's update (its fake term cancels D's):
    no move is offered and the message asks to compute G's loss again. With one optimizer for
    both, the move is the fix, and the fixed program runs and trains both networks."""
    from gradguard.api import fix_source

    g_params = "G.parameters()" if two else "[*G.parameters(), *D.parameters()]"
    source = _STEP_BETWEEN.format(g_params=g_params, g_opt="opt_G" if two else "opt_D")
    (result,) = run_snippets([Snippet(source)])
    _ran_as_claimed(result, "", _MODIFIED_INPLACE)
    [finding] = analyze(source)
    assert (finding.code, finding.span.line) == ("GG111", 16)
    assert ("compute the second loss again after the step" in finding.message) is two
    fixed, applied = fix_source(source, "gan.py", unsafe=True)
    assert applied == (0 if two else 1)
    if not two:
        trained = "all(p.grad is not None for p in [*G.parameters(), *D.parameters()])"
        (after,) = run_snippets([Snippet(fixed, (trained,))])
        _ran_as_claimed(after, trained, None)


@pytest.mark.parametrize(
    ("outer", "inner", "line"),
    [
        ("torch.inference_mode()", "torch.enable_grad()", 17),
        ("torch.inference_mode()", "torch.set_grad_enabled(True)", 17),
        ("torch.no_grad()", "torch.enable_grad()", None),
        ("torch.no_grad()", "torch.inference_mode(False)", None),
        ("torch.inference_mode()", "torch.inference_mode(False)", None),
    ],
)
def test_inference_mode_is_not_undone_by_enable_grad(outer: str, inner: str, line: int | None) -> None:
    """Inside `torch.inference_mode()` nothing records a graph: `enable_grad()` or
    `set_grad_enabled(True)` in it turn grad mode on but not recording, so a gradient of what a
    helper called there computes raises (torch 2.13, a PINN's validation under Lightning's default
    inference mode). Under `no_grad()` they do turn recording back on, and `inference_mode(False)`
    turns grad mode on wherever it is: those run clean."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        net = nn.Linear(3, 1)
        points = torch.rand(4, 3)


        def velocity(x):
            with {inner}:
                x = x.requires_grad_(True)
                u = net(x).sum()
            return u, x


        def derivative(x):
            u, x = velocity(x)
            (du,) = torch.autograd.grad(u, x)
            return du


        with {outer}:
            du = derivative(points)
        """
    ).format(outer=outer, inner=inner)
    (result,) = run_snippets([Snippet(source, ("du.shape == (4, 3)",))])
    _ran_as_claimed(result, "du.shape == (4, 3)", None if line is None else _NO_GRAD_FN)
    findings = [(f.code, f.span.line) for f in analyze(source)]
    assert findings == ([("GG106", line)] if line else [])
    if line:
        assert "`torch.inference_mode()` on line 21" in analyze(source)[0].message


@pytest.mark.parametrize(
    ("frozen", "option", "line"),
    [
        (True, ", use_reentrant=True", 22),
        (True, "", 22),
        (True, ", use_reentrant=False", None),
        (False, ", use_reentrant=True", None),
    ],
)
def test_a_reentrant_checkpoint_of_inputs_without_grad_has_no_graph(
    frozen: bool, option: str, line: int | None
) -> None:
    """Gradient checkpointing over blocks fed by a frozen embedding (LoRA fine-tuning without
    `enable_input_require_grads()`): a reentrant `checkpoint()` (torch 2.13's default) is an
    autograd Function whose output requires grad only when an input does, so the loss has no graph
    and its backward raises, though the blocks' parameters are trainable. Non-reentrant, or with
    a trainable embedding, it trains the blocks."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn
        from torch.utils.checkpoint import checkpoint


        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)

            def forward(self, h):
                return h + torch.tanh(self.fc(h))


        embedding = nn.Embedding(20, 8)
        embedding.weight.requires_grad_({trainable})
        block = Block()
        criterion = nn.MSELoss()
        ids = torch.randint(0, 20, (4, 5))
        h = checkpoint(block, embedding(ids){option})
        loss = criterion(h, torch.zeros(4, 5, 8))
        loss.backward()
        """
    ).format(trainable=not frozen, option=option)
    (result,) = run_snippets([Snippet(source, ("block.fc.weight.grad is not None",))])
    _ran_as_claimed(result, "block.fc.weight.grad is not None", None if line is None else _NO_GRAD_FN)
    findings = analyze(source)
    assert [(f.code, f.span.line) for f in findings] == ([("GG106", line)] if line else [])
    if line:
        assert "pass `use_reentrant=False`" in findings[0].message


@pytest.mark.parametrize(
    ("body", "line"),
    [
        ("acts.append(output.detach())", 13),
        ("output.register_hook(lambda g: acts.append(g))", 13),
        ("return output.sum()", None),
    ],
)
def test_a_forward_hook_that_may_change_the_output_makes_it_unknown(body: str, line: int | None) -> None:
    """A forward hook may replace its module's output (`return output.sum()`) or change it in
    place (`output.requires_grad_()`): what the module returns is then not known, and a claim
    made without the hook (GG109: a (5, 2) output has no implicit gradient) would be false. A hook
    that only keeps or reads the output (Grad-CAM's activations) leaves it as it is, and the
    non-scalar backward is still found; both as torch 2.13 runs them."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
        acts = []


        def hook(module, inputs, output):
            {body}


        model[2].register_forward_hook(hook)
        out = model(torch.randn(5, 3))
        out.backward()
        """
    ).format(body=body)
    trained = "model[0].weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, None if line is None else _NOT_SCALAR)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG109", line + 1)] if line else [])


def test_a_hook_that_makes_the_embedding_output_require_grad_keeps_a_checkpoint_in_the_graph() -> None:
    """`enable_input_require_grads()` (the fix of the LoRA checkpoint bug) registers a forward hook
    on the embedding that calls `output.requires_grad_(True)`: the reentrant checkpoint's input then
    requires grad and the blocks train (torch 2.13), so nothing is reported."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn
        from torch.utils.checkpoint import checkpoint

        embedding = nn.Embedding(20, 8)
        embedding.weight.requires_grad_(False)
        block = nn.Sequential(nn.Linear(8, 8), nn.Tanh())


        def make_inputs_require_grads(module, inputs, output):
            output.requires_grad_(True)


        embedding.register_forward_hook(make_inputs_require_grads)
        h = checkpoint(block, embedding(torch.randint(0, 20, (4, 5))), use_reentrant=True)
        h.pow(2).mean().backward()
        """
    )
    trained = "block[0].weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, None)
    assert analyze(source) == []
    unhooked = source.replace("embedding.register_forward_hook(make_inputs_require_grads)\n", "")
    assert [f.code for f in analyze(unhooked)] == ["GG106"]


@pytest.mark.parametrize(("call", "line"), [("model(**batch)", 17), ("model(batch['x'], batch['y'])", 17)])
def test_a_frozen_model_called_with_keywords_is_followed(call: str, line: int) -> None:
    """`model(**batch)` passes its inputs by keyword: a model whose parameters are all frozen, on
    inputs that require no grad, gives a loss without a graph however its inputs are passed, and
    its backward raises (torch 2.13)."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 1)

            def forward(self, x, y):
                return F.mse_loss(self.fc(x), y)


        model = Net().requires_grad_(False)
        batch = {"x": torch.randn(4, 3), "y": torch.randn(4, 1)}
        loss = {call}
        loss.backward()
        """
    ).replace("{call}", call)
    (result,) = run_snippets([Snippet(source)])
    _ran_as_claimed(result, "", _NO_GRAD_FN)
    assert [(f.code, f.span.line) for f in analyze(source)] == [("GG106", line + 1)]


@pytest.mark.parametrize(
    ("mode", "flag", "line"),
    [("eval", "self.training", 13), ("train", "self.training", None), ("eval", "False", None)],
)
def test_a_create_graph_flag_false_here_gives_a_constant_gradient(
    mode: str, flag: str, line: int | None
) -> None:
    """Forces as the gradient of an energy, with `create_graph=self.training` (SchNet's force
    module): after `model.eval()` the flag is False, the forces are a constant, and the force term of
    the loss trains nothing (torch 2.13: `forces.requires_grad` is False). In train mode it does. A
    literal `create_graph=False` says the constant is meant, and nothing is reported."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class EnergyForce(nn.Module):
            def __init__(self):
                super().__init__()
                self.energy = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))

            def forward(self, positions):
                positions = positions.requires_grad_()
                energy = self.energy(positions)
                grad = torch.autograd.grad(energy.sum(), positions, create_graph={flag}, retain_graph=True)[0]
                return energy, -grad


        model = EnergyForce().{mode}()
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        for step in range(2):
            energy, forces = model(torch.randn(5, 3))
            loss = energy.pow(2).mean() + (forces - 1).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """
    ).format(flag=flag, mode=mode)
    (result,) = run_snippets([Snippet(source, ("not forces.requires_grad",))])
    assert result.error is None and result.effects == {"not forces.requires_grad": mode == "eval"}
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG202", line)] if line else [])


@pytest.mark.parametrize(
    ("unfreeze", "line"),
    [
        ("", 18),
        ("    for name, module in targets:\n        module.weight.requires_grad = True\n", None),
        ("    for name, module in targets:\n        module.requires_grad_(True)\n", None),
    ],
)
def test_unfreezing_a_tensor_not_known_here_leaves_no_module_known_frozen(
    unfreeze: str, line: int | None
) -> None:
    """LoRA-GA's gradient estimate freezes every parameter, then sets `requires_grad = True` on
    target layers found by name: the engine cannot tell which, so no module is known frozen any
    more and the training step's loss is not claimed graph-less (it trains, torch 2.13). With no
    unfreeze, its backward raises."""
    source = textwrap.dedent(
        """\
        import torch


        def estimate(model, targets, step):
            for name, param in model.named_parameters():
                param.requires_grad = False
        {unfreeze}    step()


        def main():
            model = torch.nn.Sequential(torch.nn.Linear(10, 10))

            def train_step():
                for _ in range(2):
                    outputs = model(torch.randn(2, 10))
                    loss = outputs.sum()
                    model.zero_grad()
                    loss.backward()

            estimate(model, list(model.named_modules())[1:], train_step)
            return model


        model = main()
        """
    ).replace("{unfreeze}    ", unfreeze + "    ")
    trained = "model[0].weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, None if line is None else _NO_GRAD_FN)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG106", line)] if line else [])


@pytest.mark.parametrize(
    ("likelihood", "line"),
    [
        (
            "x, mu = (t.detach().numpy() for t in (x, mu))\n"
            "    pre = -0.5 * ((x - mu) ** 2 + np.log(2 * np.pi))\n"
            "    return torch.as_tensor(pre.sum(axis=-1), dtype=torch.float32)",
            27,
        ),
        ("return -0.5 * ((x - mu) ** 2).sum(dim=-1)", None),
    ],
)
def test_a_likelihood_computed_in_numpy_has_no_graph(likelihood: str, line: int | None) -> None:
    """A hand-written log-likelihood computed in NumPy on `.detach().numpy()` arrays (Spinning Up's
    exercise) comes back through `torch.as_tensor` without a graph: the policy loss built on it has
    none and its backward raises (torch 2.13), told as the trip through NumPy. The actor class is the
    default of a parameter (`actor_critic=Actor`), as the module binds it. Computed in torch, it
    trains."""
    source = textwrap.dedent(
        """\
        import numpy as np
        import torch
        import torch.nn as nn


        def log_likelihood(x, mu):
            {likelihood}


        class Actor(nn.Module):
            def __init__(self):
                super().__init__()
                self.mu = nn.Linear(3, 2)

            def forward(self, obs, act):
                return log_likelihood(act, self.mu(obs))


        def train(actor_cls=Actor, steps=2):
            actor = actor_cls()
            opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
            for _ in range(steps):
                loss = -actor(torch.randn(4, 3), torch.randn(4, 2)).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            return actor


        actor = train()
        """
    ).replace("{likelihood}", likelihood)
    trained = "actor.mu.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, None if line is None else _NO_GRAD_FN)
    findings = analyze(source)
    assert [(f.code, f.span.line) for f in findings] == ([("GG106", line)] if line else [])
    if line:
        assert "computing it in NumPy (`.numpy()`) on line 7" in findings[0].message
        assert not findings[0].fixes  # removing `.detach()` would make `.numpy()` raise


@pytest.mark.parametrize(
    ("forward", "raises"),
    [("with torch.no_grad():\n        return model(x)", True), ("return model(x)", False)],
)
def test_what_a_registered_hook_writes_is_unknown_after_registration(forward: str, raises: bool) -> None:
    """torch-cam's extractor sets `self.hook_a = None`, registers a forward hook that stores the
    layer's output there, and raises in `_backprop` while it is still None. The hook runs at the
    model's forward, which the analysis does not follow into the hook: what the hook writes is
    unknown from its registration, so the backward is reached, and scores computed under
    `no_grad` make it raise (torch 2.13); computed with grad, the CAM runs."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))


        class CAM:
            def __init__(self, layer):
                self.hook_a = None
                layer.register_forward_hook(self._hook_a)

            def _hook_a(self, module, inputs, output):
                self.hook_a = output.data

            def weights(self, scores, idx):
                if self.hook_a is None:
                    raise TypeError("forward the model first")
                model.zero_grad()
                scores[:, idx].sum().backward()
                return model[0].weight.grad


        def scores_of(x):
            {forward}


        cam = CAM(model[0])
        grads = cam.weights(scores_of(torch.randn(5, 3)), 1)
        """
    ).replace("{forward}", forward)
    (result,) = run_snippets([Snippet(source, ("grads is not None",))])
    _ran_as_claimed(result, "grads is not None", _NO_GRAD_FN if raises else None)
    findings = analyze(source)
    assert [(f.code, f.span.line) for f in findings] == ([("GG106", 19)] if raises else [])
    if raises:
        assert "`torch.no_grad()` on line 25" in findings[0].message


@pytest.mark.parametrize("detach", [False, True])
def test_a_fake_made_on_two_paths_is_still_the_fake_the_d_step_reuses(detach: bool) -> None:
    """SRGAN's loop updates G first, then D on the same `sr_imgs`, which a helper normalised under
    a test the analysis cannot decide (`if img.dim() == 4:`), so its last op is not known; its graph
    is. D's backward reaches G's graph that G's backward freed (torch 2.13), the GAN pattern (GG105),
    squiggled on D's call in its own step; with `.detach()` there it runs."""
    fake = "sr_imgs.detach()" if detach else "sr_imgs"
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        def normalise(img):
            if img.dim() == 4:
                img = (img - 0.5) / 0.25
            else:
                img = img * 2.0
            return img


        G = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
        D = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
        opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
        opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
        for _ in range(2):
            lr_imgs, hr_imgs = torch.randn(6, 4), torch.randn(6, 4)
            sr_imgs = normalise(G(lr_imgs))
            sr_scores = D(sr_imgs)
            g_loss = F.mse_loss(sr_imgs, hr_imgs) + F.binary_cross_entropy_with_logits(
                sr_scores, torch.ones_like(sr_scores)
            )
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
            hr_scores = D(hr_imgs)
            sr_scores = D({fake})
            d_loss = F.binary_cross_entropy_with_logits(
                sr_scores, torch.zeros_like(sr_scores)
            ) + F.binary_cross_entropy_with_logits(hr_scores, torch.ones_like(hr_scores))
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
        """
    ).replace("{fake}", fake)
    trained = "D[0].weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, None if detach else _SECOND_TIME)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([] if detach else [("GG105", 29)])


@pytest.mark.parametrize("update", ["h += self.skip(y)", "h = h + self.skip(y)"])
def test_a_trajectory_stacked_from_a_list_grown_by_a_solver_keeps_its_graphs(update: str) -> None:
    """A fixed-step ODE solver keeps `ys = [y0]` (no graph) and appends each step's state: the
    stacked trajectory certainly carries the steps' graphs, so an in-place change of the tanh
    output the vector field saved is met by the backward (torch 2.13 raises; GG107, torchdiffeq's
    demo with a residual term added in place). Out of place it trains."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class ODEFunc(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(2, 16)
                self.skip = nn.Linear(2, 16)
                self.fc2 = nn.Linear(16, 2)

            def forward(self, t, y):
                h = torch.tanh(self.fc1(y ** 3))
                {update}
                return self.fc2(h)


        def odeint(func, y0, t):
            ys = [y0]
            y = y0
            for t0, t1 in zip(t[:-1], t[1:]):
                y = y + (t1 - t0) * func(t0, y)
                ys.append(y)
            return torch.stack(ys)


        func = ODEFunc()
        pred = odeint(func, torch.randn(8, 2), torch.linspace(0.0, 1.0, 6))
        loss = pred.abs().mean()
        loss.backward()
        """
    ).replace("{update}", update)
    inplace = "+=" in update
    trained = "func.fc1.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _MODIFIED_INPLACE if inplace else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG107", 14)] if inplace else [])


@pytest.mark.parametrize("where", ["lambda", "closure"])
def test_hooks_that_fill_containers_leave_the_rest_known(where: str) -> None:
    """A lambda forward hook `acts.append(torch.flatten(o))` returns None and keeps the output as it
    is; a hook defined inside `__init__` writes `self.hook_a` of the object it closes over. Neither
    hides what the analysis knows otherwise: `torch` stays the module it is after the registration
    (only the container the hook fills is forgotten), and the model's output under `no_grad` has
    no graph, so its backward raises (torch 2.13; GG106)."""
    register = (
        "model.register_forward_hook(lambda m, i, o: acts.append(torch.flatten(o)))"
        if where == "lambda"
        else "Extractor(model)"
    )
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        model = nn.Linear(3, 2)
        acts = []


        class Extractor:
            def __init__(self, layer):
                self.hook_a = None

                def hook(module, inputs, output):
                    self.hook_a = torch.flatten(output)

                layer.register_forward_hook(hook)


        {register}
        x = torch.randn(4, 3)
        with torch.no_grad():
            out = model(x)
        out.sum().backward()
        """
    ).replace("{register}", register)
    (result,) = run_snippets([Snippet(source)])
    _ran_as_claimed(result, "", _NO_GRAD_FN)
    assert [(f.code, f.span.line) for f in analyze(source)] == [("GG106", 22)]


_NP = "for name, p in model.named_parameters():\n    "
_IP = "for i, (name, p) in enumerate(model.named_parameters()):\n    "
_THEN = ":\n        p."
_ANY_NAMED = _NP + "if any(k in name for k in names)" + _THEN + "requires_grad = False"
_LAYERS = (
    "layers = freeze if isinstance(freeze, list) else range(freeze)\n"
    'names = [f"backbone.{i}." for i in layers] + ["classifier."]\n'
)


@pytest.mark.parametrize(
    ("loop", "frozen_all"),
    [
        (_NP + 'if "classifer" not in name:\n        p.requires_grad = False', True),
        (_NP + 'if "classifier" not in name:\n        p.requires_grad = False', False),
        (_NP + 'p.requires_grad = "lora_" in name', True),
        (_NP + 'p.requires_grad = name.startswith("classifier")', False),
        (_NP + 'if name not in ["classifier.weight", "bias"]:\n        p.requires_grad_(False)', False),
        (_NP + 'if any(k in name for k in ("backbone", "head"))' + _THEN + "requires_grad = False", False),
        (
            _NP + 'if any(k in name for k in ("backbone", "classifier"))' + _THEN + "requires_grad_(False)",
            True,
        ),
        (_NP + 'if "bias" in name:\n        p.requires_grad = False', False),
        (_IP + "if i < 4:\n        p.requires_grad = False", False),
        (_IP + "if i < 6:\n        p.requires_grad = False", True),
        (
            "model.requires_grad_(False)\n"
            + _NP
            + 'if "fc" in name or "classifier" in name'
            + _THEN
            + "requires_grad_()",
            False,
        ),
        # Prefixes made from layer numbers (YOLO's `freeze=N`): `range(3)` names both Linears.
        ('names = [f"backbone.{i}." for i in range(3)] + ["classifier."]\n' + _ANY_NAMED, True),
        ('names = [f"backbone.{i}." for i in range(2)] + ["classifier."]\n' + _ANY_NAMED, False),
        # A number or a list of layer numbers, told apart by `isinstance`; twelve is more layers
        # than the model has.
        ("freeze = 12\n" + _LAYERS + _ANY_NAMED, True),
        ("freeze = [0]\n" + _LAYERS + _ANY_NAMED, False),
    ],
)
def test_freezing_by_name_freezes_what_it_names(loop: str, frozen_all: bool) -> None:
    """`named_parameters()` of a model whose layers are known yields each parameter with the name
    torch gives it (`backbone.0.weight`, `classifier.bias`: the layers' names come from a table
    derived from torch): a freeze by name (a typo, a LoRA prefix the model lacks, an index) that
    catches every parameter leaves the loss without a graph, so its backward raises (torch 2.13;
    GG106, told at the freeze); one that leaves a layer, or part of one, trainable is clean."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.backbone = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8))
                self.classifier = nn.Linear(8, 2)

            def forward(self, x):
                return self.classifier(self.backbone(x))


        model = Net()
        {loop}
        loss = model(torch.randn(3, 4)).sum()
        loss.backward()
        """
    ).replace("{loop}", loop)
    trained = "any(p.grad is not None for p in model.parameters())"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _NO_GRAD_FN if frozen_all else None)
    findings = [(f.code, f.span.line) for f in analyze(source)]
    assert findings == ([("GG106", 18 + loop.count("\n"))] if frozen_all else [])
    if frozen_all:
        (finding,) = analyze(source)
        freeze_line = next(i for i, t in enumerate(source.splitlines(), 1) if "requires_grad" in t)
        assert f"on line {freeze_line}" in finding.message


@pytest.mark.parametrize(("chosen", "line"), [('["conv_0", "conv_1"]', 11), ('["conv_1", "conv_7"]', None)])
def test_names_built_from_known_numbers_decide_membership(chosen: str, line: int | None) -> None:
    """The style transfer tutorial's layer names (`name = "conv_" + str(i)`) are known strings
    when `i` is known, so `if name in style_layers:` decides which layers get a loss module. With
    two of them, each loss module backpropagates its own loss of one forward: the second backward
    meets the shared convolution's freed buffers (torch 2.13 raises; GG102). With one, nothing is
    shared and it runs clean."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class StyleLoss(nn.Module):
            def forward(self, input):
                self.loss = input.pow(2).mean()
                return input.clone()

            def backward(self):
                self.loss.backward()
                return self.loss


        style_layers = {chosen}
        style_losses = []
        model = nn.Sequential()
        for i, layer in enumerate([nn.Conv2d(3, 4, 3, padding=1), nn.Conv2d(4, 4, 3, padding=1)]):
            name = "conv_" + str(i)
            model.add_module(name, layer)
            if name in style_layers:
                sl = StyleLoss()
                model.add_module("style_" + str(i), sl)
                style_losses.append(sl)
        x = nn.Parameter(torch.rand(1, 3, 8, 8))
        model(x)
        for sl in style_losses:
            sl.backward()
        """
    ).replace("{chosen}", chosen)
    trained = "x.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    twice = "RuntimeError: Trying to backward through the graph a second time"
    _ran_as_claimed(result, trained, None if line is None else twice)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG102", line)] if line else [])


@pytest.mark.parametrize(("second", "line"), [('out["values"].sum()', 20), ('out["logits"].sum()', None)])
def test_dicts_merged_by_spreading_keep_their_entries(second: str, line: int | None) -> None:
    """`{**o1, **o2}` (an RLHF actor-critic's outputs merged) holds each dict's entries under their
    keys: two losses of `values` share the value head's graph, freed by the first (torch 2.13 raises;
    GG102), while `values` then `logits` are two graphs and run clean."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class ActorCritic(nn.Module):
            def __init__(self):
                super().__init__()
                self.pi = nn.Linear(4, 2)
                self.v = nn.Linear(4, 1)

            def forward(self, x):
                o1 = {"logits": self.pi(x), "values": None}
                o2 = {"values": self.v(x)}
                return {**o1, **o2}


        model = ActorCritic()
        out = model(torch.randn(3, 4))
        out["values"].pow(2).mean().backward()
        {second}.backward()
        """
    ).replace("{second}", second)
    trained = "model.v.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    twice = "RuntimeError: Trying to backward through the graph a second time"
    _ran_as_claimed(result, trained, None if line is None else twice)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG102", line)] if line else [])


@pytest.mark.parametrize("loop", ["for h in outs:\n    h", "for h in outs[1:]:\n    h"])
def test_an_in_place_change_of_each_element_of_a_list(loop: str) -> None:
    """`for h in outs: h.masked_fill_(done, 0.0)` (a GRU rollout's done mask) changes each element in
    turn: `h1`, which `lin2` saved, is one of them, so the backward raises (torch 2.13; GG107 on the
    change). Over `outs[1:]` only `h2` is changed, which nothing saved: clean."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        lin1 = nn.Linear(4, 8)
        lin2 = nn.Linear(8, 8)
        done = torch.tensor([[True], [False], [False]])
        h1 = torch.tanh(lin1(torch.randn(3, 4)))
        h2 = lin2(h1)
        outs = [h1, h2]
        {loop}.masked_fill_(done, 0.0)
        h2.sum().backward()
        """
    ).replace("{loop}", loop)
    trained = "lin1.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    raises = "outs[1:]" not in loop
    _ran_as_claimed(result, trained, "RuntimeError: one of the variables needed" if raises else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG107", 11)] if raises else [])


@pytest.mark.parametrize("bootstrap", ["model(torch.randn(4))", "model(torch.randn(4)).detach()"])
def test_a_gae_loop_counting_down_takes_the_bootstrap_value_first(bootstrap: str) -> None:
    """`for t in reversed(range(8))`: the first iteration has `t == 7` and takes the bootstrap value,
    whose graph then reaches every advantage and the returns made before the epochs: the second
    epoch's backward meets the freed graph (torch 2.13 raises; GG103). Detached, it runs clean."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        model = nn.Linear(4, 1)
        optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
        states = torch.randn(8, 4)
        rewards = torch.randn(8)
        values = torch.zeros(8)
        last_value = {bootstrap}
        advantages = torch.zeros(8)
        gae = 0.0
        for t in reversed(range(8)):
            next_value = last_value.view(()) if t == 7 else values[t + 1]
            gae = rewards[t] + 0.99 * next_value - values[t] + 0.95 * gae
            advantages[t] = gae
        returns = advantages + values
        for epoch in range(2):
            loss = (model(states).view(-1) - returns).pow(2).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        """
    ).replace("{bootstrap}", bootstrap)
    trained = "model.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    raises = "detach" not in bootstrap
    twice = "RuntimeError: Trying to backward through the graph a second time"
    _ran_as_claimed(result, trained, twice if raises else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG103", 16)] if raises else [])


@pytest.mark.parametrize(
    ("chosen", "line"), [('not n.startswith("disc")', 16), ('n.startswith("enc.0")', None)]
)
def test_a_parameter_group_chosen_by_name_in_a_comprehension(chosen: str, line: int | None) -> None:
    """`[p for n, p in model.named_parameters() if not n.startswith("disc")]` (FactorVAE's VAE
    optimizer) holds the parameters whose names pass: its step between two backwards of one graph
    changes `enc.2.weight`, which that graph saved (torch 2.13 raises; GG111). A group of the
    first layer alone changes nothing the graph saved (its input needs no grad): clean."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        torch.manual_seed(0)
        enc = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 3))
        disc = nn.Linear(3, 2)
        model = nn.ModuleDict({"enc": enc, "disc": disc})
        vae_params = [p for n, p in model.named_parameters() if {chosen}]
        opt_vae = torch.optim.Adam(vae_params, lr=1e-2)
        opt_d = torch.optim.Adam(disc.parameters(), lr=1e-2)
        for it in range(2):
            x = torch.randn(8, 4)
            d_z = disc(torch.tanh(enc(x)))
            opt_vae.zero_grad()
            d_z.mean().backward(retain_graph=True)
            opt_vae.step()
            opt_d.zero_grad()
            d_z.pow(2).mean().backward()
            opt_d.step()
        """
    ).replace("{chosen}", chosen)
    trained = "disc.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, "RuntimeError: one of the variables needed" if line else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG111", line)] if line else [])


@pytest.mark.parametrize("flag", ["True", "False"])
def test_an_inplace_flag_given_by_position(flag: str) -> None:
    """`nn.ReLU(True)` (as the DCGAN example writes it) is `inplace=True`: applied to a convolution's
    output that a Gram matrix saved, it changes that output, and the backward raises (torch 2.13;
    GG107). `nn.ReLU(False)` makes a new tensor: clean."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        conv = nn.Conv2d(3, 8, 3, padding=1)
        relu = nn.ReLU({flag})
        img = nn.Parameter(torch.rand(1, 3, 16, 16))
        out = conv(img)
        x_flat = out.view(8, 256)
        loss = torch.mm(x_flat, x_flat.t()).sum()
        relu(out)
        loss.backward()
        """
    ).replace("{flag}", flag)
    trained = "img.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    raises = flag == "True"
    _ran_as_claimed(result, trained, "RuntimeError: one of the variables needed" if raises else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG107", 10)] if raises else [])


@pytest.mark.parametrize("copy", ["", ".clone()"])
def test_a_view_of_a_tensor_without_grad_shares_its_writes(copy: str) -> None:
    """`state[:, :, 0].unsqueeze(1)` is a view of `state` (an RWKV state cache, no grad): a product
    with a parameter saved it, and writing into `state` afterwards changes it, so the backward
    raises (torch 2.13; GG107 on the write). A `.clone()` of it is a tensor of its own: clean."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        mix = nn.Parameter(torch.full((1, 1, 4), 0.5))
        hidden = torch.randn(2, 1, 4, requires_grad=True)
        state = torch.zeros(2, 4, 3)
        shifted = state[:, :, 0].unsqueeze(1){copy}
        key = hidden * mix + shifted * (1 - mix)
        state[:, :, 0] = hidden[:, -1]
        key.sum().backward()
        """
    ).replace("{copy}", copy)
    trained = "mix.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, None if copy else "RuntimeError: one of the variables needed")
    assert [(f.code, f.span.line) for f in analyze(source)] == ([] if copy else [("GG107", 9)])


@pytest.mark.parametrize("relu", ["nn.ReLU(inplace=True)", "nn.ReLU(True)", "nn.ReLU()"])
def test_an_inplace_layer_of_a_rebuilt_model_is_told_at_the_layer(relu: str) -> None:
    """A style-transfer net rebuilt layer by layer (`for layer in list(cnn)`) with a style loss
    after the convolution: the in-place ReLU then changes the convolution's output, which the loss's
    Gram matrix saved, and the backward raises (torch 2.13). The squiggle is on the ReLU's
    constructor, and the message names what it changes (the layer before's output, not the net's
    input); an out-of-place ReLU is clean."""
    # The rule's own example (GG107's last), with each kind of ReLU.
    example = examples("GG107")[1][-1].source
    assert "nn.ReLU(inplace=True)" in example
    source = example.replace("nn.ReLU(inplace=True)", relu)
    trained = "img.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    raises = relu != "nn.ReLU()"
    _ran_as_claimed(result, trained, "RuntimeError: one of the variables needed" if raises else None)
    findings = analyze(source)
    assert [(f.code, f.span.line) for f in findings] == ([("GG107", 12)] if raises else [])
    if raises:
        assert findings[0].message.startswith(f"`{relu}` changes its input in place")
        assert "img" not in findings[0].message


@pytest.mark.parametrize(("made", "changed"), [("range(2)", 0), ("range(2)", 1), ("range(n)", 0)])
def test_tensors_made_one_per_element_of_a_comprehension_are_distinct(made: str, changed: int) -> None:
    """`[torch.zeros(3) for _ in range(2)]` holds two tensors: changing `bufs[0]` in place leaves
    `bufs[1]`, which the product saved, as it was (torch 2.13 runs clean), while changing `bufs[1]`
    makes the backward raise (GG107). With a count not known, which element is which is not
    known either: nothing is claimed."""
    source = textwrap.dedent(
        """\
        import sys
        import torch

        n = len(sys.argv) + 1
        w = torch.randn(3, requires_grad=True)
        bufs = [torch.zeros(3) for _ in {made}]
        y = (w * bufs[1]).sum()
        bufs[{changed}].add_(1)
        y.backward()
        """
    ).replace("{made}", made).replace("{changed}", str(changed))
    trained = "w.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, "RuntimeError: one of the variables needed" if changed else None)
    claimed = changed == 1 and made == "range(2)"
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG107", 8)] if claimed else [])


@pytest.mark.parametrize(("custom", "line"), [("[dict(cumulative_iters=2)]", 12), ("[]", None)])
def test_a_loop_over_one_element_runs_once_on_it(custom: str, line: int | None) -> None:
    """A runner registering its custom hooks through a helper (`for cfg in custom_hooks:
    self.register_hook(...)`) over a list of one config: the loop runs once, so the hook list
    holds exactly the optimizer hook and the cumulative one, and the second backward of the same
    loss raises (torch 2.13; GG101). With no custom hook, one backward per loss: clean."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        class OptimizerHook:
            def after_train_iter(self, runner):
                runner.optimizer.zero_grad()
                runner.loss.backward()
                runner.optimizer.step()

        class CumulativeHook:
            def after_train_iter(self, runner):
                (runner.loss / 2).backward()

        class Runner:
            def __init__(self, model, custom_hooks):
                self.model = model
                self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
                self.hooks = [OptimizerHook()]
                for cfg in custom_hooks:
                    self.register_hook(CumulativeHook())

            def register_hook(self, hook):
                self.hooks.append(hook)

            def train(self, batches):
                for x in batches:
                    self.loss = self.model(x).pow(2).mean()
                    for hook in self.hooks:
                        hook.after_train_iter(self)

        model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
        Runner(model, {custom}).train([torch.randn(6, 8) for _ in range(2)])
        """
    ).replace("{custom}", custom)
    trained = "model[0].weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    twice = "RuntimeError: Trying to backward through the graph a second time"
    _ran_as_claimed(result, trained, twice if line else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG101", line)] if line else [])


@pytest.mark.parametrize("decorator", ["@torch.enable_grad()", "@torch.enable_grad", ""])
def test_a_function_decorated_with_enable_grad_records_under_no_grad(decorator: str) -> None:
    """An energy-gradient helper decorated with `@torch.enable_grad()` (with or without the call)
    records its graph even when its caller runs under `torch.no_grad()`: its `autograd.grad` works
    (torch 2.13 runs clean). Undecorated, the energy has no graph there and the call raises
    (GG106)."""
    source = textwrap.dedent(
        """\
        import torch

        w = torch.randn(3, requires_grad=True)
        {decorator}
        def energy_grad(x):
            e = (w * x).sum()
            (g,) = torch.autograd.grad(e, w)
            return g

        with torch.no_grad():
            g = energy_grad(torch.ones(3))
        """
    ).replace("{decorator}", decorator)
    found = "g is not None"
    (result,) = run_snippets([Snippet(source, (found,))])
    _ran_as_claimed(result, found, None if decorator else _NO_GRAD_FN)
    assert [f.code for f in analyze(source)] == ([] if decorator else ["GG106"])


@pytest.mark.parametrize("call", ["loss.numpy(force=True)", "loss.numpy()"])
def test_numpy_with_force_detaches_by_itself(call: str) -> None:
    """`t.numpy(force=True)` detaches and copies by itself, so torch 2.13 runs it on a tensor that
    requires grad; `t.numpy()` raises (GG110)."""
    source = textwrap.dedent(
        """\
        import torch

        w = torch.randn(3, requires_grad=True)
        loss = (w * 2).sum()
        value = {call}
        """
    ).replace("{call}", call)
    found = "value is not None"
    (result,) = run_snippets([Snippet(source, (found,))])
    raises = "force" not in call
    refused = "RuntimeError: Can't call numpy() on Tensor that requires grad"
    _ran_as_claimed(result, found, refused if raises else None)
    assert [f.code for f in analyze(source)] == (["GG110"] if raises else [])


@pytest.mark.parametrize(
    ("made", "freeze", "raises"),
    [
        ("nn.ModuleList([nn.Linear(4, 4) for _ in range(6)])", "layers[0].requires_grad_(False)", False),
        ("[nn.Linear(4, 4) for _ in range(3)]", "layers[0].requires_grad_(False)", False),
        (
            "nn.Sequential(*[nn.Linear(4, 4) for _ in range(3)])",
            "for p in layers[1].parameters():\n    p.requires_grad = False",
            False,
        ),
        ("nn.ModuleList([nn.Linear(4, 4) for _ in range(6)])", "layers.requires_grad_(False)", True),
        ("[nn.Linear(4, 4)] * 3", "layers[0].requires_grad_(False)", True),  # one module, three times
    ],
)
def test_freezing_one_of_several_alike_modules_leaves_the_others(
    made: str, freeze: str, raises: bool
) -> None:
    """Layers made by a comprehension are distinct modules: freezing `layers[0]` leaves the others
    training, so the stack's output still has a graph (torch 2.13 runs clean; a false GG106
    before). Freezing the container freezes them all, and `[layer] * 3` is one module three times:
    the backward raises (GG106)."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        layers = {made}
        {freeze}
        x = torch.randn(2, 4)
        for layer in layers:
            x = layer(x)
        x.sum().backward()
        """
    ).replace("{made}", made).replace("{freeze}", freeze)
    trained = "any(p.grad is not None for m in layers for p in m.parameters())"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _NO_GRAD_FN if raises else None)
    assert [f.code for f in analyze(source)] == (["GG106"] if raises else [])


@pytest.mark.parametrize(
    ("accumulate", "kept"),
    [
        ("with torch.no_grad():\n        total = total + loss", False),
        ("with torch.no_grad():\n        total += loss", False),
        ("with torch.set_grad_enabled(False):\n        total = total + loss", False),
        ("total = total + loss", True),
    ],
)
def test_a_sum_made_under_no_grad_keeps_no_graph(accumulate: str, kept: bool) -> None:
    """`total = total + loss` under `torch.no_grad()` records nothing: the sum has no graph (torch
    2.13: `total.grad_fn` is None), so nothing is kept alive (a false GG301 before). With grad on,
    every iteration's graph stays (GG301)."""
    source = textwrap.dedent(
        """\
        import torch

        w = torch.randn(3, requires_grad=True)
        total = 0.0
        for step in range(3):
            loss = (w * step).sum()
            loss.backward()
            {accumulate}
        """
    ).replace("{accumulate}", accumulate)
    effect = "total.grad_fn is not None"
    (result,) = run_snippets([Snippet(source, (effect,))])
    assert result.error is None and result.effects == {effect: kept}
    assert [f.code for f in analyze(source)] == (["GG301"] if kept else [])


@pytest.mark.parametrize(
    ("stored", "replayed", "raises"),
    [("log_prob", "lp", True), ("state", "torch.log_softmax(net(lp), 1)[0, 0]", False)],
)
def test_a_replay_that_sums_every_stored_entry_meets_their_graphs(
    stored: str, replayed: str, raises: bool
) -> None:
    """A replay list filled in the loop that backpropagates the sum of all its entries (A2C with
    stored log-probs): the second iteration's sum holds the first entry, whose graph the first
    backward freed, so it raises (torch 2.13; GG104 on the list carried across iterations).
    Stored states, their log-probs computed again at each replay: clean."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        net = nn.Linear(4, 2)
        memory = []
        for step in range(4):
            state = torch.randn(1, 4)
            log_prob = torch.log_softmax(net(state), 1)[0, 0]
            memory.append({stored})
            loss = 0
            for lp in memory:
                loss = loss + -{replayed}
            loss.backward()
        """
    ).replace("{stored}", stored).replace("{replayed}", replayed)
    trained = "net.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    twice = "RuntimeError: Trying to backward through the graph a second time"
    _ran_as_claimed(result, trained, twice if raises else None)
    codes = [f.code for f in analyze(source)]
    # Stored with their graphs, the entries also keep every iteration's graph alive (GG301).
    assert codes == (["GG104", "GG301"] if raises else [])


@pytest.mark.parametrize(
    ("clear", "flagged"),
    [
        ("for o in (opt_a, opt_b):\n        o.zero_grad()", False),
        ("for o in [opt_b, opt_a]:\n        o.zero_grad()", False),
        ("for o in (opt_a,):\n        o.zero_grad()", True),  # opt_b is never cleared
    ],
)
def test_optimizers_cleared_in_a_loop_over_them(clear: str, flagged: bool) -> None:
    """`for o in (opt_a, opt_b): o.zero_grad()` clears both optimizers' gradients each iteration
    (torch 2.13: each `.grad` equals that iteration's own gradient; a false GG201 before). A loop
    over `opt_a` alone leaves `opt_b`'s to add up (GG201)."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        a = nn.Linear(3, 3)
        b = nn.Linear(3, 1)
        opt_a = torch.optim.SGD(a.parameters(), lr=0.0)  # steps that keep the weights: the
        opt_b = torch.optim.SGD(b.parameters(), lr=0.0)  # last gradient can be compared after
        for i in range(3):
            x = torch.randn(2, 3)
            {clear}
            loss = b(a(x)).sum()
            loss.backward()
            opt_a.step()
            opt_b.step()
        own = torch.autograd.grad(b(a(x)).sum(), b.weight)[0]
        """
    ).replace("{clear}", clear)
    effect = "torch.allclose(b.weight.grad, own, atol=1e-3)"
    (result,) = run_snippets([Snippet(source, (effect,))])
    assert result.error is None and result.effects == {effect: not flagged}
    assert [f.code for f in analyze(source)] == (["GG201"] if flagged else [])


@pytest.mark.parametrize(
    ("made", "flagged"),
    [
        ("model = nn.Linear(4, 1)\n    opt = torch.optim.SGD(model.parameters(), lr=lr)", False),
        ("opt = torch.optim.SGD(model.parameters(), lr=lr)", True),  # one model for every trial
    ],
)
def test_a_model_made_anew_each_iteration_starts_without_gradients(made: str, flagged: bool) -> None:
    """A learning-rate sweep that makes a model and its optimizer in each trial: the new model's
    `.grad` is empty before its one backward (torch 2.13: it equals that loss's own gradient; a
    false GG201 before). One model made before the loop keeps adding up (GG201)."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        x = torch.randn(16, 4)
        y = torch.randn(16, 1)
        model = nn.Linear(4, 1)
        for lr in [0.0, 0.0]:  # steps that keep the weights: the last gradient is compared after
            {made}
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        own = torch.autograd.grad(nn.functional.mse_loss(model(x), y), model.weight)[0]
        """
    ).replace("{made}", made)
    effect = "torch.allclose(model.weight.grad, own, atol=1e-2)"
    (result,) = run_snippets([Snippet(source, (effect,))])
    assert result.error is None and result.effects == {effect: not flagged}
    assert [f.code for f in analyze(source)] == (["GG201"] if flagged else [])


_TARGET_GRAD = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
teacher = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
student = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.Adam(student.parameters(), lr=1e-3)
x = torch.randn(32, 2, requires_grad=True)
{body}
opt.zero_grad()
loss.backward()
"""


@pytest.mark.parametrize(
    ("body", "flagged"),
    [
        # A frozen teacher's input gradient as the target (Jacobian distillation).
        (
            "t_grad = torch.autograd.grad(teacher(x).sum(), x)[0]\n"
            "s_grad = torch.autograd.grad(student(x).sum(), x, create_graph=True)[0]\n"
            "loss = (s_grad - t_grad).pow(2).mean()",
            False,
        ),
        # A direction for a perturbation of the input (virtual adversarial training).
        (
            "g = torch.autograd.grad(student(x).sum(), x)[0]\n"
            "loss = student(x.detach() + 0.1 * F.normalize(g, dim=1)).pow(2).mean()",
            False,
        ),
        # Per-sample weights from the input gradient's size.
        (
            "g = torch.autograd.grad(student(x).sum(), x, retain_graph=True)[0]\n"
            "w = g.norm(dim=1)\n"
            "loss = (w / w.sum() * student(x).squeeze(1)).sum()",
            False,
        ),
        # The student's own derivative in a residual (a PINN): the physics term trains nothing.
        (
            "u = student(x)\n"
            "du = torch.autograd.grad(u.sum(), x, retain_graph=True)[0]\n"
            "loss = (du[:, :1] + u).pow(2).mean()",
            True,
        ),
    ],
)
def test_a_constant_gradient_is_a_penalty_only_where_it_should_train(body: str, flagged: bool) -> None:
    """GG202 tells a gradient taken without `create_graph=True` that enters a loss where its own
    derivative was meant to train (a PINN's residual: torch 2.13 gives the physics term no
    second-order path, so the student's gradient differs from the one with `create_graph=True`).
    A teacher's gradient as a target, a direction for a perturbation, or per-sample weights are
    constant on purpose: the loss still trains the student through its other terms (a false GG202
    before)."""
    source = _TARGET_GRAD.replace("{body}", body)
    effect = "student[0].weight.grad is not None and student[0].weight.grad.norm() > 0"
    # With `create_graph=True` the residual's derivative trains too: another gradient.
    full = (
        "not torch.allclose(student[0].weight.grad, torch.autograd.grad((torch.autograd.grad("
        "student(x).sum(), x, create_graph=True)[0][:, :1] + student(x)).pow(2).mean(), "
        "student[0].weight)[0])"
    )
    effects = (effect, full) if flagged else (effect,)
    (result,) = run_snippets([Snippet(source, effects)])
    assert result.error is None and result.effects == dict.fromkeys(effects, True)
    assert [f.code for f in analyze(source)] == (["GG202"] if flagged else [])


@pytest.mark.parametrize(
    "inner",
    [
        # A Jacobian row by row, then the loss.
        "rows = []\n"
        "    for i in range(3):\n"
        "        (g,) = torch.autograd.grad(y[:, i].sum(), x, retain_graph=True)\n"
        "        rows.append(g)\n"
        "    jacobian = torch.stack(rows, dim=-2)",
        # A loss per head, each backpropagated through the shared trunk.
        "losses = [head(y).pow(2).mean() for head in heads]\n"
        "    for one in losses[:-1]:\n"
        "        one.backward(retain_graph=True)",
    ],
)
def test_several_passes_over_a_graph_each_iteration_builds_are_what_retain_graph_is_for(inner: str) -> None:
    """A graph built anew in each iteration of a training loop, walked several times by an inner
    loop with no step between the passes (a Jacobian row by row, a loss per head): the graph is
    dropped before the step, so `retain_graph=True` hides nothing (torch 2.13 runs clean; a false
    GG302 before, whose fix, dropping the flag, makes it raise)."""
    source = textwrap.dedent(
        """\
        import torch

        net = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))
        heads = torch.nn.ModuleList([torch.nn.Linear(3, 1) for _ in range(3)])
        opt = torch.optim.SGD([*net.parameters(), *heads.parameters()], lr=0.1)
        for step in range(3):
            x = torch.randn(5, 3, requires_grad=True)
            y = net(x)
            {inner}
            loss = y.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """
    ).replace("{inner}", inner)
    trained = "net[0].weight.grad is not None"
    results = run_snippets([Snippet(source, (trained,)), Snippet(source.replace("retain_graph=True", ""))])
    _ran_as_claimed(results[0], trained, None)
    assert results[1].error is not None and "backward through the graph a second time" in results[1].error
    assert analyze(source) == []


@pytest.mark.parametrize("frozen", ["model", "model[0]"])
def test_a_frozen_sequential_gives_what_its_own_modules_return(frozen: str) -> None:
    """A frozen `nn.Sequential` ending in a head of the program that returns a tuple (a detection
    head's classes and boxes): its output is that tuple, of tensors without a graph, so a loss
    unpacking it has none and its backward raises (torch 2.13; GG106). With only the first layer
    frozen, the head trains and nothing is claimed."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.cls = nn.Conv2d(3, 2, 1)
                self.box = nn.Conv2d(3, 4, 1)

            def forward(self, x):
                return self.cls(x), self.box(x)


        class Loss:
            def __call__(self, preds):
                cls, box = preds
                return cls.mean() + box.abs().mean()


        model = nn.Sequential(nn.Conv2d(3, 3, 1), Head())
        for p in {frozen}.parameters():
            p.requires_grad = False
        loss = Loss()(model(torch.randn(2, 3, 4, 4)))
        loss.backward()
        """
    ).replace("{frozen}", frozen)
    trained = "model[1].cls.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _NO_GRAD_FN if frozen == "model" else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG106", 25)] if frozen == "model" else [])


def test_freezing_by_name_leaves_layers_it_cannot_name_alone() -> None:
    """A model holding a layer the analysis does not know (made by `getattr(nn, kind)(...)`): the
    names of the layers it knows are still exact, so a freeze of `backbone.*` and `classifier.*`
    freezes those, but the unknown layer (`extra.weight`) may train, and does (torch 2.13 runs it
    clean): nothing is claimed."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self, kind):
                super().__init__()
                self.backbone = nn.Linear(4, 8)
                self.extra = getattr(nn, kind)(8, 8)
                self.classifier = nn.Linear(8, 2)

            def forward(self, x):
                return self.classifier(self.extra(self.backbone(x)))


        model = Net("Linear")
        for name, p in model.named_parameters():
            if name.startswith("backbone") or name.startswith("classifier"):
                p.requires_grad = False
        loss = model(torch.randn(3, 4)).sum()
        loss.backward()
        """
    )
    trained = "model.extra.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, None)
    assert analyze(source) == []


def test_objects_made_in_a_loop_keep_their_own_state() -> None:
    """Particles made one per iteration (`policy = Particle(); particles.append(policy)`) are distinct
    objects: a rollout that resets each by index (`self.particles[i].reset()`) and fills its list,
    then a loop that reads the lists back (`zip(self.particles[i].log_probs, ...)`) and
    backpropagates each particle's own loss, keeps no graph across updates, and torch 2.13 runs it
    clean: no GG301 (one particle's list does not stand for another's)."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class Particle(nn.Module):
            def __init__(self):
                super().__init__()
                self.actor = nn.Linear(2, 2)
                self.reset()

            def reset(self):
                self.log_probs = []


        class Swarm:
            def __init__(self, n):
                self.particles, self.optimizers = [], []
                for i in range(n):
                    policy = Particle()
                    self.particles.append(policy)
                    self.optimizers.append(torch.optim.SGD(policy.parameters(), lr=0.1))

            def act(self, i, state):
                policy = self.particles[i]
                dist = torch.distributions.Categorical(logits=policy.actor(state))
                action = dist.sample()
                policy.log_probs.append(dist.log_prob(action))
                return action.item()

            def rollout(self, steps):
                for i in range(3):
                    self.particles[i].reset()
                    for t in range(steps):
                        self.act(i, torch.randn(2))

            def train(self):
                for i in range(3):
                    self.act(i, torch.randn(2))  # a bootstrap step, never used
                    terms = []
                    for log_prob, adv in zip(self.particles[i].log_probs, torch.randn(4)):
                        terms.append(log_prob * adv)
                    self.optimizers[i].zero_grad()
                    torch.stack(terms).mean().backward()
                    self.optimizers[i].step()


        swarm = Swarm(3)
        for it in range(3):
            swarm.rollout(4)
            swarm.train()
        """
    )
    trained = "all(p.actor.weight.grad is not None for p in swarm.particles)"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, None)
    assert analyze(source) == []


def test_a_sum_tied_to_a_freed_graph_by_carried_state_is_no_leak() -> None:
    """`err += mse(h, target)` inside the time loop, with `h` carried across epochs: the sum is
    reset every epoch and backpropagated, which raises (torch 2.13) because the carried state ties
    it to the last epoch's freed graph. That is GG104's bug, told at the state; GG301 (a leak) is
    not: the sum is consumed by that backward. A running sum of losses already backpropagated
    (`total += loss` after `loss.backward()`) is still a leak."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        cell = nn.GRUCell(3, 3)
        opt = torch.optim.SGD(cell.parameters(), lr=0.1)
        h = torch.zeros(1, 3)
        total = 0
        for epoch in range(3):
            err = 0
            opt.zero_grad()
            for t in range(4):
                h = cell(torch.randn(1, 3), h)
                err += (h - 1).pow(2).mean()
            err.backward()
            opt.step()
        """
    )
    (result,) = run_snippets([Snippet(source)])
    _ran_as_claimed(result, "", _SECOND_TIME)
    assert [f.code for f in analyze(source)] == ["GG104"]
    leak = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        model = nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        total = 0
        for step in range(3):
            loss = model(torch.randn(4, 3)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss
        """
    )
    assert [(f.code, f.span.line) for f in analyze(leak)] == [("GG301", 12)]


@pytest.mark.parametrize("warmup", [5, 50])
def test_an_arm_only_later_iterations_take_is_followed(warmup: int) -> None:
    """`if step <= warmup:` holds in the first iterations the analysis follows, not after: the
    other arm (acting with the policy's output, `.numpy()` on a tensor that requires grad) runs
    from step warmup + 1 on, and raises there (torch 2.13; GG110). With warmup past the loop's
    last step it never runs, and nothing is claimed."""
    source = textwrap.dedent(
        """\
        import numpy as np
        import torch
        import torch.nn as nn

        actor = nn.Linear(3, 1)
        opt = torch.optim.SGD(actor.parameters(), lr=0.1)
        for step in range(20):
            obs = torch.randn(1, 3)
            if step <= {warmup}:
                action = np.random.uniform(-1.0, 1.0, 1)
            else:
                action = actor(obs).numpy()
            loss = actor(obs).pow(2).mean() + float(action.sum())
            opt.zero_grad()
            loss.backward()
            opt.step()
        """
    ).replace("{warmup}", str(warmup))
    trained = "actor.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, "RuntimeError: Can't call numpy() on Tensor" if warmup < 20 else None)
    expected = [("GG110", 12)] if warmup < 20 else []
    assert [(f.code, f.span.line) for f in analyze(source)] == expected


@pytest.mark.parametrize(("reduce", "line"), [("", 13), (".mean()", None)])
def test_a_normal_draw_has_its_parameters_shape(reduce: str, line: int | None) -> None:
    """`Normal(means, sigmas)` draws one element per parameter element: `sample()` and `log_prob()`
    have the parameters' broadcast shape (16, 4), so a REINFORCE loss of them with an unreduced
    `mse_loss` is not a scalar, and its backward raises (torch 2.13; GG109); reduced, it is clean."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        model = nn.Linear(1, 8)
        x = torch.randn(16, 1)
        y = torch.randn(16, 4)
        res = model(x)
        dist = torch.distributions.Normal(res[:, :4], torch.exp(res[:, 4:]))
        samples = dist.sample()
        mloss = F.mse_loss(samples, y, reduction="none")
        loss = -dist.log_prob(samples) * -mloss
        loss{reduce}.backward()
        """
    ).replace("{reduce}", reduce)
    trained = "model.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _NOT_SCALAR if line else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG109", line)] if line else [])


@pytest.mark.parametrize("order", ["step-between", "steps-after"])
def test_parameters_sorted_by_name_into_optimizers(order: str) -> None:
    """`(enc_params if name.startswith("enc") else head_params).append(p)` over `named_parameters()`
    gives each optimizer the parameters their names pick: the encoder's optimizer stepping between
    two backwards through one graph changes weights the second needs, which raises (torch 2.13;
    GG111); stepping after both backwards is clean."""
    steps = (
        "opt_enc.step()\nhead_loss.backward()\nopt_head.step()"
        if order == "step-between"
        else "head_loss.backward()\nopt_enc.step()\nopt_head.step()"
    )
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 3))
                self.head = nn.Linear(3, 1)

            def forward(self, x):
                h = self.enc(x)
                return h.pow(2).mean(), self.head(h).mean()


        model = Net()
        enc_params, head_params = [], []
        for name, p in model.named_parameters():
            (enc_params if name.startswith("enc") else head_params).append(p)
        opt_enc = torch.optim.SGD(enc_params, lr=0.1)
        opt_head = torch.optim.SGD(head_params, lr=0.1)
        enc_loss, head_loss = model(torch.randn(4, 3))
        opt_enc.zero_grad()
        opt_head.zero_grad()
        enc_loss.backward(retain_graph=True)
        {steps}
        """
    ).replace("{steps}", steps)
    trained = "model.head.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _MODIFIED_INPLACE if order == "step-between" else None)
    expected = [("GG111", 26)] if order == "step-between" else []
    assert [(f.code, f.span.line) for f in analyze(source)] == expected


def test_a_pixel_shuffle_keeps_the_graph_known() -> None:
    """`nn.PixelShuffle` saves nothing and passes its input's graph on (as torch's own modules
    checked in tests/test_autograd_ops_table.py): an upsampler built of it keeps the graph before
    it known, so an in-place change of the sigmoid's output it saved makes the backward raise
    (torch 2.13; GG107)."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class Upsampler(nn.Sequential):
            def __init__(self, n):
                super().__init__(nn.Conv2d(n, 4 * n, 3, padding=1), nn.PixelShuffle(2))


        conv = nn.Conv2d(3, 4, 1)
        up = Upsampler(4)
        feats = torch.sigmoid(conv(torch.randn(1, 3, 4, 4)))
        out = up(feats)
        feats.mul_(0.5)
        out.mean().backward()
        """
    )
    (result,) = run_snippets([Snippet(source)])
    _ran_as_claimed(result, "", _MODIFIED_INPLACE)
    assert [(f.code, f.span.line) for f in analyze(source)] == [("GG107", 14)]


@pytest.mark.parametrize("where", ["every-micro-batch", "after-step"])
def test_a_clear_every_micro_batch_before_a_helper_backward(where: str) -> None:
    """Gradient accumulation whose backward runs in a helper (`loss = self._train_step(batch)`):
    a `zero_grad()` in every iteration, before that call, throws away the micro-batches without a
    step, so the step applies the last one's gradient alone (GG201; proved under torch 2.13: the
    applied gradient equals the last micro-batch's). Cleared after the step, it accumulates."""
    clear_first = "self.optimizer.zero_grad()\n" if where == "every-micro-batch" else ""
    clear_after = "\n                self.optimizer.zero_grad()" if where == "after-step" else ""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class Trainer:
            def __init__(self, model):
                self.model = model
                self.optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
                self.applied = []

            def _train_step(self, x):
                loss = self.model(x).pow(2).mean()
                (loss / 4).backward()
                return loss.item()

            def train(self, batches):
                for micro_step, x in enumerate(batches):
                    {clear_first}loss = self._train_step(x)
                    if (micro_step + 1) % 4 == 0:
                        self.applied.append(self.model.weight.grad.clone())
                        self.optimizer.step(){clear_after}


        torch.manual_seed(0)
        batches = [torch.randn(2, 3) for _ in range(8)]
        trainer = Trainer(nn.Linear(3, 1))
        trainer.train(batches)
        last = nn.Linear(3, 1)
        last.load_state_dict(trainer.model.state_dict())
        (last(batches[-1]).pow(2).mean() / 4).backward()
        only_last = torch.allclose(trainer.applied[-1], last.weight.grad)
        """
    )
    source = source.replace("{clear_first}", clear_first.replace("\n", "\n            "))
    source = source.replace("{clear_after}", clear_after)
    (result,) = run_snippets([Snippet(source, ("only_last",))])
    assert result.error is None and result.effects == {"only_last": where == "every-micro-batch"}
    found = [(f.code, f.span.line) for f in analyze(source)]
    assert found == ([("GG201", 18)] if where == "every-micro-batch" else [])


def test_weight_decay_groups_by_name_train_as_before() -> None:
    """The usual weight-decay grouping (`no_decay` for biases and norms, by name) hands every
    parameter to the optimizer: an ordinary training loop over it is clean (torch 2.13 trains both
    groups), and a missing `zero_grad()` is still found (GG201)."""
    loop = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        model = nn.Sequential(nn.Linear(3, 8), nn.LayerNorm(8), nn.Linear(8, 1))
        decay, no_decay = [], []
        for name, p in model.named_parameters():
            if name.endswith("bias") or name.startswith("1."):
                no_decay.append(p)
            else:
                decay.append(p)
        groups = [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}]
        opt = torch.optim.AdamW(groups, lr=1e-3)
        for step in range(3):
            {clear}loss = model(torch.randn(4, 3)).pow(2).mean()
            loss.backward()
            opt.step()
        """
    )
    clean = loop.replace("{clear}", "opt.zero_grad()\n    ")
    trained = "model[1].weight.grad is not None and model[0].weight.grad is not None"
    (result,) = run_snippets([Snippet(clean, (trained,))])
    _ran_as_claimed(result, trained, None)
    assert analyze(clean) == []
    assert [f.code for f in analyze(loop.replace("{clear}", ""))] == ["GG201"]


@pytest.mark.parametrize(
    ("read", "between", "line"),
    [
        ("values[2]", "", 13),
        ("values[-1]", "", 13),
        ("values[epoch]", "", None),
        ("values[0]", "values.pop(0)", None),
    ],
)
def test_an_element_read_by_index_from_a_list_filled_in_a_loop(
    read: str, between: str, line: int | None
) -> None:
    """`values[2]` of a list filled by appends in a finished loop is the same tensor in every epoch:
    its graph, freed by the first epoch's backward, is met again by the second, which raises (torch
    2.13; GG103, told on the backward of the reuse, with the line that built it). Another element
    each epoch (`values[epoch]`), or the list shortened between the reads, runs clean: nothing."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn

        model = nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        xs = torch.randn(5, 3)
        values = []
        for t in range(5):
            values.append(model(xs[t]))
        for epoch in range(3):
            opt.zero_grad()
            loss = {read}.sum()
            loss.backward()
            opt.step()
            {between or "pass"}
        """
    )
    trained = "model.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _SECOND_TIME if line else None)
    findings = analyze(source)
    assert [(f.code, f.span.line) for f in findings] == ([("GG103", line)] if line else [])
    if line:
        assert "computed on line 9" in findings[0].message


@pytest.mark.parametrize("cut", [True, False])
def test_an_op_the_engine_does_not_model_keeps_a_tensor_without_grad(cut: bool) -> None:
    """`arcsin`, `hypot` and the like are not modelled, but torch declares them to return a tensor,
    and none requires grad when no input does: a loss built from a value computed under `no_grad`
    through them has no graph, and its backward raises (torch 2.13; GG106). Without the cut, the
    same loss trains `w`: nothing."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn.functional as F

        w = torch.randn(3, requires_grad=True)
        with torch.{"no_grad" if cut else "enable_grad"}():
            h = w * 0.5
        loss = F.normalize(h, dim=0).arcsin().hypot(torch.ones(3)).pow(2).sum()
        loss.backward()
        """
    )
    trained = "w.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _NO_GRAD_FN if cut else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG106", 8)] if cut else [])


@pytest.mark.parametrize(
    "op", ["x.max(1)", "torch.max(x, dim=1)", "x.sort(1)", "x.topk(2, 1)", "x.median(1)"]
)
@pytest.mark.parametrize("after", ["x.add_(1)", "v.sum().backward()"])
def test_values_of_a_selection_keep_only_their_indices(op: str, after: str) -> None:
    """`x.max(1)`, `x.sort(1)`, `x.topk(2, 1)`: the values' backward keeps the indices, not `x`
    (scripts/probe_autograd_ops.py asks torch), so changing `x` in place afterwards runs clean
    (torch 2.13) and is no GG107; a second loss on the values, backpropagated after the first
    freed their graph, still raises (GG102)."""
    source = textwrap.dedent(
        f"""\
        import torch

        w = torch.randn(3, 4, requires_grad=True)
        x = w * 1.0
        v = {op}[0]
        v.sum().backward(retain_graph=False)
        {after}
        """
    )
    twice = after.endswith("backward()")
    trained = "w.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _SECOND_TIME if twice else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG102", 7)] if twice else [])


def test_a_list_concatenated_then_sorted_and_returned_is_no_leak() -> None:
    """A detector's NMS fills a list per class, concatenates it, sorts the scores and returns them
    (YOLACT): the list's graphs reach the caller, so it is no accumulation (GG301); before, the
    sort dropped what the values carried."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        net = nn.Linear(4, 3)

        def nms(scores):
            kept = []
            for c in range(scores.size(0)):
                kept.append(scores[c, :2])
            out = torch.cat(kept, dim=0)
            out, order = out.sort(0, descending=True)
            return out

        def main():
            out = nms(net(torch.randn(5, 4)).t())
            out.sum().backward()
            return net.weight.grad

        if __name__ == "__main__":
            main()
        """
    )
    trained = "net.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, None)
    assert analyze(source) == []


@pytest.mark.parametrize(("trained", "code", "line"), [("enc", "GG111", 12), ("disc", "GG105", 13)])
def test_a_second_loss_through_the_discriminator_that_trains_the_fakes_maker(
    trained: str, code: str, line: int
) -> None:
    """A VAE-GAN: the decoder's loss goes through the discriminator on the reconstruction, then
    the encoder's loss goes through it again, to train the encoder (the optimizer stepped after
    it). The decoder's step in between changed weights that graph saved, so the second backward
    raises (torch 2.13): the step is the fault (GG111), and detaching the reconstruction would stop
    the encoder's training. When the optimizer after the second loss trains the discriminator, it
    is a GAN's D step on a fake that is not detached (GG105)."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn

        enc, dec, disc = nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 1)
        opt_dec = torch.optim.SGD(dec.parameters(), lr=0.1)
        opt_next = torch.optim.SGD({trained}.parameters(), lr=0.1)
        x = torch.randn(8, 4)
        rec = dec(torch.tanh(enc(x)))
        err_dec = disc(rec).mean()
        opt_dec.zero_grad()
        err_dec.backward(retain_graph=True)
        opt_dec.step()
        err_next = (disc(rec) - disc(x)).pow(2).mean()
        opt_next.zero_grad()
        err_next.backward()
        opt_next.step()
        """
    )
    (result,) = run_snippets([Snippet(source, ("enc.weight.grad is not None",))])
    _ran_as_claimed(result, "", _MODIFIED_INPLACE)
    assert [(f.code, f.span.line) for f in analyze(source)] == [(code, line)]


@pytest.mark.parametrize(
    ("norm", "flagged"),
    [
        ("nn.InstanceNorm2d(3)", False),
        ("nn.InstanceNorm2d(3, affine=True)", True),
        ("nn.BatchNorm2d(3, affine=False)", False),
        ("nn.GroupNorm(1, 3, affine=False)", False),
        ("nn.LayerNorm([3, 8, 8], elementwise_affine=False)", False),
        ("nn.LayerNorm([3, 8, 8])", True),
    ],
)
def test_a_norm_without_affine_weights_has_no_parameter(norm: str, flagged: bool) -> None:
    """Data normalised once by a norm built without affine weights (InstanceNorm by default,
    `affine=False`, `elementwise_affine=False`) has no graph: reusing it every epoch runs clean
    (torch 2.13). With the weights, the graph is built once and the second epoch's backward
    raises (GG103)."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn

        norm = {norm}
        head = nn.Linear(3 * 8 * 8, 2)
        opt = torch.optim.SGD([*head.parameters(), *norm.parameters()], lr=0.1)
        feats = norm(torch.randn(4, 3, 8, 8)).flatten(1)
        for epoch in range(2):
            opt.zero_grad()
            loss = head(feats).pow(2).mean()
            loss.backward()
            opt.step()
        """
    )
    trained = "head.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _SECOND_TIME if flagged else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG103", 7)] if flagged else [])


def test_a_clear_before_a_loop_of_micro_batch_backwards_is_in_place() -> None:
    """A backward for an input gradient (FGSM), then `zero_grad()`, then a loop of micro-batch
    backwards, then the step: the step applies the loop's gradients (torch 2.13 runs clean), so
    the clear is where it belongs (no GG201)."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        model = nn.Linear(6, 3)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for step in range(2):
            x, y = torch.rand(8, 6), torch.randint(0, 3, (8,))
            xb = x.clone().requires_grad_(True)
            F.cross_entropy(model(xb), y).backward()
            x_adv = (xb + 0.05 * xb.grad.sign()).detach()
            opt.zero_grad()
            for xa, ya in zip(x_adv.chunk(2), y.chunk(2)):
                F.cross_entropy(model(xa), ya).backward()
            opt.step()
        """
    )
    trained = "model.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, None)
    assert analyze(source) == []


@pytest.mark.parametrize(
    "freeze",
    [
        "backbone.requires_grad_(requires_grad=False)",
        "for m in backbone.modules():\n    m.requires_grad_(False)",
        "backbone.apply(freeze)",
    ],
)
def test_freezing_the_engine_does_not_follow_leaves_the_backbone_unknown(freeze: str) -> None:
    """Features of a backbone frozen by `requires_grad_(requires_grad=False)`, through its
    `modules()` or by `apply(fn)` have no graph: reusing them every epoch runs clean (torch 2.13),
    so no GG103 (before, the keyword was read as True and the other two were not seen)."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        def freeze(m):
            for p in m.parameters(recurse=False):
                p.requires_grad = False

        backbone = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        {freeze}
        feats = backbone(torch.randn(6, 4))
        head = nn.Linear(8, 2)
        opt = torch.optim.SGD(head.parameters(), lr=0.1)
        for epoch in range(2):
            opt.zero_grad()
            head(feats).pow(2).mean().backward()
            opt.step()
        """
    ).replace("{freeze}", freeze.replace("\n", "\n"))
    trained = "head.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, None)
    assert analyze(source) == []


@pytest.mark.parametrize(
    "cut",
    [
        "for s in state:\n        s.detach_()",
        "cut_(state)",
    ],
)
def test_state_detached_in_place_through_its_elements_is_not_carried(cut: str) -> None:
    """An LSTM state `(h, c)` detached in place element by element, in the loop or in a helper,
    no longer drags the last segment's graph (torch 2.13 runs clean): no GG104."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        def cut_(state):
            for t in state:
                t.detach_()

        lstm = nn.LSTM(3, 5)
        opt = torch.optim.SGD(lstm.parameters(), lr=0.1)
        data = torch.randn(12, 2, 3)
        state = (torch.zeros(1, 2, 5), torch.zeros(1, 2, 5))
        for i in range(0, 12, 4):
            {cut}
            out, state = lstm(data[i : i + 4], state)
            opt.zero_grad()
            out.pow(2).mean().backward()
            opt.step()
        """
    ).replace("{cut}", cut)
    trained = "lstm.weight_ih_l0.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, None)
    assert analyze(source) == []


@pytest.mark.parametrize(("target", "flagged"), [("T", True), ("out", False)])
def test_a_store_through_chained_plain_indexes_changes_the_tensor(target: str, flagged: bool) -> None:
    """`T[b][t] = lin(T[b][t])`: `T[b]` is a view, so the store changes `T` in place, which the
    layer saved (its input is a view of `T`): the backward raises (torch 2.13; GG107, as for
    `T[b, t] = ...`). Stored into another tensor, nothing saved is changed: nothing."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn

        lin = nn.Linear(4, 4)
        T = torch.randn(2, 3, 4) * torch.ones(4).requires_grad_()
        out = torch.zeros(2, 3, 4)
        for b in range(2):
            for t in range(3):
                {target}[b][t] = lin(T[b][t])
        {target}.sum().backward()
        """
    )
    trained = "lin.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _MODIFIED_INPLACE if flagged else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG107", 9)] if flagged else [])


@pytest.mark.parametrize("frozen", [True, False])
def test_a_criterion_module_keeps_the_freeze_as_the_reason(frozen: bool) -> None:
    """A criterion written as an `nn.Module` of the program (a triplet loss) on features of a frozen
    layer: no graph, and the backward raises (torch 2.13); the freeze is the reason to tell
    (GG106), not dropped as what merely made the criterion's input. Not frozen: it trains."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn

        class Crit(nn.Module):
            def forward(self, x):
                return x.pow(2).sum()

        lin = nn.Linear(3, 5)
        lin.requires_grad_({not frozen})
        loss = Crit()(lin(torch.randn(8, 3)))
        loss.backward()
        """
    )
    trained = "lin.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _NO_GRAD_FN if frozen else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG106", 11)] if frozen else [])


@pytest.mark.parametrize(("epoch", "frozen"), [(0, True), (1, False)])
def test_an_and_of_known_comparisons_decides_the_branch(epoch: int, frozen: bool) -> None:
    """`if epoch + 1 <= fixbase_epoch and open_layers is not None:` (torchreid's fixbase) on known
    values is decided: the backbone is frozen in epoch 0, and the backward of its output raises
    (torch 2.13; GG106); in epoch 1 the branch does not run and it trains."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn

        model = nn.Linear(4, 2)
        epoch, fixbase_epoch, open_layers = {epoch}, 1, ["classifier"]
        if epoch + 1 <= fixbase_epoch and open_layers is not None:
            for p in model.parameters():
                p.requires_grad = False
        model(torch.randn(3, 4)).sum().backward()
        """
    )
    trained = "model.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _NO_GRAD_FN if frozen else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG106", 9)] if frozen else [])


@pytest.mark.parametrize(
    ("first", "error", "code"),
    [
        ("torch.autograd.backward(loss_a, None, True)", None, None),
        ("torch.autograd.backward(loss_a, None, False)", _SECOND_TIME, "GG102"),
        ("torch.autograd.grad(loss_a, [net.weight], None, True)", None, None),
        ("loss_a.backward(None, True)", None, None),
        ("loss_a.backward(**{'retain_graph': True})", None, None),
    ],
)
def test_backward_flags_given_by_position_or_spread(first: str, error: str | None, code: str | None) -> None:
    """`torch.autograd.backward(loss, None, True)`, `torch.autograd.grad(loss, ps, None, True)`,
    `loss.backward(None, True)`: retain_graph by position (torch's signatures); `**kw`: not known.
    The second loss on the shared forward runs clean after them (torch 2.13); with False it raises
    (GG102)."""
    source = textwrap.dedent(
        f"""\
        import torch
        import torch.nn as nn

        net = nn.Linear(4, 4)
        h = torch.tanh(net(torch.randn(3, 4)))
        loss_a = h.pow(2).mean()
        loss_b = h.mean()
        {first}
        loss_b.backward()
        """
    )
    trained = "net.weight.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, error)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([(code, 9)] if code else [])


@pytest.mark.parametrize("call", ["d.backward(**kw)", "torch.autograd.grad(d, x, **kw)"])
def test_a_gradient_passed_in_a_spread_dict_is_given(call: str) -> None:
    """`d.backward(**kw)` / `torch.autograd.grad(d, x, **kw)` with the gradient in the dict: the
    non-scalar pass runs (torch 2.13), so no GG109."""
    name = "gradient" if call.startswith("d.") else "grad_outputs"
    source = textwrap.dedent(
        f"""\
        import torch

        x = torch.randn(5, requires_grad=True)
        d = x * 2
        kw = {{"{name}": torch.ones(5)}}
        {call}
        """
    )
    (result,) = run_snippets([Snippet(source, ("x.requires_grad",))])
    _ran_as_claimed(result, "x.requires_grad", None)
    assert analyze(source) == []


@pytest.mark.parametrize(
    ("expr", "flagged"), [("x / 2.0", False), ("x / t", False), ("t / x", True), ("x**2", True)]
)
def test_what_a_division_saves(expr: str, flagged: bool) -> None:
    """`x / 2.0` and `x / t` keep the divisor, not `x`: changing `x` in place afterwards runs clean
    (torch 2.13), while `t / x` keeps `x` for its own gradient, as `x**2` does (GG107)."""
    source = textwrap.dedent(
        f"""\
        import torch

        w = torch.randn(3, requires_grad=True)
        t = torch.rand(3) + 1
        x = w * 1.0
        y = {expr}
        x.add_(1)
        y.sum().backward()
        """
    )
    trained = "w.grad is not None"
    (result,) = run_snippets([Snippet(source, (trained,))])
    _ran_as_claimed(result, trained, _MODIFIED_INPLACE if flagged else None)
    assert [(f.code, f.span.line) for f in analyze(source)] == ([("GG107", 7)] if flagged else [])


@pytest.mark.parametrize(
    "make",
    [
        "f = feats.detach().requires_grad_(True)",
        "f = feats.data.requires_grad_(True)",
        "f = feats.detach()\n    f.requires_grad_(True)",
    ],
)
def test_a_leaf_made_again_each_iteration_starts_without_a_grad(make: str) -> None:
    """`feats.detach().requires_grad_()` (or `.data`) makes a new tensor each iteration, whose
    `.grad` starts as None though it shares `feats`' memory: each map is that iteration's gradient
    alone (torch 2.13 runs clean), so no GG201 (the one leaf of a PGD loop is still followed)."""
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        head = nn.Linear(4, 3)
        feats = torch.randn(5, 4)
        maps = []
        for i in range(3):
            {make}
            head(f)[:, i].sum().backward()
            maps.append(f.grad.abs())
        """
    ).replace("{make}", make)
    (result,) = run_snippets([Snippet(source, ("head.weight.grad is not None",))])
    _ran_as_claimed(result, "head.weight.grad is not None", None)
    assert analyze(source) == []
