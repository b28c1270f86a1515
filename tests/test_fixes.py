"""Fix primitives on realistic PyTorch snippets: exact output text, and minimal edits reproducing it."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from gradguard.findings import FixRef, Span, TextEdit
from gradguard.fixes import apply_edits, compute, new_source, node_span, split_lines


def span(src: str, kind: type[ast.AST], nth: int = 0, text: str | None = None) -> list[int]:
    """Code-point span of the ``nth`` node of type ``kind`` in source order (optionally with that text)."""
    lines = split_lines(src)
    nodes = [n for n in ast.walk(ast.parse(src)) if isinstance(n, kind)]
    if text is not None:
        nodes = [n for n in nodes if ast.get_source_segment(src, n) == text]
    nodes.sort(key=lambda n: (n.lineno, n.col_offset))  # type: ignore[attr-defined]
    return node_span(nodes[nth], lines).to_json()


def fix(src: str, kind: str, **params: Any) -> str | None:
    ref = FixRef(kind, f"title {kind}", "tradeoff", params)
    result = compute(src, ref)
    if result is None:
        assert new_source(src, ref) is None
        return None
    assert result.title == f"title {kind}" and result.tradeoff == "tradeoff" and not result.preferred
    out = apply_edits(src, result.edits)
    assert out == new_source(src, ref)
    ast.parse(out)
    return out


# -- spans --------------------------------------------------------------------------------------


def test_node_span_counts_code_points() -> None:
    src = "x = '😀中文' + h.detach()\n"
    call = span(src, ast.Call)
    assert call == [1, 12, 1, 22]
    assert src[12:22] == "h.detach()"


# -- append / unwrap ----------------------------------------------------------------------------


def test_append_after_emoji_and_cjk() -> None:
    src = "for x in loader:\n    print('损失 😀', loss)  # log\n"
    out = fix(src, "append", expr=span(src, ast.Name, text="loss"), suffix=".item()")
    assert out == "for x in loader:\n    print('损失 😀', loss.item())  # log\n"


def test_append_parenthesises_operators_not_atoms() -> None:
    src = "total = total + a * b\nz = y[0]\n"
    out = fix(src, "append", expr=span(src, ast.BinOp, text="a * b"), suffix=".detach()")
    assert out == "total = total + (a * b).detach()\nz = y[0]\n"
    out = fix(src, "append", expr=span(src, ast.Subscript), suffix=".detach().cpu()")
    assert out == "total = total + a * b\nz = y[0].detach().cpu()\n"


def test_append_keeps_existing_parentheses_and_parenthesises_int() -> None:
    src = "loss = (out - t).pow(2)\nv = (out - t)\nw = 1\n"
    out = fix(src, "append", expr=span(src, ast.BinOp, 1), suffix=".mean()")
    assert out == "loss = (out - t).pow(2)\nv = (out - t).mean()\nw = 1\n"
    out = fix(src, "append", expr=span(src, ast.Constant, 1), suffix=".real")
    assert out == "loss = (out - t).pow(2)\nv = (out - t)\nw = (1).real\n"


def test_append_multiline_expression() -> None:
    src = "loss = criterion(\n    model(x),  # forward\n    y,\n)\n"
    out = fix(src, "append", expr=span(src, ast.Call), suffix=".mean()")
    assert out == "loss = criterion(\n    model(x),  # forward\n    y,\n).mean()\n"


def test_append_rejects_non_trailer_suffix() -> None:
    src = "y = x\n"
    assert fix(src, "append", expr=span(src, ast.Name, 1), suffix=" + 1") is None


def test_unwrap_detach_and_item() -> None:
    src = "fake = G(z)\nd_loss = D(fake.detach())\nrunning += loss.item()  # total\n"
    out = fix(src, "unwrap", expr=span(src, ast.Call, text="fake.detach()"))
    assert out == "fake = G(z)\nd_loss = D(fake)\nrunning += loss.item()  # total\n"
    out = fix(src, "unwrap", expr=span(src, ast.Call, text="loss.item()"))
    assert out == "fake = G(z)\nd_loss = D(fake.detach())\nrunning += loss  # total\n"


def test_unwrap_keeps_parentheses() -> None:
    src = "h = (h0 + c).detach()\n"
    assert fix(src, "unwrap", expr=span(src, ast.Call)) == "h = (h0 + c)\n"


def test_unwrap_needs_a_method_call() -> None:
    src = "y = f(x)\n"
    assert fix(src, "unwrap", expr=span(src, ast.Call)) is None


# -- keywords -----------------------------------------------------------------------------------


def test_set_keyword_appends_or_replaces() -> None:
    src = "loss.backward()\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    out = fix(src, "set-keyword", call=span(src, ast.Call, 0), name="retain_graph", value="True")
    assert out == "loss.backward(retain_graph=True)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    out = fix(src, "set-keyword", call=span(src, ast.Call, 1), name="lr", value="1e-3")
    assert out == "loss.backward()\nopt = torch.optim.SGD(model.parameters(), lr=1e-3)\n"
    out = fix(src, "set-keyword", call=span(src, ast.Call, 1), name="momentum", value="0.9")
    assert out == "loss.backward()\nopt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)\n"


def test_set_keyword_one_argument_per_line() -> None:
    src = "grads = torch.autograd.grad(\n    outputs=d_out,\n    inputs=x_hat,  # interpolated\n)\n"
    out = fix(src, "set-keyword", call=span(src, ast.Call), name="create_graph", value="True")
    assert out == (
        "grads = torch.autograd.grad(\n"
        "    outputs=d_out,\n"
        "    inputs=x_hat,  # interpolated\n"
        "    create_graph=True,\n"
        ")\n"
    )


def test_set_keyword_same_value_is_no_fix() -> None:
    src = "loss.backward(retain_graph=True)\n"
    assert fix(src, "set-keyword", call=span(src, ast.Call), name="retain_graph", value="True") is None


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("f(a, )\n", "f(a, k=1, )\n"),
        ("f(\n    a,\n)\n", "f(\n    a,\n    k=1,\n)\n"),
        ("f(*args)\n", "f(*args, k=1)\n"),
        ("f(\n    a,  # ca\n    b=1,  # cb\n)\n", "f(\n    a,  # ca\n    b=1,  # cb\n    k=1,\n)\n"),
    ],
)
def test_set_keyword_layouts(src: str, expected: str) -> None:
    assert fix(src, "set-keyword", call=span(src, ast.Call), name="k", value="1") == expected


def test_drop_keyword() -> None:
    src = (
        "loss.backward(retain_graph=True)\n"
        "g = torch.autograd.grad(l, x, retain_graph=True, create_graph=True)\n"
    )
    out = fix(src, "drop-keyword", call=span(src, ast.Call, 0), name="retain_graph")
    assert out is not None and out.splitlines()[0] == "loss.backward()"
    out = fix(src, "drop-keyword", call=span(src, ast.Call, 1), name="retain_graph")
    assert out is not None and out.splitlines()[1] == "g = torch.autograd.grad(l, x, create_graph=True)"
    out = fix(src, "drop-keyword", call=span(src, ast.Call, 1), name="create_graph")
    assert out is not None and out.splitlines()[1] == "g = torch.autograd.grad(l, x, retain_graph=True)"
    assert fix(src, "drop-keyword", call=span(src, ast.Call, 1), name="allow_unused") is None


def test_drop_keyword_multiline() -> None:
    src = "loss.backward(\n    gradient=g,\n    retain_graph=True,  # why\n)\n"
    out = fix(src, "drop-keyword", call=span(src, ast.Call), name="retain_graph")
    assert out == "loss.backward(\n    gradient=g,\n)\n"
    src = "loss.backward(\n    gradient=g,\n    retain_graph=True)\n"
    out = fix(src, "drop-keyword", call=span(src, ast.Call), name="retain_graph")
    assert out == "loss.backward(\n    gradient=g)\n"


# -- remove / replace ---------------------------------------------------------------------------


def test_remove_stmt_keeps_comments_around_it() -> None:
    src = (
        "for x, t in loader:\n"
        "    out, h = rnn(x, h)\n"
        "\n"
        "    # hidden state\n"
        "    h.detach()  # no effect\n"
        "    loss = crit(out, t)\n"
    )
    out = fix(src, "remove-stmt", stmt=span(src, ast.Expr))
    assert out == (
        "for x, t in loader:\n    out, h = rnn(x, h)\n\n    # hidden state\n    loss = crit(out, t)\n"
    )


def test_remove_stmt_leaves_pass_in_empty_nested_block() -> None:
    src = (
        "def train(model, loader):\n"
        "    for x in loader:\n"
        "        if x is None:\n"
        "            # stale\n"
        "            h.detach()\n"
        "        step(x)\n"
    )
    out = fix(src, "remove-stmt", stmt=span(src, ast.Expr, 0))
    assert out == (
        "def train(model, loader):\n"
        "    for x in loader:\n"
        "        if x is None:\n"
        "            # stale\n"
        "            pass\n"
        "        step(x)\n"
    )


def test_remove_last_stmt_of_block_keeps_comment_as_footer() -> None:
    src = "for x in loader:\n    step(x)\n    # cleanup\n    h.detach()\nprint('done')\n"
    out = fix(src, "remove-stmt", stmt=span(src, ast.Expr, 1))
    assert out == "for x in loader:\n    step(x)\n    # cleanup\nprint('done')\n"


def test_remove_one_of_several_statements_on_a_line() -> None:
    src = "for i in range(3):\n    msg = '😀'; h.detach(); y = h @ w  # carry\n"
    out = fix(src, "remove-stmt", stmt=span(src, ast.Expr))
    assert out == "for i in range(3):\n    msg = '😀'\n    y = h @ w  # carry\n"


def test_remove_only_stmt_of_one_line_suite() -> None:
    src = "if debug: h.detach()  # why\nloss.backward()\n"
    out = fix(src, "remove-stmt", stmt=span(src, ast.Expr, 0))
    assert out == "if debug: pass  # why\nloss.backward()\n"


def test_replace_stmt_indents_text_and_keeps_comment() -> None:
    src = "with torch.enable_grad():\n    for p in params:\n        p.data.add_(g)  # sgd\n"
    out = fix(
        src,
        "replace-stmt",
        stmt=span(src, ast.Expr),
        text="with torch.no_grad():\n    p.add_(g)",
    )
    assert out == (
        "with torch.enable_grad():\n"
        "    for p in params:\n"
        "        with torch.no_grad():  # sgd\n"
        "            p.add_(g)\n"
    )


def test_replace_stmt_decorated_function() -> None:
    src = "@torch.no_grad()\ndef evaluate(model):\n    return model(x)\n\nprint(1)\n"
    out = fix(src, "replace-stmt", stmt=span(src, ast.FunctionDef), text="evaluate = None")
    assert out == "evaluate = None\n\nprint(1)\n"


# -- insertions ---------------------------------------------------------------------------------


def test_insert_before_goes_below_the_comment_above() -> None:
    src = (
        "if train:\n    out = torch.sigmoid(x @ w)\n    # mask\n    out[0] = 0.0\n    out.sum().backward()\n"
    )
    out = fix(src, "insert-before", anchor=span(src, ast.Assign, 1), text="out = out.clone()")
    assert out == (
        "if train:\n"
        "    out = torch.sigmoid(x @ w)\n"
        "    # mask\n"
        "    out = out.clone()\n"
        "    out[0] = 0.0\n"
        "    out.sum().backward()\n"
    )


def test_insert_loop_top_for_loop_keeps_body_comment() -> None:
    src = "h = torch.zeros(1, 16)\nfor x in seq:  # time steps\n    # step\n    h = cell(x, h)\n"
    out = fix(src, "insert-loop-top", loop=span(src, ast.For), text="h = h.detach()")
    assert out == (
        "h = torch.zeros(1, 16)\nfor x in seq:  # time steps\n"
        "    h = h.detach()\n    # step\n    h = cell(x, h)\n"
    )


def test_insert_loop_top_while_loop() -> None:
    src = "step = 0\nwhile step < 100:\n    loss = model(x).sum()\n    loss.backward()\n    step += 1\n"
    out = fix(src, "insert-loop-top", loop=span(src, ast.While), text="opt.zero_grad()")
    assert out == (
        "step = 0\n"
        "while step < 100:\n"
        "    opt.zero_grad()\n"
        "    loss = model(x).sum()\n"
        "    loss.backward()\n"
        "    step += 1\n"
    )


def test_insert_loop_top_one_line_loop() -> None:
    src = "for x in batches: train_step(x)  # fast path\n"
    out = fix(src, "insert-loop-top", loop=span(src, ast.For), text="opt.zero_grad()")
    assert out == "for x in batches:\n    opt.zero_grad()\n    train_step(x)  # fast path\n"


def test_insert_two_statements_and_nested_loop() -> None:
    src = "for epoch in range(3):\n    for x in loader:\n        loss = f(x)\n"
    out = fix(
        src,
        "insert-loop-top",
        loop=span(src, ast.For, 1),
        text="# reset\nopt.zero_grad()\nh = h.detach()\n",
    )
    assert out == (
        "for epoch in range(3):\n"
        "    for x in loader:\n"
        "        # reset\n"
        "        opt.zero_grad()\n"
        "        h = h.detach()\n"
        "        loss = f(x)\n"
    )


# -- moves --------------------------------------------------------------------------------------

TRAIN = """\
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, t in loader:
    out = model(x)
    loss = crit(out, t)
    loss.backward()
    # clear
    opt.zero_grad()
    opt.step()
"""


def test_move_before() -> None:
    out = fix(TRAIN, "move-before", stmt=span(TRAIN, ast.Expr, 1), anchor=span(TRAIN, ast.Assign, 1))
    assert out == (
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, t in loader:\n"
        "    # clear\n"
        "    opt.zero_grad()\n"
        "    out = model(x)\n"
        "    loss = crit(out, t)\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )


def test_move_after() -> None:
    out = fix(TRAIN, "move-after", stmt=span(TRAIN, ast.Expr, 1), anchor=span(TRAIN, ast.Expr, 2))
    assert out == (
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, t in loader:\n"
        "    out = model(x)\n"
        "    loss = crit(out, t)\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    # clear\n"
        "    opt.zero_grad()\n"
    )


def test_move_before_reindents_into_outer_block() -> None:
    src = "for x in loader:\n    if first:\n        w = torch.randn(3, requires_grad=True)\n    y = x @ w\n"
    out = fix(src, "move-before", stmt=span(src, ast.Assign, 0), anchor=span(src, ast.For))
    assert (
        out == "w = torch.randn(3, requires_grad=True)\nfor x in loader:\n"
        "    if first:\n        pass\n    y = x @ w\n"
    )


def test_move_reindents_continuation_lines() -> None:
    src = "w = init(\n    3,\n    4)\nfor x in loader:\n    if ok:\n        g(w)\n"
    out = fix(src, "move-before", stmt=span(src, ast.Assign), anchor=span(src, ast.Expr))
    assert (
        out
        == "for x in loader:\n    if ok:\n        w = init(\n            3,\n            4)\n        g(w)\n"
    )


def test_move_into_loop_two_statements() -> None:
    src = (
        "h = torch.zeros(1, 8)\n"
        "y = t @ a  # built once\n"
        "for x in loader:\n"
        "    # forward\n"
        "    out, h = rnn(x, h)\n"
        "    (out + y).sum().backward()\n"
    )
    out = fix(
        src,
        "move-into-loop",
        stmts=[span(src, ast.Assign, 0), span(src, ast.Assign, 1)],
        loop=span(src, ast.For),
    )
    assert out == (
        "for x in loader:\n"
        "    h = torch.zeros(1, 8)\n"
        "    y = t @ a  # built once\n"
        "    # forward\n"
        "    out, h = rnn(x, h)\n"
        "    (out + y).sum().backward()\n"
    )


def test_move_into_loop_rejects_the_loop_itself() -> None:
    src = "for x in loader:\n    f(x)\n"
    assert fix(src, "move-into-loop", stmts=[span(src, ast.For)], loop=span(src, ast.For)) is None


# -- wrap / rewrite-inplace ---------------------------------------------------------------------


def test_wrap_with_keeps_comments() -> None:
    src = "for p in model.parameters():\n    # manual SGD\n    p -= lr * p.grad  # step\n"
    out = fix(src, "wrap-with", stmt=span(src, ast.AugAssign), header="with torch.no_grad():")
    assert out == (
        "for p in model.parameters():\n"
        "    # manual SGD\n"
        "    with torch.no_grad():\n"
        "        p -= lr * p.grad  # step\n"
    )


def test_wrap_with_needs_a_block_header() -> None:
    src = "x = 1\n"
    assert fix(src, "wrap-with", stmt=span(src, ast.Assign), header="torch.no_grad()") is None


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("y.add_(1)", "y = y.add(1)"),
        ("self.h.mul_(decay)  # ema", "self.h = self.h.mul(decay)  # ema"),
        ("y.data.clamp_(min=0)", "y = y.clamp(min=0)"),
        ("y += a", "y = y + a"),
        ("y -= a + b", "y = y - (a + b)"),
        ("y /= 2 * n", "y = y / (2 * n)"),
        ("y *= -s", "y = y * -s"),
        ("y *= s ** 2", "y = y * s ** 2"),
    ],
)
def test_rewrite_inplace(line: str, expected: str) -> None:
    src = f"y = torch.sigmoid(x)\n{line}\ny.sum().backward()\n"
    out = fix(src, "rewrite-inplace", stmt=span(src, ast.stmt, 1))
    assert out == f"y = torch.sigmoid(x)\n{expected}\ny.sum().backward()\n"


def test_rewrite_inplace_index_assignment_clones_first() -> None:
    src = "def f(x):\n    y = torch.exp(x)\n    y[0] = 0  # mask\n    return y\n"
    out = fix(src, "rewrite-inplace", stmt=span(src, ast.Assign, 1))
    assert out == "def f(x):\n    y = torch.exp(x)\n    y = y.clone()\n    y[0] = 0  # mask\n    return y\n"


@pytest.mark.parametrize("line", ["y.zero_()", "z = y.add_(1)", "f(y)[0].add_(1)", "y @= w"])
def test_rewrite_inplace_declines(line: str) -> None:
    src = f"{line}\n"
    assert fix(src, "rewrite-inplace", stmt=span(src, ast.stmt)) is None


# -- file formats -------------------------------------------------------------------------------


def test_crlf_file_stays_crlf() -> None:
    src = "for x in loader:\r\n    # fwd\r\n    loss = f(x)\r\n    loss.backward()\r\n"
    out = fix(src, "insert-loop-top", loop=span(src, ast.For), text="opt.zero_grad()")
    assert (
        out == "for x in loader:\r\n    opt.zero_grad()\r\n"
        "    # fwd\r\n    loss = f(x)\r\n    loss.backward()\r\n"
    )
    out = fix(src, "wrap-with", stmt=span(src, ast.Assign), header="with torch.no_grad():")
    assert out == (
        "for x in loader:\r\n    # fwd\r\n    with torch.no_grad():\r\n"
        "        loss = f(x)\r\n    loss.backward()\r\n"
    )
    out = fix(src, "remove-stmt", stmt=span(src, ast.Expr))
    assert out == "for x in loader:\r\n    # fwd\r\n    loss = f(x)\r\n"


def test_tab_indentation() -> None:
    src = "def step():\n\tfor x in loader:\n\t\tloss = f(x)\n\t\tloss.backward()\n"
    out = fix(
        src, "wrap-with", stmt=span(src, ast.Expr), header="with torch.autograd.set_detect_anomaly(True):"
    )
    assert out == (
        "def step():\n"
        "\tfor x in loader:\n"
        "\t\tloss = f(x)\n"
        "\t\twith torch.autograd.set_detect_anomaly(True):\n"
        "\t\t\tloss.backward()\n"
    )
    out = fix(src, "insert-loop-top", loop=span(src, ast.For), text="with torch.no_grad():\n    ema.update()")
    assert out == (
        "def step():\n"
        "\tfor x in loader:\n"
        "\t\twith torch.no_grad():\n"
        "\t\t\tema.update()\n"
        "\t\tloss = f(x)\n"
        "\t\tloss.backward()\n"
    )


def test_file_without_final_newline() -> None:
    src = "for x in loader:\n    loss.backward()"
    out = fix(src, "insert-loop-top", loop=span(src, ast.For), text="opt.zero_grad()")
    assert out == "for x in loader:\n    opt.zero_grad()\n    loss.backward()"
    assert fix(src, "remove-stmt", stmt=span(src, ast.Expr)) == "for x in loader:\n    pass"


def test_byte_order_mark_is_kept() -> None:
    src = "\ufeffy = x.detach()\n"
    result = compute(src, FixRef("unwrap", "t", "t", {"expr": [1, 4, 1, 14]}))
    assert result is not None
    assert apply_edits(src, result.edits) == "\ufeffy = x\n"


def test_form_feed_before_statement() -> None:
    # libcst restarts its column count after a form feed in the indentation; ast does not.
    src = "if a:\n    x = 1\n\x0c    y = x.detach()\n"
    out = fix(src, "unwrap", expr=span(src, ast.Call))
    assert out is not None and out.endswith("y = x\n")


def test_parenthesised_tuple_and_generator_spans() -> None:
    src = "sizes = (\n    4,  # batch\n    8,\n)\ntotal = sum(x * w for x in xs)\n"
    out = fix(src, "append", expr=span(src, ast.Tuple), suffix="[0]")
    assert out == "sizes = (\n    4,  # batch\n    8,\n)[0]\ntotal = sum(x * w for x in xs)\n"
    out = fix(src, "append", expr=span(src, ast.GeneratorExp), suffix="[0]")
    assert out is not None and out.endswith("total = sum((x * w for x in xs)[0])\n")


def test_starred_element_is_not_an_expression_to_extend() -> None:
    src = "args = (*xs, y)\n"
    assert fix(src, "append", expr=span(src, ast.Starred), suffix=".detach()") is None


def test_append_to_assignment_target_gives_none() -> None:
    src = "for h in hs:\n    pass\n"
    assert fix(src, "append", expr=span(src, ast.Name), suffix=".detach()") is None


# -- stale and bad input ------------------------------------------------------------------------


def test_stale_span_gives_none() -> None:
    src = "y = x.detach()\nloss.backward()\n"
    old = span(src, ast.Call, 0)
    edited = "# moved\n" + src
    assert fix(edited, "unwrap", expr=old) is None
    assert fix(src, "unwrap", expr=[1, 4, 1, 9]) is None  # a span that is not a call
    assert fix(src, "remove-stmt", stmt=[1, 0, 1, 5]) is None
    assert fix(src, "insert-loop-top", loop=span(src, ast.Assign), text="x = 1") is None


@pytest.mark.parametrize(
    ("source", "kind", "params"),
    [
        ("x = (\n", "remove-stmt", {"stmt": [1, 0, 1, 5]}),
        ("x = 1\n", "no-such-kind", {}),
        ("x = 1\n", "remove-stmt", {}),
        ("x = 1\n", "remove-stmt", {"stmt": "1:0"}),
        ("x = 1\n", "remove-stmt", {"stmt": [1, 0, 1]}),
        ("x = 1\n", "replace-stmt", {"stmt": [1, 0, 1, 5], "text": "def ("}),
        ("x = 1\n", "replace-stmt", {"stmt": [1, 0, 1, 5], "text": 3}),
        ("x = 1\n", "multi", {"parts": "nope"}),
        ("x = 1\n", "set-keyword", {"call": [1, 4, 1, 5], "name": "a b", "value": "1"}),
    ],
)
def test_bad_input_gives_none(source: str, kind: str, params: dict[str, Any]) -> None:
    assert compute(source, FixRef(kind, "t", "t", params)) is None


# -- multi --------------------------------------------------------------------------------------


def test_multi_applies_all_parts() -> None:
    src = "fake = G(z)\nd_loss = crit(D(fake), zeros)\nd_loss.backward()\n"
    out = fix(
        src,
        "multi",
        parts=[
            {
                "kind": "append",
                "params": {"expr": span(src, ast.Name, text="fake", nth=1), "suffix": ".detach()"},
            },
            {"kind": "insert-before", "params": {"anchor": span(src, ast.Expr), "text": "d_opt.zero_grad()"}},
        ],
    )
    assert (
        out == "fake = G(z)\nd_loss = crit(D(fake.detach()), zeros)\nd_opt.zero_grad()\nd_loss.backward()\n"
    )


def test_multi_move_into_loop_and_set_keyword_on_loop_body() -> None:
    src = "y = t @ a\nfor i in range(2):\n    y.sum().backward()\n"
    out = fix(
        src,
        "multi",
        parts=[
            {
                "kind": "move-into-loop",
                "params": {"stmts": [span(src, ast.Assign)], "loop": span(src, ast.For)},
            },
            {
                "kind": "set-keyword",
                "params": {
                    "call": span(src, ast.Call, text="y.sum().backward()"),
                    "name": "retain_graph",
                    "value": "False",
                },
            },
        ],
    )
    assert out == "for i in range(2):\n    y = t @ a\n    y.sum().backward(retain_graph=False)\n"


def test_multi_is_all_or_nothing() -> None:
    src = "y = x.detach()\nloss.backward()\n"
    good = {"kind": "unwrap", "params": {"expr": span(src, ast.Call, 0)}}
    stale = {"kind": "remove-stmt", "params": {"stmt": [9, 0, 9, 4]}}
    assert fix(src, "multi", parts=[good, stale]) is None
    # Two changes to one statement, or an edit inside a removed statement, do not combine.
    remove = {"kind": "remove-stmt", "params": {"stmt": span(src, ast.Assign)}}
    assert fix(src, "multi", parts=[good, remove]) is None
    assert fix(src, "multi", parts=[remove, remove]) is None


# -- edits --------------------------------------------------------------------------------------


def test_edits_are_minimal() -> None:
    src = "a = 1\nloss.backward()\nb = 2\n"
    result = compute(
        src,
        FixRef(
            "set-keyword", "t", "t", {"call": span(src, ast.Call), "name": "retain_graph", "value": "True"}
        ),
    )
    assert result is not None
    assert result.edits == (TextEdit(Span(2, 14, 2, 14), "retain_graph=True"),)


def test_edits_use_code_point_columns() -> None:
    src = "s = '😀😀'; y = x.detach()\n"
    result = compute(src, FixRef("unwrap", "t", "t", {"expr": span(src, ast.Call)}))
    assert result is not None
    assert result.edits == (TextEdit(Span(1, 15, 1, 24), ""),)
    assert apply_edits(src, result.edits) == "s = '😀😀'; y = x\n"


def test_apply_edits_rejects_overlap() -> None:
    with pytest.raises(ValueError):
        apply_edits("abcdef\n", [TextEdit(Span(1, 0, 1, 3), "x"), TextEdit(Span(1, 2, 1, 4), "y")])
    assert apply_edits("ab\n", [TextEdit(Span(1, 1, 1, 1), "1"), TextEdit(Span(1, 1, 1, 1), "2")]) == "a12b\n"


def _gg109_fixed(body: str) -> str:
    from gradguard.api import fix_source

    src = (
        "import torch\nimport torch.nn as nn\n\nmodel = nn.Linear(3, 1)\n"
        "crit = nn.MSELoss(reduction='none')\nfor _ in range(2):\n"
        "    loss = crit(model(torch.randn(4, 3)), torch.randn(4, 1))\n"
        "    loss.backward()\n" + body
    )
    return fix_source(src, "x.py", unsafe=True)[0]


def test_gg109_rebinds_a_loss_read_later_as_a_number() -> None:
    # `loss.item()` after the backward needs the number too: `loss = loss.mean()` before it.
    fixed = _gg109_fixed("    print(loss.item())\n")
    assert "    loss = loss.mean()\n    loss.backward()\n" in fixed


def test_gg109_keeps_the_per_sample_loss_other_reads_use() -> None:
    # Per-sample priorities read the loss after the backward: only the backward is reduced.
    fixed = _gg109_fixed("    priorities = loss.detach().abs()\n")
    assert "loss.mean().backward()" in fixed and "loss = loss.mean()" not in fixed
