"""Issue 28, items 1-3 at the layer level: one schema parses every layer once, and a settings file of any
shape costs a message, never a hang.

Item 1: ``sleuth.sleuth.log_file`` (a doubled prefix) got past the trust screen: the screen stripped one
prefix and passed the unknown key ``sleuth.log_file`` on, and the merge flattened again and stripped the
second. Now the screen and the merge read the same parsed fields. The property test generates nestings,
prefixes, cases and separators of every person-only key and requires that none reaches the effective
settings from the repository layer.

Items 2-3: a 782-byte alias bomb (10^7 keys once expanded) hung the flattener; a 973 KiB shared file cost
6-8 s of pure-Python YAML. Now aliases are expanded under a budget before anything is built, and only
Sleuth's part of a big shared file is parsed, by libyaml.
"""

from __future__ import annotations

import pathlib

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from sleuth.commands.config import Settings, load_agent_config
from sleuth.commands.settings_trust import Layer, Origin, layered_settings

# The modules issue 28 added are imported by the tests that need them, so the tests of behaviour also
# run (and fail) against the code before them.
MAX_PARSED_BYTES = 16 << 10

PERSON = {"deny_globs": ["*.key"]}
# Every person-only key as paths of segments, with a hostile value for each.
GUARDED: dict[str, tuple[list[list[str]], list[object]]] = {
    "log_file": ([["log_file"], ["log", "file"]], ["/tmp/pwn.log"]),
    "index_path": ([["index_path"], ["index", "path"]], ["/tmp/pwn-index"]),
    "backend": ([["backend"]], ["rg", "ugrep"]),
    "redaction": ([["redaction"]], [False]),
    "rate_limit_enabled": ([["rate_limit_enabled"], ["rate_limit", "enabled"]], [False]),
    "deny_globs": ([["deny_globs"]], [[], ["!*.key"], "!*.key"]),
}


def _effective(repo: object) -> tuple[Settings, list[str]]:
    return layered_settings([Layer("config.yml", Origin.PERSON, PERSON),
                             Layer(".agent/config.yml", Origin.REPOSITORY, repo)], "WHERE")  # type: ignore[arg-type]


def _guarded_unchanged(settings: Settings) -> bool:
    return (settings.log_file is None and settings.index_path is None and settings.backend == "native"
            and settings.redaction and settings.rate_limit_enabled and "*.key" in settings.deny_globs)


def test_the_schema_covers_every_field_with_a_type_and_a_rule() -> None:
    from sleuth.commands.settings_schema import SCHEMA, TRUST, Trust

    assert set(SCHEMA) == set(TRUST) == set(Settings.field_names)
    assert {k for k, key in SCHEMA.items() if key.rule.trust is Trust.PERSON} == {
        "log_file", "index_path", "backend", "redaction", "rate_limit_enabled"}


@pytest.mark.parametrize("repo", [
    {"sleuth.sleuth.log_file": "/tmp/pwn.log", "sleuth.sleuth.redaction": False, "sleuth.sleuth.deny_globs": []},
    {"sleuth": {"sleuth": {"log_file": "/tmp/pwn.log"}}},
    {"sleuth": {"sleuth": {"sleuth": {"log_file": "/tmp/pwn.log"}}}},
    {"tools": {"search": {"sleuth": {"sleuth": {"redaction": False}}}}},
    {"sleuth.sleuth.index.path": "/tmp/pwn-index", "sleuth.sleuth.backend": "rg"},
    {"tools.search.tools.search.backend": "rg", "sleuth.tools.search.log.file": "/tmp/pwn.log"},
])
def test_a_doubled_prefix_reaches_nothing(repo: dict[str, object]) -> None:
    settings, problems = _effective(repo)
    assert _guarded_unchanged(settings) and settings.deny_globs == ("*.key",)
    assert problems  # every such key is reported (unknown, or refused), none silently kept


_SECTION = st.sampled_from(["sleuth", "Sleuth", "SLEUTH", "tools.search", "tools-search"])
_CASE = st.sampled_from(["snake", "camel", "upper", "kebab", "mixed"])


def _spell(segment: str, case: str) -> str:
    words = segment.split("_")
    return {"snake": segment, "upper": segment.upper(), "kebab": "-".join(words),
            "camel": words[0] + "".join(w.title() for w in words[1:]),
            "mixed": "_".join(w.title() for w in words)}[case]


@st.composite
def hostile_layers(draw: st.DrawFn) -> tuple[str, dict[str, object]]:
    field = draw(st.sampled_from(sorted(GUARDED)))
    paths, values = GUARDED[field]
    value = draw(st.sampled_from(values))
    segments = list(draw(st.sampled_from(paths)))
    prefixes = draw(st.lists(_SECTION, max_size=3))
    path = [part for prefix in prefixes for part in prefix.split(".")] + segments
    path = [_spell(p, draw(_CASE)) if "_" in p or p.isalpha() else p for p in path]
    # cut the path into nested mappings and dotted keys at random places
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(path) - 1)), max_size=len(path))))
    keys, start = [], 0
    for cut in [*cuts, len(path)]:
        if cut > start:
            keys.append(".".join(path[start:cut]))
            start = cut
    layer: object = value
    for key in reversed(keys):
        layer = {key: layer}
    assert isinstance(layer, dict)
    return field, layer


@hsettings(max_examples=400, deadline=None)
@given(hostile_layers())
def test_no_spelling_of_a_person_only_key_reaches_the_settings_from_a_repository(case) -> None:
    field, repo = case
    settings, _ = _effective(repo)
    assert _guarded_unchanged(settings), (field, repo)
    assert settings.deny_globs == ("*.key",)


@hsettings(max_examples=200, deadline=None)
@given(hostile_layers(), st.sampled_from([("sleuth",), ("tools", "search"), ()]))
def test_no_spelling_reaches_the_settings_through_the_file(case, section: tuple[str, ...]) -> None:
    """The same, as the doors read it: YAML in ``.agent/config.yml``, under a section or at the top."""
    import tempfile

    import yaml

    from sleuth.core.settings import SettingsLayers

    field, repo = case
    document: object = repo
    for key in reversed(section):
        document = {key: document}
    with tempfile.TemporaryDirectory() as tmp:
        _write(pathlib.Path(tmp), yaml.safe_dump(document))
        layers = SettingsLayers(user=PERSON)
        layers.load_agents([tmp])
        settings, _ = layers.settings()
    assert _guarded_unchanged(settings), (field, document)
    assert settings.deny_globs == ("*.key",)


def test_every_layer_is_parsed_once_into_typed_fields() -> None:
    from sleuth.commands.settings_schema import parse_layer

    parsed = parse_layer({"sleuth": {"maxResults": 5, "index": {"enabled": False}}, "bogus": {"x": 1},
                          "context-lines": "three"}, "L")
    assert {f: e.value for f, e in parsed.values.items()} == {"max_results": 5, "index_enabled": False}
    assert sorted(p.split("'")[1] for p in parsed.problems) == ["bogus.x", "context_lines"]


# -- files of every shape ------------------------------------------------------------------------------

BOMB = ("a: &a {k0: x, k1: x, k2: x, k3: x, k4: x, k5: x, k6: x, k7: x, k8: x, k9: x}\n"
        + "".join(f"{chr(98 + i)}: &{chr(98 + i)} {{" + ", ".join(f"k{j}: *{chr(97 + i)}" for j in range(10)) + "}\n"
                  for i in range(6))
        + "sleuth:\n  tools: *g\n")  # 10^7 keys once expanded: the old flattener walked them all


def _write(root: pathlib.Path, text: str | bytes) -> pathlib.Path:
    path = root / ".agent" / "config.yml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def test_an_alias_bomb_is_refused_before_it_is_expanded(tmp_path: pathlib.Path) -> None:
    assert len(BOMB) < 800
    _write(tmp_path, BOMB)
    with pytest.raises(ValueError, match="aliases"):
        load_agent_config(str(tmp_path))


def test_a_few_aliases_are_still_read(tmp_path: pathlib.Path) -> None:
    _write(tmp_path, "common: &globs ['*.key', '*.pem']\nsleuth:\n  deny_globs: *globs\n")
    assert load_agent_config(str(tmp_path)) == {"deny_globs": ["*.key", "*.pem"]}


def big_shared_config(kib: int = 973) -> str:
    """Seed 004's shared file, mostly another tool's section: Sleuth's part is a few lines in the middle."""
    lines = ["model: big", "other_tool:"]
    size = 0
    i = 0
    while size < kib * 1024:
        line = f"  entry_{i}: {{name: n{i}, values: [a, b, c], flag: true}}"
        lines.append(line)
        size += len(line) + 1
        i += 1
    lines += ["tools:", "  shell: {timeout: 5}", "  search:", "    max_results: 77",
              "    deny_globs: ['*.key']", "  editor: {}", "after: 1"]
    return "\n".join(lines) + "\n"


def test_a_big_shared_file_gives_sleuths_part(tmp_path: pathlib.Path) -> None:
    _write(tmp_path, big_shared_config())
    assert load_agent_config(str(tmp_path)) == {"max_results": 77, "deny_globs": ["*.key"]}


@pytest.mark.parametrize("kib", [0, 973])
def test_only_sleuths_part_of_a_shared_file_is_built(tmp_path: pathlib.Path, kib: int) -> None:
    """Item 3: the whole file was loaded as Python objects (6-8 s for 973 KiB); another tool's own tag
    (``!include``, which safe_load cannot build) made Sleuth drop its own settings with it."""
    _write(tmp_path, "other_tool:\n  rules: !include rules.yml\n" + big_shared_config(kib))
    assert load_agent_config(str(tmp_path)) == {"max_results": 77, "deny_globs": ["*.key"]}


@pytest.mark.parametrize("text, message", [
    ("x" * (2 << 20), "larger than 1 MiB"),
    ("sleuth:\n  deny_globs: [" + "a," * (MAX_PARSED_BYTES // 2) + "a]\n", f"larger than {MAX_PARSED_BYTES >> 10} KiB"),
    ("sleuth: " + "[" * 2000 + "]" * 2000 + "\n", "invalid YAML"),
    ("sleuth: !!python/object/apply:os.system {args: ['touch pwned']}\n", "invalid YAML"),
    ("- a\n- b\n", "mapping at the top level"),
])
def test_a_hostile_file_is_a_message(tmp_path: pathlib.Path, text: str, message: str) -> None:
    from sleuth.commands.settings_yaml import MAX_PARSED_BYTES as cap, SettingsFileError, read_settings_file

    assert cap == MAX_PARSED_BYTES
    path = _write(tmp_path, text)
    with pytest.raises(SettingsFileError, match=message):
        read_settings_file(str(path), [("sleuth",)])
    assert not (tmp_path / "pwned").exists()


# -- several roots (item 4), a file above the root (item 6) ---------------------------------------------

def test_every_roots_file_counts_caps_the_strictest() -> None:
    settings, problems = layered_settings([
        Layer("config.yml", Origin.PERSON, PERSON),
        Layer("ws2/.agent/config.yml", Origin.REPOSITORY, {"max_results": 500, "context_lines": 5}),
        Layer("ws/.agent/config.yml", Origin.REPOSITORY, {"max_results": 50, "context_lines": 1,
                                                          "deny_globs": ["denied/**"]}),
    ], "WHERE")
    assert problems == []
    assert settings.max_results == 50 and settings.context_lines == 5  # strictest cap; first root's default
    assert settings.deny_globs == ("*.key", "denied/**")


def test_a_file_above_the_root_has_its_globs_rebased_onto_the_root() -> None:
    settings, _ = layered_settings([Layer("ws/.agent/config.yml", Origin.REPOSITORY,
                                          {"deny_globs": ["*.key", "denied/x/**", "other/**"]}, below="denied")],
                                   "WHERE")
    assert settings.deny_globs == ("*.key", "/x/**")
    everything, _ = layered_settings([Layer("ws/.agent/config.yml", Origin.REPOSITORY,
                                            {"deny_globs": ["denied/**"]}, below="denied/deeper")], "WHERE")
    assert everything.deny_globs == ("/**",)


def test_a_big_shared_file_without_sleuths_part_is_nothing_of_sleuths(tmp_path: pathlib.Path) -> None:
    _write(tmp_path, "# another tool's file\n\n" + big_shared_config().split("tools:")[0])
    assert load_agent_config(str(tmp_path)) == {}
