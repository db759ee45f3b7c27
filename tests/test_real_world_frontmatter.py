"""A synthetic store in the frontmatter shapes real stores hold (reference §12), each file
read as Claude Code's memory scanner reads it. Written here, not copied from any store."""

from __future__ import annotations

import pytest
from conftest import write_index, write_memory

from tui.memory.audit import audit_store
from tui.memory.store import load_store

UUID = "0b0e3b6a-1c1b-4d3e-9f00-123456789abc"

# file: (text, Claude Code's (name, description, type), the frontmatter findings)
SHAPES = {
    "flat.md": (
        "---\nname: user-role\ndescription: Senior Go engineer, new to React\ntype: user\n---\n"
        "Knows Go deeply.\n",
        ("user-role", "Senior Go engineer, new to React", "user"), set(),
    ),
    "nested.md": (
        f"---\nname: testing-policy\ndescription: Run the real database in tests\nmetadata:\n"
        f"  type: feedback\n  node_type: memory\n  originSessionId: {UUID}\n"
        "  modified: 2026-03-01T10:00:00.000Z\n---\nUse the real DB.\n"
        "**Why:** mocks hid a bug.\n**How to apply:** always.\n",
        ("testing-policy", "Run the real database in tests", "feedback"), set(),
    ),
    "trailing_space.md": (
        "---\nname: deploys\ndescription: How deploys run\nmetadata: \n  type: project\n"
        "  originSessionId: session-20260526-065224\n  originEpoch: 1767225600\n---\n"
        "Fridays are frozen.\n**Why:** outages.\n**How to apply:** ship Thursday.\n",
        ("deploys", "How deploys run", "project"), set(),
    ),
    "flat_session.md": (
        f"---\nname: grafana\ndescription: Dashboards live in Grafana\ntype: reference\n"
        f"originSessionId: {UUID}\n---\nSee the ops board.\n",
        ("grafana", "Dashboards live in Grafana", "reference"), set(),
    ),
    "blank_name.md": (
        '---\nname: ""\nmetadata:\n  node_type: memory\n---\nA body the rewrite kept.\n',
        ("", None, None), {"missing_description"},
    ),
    "pattern.md": (
        "---\nname: retry-pattern\ndescription: Retry with jitter\ntype: pattern\n---\nBody.\n",
        ("retry-pattern", "Retry with jitter", "pattern"), {"unknown_type"},
    ),
    "cjk_title.md": (
        "---\nname: 用户角色：高级工程师\ndescription: 不要模拟数据库，测试用真实数据库\n"
        "type: user\n---\n사용자 역할 메모.\n",
        ("用户角色：高级工程师", "不要模拟数据库，测试用真实数据库", "user"), set(),
    ),
    "bom.md": (
        "\ufeff---\nname: bom-store\ndescription: Every file of this store has a BOM\n"
        "type: user\n---\nBody.\n",
        ("bom-store", "Every file of this store has a BOM", "user"), set(),
    ),
    "crlf.md": (
        "---\r\nname: crlf\r\ndescription: Written on Windows\r\ntype: user\r\n---\r\nBody.\r\n",
        ("crlf", "Written on Windows", "user"), set(),
    ),
    "bom_crlf.md": (
        "\ufeff---\r\nname: both\r\ndescription: \"BOM\" and CRLF: both dropped\r\n"
        "type: reference\r\n---\r\nBody.\r\n",
        ("both", '"BOM" and CRLF: both dropped', "reference"), set(),
    ),
    "negative_signal.md": (
        '---\nname: lease-signal\ndescription: "Short-term lease type" is a NEGATIVE signal\n'
        "type: feedback\n---\nScore it down.\n",
        (None, None, None), {"bad_frontmatter"},
    ),
    "colon_rescued.md": (
        "---\nname: colon\ndescription: Note: the retry quotes this\ntype: user\n---\nBody.\n",
        ("colon", "Note: the retry quotes this", "user"), set(),
    ),
    "indented_colon.md": (
        "---\nname: indented\nmetadata:\n  description: Note: indented keys are not quoted\n"
        "  type: user\n---\nBody.\n",
        (None, None, None), {"bad_frontmatter"},
    ),
    "yes_type.md": (
        "---\nname: yes\ndescription: on\ntype: user\nmodified: 2026-03-01\n---\nBody.\n",
        ("yes", "on", "user"), set(),
    ),
    "duplicate_type.md": (
        "---\nname: twice\ndescription: type given twice\ntype: user\ntype: feedback\n---\nBody.\n",
        (None, None, None), {"bad_frontmatter"},
    ),
    "no_frontmatter.md": (
        "An early memory with no frontmatter at all.\n",
        (None, None, None), {"missing_frontmatter"},
    ),
}
FRONTMATTER_KINDS = {"missing_frontmatter", "bad_frontmatter", "missing_description",
                     "unknown_type"}


@pytest.fixture
def real_world_store(tmp_path):
    store = tmp_path / "memory"
    for file, (text, _, _) in SHAPES.items():
        write_memory(store, file, text)
    write_index(store, [f"- [{file}]({file}) — a memory" for file in SHAPES])
    return store


@pytest.mark.parametrize("file", sorted(SHAPES))
def test_real_world_shape_is_read_as_claude_code_reads_it(real_world_store, file):
    _, (name, description, kind), findings = SHAPES[file]
    store = load_store(real_world_store)
    memory = store.memory(file)
    fm = memory.frontmatter
    assert (fm.name, fm.description, fm.type) == (name, description, kind)
    got = {f.kind for f in audit_store(store) if f.file == file} & FRONTMATTER_KINDS
    assert got == findings


def test_head_only_reading_sees_the_same_frontmatter(real_world_store):
    full = {m.file: m.frontmatter.data for m in load_store(real_world_store).memories}
    head = {m.file: m.frontmatter.data for m in load_store(real_world_store, head_only=True).memories}
    assert head == full
