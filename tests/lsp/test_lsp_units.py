"""The LSP layer's pure parts, without a server: settings validation, positions, hover text."""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace import PositionCodec

from gradguard.findings import Span
from gradguard.lsp.hover import _why_section
from gradguard.lsp.positions import from_position, split_lines, to_range
from gradguard.lsp.settings import DEFAULT_DEBOUNCE_MS, EditorSettings, parse
from gradguard.settings import Settings

UTF16 = PositionCodec(types.PositionEncodingKind.Utf16)
UTF8 = PositionCodec(types.PositionEncodingKind.Utf8)


def test_settings_defaults_and_shapes() -> None:
    assert parse(None) == (EditorSettings(), [])
    assert parse({}) == (EditorSettings(), [])
    nested, _ = parse({"gradguard": {"codeAction": {"fixViolation": {"enable": False}}}})
    flat, _ = parse({"settings": {"codeAction.fixViolation.enable": False}})
    assert not nested.fix_violation and not flat.fix_violation
    # VS Code's "unset" for array and object settings.
    assert parse({"select": [], "severity": {}}) == (EditorSettings(), [])


def test_bad_settings_get_a_message_and_the_default() -> None:
    settings, messages = parse(
        {"select": ["GG999"], "ignore": "GG1", "enable": 1, "debounce": "fast", "severity": {"GG1": "loud"}}
    )
    assert settings == EditorSettings()
    assert len(messages) == 5
    assert all(m.startswith("gradguard.") for m in messages)
    assert any("'GG999' matches no known rule" in m for m in messages)
    assert any(f"using {DEFAULT_DEBOUNCE_MS}" in m for m in messages)
    assert parse([1, 2])[1] == ["gradguard settings: expected an object, got [1, 2]; using the defaults"]


def test_editor_settings_go_on_top_of_pyproject() -> None:
    base, _ = Settings.from_mapping({"ignore": ["GG103"], "severity": {"GG1": "warning"}})
    editor, _ = parse({"select": ["GG1"], "ignore": ["GG101"], "severity": {"GG1": "hint"}})
    merged = editor.apply(base)
    assert merged.enabled("GG102") and not merged.enabled("GG101") and not merged.enabled("GG201")
    assert merged.severity_for("GG102") == "hint"
    isolated, _ = parse({"useConfigFile": False})
    assert isolated.apply(base).enabled("GG103")


def test_positions_in_utf16_and_utf8() -> None:
    lines = split_lines('s = "😀漢"; y\r\nz\rw\u2028still line 3\n')
    assert lines == ['s = "😀漢"; y', "z", "w\u2028still line 3", ""]
    span = Span(1, 10, 1, 11)  # `y`
    assert to_range(lines, span, UTF16) == types.Range(types.Position(0, 11), types.Position(0, 12))
    assert to_range(lines, span, UTF8) == types.Range(types.Position(0, 15), types.Position(0, 16))
    assert from_position(lines, types.Position(0, 11), UTF16) == (1, 10)
    assert from_position(lines, types.Position(0, 15), UTF8) == (1, 10)
    assert from_position(lines, types.Position(9, 3), UTF16) == (5, 0)


def test_hover_sections_come_from_the_rule_docs() -> None:
    error, why = _why_section("GG103")
    assert error.startswith("```text\nRuntimeError: Trying to backward through the graph a second time")
    assert "first iteration's backward frees" in why
    effect, _ = _why_section("GG201")
    assert effect.startswith("`backward()` adds into `.grad`")


def test_an_edit_is_analysed_from_the_last_analysis_with_the_same_findings() -> None:
    """documents.analyse with the last result's memo (what the server passes on each edit) replays
    what the edit cannot change, and publishes what a fresh analysis finds."""
    import sys
    from pathlib import Path

    from gradguard.lsp import documents
    from gradguard.lsp.positions import TextLocator

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from gen_training_script import generate

    def snap(text: str, version: int) -> documents.Snapshot:
        return documents.Snapshot(
            "file:///t.py", version, text, None, TextLocator("file:///t.py", text, UTF16)
        )

    source = generate(600)
    first = documents.analyse(snap(source, 1), Settings(), EditorSettings(), False)
    assert first.memo is not None and first.findings
    line = next(text for text in source.split("\n") if text.startswith("        loss = "))
    edited = source.replace(line, line + "  # edited", 1)
    again = documents.analyse(snap(edited, 2), Settings(), EditorSettings(), True, None, first.memo)
    fresh = documents.analyse(snap(edited, 2), Settings(), EditorSettings(), True)
    assert again.memo is not None and again.memo.replayed == len(again.memo.units) - 1
    assert again.findings == fresh.findings and again.backwards == fresh.backwards
