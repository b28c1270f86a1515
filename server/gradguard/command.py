"""The ``gradguard`` command in full: ``check``, ``rule`` and ``serve`` (``cli.py`` is its entry).

Exit codes as ruff: 0 no findings, 1 findings (or files that could not be read), 2 usage or
configuration errors.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from . import __version__, registry
from .config import ConfigError, Resolver, load_config
from .discover import discover, display_path
from .notebook import Notebook, NotebookError
from .output import FORMATS, severities, statistics
from .settings import Settings, _normalise_selector, _selector_problem, known_codes
from .summary import summary

if TYPE_CHECKING:
    from .runner import Outcome

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


def _selectors(value: str) -> list[str]:
    """A comma-separated ``--select``/``--ignore`` value, validated like configuration."""
    result = []
    codes = known_codes()
    for item in value.split(","):
        if not item.strip():
            continue
        selector = _normalise_selector(item)
        problem = _selector_problem(selector, codes)
        if problem:
            raise argparse.ArgumentTypeError(f"{item.strip()!r} {problem}")
        result.append(selector)
    return result


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gradguard", description="Find PyTorch autograd graph pitfalls before they run."
    )
    parser.add_argument("--version", action="version", version=f"gradguard {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser("check", help="check files, folders and notebooks (default: .)")
    check.add_argument("paths", nargs="*", metavar="PATH", help="files or folders; '-' reads standard input")
    check.add_argument(
        "--select",
        type=_selectors,
        action="append",
        metavar="CODES",
        help="comma-separated codes or prefixes to enable (replaces the configured selection)",
    )
    check.add_argument(
        "--ignore",
        type=_selectors,
        action="append",
        metavar="CODES",
        help="comma-separated codes or prefixes to disable",
    )
    check.add_argument(
        "--format", choices=sorted(FORMATS), default="text", help="output format (default: text)"
    )
    check.add_argument(
        "--fix",
        action="store_true",
        help="apply the preferred fix of each finding, in place, when it is safe",
    )
    check.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix or --diff, also apply the fixes that change what is computed or what trains",
    )
    check.add_argument(
        "--diff",
        action="store_true",
        help="print the fixes as a unified diff instead of writing them; exit 1 if any",
    )
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument(
        "--stdin-filename", metavar="PATH", help="the name of the file read from standard input"
    )
    check.add_argument("--config", metavar="PYPROJECT", help="use this pyproject.toml instead of discovery")
    check.add_argument("--isolated", action="store_true", help="ignore all configuration files")
    check.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes for large trees (default: all cores)",
    )
    check.add_argument(
        "--no-follow-imports",
        action="store_true",
        help="analyse each file alone, without the project's own modules it imports",
    )
    check.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the cache of import resolutions and findings",
    )
    check.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    check.add_argument(
        "--statistics",
        action="store_true",
        help="print the number of findings per rule instead of the findings (text or json)",
    )

    rule = commands.add_parser("rule", help="print a rule's documentation")
    rule.add_argument("code", nargs="?", help="a rule code such as GG103")
    rule.add_argument("--all", action="store_true", help="list every rule")

    from .graph_command import add_parser as add_graph

    add_graph(commands)

    serve = commands.add_parser("serve", help="run the language server (stdio; --tcp PORT for debugging)")
    serve.add_argument("--tcp", type=int, metavar="PORT", help="listen on this TCP port instead of stdio")
    serve.add_argument("--host", default="127.0.0.1", help="the address for --tcp (default: 127.0.0.1)")
    return parser


def _flatten(groups: list[list[str]] | None) -> list[str] | None:
    return None if groups is None else [code for group in groups for code in group]


def _resolver(args: argparse.Namespace) -> Resolver:
    if args.isolated:
        return Resolver(fixed=Settings())
    if args.config:
        if not Path(args.config).is_file():
            raise ConfigError(f"{args.config}: no such configuration file")
        settings, messages = load_config(args.config)
        resolver = Resolver(fixed=settings)
        resolver.messages.extend(messages)
        return resolver
    return Resolver()


def _unified(before: str, after: str, name: str) -> str:
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    # A last line without a newline would run into the next header.
    for lines in (old, new):
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n\\ No newline at end of file\n"
    return "".join(difflib.unified_diff(old, new, fromfile=name, tofile=name))


def _diff(outcome: Outcome) -> str:
    name = outcome.job.display
    before, after = outcome.original or "", outcome.fixed or ""
    if outcome.job.notebook:
        # Per cell, as ruff shows notebook diffs: the JSON around the sources is unchanged.
        try:
            old, new = Notebook.parse(before), Notebook.parse(after)
        except NotebookError:
            return _unified(before, after, name)
        return "".join(
            _unified(old.cell_source(i), new.cell_source(i), f"{name}:cell {i + 1}")
            for i in range(len(old.data["cells"]))
            if i < len(new.data["cells"]) and old.cell_source(i) != new.cell_source(i)
        )
    return _unified(before, after, name)


def _write_target(path: Path, roots: list[Path]) -> Path | None:
    """The real file ``--fix`` may rewrite for ``path``, or None when it lies outside every path
    given (``roots``, resolved): a named link is followed, a link met in a folder scan only when
    it points inside the scanned paths."""
    real = path.resolve()
    return real if any(real == root or real.is_relative_to(root) for root in roots) else None


def run_check(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, quick: bool = False) -> int:
    """``gradguard check``. ``quick``: the command was a plain ``check FILE...``, whose results
    the quick lane may answer next time (see ``quick.py``)."""
    # The analysis engine is loaded by the commands that analyse, not by `rule` or `--version`.
    from .runner import Job, run_jobs, write_atomic

    select, ignore = _flatten(args.select), _flatten(args.ignore)
    mode = "diff" if args.diff else "fix" if args.fix else "check"
    paths = args.paths or ["."]
    use_stdin = "-" in paths
    if use_stdin and len(paths) > 1:
        raise UsageError("'-' (standard input) cannot be combined with other paths")
    if args.statistics and args.format not in ("text", "json"):
        raise UsageError("--statistics prints text or json, not " + args.format)
    if args.stdin_filename and not use_stdin:
        paths = ["-"]
        use_stdin = True
    resolver = _resolver(args)
    # Only the JSON and SARIF reports carry fix edits; computing them costs a libcst parse each.
    with_fixes = args.format in ("json", "sarif")

    def settings_for(path: Path) -> Settings:
        return resolver.for_path(path).with_cli(select, ignore)

    jobs: list[Job] = []
    missing: list[str] = []
    roots: list[Path] = []
    if use_stdin:
        name = args.stdin_filename or "-"
        absolute = Path(name).absolute() if args.stdin_filename else Path.cwd()
        settings = settings_for(absolute)
        jobs.append(
            Job(
                str(absolute) if args.stdin_filename else "-",
                name,
                settings,
                mode,
                text=sys.stdin.read(),
                notebook=name.endswith(".ipynb"),
                with_fixes=with_fixes,
                unsafe_fixes=args.unsafe_fixes,
                follow_imports=not args.no_follow_imports,
                cache=not args.no_cache,
            )
        )
    else:
        files, missing = discover(paths, resolver)
        roots.extend(Path(path).resolve() for path in paths)
        for file in files:
            file_mode = mode
            if mode == "fix" and _write_target(file, roots) is None:
                # A link found in a folder to a file elsewhere: --fix never writes outside the
                # paths given, so the file is only checked.
                file_mode = "check"
                print(
                    f"gradguard: warning: {display_path(file)}: not fixed: it links to "
                    f"{file.resolve()}, outside the paths given",
                    file=stderr,
                )
            jobs.append(
                Job(
                    str(file),
                    display_path(file),
                    settings_for(file),
                    file_mode,
                    notebook=file.suffix == ".ipynb",
                    with_fixes=with_fixes,
                    unsafe_fixes=args.unsafe_fixes,
                    follow_imports=not args.no_follow_imports,
                    cache=not args.no_cache,
                )
            )
    if resolver.messages:
        for message in resolver.messages:
            print(f"gradguard: error: {message}", file=stderr)
        return EXIT_USAGE

    outcomes = run_jobs(jobs, args.jobs)
    for path in missing:
        print(f"gradguard: error: {path}: no such file or directory", file=stderr)
    unreadable = 0
    for outcome in outcomes:
        if outcome.error:
            unreadable += 1
            print(f"gradguard: error: {outcome.error}", file=stderr)

    changed = [o for o in outcomes if o.fixed is not None]
    fixed_count = sum(o.applied for o in changed)
    diagnostics = [d for o in outcomes for d in o.diagnostics]
    report = stdout
    if mode == "diff":
        for outcome in changed:
            stdout.write(_diff(outcome))
        word = "finding" if fixed_count == 1 else "findings"
        print(f"Would fix {fixed_count} {word}." if changed else "No findings would be fixed.", file=stderr)
        if missing:
            return EXIT_USAGE
        return EXIT_FINDINGS if changed and not args.exit_zero else EXIT_OK
    if mode == "fix":
        for outcome in changed:
            if outcome.job.text is not None:
                stdout.write(outcome.fixed or "")
            else:
                # Through a link, the real file is rewritten, so the link stays a link.
                target = _write_target(Path(outcome.job.path), roots) or Path(outcome.job.path)
                try:
                    write_atomic(target, outcome.fixed or "", outcome.encoding)
                except (OSError, UnicodeError) as exc:
                    unreadable += 1
                    print(
                        f"gradguard: error: {outcome.job.display}: cannot write the fixes: {exc}", file=stderr
                    )
        if use_stdin:
            # The fixed source goes to standard output, so the report goes to standard error.
            if not changed:
                stdout.write(jobs[0].text or "")
            report = stderr

    if args.statistics:
        report.write(statistics(diagnostics, as_json=args.format == "json"))
    else:
        report.write(FORMATS[args.format](diagnostics))
    if args.format == "text" and not args.quiet:
        fixable = sum(1 for d in diagnostics if d.fixable)
        hidden = sum(1 for d in diagnostics if d.unsafe_fixable)
        report.write(
            summary(
                severities(diagnostics),
                0 if mode == "fix" else fixable,
                fixed_count,
                unreadable,
                len(missing),
                hidden,
                args.unsafe_fixes,
            )
        )
    if missing:
        return EXIT_USAGE
    if quick and not unreadable:
        from .quick import entries_from, remember

        remember(entries_from(outcomes, resolver))
    if args.exit_zero:
        return EXIT_OK
    return EXIT_FINDINGS if diagnostics or unreadable else EXIT_OK


def run_rule(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    if args.all:
        rules = registry.all_rules()
        if not rules:
            print("gradguard: error: the rule registry is not available", file=stderr)
            return EXIT_USAGE
        for rule in rules:
            code = getattr(rule, "code", rule)
            print(f"{code}  {getattr(rule, 'name', '')}: {getattr(rule, 'summary', '')}", file=stdout)
        return EXIT_OK
    if not args.code:
        raise UsageError("give a rule code (e.g. gradguard rule GG103) or --all")
    code = args.code.strip().upper()
    doc = registry.render_doc(code)
    if doc is None:
        print(f"gradguard: error: unknown rule {args.code!r}; `gradguard rule --all` lists them", file=stderr)
        return EXIT_USAGE
    stdout.write(doc if doc.endswith("\n") else doc + "\n")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    from .quick import plain_paths

    stdout, stderr = sys.stdout, sys.stderr
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors and 0 for --help/--version
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        if args.command == "check":
            # Only files named one by one: the quick lane never answers for a folder.
            named = plain_paths(argv)
            quick = named is not None and all(os.path.isfile(path) for path in named)
            return run_check(args, stdout, stderr, quick=quick)
        if args.command == "rule":
            return run_rule(args, stdout, stderr)
        if args.command == "graph":
            from .graph_command import run_graph

            return run_graph(args, stdout, stderr)
        if args.command == "serve":
            # Imported here: pygls is only needed by the server, and importing it slows every check.
            from .lsp.server import main as serve

            return serve(tcp=args.tcp, host=args.host)
        parser.print_help(stderr)
        return EXIT_USAGE
    except (UsageError, ConfigError) as exc:
        print(f"gradguard: error: {exc}", file=stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (``| head``): silence the final flush too, as well-behaved CLIs do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FINDINGS
