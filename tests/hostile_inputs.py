"""Every parser entry point, with real-shaped seed inputs and the exceptions it documents.

A parser is total when any input either gives a value or raises one of its documented
errors: nothing else (no TypeError from a value of the wrong JSON type, no RecursionError,
no UnicodeError from a lone surrogate, no ValueError from a NUL in a path). The mutator
here is plain `random` so that `scripts/fuzz_homes.py` needs nothing but the stdlib;
`tests/test_hostile_parsers.py` drives the same entry points through hypothesis.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tui.agents.client import EngineError, load_config
from tui.claude import gitroot, lock, pathfinder, paths, settings, transcripts
from tui.claude.targets import TargetError, resolve_target
from tui.history import backfill
from tui.history.writes_log import MemoryEvent, StoreMatcher, parse_line
from tui.memory import frontmatter, index, links, yaml_js
from tui.memory.audit import audit_store
from tui.memory.path_mentions import find_mentions
from tui.memory.store import load_store

# Pieces hostile input is made of: syntax of every format involved, characters Python and
# JavaScript treat differently, controls, lone surrogates, and things that grow.
PIECES = [
    "\x00", "\ud800", "\udfff", "\udcff", "\x1b[2J", "\x07", "\x85", "\u2028", "\ufeff", "\r",
    "\r\n", "\n", "\t", "😀", "项", "---\n", "---", "...", ": ", ":", "#", "- ", "&a ", "*a",
    "!!python/object ", "!tag ", "<<: *a", "? ", "|", ">", "'", '"', "\\", "\\u", "\\ud800",
    "[", "]", "{", "}", ",", "(", ")", "<!--", "-->", "`", "```\n", "[[", "]]", "](", "[a](b.md)",
    "/memory/", "projects/", "~", "~/", "//", "C:\\", "..", "null", "true", "1e999",
    "9" * 400, "0x", "%", "=", "[anthropic]", "[[x]]", "\"\"\"",
]
GROWING = ["[", "{", "- ", "  ", "<!--", "a: [", '{"a":', "&a [*a, *a] ", "x", "9"]


@dataclass(frozen=True)
class EntryPoint:
    name: str
    seeds: tuple[str, ...]
    call: Callable[[str], object]
    allowed: tuple[type[BaseException], ...] = ()


def to_bytes(text: str) -> bytes:
    """UTF-8, with `\\udc80`-`\\udcff` as the raw bytes they stand for and other lone
    surrogates encoded as they are (invalid UTF-8 either way)."""
    return text.encode("utf-8", "surrogateescape") if _only_escapes(text) else bytes(
        b for char in text for b in (
            bytes([ord(char) - 0xDC00]) if 0xDC80 <= ord(char) <= 0xDCFF
            else char.encode("utf-8", "surrogatepass")
        )
    )


def _only_escapes(text: str) -> bool:
    return not re.search("[\ud800-\udc7f\udd00-\udfff]", text)


def mutated(rng: random.Random, seeds: tuple[str, ...]) -> str:
    """A seed changed one to five times: pieces inserted, slices cut, repeated or spliced,
    JSON values swapped for other types, something grown large."""
    text = rng.choice(seeds)
    for _ in range(rng.randint(1, 5)):
        text = _mutate(rng, text, seeds)
    return text


def _mutate(rng: random.Random, text: str, seeds: tuple[str, ...]) -> str:
    at = rng.randint(0, len(text))
    choice = rng.random()
    if choice < 0.35:
        return text[:at] + rng.choice(PIECES) + text[at:]
    if choice < 0.45:
        end = rng.randint(at, min(len(text), at + 40))
        return text[:at] + text[end:]
    if choice < 0.55:
        end = rng.randint(at, min(len(text), at + 40))
        return text[:end] + text[at:end] * rng.randint(1, 50) + text[end:]
    if choice < 0.65:
        other = rng.choice(seeds)
        cut = rng.randint(0, len(other))
        return text[:at] + other[cut:cut + rng.randint(1, 80)] + text[at:]
    if choice < 0.78:
        swap = rng.choice(['5', '[5]', '{"a":{}}', "null", "true", '"\\ud800"', '"a\\u0000b"',
                           "1e999", "9" * 5000, "[" * 3000, '""', "[]", "{}"])
        return re.sub(r'"[^"\\]*"(?=\s*[,}\]])', lambda m: swap if rng.random() < 0.3
                      else m.group(), text)
    if choice < 0.86:
        return text[:at] + rng.choice(GROWING) * rng.choice([100, 3000, 20_000]) + text[at:]
    if choice < 0.93:
        return text[:at]
    return text[:at] + "".join(chr(rng.randrange(0x110000)) for _ in range(rng.randint(1, 8))) \
        + text[at:]


def run(point: EntryPoint, data: str) -> str | None:
    """None when the entry point returned or raised what it documents, else what it raised."""
    try:
        point.call(data)
    except point.allowed:
        return None
    except Exception as error:  # the point of the exercise: anything else is a finding
        return f"{type(error).__name__}: {str(error)[:120]}"
    return None


# --- seeds in the shapes Claude Code writes --------------------------------------------------

MEMORY_SEEDS = (
    "---\nname: user_role\ndescription: the user's role\ntype: user\n---\n\nBackend engineer.\n",
    "---\nname: feedback-tests\ndescription: run the suite\nmetadata: \n  type: feedback\n"
    "  node_type: memory\n  originSessionId: 6d1c0f5e-0c5e-4a43-9b5f-3a3b9c9d8e7f\n"
    "  modified: 2026-01-02T03:04:05.000Z\n---\n\nRun all tests.\n**Why:** bugs.\n"
    "**How to apply:** always, see [[user_role]].\n",
    '\ufeff---\r\nname: ""\r\ndescription: "Short-term lease type" is a NEGATIVE signal\r\n'
    "type: project\r\n---\r\nSince yesterday the deploy is blocked.\r\n",
    "---\nname: &a x\ndescription: *a\ntags: [a, {b: c}]\nwhen: 12:34\nok: yes\n---\nbody\n",
    "No frontmatter at all; an old store kept content here.\n- [x](x.md)\n",
)
INDEX_SEEDS = (
    "- [Role](user_role.md) — who the user is\n- [Tests](feedback_tests.md) — run them\n",
    "---\ntitle: x\n---\n<!-- note -->\n# User\n- [A](<a b.md>) — hook\n- [[kebab-slug]]\n"
    "`[not](a link)` and [B](topics/b.md#x \"t\") and [C](../out.md) [D](https://x.y)\n",
    "```\n[code](c.md)\n```\n    [indented](i.md)\n[ref]: r.md\n- [{module}_project.md]({module}_project.md)\n",
)
TRANSCRIPT_SEEDS = (
    '{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","cwd":"/home/me/proj",'
    '"timestamp":"2026-01-02T03:04:05.000Z","gitBranch":"main","toolUseResult":{"type":"create",'
    '"filePath":"/c/projects/-home-me-proj/memory/a.md","content":"x\\n","structuredPatch":[],'
    '"originalFile":null},"message":{"role":"user","content":"hi"}}',
    '{"type":"user","sessionId":"s2","cwd":"/w","toolUseResult":{"filePath":'
    '"/c/projects/-home-me-proj/memory/a.md","oldString":"x","newString":"y","originalFile":"x\\n",'
    '"structuredPatch":[],"replaceAll":false}}',
    '{"type":"user","toolUseResult":{"filePath":"/c/projects/-home-me-proj/memory/a.md",'
    '"edits":[{"old_string":"x","new_string":"y","replace_all":true}],"originalFile":"x"}}',
    '{"type":"user","toolUseResult":{"type":"text","file":{"filePath":'
    '"/c/projects/-home-me-proj/memory/a.md","content":"x","startLine":1,"numLines":1,'
    '"totalLines":1}}}',
    '{"type":"assistant","cwd":"/w","message":{"id":"m","content":[{"type":"tool_use","id":"t",'
    '"name":"Write","input":{"file_path":"C:\\\\c\\\\projects\\\\x\\\\memory\\\\a.md","content":"x"}}]}}',
    '{"type":"system","subtype":"memory_saved","writtenPaths":'
    '["/c/projects/-home-me-proj/memory/a.md"],"verb":"Improved"}',
    '{"type":"worktree-state","worktreeSession":{"originalCwd":"/home/me/proj",'
    '"worktreePath":"/home/me/proj/.worktrees/x","worktreeName":"x","worktreeBranch":"wt"}}',
)
SETTINGS_SEEDS = (
    '{"autoMemoryDirectory": "~/notes/memory", "autoMemoryEnabled": false}',
    '{"autoMemoryDirectory": "/srv/memory", "permissions": {"allow": ["Read"]}}',
    '{"autoMemoryEnabled": true, "autoDream": {"enabled": true, "minHours": 24}}',
)
CONFIG_SEEDS = (
    '[anthropic]\napi_key = "sk-ant-x"\nbase_url = "https://example.com"\nmodel = "m"\n'
    "timeout = 30\n",
    '[anthropic]\nauth_token = "t"\ntimeout = 12.5\n[other]\nx = [1, 2, {a = 1}]\n',
)
PATH_SEEDS = (
    "/Users/foo/my-project", "/Users/me/proj/.worktrees/2573", "C:\\Users\\me\\proj",
    "/home/me/" + "long-directory-name/" * 12 + "😀", "-home-me-repo", "/tmp/a b/ü/项目",
)
MENTION_SEEDS = (
    "Charges live in `src/billing/old_api.py`; see [api](src/payments/api.py) and ./docs/x.md\n"
    "## Tracker\n- Git repo: `acme/tracker`, ~/code/other and https://github.com/a/b/c.py\n"
    "```bash\npython scripts/run.py src/**/*.ts {module}/x.py\n```\n```\n$ cat a/b.md\n",
    "e.g./i.e. km/h 1.2/3.4 ../up/x.py /abs/x.py src/billing/ w/ logs/YYYY/MM/DD.md\n",
)
GIT_SEEDS = ("gitdir: ../.git/worktrees/wt\n", "gitdir: /abs/path/.git/modules/sub\n", "")
LOCK_SEEDS = ("12345", "", "  99\n", "not a pid")


def entry_points(scratch: Path) -> list[EntryPoint]:
    """The entry points, those that read files working in `scratch` (which must exist)."""
    store = scratch / "projects" / "-home-me-proj" / "memory"
    store.mkdir(parents=True, exist_ok=True)
    matcher = StoreMatcher(store)
    names = {"user_role": "user_role.md", "kebab-slug": "kebab_slug.md"}
    (scratch / "tree" / "home" / "me" / "proj").mkdir(parents=True, exist_ok=True)

    def write(name: str, text: str) -> Path:
        path = scratch / name
        path.write_bytes(to_bytes(text))
        return path

    def transcript_record(text: str) -> None:
        record = transcripts.decode(to_bytes(text))
        if record is not None:
            for path in transcripts.written_paths(record):
                transcripts.store_of_memory_path(path)
        transcripts.memory_evidence(write("t.jsonl", text + "\n" + text))
        transcripts.first_cwd(scratch / "t.jsonl")

    def writes_log_events(text: str) -> None:
        items = parse_line(to_bytes(text), 0, matcher, "t.jsonl")
        events = [MemoryEvent(**item) for item in items]
        for event in events:
            event.when  # noqa: B018 - the time is parsed here
        backfill.plan(events + events)

    def settings_file(text: str) -> None:
        path = write("settings.json", text)
        value = settings.read_setting(path)
        settings.auto_memory_enabled({}, path)
        for candidate in (value, text):
            if candidate is not None:
                settings.rejection_reason(candidate)

    def path_functions(text: str) -> None:
        name = paths.sanitize(text)
        paths.encode_path(text)
        paths.path_hash(text)
        paths.utf16_len(text)
        paths.folder_matches(text, name)
        paths.find_folder([text, name], name)
        paths.normalize_path(text)
        paths.project_dir_name_override({"CLAUDE_CODE_PROJECT_DIR_NAME": text,
                                         "CLAUDE_CONFIG_DIR": "x"})
        pathfinder.paths_for_folder(name, root=str(scratch / "tree"))

    def target(text: str) -> None:
        resolve_target(text, home=scratch, env={})

    def git_file(text: str) -> None:
        checkout = scratch / "checkout"
        checkout.mkdir(exist_ok=True)
        write("checkout/.git", text)
        gitroot.canonical_project_root(checkout / "sub")

    def lock_body(text: str) -> None:
        write(f"{store.relative_to(scratch)}/{paths.LOCK_NAME}", text)
        lock.read_lock(store)

    def audit(text: str) -> None:
        write(f"{store.relative_to(scratch)}/MEMORY.md", text)
        write(f"{store.relative_to(scratch)}/m.md", text)
        audit_store(load_store(store))
        audit_store(load_store(store, head_only=True))

    def evidence_cache(text: str) -> None:
        transcript = write("e.jsonl", TRANSCRIPT_SEEDS[0])
        info = transcript.stat()
        keyed = text.replace("SIZE", str(info.st_size)).replace("MTIME", str(info.st_mtime_ns))
        cache = transcripts.EvidenceCache(write("evidence.json", keyed.replace(
            "PATH", json.dumps(os.fsdecode(transcript))[1:-1])))
        cache.folder_evidence([transcript])

    evidence_seeds = ('{"PATH": [SIZE, MTIME, ["/s/memory"], ["/o"]]}',
                      '{"PATH": [SIZE, MTIME, [], []], "x": 5}')
    return [
        EntryPoint("frontmatter.parse", MEMORY_SEEDS, frontmatter.parse),
        EntryPoint("frontmatter.load", tuple(s.split("---")[1] for s in MEMORY_SEEDS[:4]),
                   yaml_js.load, (yaml_js.YamlError,)),
        EntryPoint("frontmatter retry", MEMORY_SEEDS, frontmatter.quote_special_values),
        EntryPoint("index.parse_index", INDEX_SEEDS + MEMORY_SEEDS[:1],
                   lambda text: index.parse_index(text, names)),
        EntryPoint("links.find_links", INDEX_SEEDS + MEMORY_SEEDS[1:2], links.find_links),
        EntryPoint("transcript records", TRANSCRIPT_SEEDS, transcript_record),
        EntryPoint("writes_log events", TRANSCRIPT_SEEDS, writes_log_events),
        EntryPoint("settings", SETTINGS_SEEDS, settings_file),
        EntryPoint("config.toml", CONFIG_SEEDS,
                   lambda text: load_config({}, write("config.toml", text)), (EngineError,)),
        EntryPoint("folder names and paths", PATH_SEEDS, path_functions),
        EntryPoint("targets", PATH_SEEDS, target, (TargetError,)),
        EntryPoint("git root", GIT_SEEDS, git_file),
        EntryPoint("consolidate lock", LOCK_SEEDS, lock_body),
        EntryPoint("store audit", MEMORY_SEEDS + INDEX_SEEDS, audit),
        EntryPoint("path mentions", MENTION_SEEDS + MEMORY_SEEDS[:2],
                   lambda text: find_mentions("m.md", text, {"x.md"})),
        EntryPoint("evidence cache", evidence_seeds, evidence_cache),
    ]
