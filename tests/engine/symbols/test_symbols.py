"""Workspace symbols: extraction per language, the stored symbol index, Ctrl+T ranking, freshness."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from sleuth.engine.index import IndexService
from sleuth.engine.definitions.defs import definition_keys
from sleuth.engine.definitions.extract import SymbolKind as K, definitions_and_symbols, extract
from sleuth.engine.definitions.pack import pack, unpack
from sleuth.engine.symbols.rank import EXACT, IN_ORDER, PREFIX, SAME_KEY, WORD_STARTS, match_tier
from sleuth.engine.symbols.search import SymbolOptions, search_symbols
from sleuth.engine.workspace import Workspace
from tests.conftest import write_tree
from tests.fixtures import index_service

C = """#define MAX_WIDGETS 16
struct widget {
\tunsigned long w_flags;
\tstruct list_head *w_list;
\tint (*w_probe)(struct widget *w);
\tunion {
\t\tint raw;
\t} w_u;
};

enum widget_state {
\tWIDGET_ON,
\tWIDGET_OFF = 2,
};

typedef struct {
\tint x;
} point_t;

static int widget_probe(struct widget *w)
{
\treturn 0;
}
int widget_count;

static int
widget_remove(
\tstruct widget *w)
{
\treturn 0;
}

static void
widget_declared(int x);
EXPORT_SYMBOL(widget_probe);
"""

PY = """class UserService(Base):
    def get_user_by_id(self, uid):
        def helper():
            pass
        return uid

async def fetch_all():
    pass
MAX_USERS = 10
"""

TS = """export class OrderController {
  async placeOrder(id: string): Promise<void> {
    if (id) {
    }
  }
}
export function makeOrder() {}
export const cancelOrder = async (id) => {};
export interface OrderProps { id: number }
"""

OTHER = {
    "srv.go": "package srv\ntype Server struct {\n}\nfunc (s *Server) Serve(l int) error {\n}\nfunc NewServer() *Server {\n}\n",
    "lib.rs": "pub struct Parser { }\nimpl Display for Parser {\n    fn fmt(&self) {}\n}\npub fn parse_all() {}\n",
    "App.java": "public class App {\n    public static void main(String[] args) {\n    }\n    private int count = 0;\n}\n",
    "Svc.cs": "namespace Shop.Core\n{\n    public class Cart\n    {\n        public void AddItem(int id)\n        {\n        }\n"
              "        public int Total { get; set; }\n    }\n}\n",
    "tool.rb": "module Billing\n  class Invoice\n    def total_due\n    end\n  end\nend\n",
    "page.php": "<?php\nclass PageRenderer {\n    public function renderPage() {\n    }\n}\n",
    "run.sh": "setup_env() {\n  :\n}\nfunction teardown_env {\n  :\n}\n",
    "README.md": "# Sleuth\ntext\n## Install it\n```sh\n# not a heading\n```\n### Details ###\n",
    "Widget.cpp": "int Widget::draw(int x) {\n}\nWidget::~Widget() {\n}\n",
}


def _names(name: str, text: str) -> list[tuple[str, int, str]]:
    return [(s.name, s.kind, s.container) for s in extract(name, text.encode())]


def test_c_definitions_members_and_enumerators_with_containers_and_ranges() -> None:
    found = extract("w.c", C.encode())
    by_name = {s.name: s for s in found}
    assert (by_name["MAX_WIDGETS"].kind, by_name["widget"].kind, by_name["widget_state"].kind) == (K.CONSTANT, K.STRUCT, K.ENUM)
    assert [(n, by_name[n].kind, by_name[n].container) for n in ("w_flags", "w_list", "w_probe", "raw", "w_u")] == [
        ("w_flags", K.FIELD, "widget"), ("w_list", K.FIELD, "widget"), ("w_probe", K.FIELD, "widget"),
        ("raw", K.FIELD, "widget"), ("w_u", K.FIELD, "widget")]
    assert [(n, by_name[n].kind, by_name[n].container) for n in ("WIDGET_ON", "WIDGET_OFF")] == [
        ("WIDGET_ON", K.ENUM_MEMBER, "widget_state"), ("WIDGET_OFF", K.ENUM_MEMBER, "widget_state")]
    assert by_name["x"].container == "point_t" and by_name["point_t"].kind == K.TYPE_PARAMETER
    probe = by_name["widget_probe"]
    assert (probe.kind, probe.line, probe.col, probe.end_col) == (K.FUNCTION, 19, 11, 23)
    assert C.splitlines()[probe.line][probe.col:probe.end_col] == "widget_probe"
    assert by_name["widget_count"].kind == K.VARIABLE
    assert (by_name["widget_remove"].kind, by_name["widget_remove"].line) == (K.FUNCTION, 26)  # type on the line before
    assert "widget_declared" not in by_name and "EXPORT_SYMBOL" not in by_name


def test_the_c_pass_gives_the_text_search_the_same_definition_keys() -> None:
    keys, _ = definitions_and_symbols("w.c", C.encode())
    assert keys == definition_keys(C.encode())


@pytest.mark.parametrize("name, text, expected", [
    ("u.py", PY, [("UserService", K.CLASS, ""), ("get_user_by_id", K.METHOD, "UserService"),
                  ("helper", K.FUNCTION, "get_user_by_id"), ("fetch_all", K.FUNCTION, ""), ("MAX_USERS", K.VARIABLE, "")]),
    ("o.ts", TS, [("OrderController", K.CLASS, ""), ("placeOrder", K.METHOD, "OrderController"),
                  ("makeOrder", K.FUNCTION, ""), ("cancelOrder", K.FUNCTION, ""), ("OrderProps", K.INTERFACE, "")]),
    ("srv.go", OTHER["srv.go"], [("Server", K.STRUCT, ""), ("Serve", K.METHOD, "Server"), ("NewServer", K.FUNCTION, "")]),
    ("lib.rs", OTHER["lib.rs"], [("Parser", K.STRUCT, ""), ("fmt", K.METHOD, "Parser"), ("parse_all", K.FUNCTION, "")]),
    ("App.java", OTHER["App.java"], [("App", K.CLASS, ""), ("main", K.METHOD, "App"), ("count", K.FIELD, "App")]),
    ("Svc.cs", OTHER["Svc.cs"], [("Shop.Core", K.NAMESPACE, ""), ("Cart", K.CLASS, "Shop.Core"),
                                 ("AddItem", K.METHOD, "Cart"), ("Total", K.PROPERTY, "Cart")]),
    ("tool.rb", OTHER["tool.rb"], [("Billing", K.MODULE, ""), ("Invoice", K.CLASS, "Billing"),
                                   ("total_due", K.METHOD, "Invoice")]),
    ("page.php", OTHER["page.php"], [("PageRenderer", K.CLASS, ""), ("renderPage", K.METHOD, "PageRenderer")]),
    ("run.sh", OTHER["run.sh"], [("setup_env", K.FUNCTION, ""), ("teardown_env", K.FUNCTION, "")]),
    ("README.md", OTHER["README.md"], [("Sleuth", K.STRING, ""), ("Install it", K.STRING, "Sleuth"),
                                       ("Details", K.STRING, "Install it")]),
    ("Widget.cpp", OTHER["Widget.cpp"], [("draw", K.METHOD, "Widget"), ("~Widget", K.METHOD, "Widget")]),
])
def test_each_language_names_kinds_and_containers(name: str, text: str, expected: list[tuple[str, int, str]]) -> None:
    assert _names(name, text) == expected


def test_columns_are_utf16_and_packing_round_trips() -> None:
    found = extract("a.md", "# Café 😀 menu\n".encode())
    assert [(s.name, s.line, s.col, s.end_col) for s in found] == [("Café 😀 menu", 0, 2, 14)]
    assert unpack(pack(found)) == found
    members = extract("w.c", C.encode())
    assert unpack(pack(members)) == members  # containers repeated as "^", end columns left out when implied


@pytest.mark.parametrize("name, query, tier", [
    ("PM_RESUME", "PM_RESUME", EXACT), ("PM_RESUME", "pmresume", SAME_KEY), ("pm_runtime_resume", "pm_run", PREFIX),
    ("getUserById", "gubi", WORD_STARTS), ("ext4_fill_super", "ext4fs", WORD_STARTS),
    ("pm_runtime_resume", "pmrtr", IN_ORDER), ("pm_runtime_resume", "xyz", None),
])
def test_match_tiers(name: str, query: str, tier: int | None) -> None:
    from sleuth.engine.definitions.pack import fast_key

    assert match_tier(name, query, fast_key(query)) == tier


@pytest.fixture
def service(tmp_path: Path) -> IndexService:
    write_tree(tmp_path / "ws", {"drivers/widget.c": C, "app/users.py": PY, "web/orders.ts": TS, **OTHER,
                                 "a/b/c/deep/users.py": "def get_user_by_id():\n    pass\n",
                                 "x.py": "def getUserByIdFaster():\n    pass\ndef get_user_by_idx():\n    pass\n"})
    svc = index_service(tmp_path / "ws", tmp_path / "cache")
    svc.start()
    assert svc.wait_ready(120) and svc.wait_idle(60)
    yield svc
    svc.stop()


def _find(service: IndexService, query: str, **options: object) -> list[tuple[str, str]]:
    return [(h.symbol.name, h.display) for h in search_symbols(service, query, SymbolOptions(**options))["results"]]


def test_ranking_exact_then_same_key_then_prefix_then_word_starts_shorter_paths_first(service: IndexService) -> None:
    found = _find(service, "get_user_by_id")
    assert found[:2] == [("get_user_by_id", "app/users.py"), ("get_user_by_id", "a/b/c/deep/users.py")]
    assert found[2:] == [("get_user_by_idx", "x.py"), ("getUserByIdFaster", "x.py")]
    assert _find(service, "getuserbyid")[:2] == [("get_user_by_id", "app/users.py"), ("get_user_by_id", "a/b/c/deep/users.py")]
    assert _find(service, "WIDGETON")[0] == ("WIDGET_ON", "drivers/widget.c")
    deadline = time.monotonic() + 60  # word starts come from the in-order keys, loaded in the background
    while ("placeOrder", "web/orders.ts") not in _find(service, "plord") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ("placeOrder", "web/orders.ts") in _find(service, "plord")
    assert _find(service, "zzzz") == []


def test_open_files_break_ties_and_filters_apply(service: IndexService, tmp_path: Path) -> None:
    deep = str((tmp_path / "ws" / "a/b/c/deep/users.py").resolve())
    found = _find(service, "get_user_by_id", open_paths=frozenset({deep}))
    assert found[0] == ("get_user_by_id", "a/b/c/deep/users.py")
    assert _find(service, "widget", kinds=frozenset({K.STRUCT})) == [("widget", "drivers/widget.c")]
    assert _find(service, "get_user_by_id", keep=lambda path, display: display.startswith("a/")) == [
        ("get_user_by_id", "a/b/c/deep/users.py")]


def test_a_new_function_is_found_right_after_it_is_written(service: IndexService, tmp_path: Path) -> None:
    path = tmp_path / "ws" / "app" / "users.py"
    path.write_text(PY + "def brand_new_handler():\n    pass\n")
    service.notify_changed([str(path)], files_only=True)  # what the watcher does on the write
    assert _find(service, "brand_new_handler") == [("brand_new_handler", "app/users.py")]  # pending: read from disk
    assert service.wait_idle(60)
    assert _find(service, "brand_new_handler") == [("brand_new_handler", "app/users.py")]  # now from the index
    path.write_text("def renamed():\n    pass\n")
    service.notify_changed([str(path)], files_only=True)
    assert _find(service, "brand_new_handler") == []
    assert service.wait_idle(60)
    assert _find(service, "brand_new_handler") == [] and _find(service, "renamed") == [("renamed", "app/users.py")]
    deadline = time.monotonic() + 60
    while _find(service, "renmd") != [("renamed", "app/users.py")] and time.monotonic() < deadline:
        time.sleep(0.05)  # the in-order vocabulary is cached per letter and refreshed after a change
    assert _find(service, "renmd") == [("renamed", "app/users.py")]


def test_a_big_file_answers_from_its_stored_symbols(tmp_path: Path) -> None:
    """Files of 64 KiB or more keep their symbols in the index (extracting them again would be slow)."""
    filler = "".join(f"#define REG_{i:05d}_OFFSET 0x{i:x}\n" for i in range(3000))
    write_tree(tmp_path / "ws", {"asic_reg.h": filler + "struct asic_block {\n\tint blk_id;\n};\n"})
    svc = index_service(tmp_path / "ws", tmp_path / "cache")
    svc.start()
    try:
        assert svc.wait_ready(120) and svc.wait_idle(60)
        assert (tmp_path / "ws" / "asic_reg.h").stat().st_size >= 64 << 10
        (tmp_path / "ws" / "asic_reg.h").write_text("")  # not re-read: the answer must come from the store
        assert _find(svc, "blk_id") == [("blk_id", "asic_reg.h")]
        assert _find(svc, "REG_02999_OFFSET") == [("REG_02999_OFFSET", "asic_reg.h")]
    finally:
        svc.stop()


def test_not_ready_says_so(tmp_path: Path) -> None:
    svc = index_service(tmp_path, tmp_path.parent / (tmp_path.name + "-cache"))
    assert search_symbols(svc, "anything") == {"ready": False, "total": 0, "results": []}
