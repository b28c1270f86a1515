"""Hover text: what a finding will do at run time, why, the graph's chain and the fixes; on a
``.backward(`` call without a finding, which graphs it frees and whether anything later needs them."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from lsprotocol import types

from .. import registry
from ..engine.report import BackwardInfo
from ..findings import Finding
from .documents import Result
from .positions import contains

_FENCE = re.compile(r"^```[\w-]*\n(.*?)^```\s*$", re.S | re.M)


@functools.lru_cache(maxsize=64)
def _why_section(code: str) -> tuple[str, str]:
    """(what happens at run time, why) from the rule's ``## Why is this bad`` section: the first
    fenced block is torch's exact error; a rule without one (silent damage) opens with its effect."""
    try:
        from ..rules import rule_module

        doc = rule_module(code).__doc__ or ""
    except (ImportError, KeyError):
        return "", ""
    match = re.search(r"^## Why is this bad\s*\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
    if match is None:
        return "", ""
    section = match.group(1).strip()
    fence = _FENCE.search(section)
    if fence is not None and re.match(r"\s*\w*(Error|Exception|Warning)\b", fence.group(1)):
        error = fence.group(1).strip()
        before = section[: fence.start()].rstrip()
        if before.endswith(":"):
            # "... and torch raises:" introduced the error, which now has its own heading.
            cut = max(before.rfind(". "), before.rfind(".\n"))
            before = before[: cut + 1] if cut >= 0 else ""
        why = "\n\n".join(part for part in (before.strip(), section[fence.end() :].strip()) if part)
        return f"```text\n{error}\n```", why
    paragraphs = [p.strip() for p in section.split("\n\n") if p.strip()]
    # A silent rule's effect may be announced ("Nothing raises, but:") and listed in what follows.
    take = 2 if paragraphs and paragraphs[0].endswith(":") else 1
    return "\n\n".join(paragraphs[:take]), "\n\n".join(paragraphs[take:])


def finding_markdown(finding: Finding, result: Result, uri: str) -> str:
    describe = result.snapshot.locator.describe
    rule = registry.all_rules()
    name = next((str(getattr(r, "name", "")) for r in rule if getattr(r, "code", None) == finding.code), "")
    severity = result.settings.severity_for(finding.code)
    parts = [f"**{finding.code}** `{name}` ({severity})" if name else f"**{finding.code}** ({severity})"]
    parts.append(describe(finding.message, uri))
    at_runtime, why = _why_section(finding.code)
    if at_runtime:
        parts.append(f"**At run time**\n\n{at_runtime}")
    if why:
        parts.append(f"**Why**\n\n{why}")
    if finding.chain:
        parts.append(f"**Graph chain**: `{describe(finding.chain, uri)}`")
    story = []
    for item in finding.related:
        if item.path is not None:  # in another file of the project: its name and its own line
            story.append(f"- {Path(item.path).name} line {item.span.line}: {item.message}")
            continue
        where = describe(f"line {item.span.line}", uri)
        story.append(f"- {where}: {describe(item.message, uri)}")
    if story:
        parts.append("**Where**\n\n" + "\n".join(story))
    if finding.fixes:
        lines = []
        for rank, ref in enumerate(finding.fixes, 1):
            preferred = " *(preferred)*" if rank == 1 else ""
            # Unsafe fixes change what is computed or what trains: fix-all leaves them to the user.
            unsafe = "" if ref.applicability == "safe" else " *(unsafe)*"
            lines.append(f"{rank}. **{ref.title}**{preferred}{unsafe}: {ref.tradeoff}")
        parts.append("**Fixes**\n\n" + "\n".join(lines))
    else:
        parts.append("**Fixes**: no automatic fix; see the rule's page.")
    href = registry.docs_url(finding.code)
    if href:
        parts.append(f"[{finding.code} documentation]({href})")
    return "\n\n".join(parts)


def backward_markdown(info: BackwardInfo, result: Result, uri: str) -> str:
    describe = result.snapshot.locator.describe
    call = (
        f"{info.target}.backward()" if info.kind == "backward" else f"torch.autograd.grad({info.target}, ...)"
    )
    if info.retains:
        head = f"`{call}` keeps the graph (`retain_graph`/`create_graph`): its saved buffers stay alive."
    elif info.frees:
        head = f"`{call}` frees the saved buffers of:"
    else:
        head = f"`{call}` frees no graph gradguard can follow."
    parts = [head]
    if info.frees:
        parts.append("\n".join(f"- `{expr}` ({describe(f'line {line}', uri)})" for expr, line in info.frees))
    if info.needed_later:
        parts.append("A later backward needs them again: see the gradguard finding about it.")
    elif not info.retains and info.frees:
        parts.append("Nothing later needs them.")
    return "\n\n".join(parts)


def hover(result: Result, uri: str, line: int, col: int) -> types.Hover | None:
    """The hover at program (line, col); findings first, then a backward call."""
    texts = [finding_markdown(f, result, uri) for f in result.findings if contains(f.span, line, col)]
    if not texts:
        for info in result.backwards:
            if contains(info.span, line, col):
                texts.append(backward_markdown(info, result, uri))
                break
    if not texts:
        return None
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, "\n\n---\n\n".join(texts)))
