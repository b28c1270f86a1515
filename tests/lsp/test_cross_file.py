"""Cross-file analysis in the editor: a document's diagnostics follow the project's modules it
imports, as the editor has them (unsaved text included), and are republished when one changes."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import CONFIG, RecordingClient, open_doc, replace_all, start
from lsprotocol import types

pytestmark = pytest.mark.asyncio

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
FIXED = MODEL.replace("h.mul_(2)", "h = h * 2")
TRAIN = """\
import torch
from model import Net

net = Net()
loss = net(torch.randn(3, 4))
loss.backward()
"""


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: RecordingClient, tmp_path: Path):
    lsp_client.root = tmp_path  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def test_importers_follow_the_unsaved_text_of_a_module(client: RecordingClient) -> None:
    root = Path(client.root)  # type: ignore[attr-defined]
    (root / "pyproject.toml").write_text("")
    (root / "model.py").write_text(MODEL)
    (root / "train.py").write_text(TRAIN)
    await start(client, root)
    train, model = (root / "train.py").as_uri(), (root / "model.py").as_uri()
    open_doc(client, train, TRAIN)

    def codes(params: object) -> list[str]:
        return [str(d.code) for d in params.diagnostics]  # type: ignore[attr-defined]

    found = await client.wait_for_push(train, lambda p: codes(p) == ["GG107"])
    [diagnostic] = found.diagnostics
    assert diagnostic.range.start.line == 4  # `loss = net(...)`, 0-based
    assert "(in model.py, line 12)" in diagnostic.message
    assert diagnostic.related_information is not None
    assert any(
        r.location.uri == model and r.location.range.start.line == 11 for r in diagnostic.related_information
    )

    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(train), types.Position(4, 8))
    )
    assert hover is not None and "model.py line 12" in str(hover.contents)

    # The model is opened and fixed in the editor, not saved: the training script is analysed again.
    open_doc(client, model, MODEL)
    mark = len(client.pushes)
    replace_all(client, model, MODEL, FIXED, 2)
    await client.wait_for_push(train, lambda p: codes(p) == [], start=mark)
    assert (root / "model.py").read_text() == MODEL  # nothing was written

    # And broken again.
    mark = len(client.pushes)
    replace_all(client, model, FIXED, MODEL, 3)
    await client.wait_for_push(train, lambda p: codes(p) == ["GG107"], start=mark)
