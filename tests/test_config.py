from __future__ import annotations

from pathlib import Path

import pytest

from gradguard.config import ConfigError, Resolver, find_config, load_config
from gradguard.settings import Settings


def test_defaults_enable_everything() -> None:
    settings = Settings()
    assert settings.enabled("GG101")
    assert settings.enabled("GG302", "x.py")


def test_prefix_selection_and_specificity() -> None:
    settings = Settings(select=("GG1",), ignore=("GG103",))
    assert settings.enabled("GG101")
    assert not settings.enabled("GG103")
    assert not settings.enabled("GG201")
    # A more specific select beats a less specific ignore; equal specificity: ignore wins.
    assert Settings(select=("GG103",), ignore=("GG1",)).enabled("GG103")
    assert not Settings(select=("GG1",), ignore=("GG1",)).enabled("GG101")


def test_per_file_ignores() -> None:
    settings = Settings(per_file_ignores=(("tests/*", ("GG3",)), ("legacy.py", ("GG103",))))
    assert not settings.enabled("GG301", "tests/test_x.py")
    assert not settings.enabled("GG301", "/abs/project/tests/deep/test_x.py")
    assert settings.enabled("GG301", "src/x.py")
    assert not settings.enabled("GG103", "/abs/project/legacy.py")
    assert settings.enabled("GG101", "legacy.py")


def test_from_mapping_accepts_both_spellings_and_all() -> None:
    for key in ("per-file-ignores", "per_file_ignores"):
        settings, messages = Settings.from_mapping(
            {"select": ["ALL"], "ignore": ["GG3"], key: {"nb/*.py": ["GG201"]}, "severity": {"GG103": "hint"}}
        )
        assert messages == []
        assert settings.select == ("GG",)
        assert settings.per_file_ignores == (("nb/*.py", ("GG201",)),)
        assert settings.severity_for("GG103") == "hint"
        assert not settings.enabled("GG301")


def test_from_mapping_reports_every_problem_and_falls_back() -> None:
    settings, messages = Settings.from_mapping(
        {
            "selct": ["GG1"],
            "select": "GG1",
            "ignore": ["GG999", "E501", "GG104"],
            "severity": {"GG101": "fatal", "XX1": "error"},
            "per-file-ignores": ["nope"],
        }
    )
    text = "\n".join(messages)
    assert "unknown key 'selct'" in text and "did you mean 'select'" in text
    assert "select: expected a list" in text
    assert "'GG999' matches no known rule" in text
    assert "'E501' is not a gradguard rule code" in text
    assert "'fatal' is not one of" in text
    assert "'XX1'" in text
    assert "per-file-ignores: expected a table" in text
    assert settings.select == ("GG",)  # the bad value fell back to the default
    assert settings.ignore == ("GG104",)  # the good entry was kept
    assert len(messages) == 7


def test_severity_defaults_and_prefix_overrides() -> None:
    settings, _ = Settings.from_mapping({"severity": {"GG1": "warning", "GG103": "info"}})
    assert settings.severity_for("GG101") == "warning"
    assert settings.severity_for("GG103") == "information"
    assert Settings().severity_for("GG101") == "error"


def test_with_cli_select_replaces_and_ignore_extends() -> None:
    base = Settings(select=("GG1",), ignore=("GG103",))
    assert base.with_cli(select=["GG103"]).enabled("GG103")
    assert not base.with_cli(ignore=["GG101"]).enabled("GG101")
    assert not base.with_cli(ignore=["GG101"]).enabled("GG103")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_find_config_walks_up_to_the_nearest_table(tmp_path: Path) -> None:
    root = write(tmp_path / "pyproject.toml", '[tool.gradguard]\nignore = ["GG301"]\n')
    # A pyproject without our table (and one that is not even TOML, but never mentions us) is passed over.
    write(tmp_path / "pkg" / "pyproject.toml", "[project]\nname = 'pkg'\n")
    write(tmp_path / "pkg" / "sub" / "pyproject.toml", "this is [[ not toml")
    deep = tmp_path / "pkg" / "sub" / "mod.py"
    write(deep, "")
    assert find_config(deep) == root
    settings, messages = load_config(root)
    assert messages == [] and settings.ignore == ("GG301",)


def test_invalid_toml_is_a_clear_error(tmp_path: Path) -> None:
    bad = write(tmp_path / "pyproject.toml", "[tool.gradguard]\nselect = [\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        find_config(tmp_path)
    with pytest.raises(ConfigError, match=r"pyproject\.toml"):
        load_config(bad)


def test_table_of_wrong_type_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool]\ngradguard = "yes"\n')
    with pytest.raises(ConfigError, match="must be a table"):
        find_config(tmp_path)


def test_resolver_caches_and_collects_messages(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.gradguard]\nignore = ["GG301"]\nbogus = 1\n')
    write(tmp_path / "a" / "x.py", "")
    write(tmp_path / "b" / "y.py", "")
    resolver = Resolver()
    first = resolver.for_path(tmp_path / "a" / "x.py")
    second = resolver.for_path(tmp_path / "b" / "y.py")
    assert first is second
    assert len(resolver.messages) == 1 and "bogus" in resolver.messages[0]


def test_exclude_patterns(tmp_path: Path) -> None:
    settings, messages = Settings.from_mapping({"exclude": ["generated", "*_pb2.py"]}, root=str(tmp_path))
    assert messages == []
    assert settings.excluded(str(tmp_path / "generated"))
    assert settings.excluded(str(tmp_path / "src" / "generated"))
    assert settings.excluded(str(tmp_path / "api_pb2.py"))
    assert not settings.excluded(str(tmp_path / "src" / "model.py"))
