"""Ranked text search: the query language, identifier parts, definitions first, result shape."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth.commands import get_command
from sleuth.engine.errors import BadArgs
from sleuth.engine.index import IndexService
from sleuth.engine.definitions.defs import definition_keys, definitions, identifier_key, split_identifier
from sleuth.engine.text.query import parse_query
from sleuth.engine.text.search import TextOptions, search_text
from tests.fixtures import context, index_service

TREE = {
    "src/users/user_service.py": (
        "from repo import get_user_by_id\n\n"
        "class UserService:\n"
        "    def find(self, uid):\n"
        "        return get_user_by_id(uid)\n"
    ),
    "src/repo.py": (
        "# the one place users are loaded\n"
        "def get_user_by_id(uid):\n"
        "    return DB[uid]\n"
    ),
    "src/web/UserController.ts": (
        "export class UserController {\n"
        "  show(id: string) { return api.getUserById(id); }\n"
        "}\n"
    ),
    "src/api.ts": "export function getUserById(id: string) {\n  return fetch(id);\n}\n",
    "docs/notes.md": "get user by id is called everywhere; get_user_by_id get_user_by_id get_user_by_id\n",
    "kernel/pm.c": (
        "#include <pm.h>\n"
        "int pm_runtime_resume(struct device *dev)\n{\n\treturn 0;\n}\n"
        "static void helper(void) { pm_runtime_resume(NULL); pm_runtime_resume(NULL); }\n"
    ),
    "include/pm.h": "extern int pm_runtime_resume(struct device *dev);\n#define PM_MAGIC 42\n",
    "misc/test_pm.c": "void t(void) { pm_runtime_resume(0); pm_runtime_resume(0); pm_runtime_resume(0); }\n",
    "fw/img.h": "".join(f"static bool has_api_{i}(const struct fw *fw,\n\t   iwl_tlv_api_t api)\n{{\n}}\n"
                        for i in range(3)),
    "fw/file.h": "/* api flags */\ntypedef unsigned int __bitwise iwl_tlv_api_t;\n",
    "fw/kmap.h": "typedef struct kobject *kmap_probe_t(dev_t, int *, void *);\n",
    "fw/kmap.c": "struct kmap *kmap_init(kmap_probe_t *base_probe, struct mutex *lock)\n{\n}\n",
    "hal/odm.c": "void f(void)\n{\n\todm->gpa = (enum odm_type_gpa_e)v;\n\todm->gpa = (enum odm_type_gpa_e)w;\n}\n",
    "hal/odm.h": "enum odm_type_gpa_e { /* tag_ODM_TYPE_GPA */\n\tTYPE_GPA0 = 0,\n};\n",
    "asic/dpcs_offset.h": "".join(f"#define ixDPCSSYS_CR{i}_LANE{i % 4}_CTRL{i % 7}    0x{i:04x}\n" for i in range(12000))
    + "#define ixDPCSSYS_CR0_LANE1_ANA_RX_PWR_CTRL2    0x11f5\n",
    "asic/uses.c": "int x = ixDPCSSYS_CR0_LANE1_ANA_RX_PWR_CTRL2 + ixDPCSSYS_CR0_LANE1_ANA_RX_PWR_CTRL2;\n",
}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> IndexService:

    root = tmp_path_factory.mktemp("text")
    for rel, content in TREE.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    svc = index_service(root, tmp_path_factory.mktemp("cache"))
    svc.start()
    assert svc.wait_ready(120)
    yield svc
    svc.stop()


def _top(service: IndexService, query: str, n: int = 20) -> list[dict]:
    return search_text(service, query, TextOptions(max_results=n))["results"]


def test_identifier_parts_find_both_spellings(service: IndexService) -> None:
    paths = {r["path"] for r in _top(service, "get user by id")}
    assert {"src/repo.py", "src/api.ts", "src/users/user_service.py"} <= paths


def test_definitions_come_first(service: IndexService) -> None:
    top = _top(service, "get user by id")[:2]
    assert {r["path"] for r in top} == {"src/repo.py", "src/api.ts"}
    assert _top(service, "pm runtime resume")[0]["path"] == "kernel/pm.c"
    assert _top(service, "pm_runtime_resume")[0]["path"] == "kernel/pm.c"
    assert _top(service, "UserController")[0]["path"] == "src/web/UserController.ts"


def test_scores_are_between_0_and_1_and_sorted(service: IndexService) -> None:
    results = _top(service, "user")
    scores = [r["score"] for r in results]
    assert scores and all(0 < s <= 1 for s in scores) and scores == sorted(scores, reverse=True)


def test_query_language(service: IndexService) -> None:
    assert {r["path"] for r in _top(service, "PM_MAGIC OR getUserById")} >= {"include/pm.h", "src/api.ts"}
    assert all("test" not in r["path"] for r in _top(service, "pm runtime resume -test"))
    assert all("extern" not in r["snippet"] for r in _top(service, "pm_runtime_resume -extern"))
    assert {r["path"] for r in _top(service, '"get user by id"')} >= {"docs/notes.md"}
    assert {r["path"] for r in _top(service, "UserCont*")} == {"src/web/UserController.ts"}
    with pytest.raises(BadArgs):
        parse_query("-only -excluded")


def test_result_shape_snippet_highlights_context(service: IndexService) -> None:
    hit = _top(service, "get user by id")[0]
    assert set(hit) == {"path", "line", "score", "snippet", "highlights", "context"}
    span = hit["highlights"][0]
    assert hit["snippet"][span["start"]:span["end"]].lower().replace("_", "") == "getuserbyid"
    if hit["path"] == "src/repo.py":
        assert hit["line"] == 2 and hit["context"]["before"] == ["# the one place users are loaded"]


def test_the_command_validates_and_filters(service: IndexService) -> None:
    run = get_command("sleuth.text")
    ctx = context(service.workspace, index=service)
    result = run([{"query": "get user by id", "file_types": ["ts"], "max_results": 5, "context_lines": 0}], ctx)
    assert result["results"] and all(r["path"].endswith(".ts") for r in result["results"])
    assert all(r["context"] == {"before": [], "after": []} for r in result["results"])
    result = run({"query": "get user by id", "include_path": "src/**", "exclude_path": "src/api.ts"}, ctx)
    assert {r["path"] for r in result["results"]} == {"src/repo.py", "src/users/user_service.py",
                                                     "src/web/UserController.ts"}
    with pytest.raises(BadArgs):
        run({"query": "x", "bogus": 1}, ctx)
    # without an index the command scans (tests/commands/test_text_scan.py); formerly index_not_ready
    scanned = run({"query": "get user by id"}, context(service.workspace, index=None))
    assert scanned["source"] == "scan" and scanned["results"]


def test_typedefs_and_commented_enums_are_definitions_that_rank_first(service: IndexService) -> None:
    assert _top(service, "iwl tlv api t")[0]["path"] == "fw/file.h"
    # a definition whose name only shares a word (kmap_init) is weaker evidence than the typedef itself
    assert _top(service, "kmap probe t")[0]["path"] == "fw/kmap.h"
    assert _top(service, "odm type gpa e")[0]["path"] == "hal/odm.h"


def test_a_lower_cased_identifier_finds_its_mixed_case_definition_in_a_big_file(service: IndexService) -> None:
    for query in ("ixdpcssys_cr0_lane1_ana_rx_pwr_ctrl2", "dpcssys cr0 lane1 ana rx pwr ctrl2",
                  "ixDPCSSYS_CR0_LANE1_ANA_RX_PWR_CTRL2"):
        top = _top(service, query)[0]
        assert top["path"] == "asic/dpcs_offset.h" and top["line"] == 12001, query


def test_definition_shapes_and_identifier_keys() -> None:
    source = (b"#define FOO_BAR 1\nstruct ext4_inode {\nstatic int do_thing(int a)\n{\n"
              b"int proto(int a,\n  int b);\nclass Widget(Base):\n    def render(self):\n} my_type_t;\n"
              b"\tstruct ext4_inode *inode = x;\nextern int nope(void)\n;\n"
              b"const struct file_operations ext4_fops = {\nstatic DEFINE_MUTEX(big_lock);\n\tx = 1;\n"
              b"enum gpa_e { /* a comment */\nstruct fwd;\ntypedef unsigned int __bitwise api_t;\n"
              b"typedef u32 (*notifier_fn_t)(struct nf *nf,\n} PACKED block_run;\n} while (0);\n"
              b"} else x = 1;\nstatic int debug_level;\n\t\t\t  enum fsm_state state)\n"
              b"typedef struct kobject *probe_t(dev_t, int *, void *);\n")
    names = [n for n, _, _ in definitions(source)]
    assert names == ["FOO_BAR", "ext4_inode", "do_thing", "Widget", "render", "my_type_t", "ext4_fops", "big_lock",
                     "gpa_e", "api_t", "notifier_fn_t", "block_run", "debug_level", "probe_t"]
    assert definition_keys(source) == {identifier_key(n) for n in names}  # the build's fast path agrees
    assert split_identifier("getUserByID") == ["get", "user", "by", "id"]
    assert identifier_key("get user by id") == identifier_key("get_user_by_id") == identifier_key("getUserById")


@settings(deadline=None)
@given(st.lists(st.sampled_from([
    "#define X_Y 1", "static int foo_bar(void)", "int x;", "\ttypedef struct a b_c;", "} my_t;", "struct S {",
    "def run_it(self):", "fn main() {", "DEFINE_MUTEX(lock_a);", "if (x) {", "return y;", "extern int z;",
    "pub(crate) fn Go_Fast()", "int f(int a,", "\tint b);", "x = 1;", "", "/* c */"]), max_size=30))
def test_definition_keys_equal_the_keys_of_definitions(lines: list[str]) -> None:
    data = "\n".join(lines).encode()
    assert definition_keys(data) == {identifier_key(n) for n, _, _ in definitions(data)}


def test_status_and_build_commands(service: IndexService, kit: SimpleNamespace) -> None:
    ctx = context(service.workspace, index=service)
    status = get_command("sleuth.index.status")({}, ctx)
    assert status["state"] == "ready" and status["files"] == len(TREE) and status["store_bytes"] > 0
    built = get_command("sleuth.index.build")([{}], ctx)
    assert built["state"] == "ready" and built["files"] == len(TREE)
    assert get_command("sleuth.index.status")({}, context(service.workspace))["state"] == "disabled"


def test_files_spelling_the_words_as_one_identifier_are_read_first(tmp_path, kit: SimpleNamespace,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from sleuth.engine.text import search as text

    tree = {f"n{i}.c": "/* a storm came, then out it went */\n" for i in range(30)}
    tree["deep/nested/folder/regs.h"] = "#define NIG_REG_STORM_OUT_EN 0x1\n"
    kit.write_tree(tmp_path / "ws", tree)
    service = kit.start(tmp_path / "ws", tmp_path / "cache")
    try:
        monkeypatch.setattr(text, "MAX_SCAN_FILES", 3)  # only a few files may be read
        results = search_text(service, "storm out", TextOptions(max_results=5))["results"]
        assert results and results[0]["path"] == "deep/nested/folder/regs.h"
    finally:
        service.stop()
