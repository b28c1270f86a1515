"""Every rule example, through the server: its diagnostic, the preferred quick fix resolved and
applied as VS Code would, the result re-analysed clean and run clean under torch."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import CONFIG, RecordingClient, apply_text_edits, edits_by_uri, open_doc, replace_all, start
from lsprotocol import types

from gradguard.rules import RULES, examples

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from torch_runner import Snippet, run_snippets  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def client(lsp_client: RecordingClient, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("rules")
    await start(lsp_client, root)
    lsp_client.root = root  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def test_each_preferred_fix_runs_clean_under_torch(client: RecordingClient) -> None:
    root = Path(client.root)  # type: ignore[attr-defined]
    # GG000 (code that does not parse) offers no fix: gradguard cannot know what was meant.
    cases = [(code, i, ex) for code in RULES if code != "GG000" for i, ex in enumerate(examples(code)[1])]
    fixed_sources: dict[str, str] = {}
    for code, index, example in cases:
        name = f"{code}_{index}"
        uri = (root / f"{name}.py").as_uri()
        open_doc(client, uri, example.source)
        diagnostics = await client.wait_for_version(uri, 1)
        mine = [d for d in diagnostics if d.code == code and d.range.start.line == example.line - 1]
        assert mine, f"{name}: no {code} diagnostic on line {example.line}: {diagnostics}"
        result = await client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri),
                mine[0].range,
                types.CodeActionContext(diagnostics=[mine[0]]),
            )
        )
        preferred = [a for a in result or [] if isinstance(a, types.CodeAction) and a.is_preferred]
        assert len(preferred) == 1, f"{name}: expected one preferred fix, got {result}"
        resolved = await client.code_action_resolve_async(preferred[0])
        fixed = apply_text_edits(example.source, edits_by_uri(resolved.edit)[uri])
        replace_all(client, uri, example.source, fixed, 2)
        after = await client.wait_for_version(uri, 2)
        assert not [d for d in after if d.code == code], f"{name}: still reported after the fix:\n{fixed}"
        fixed_sources[name] = fixed
    effects = {f"{code}_{i}": (ex.effect,) if ex.effect else () for code, i, ex in cases}
    snippets = [Snippet(src, effects[name], f"<{name}-lsp-fixed>") for name, src in fixed_sources.items()]
    for (name, source), outcome in zip(fixed_sources.items(), run_snippets(snippets), strict=True):
        assert outcome.error is None, f"{name}: the fixed code raises {outcome.error}:\n{source}"
        assert all(value is False for value in outcome.effects.values()), f"{name}: effect persists"
