"""Memory bodies shaped like real ones, and the statistics that say how real ones look.

`REAL` holds what 101 memory files of 19 public stores that users committed hold (read in
June 2026; the repositories are listed in README.md, "What real memories look like"). The
generator draws each file's features with those shares, its length from a log-normal fitted
to the real lengths, and its words from English function words, a technical vocabulary with
a Zipf tail, and identifiers of the store's own (real stores name their own files,
functions and flags again and again). `measure` computes the same statistics on any set of
bodies, so the benchmark prints the generated tree's figures beside the real ones.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Sequence

# Shares of memory files (frontmatter aside) holding each feature, and length percentiles
# (whole file, characters). Vocabulary figures come from ten of those bodies.
REAL = {
    "files": 101,
    "stores": 19,
    "code span": 0.85,
    "fenced code": 0.09,
    "inline link": 0.02,
    "[[wiki]] link": 0.36,
    "heading": 0.18,
    "list": 0.62,
    "table": 0.06,
    "**Why:**": 0.59,
    "**How to apply:**": 0.55,
    "a [": 0.47,
    "a [ and Markdown syntax": 0.46,
    "backslash": 0.02,
    "CJK": 0.03,
    "chars p10": 811,
    "chars median": 1648,
    "chars p90": 3583,
    "chars per word": 7.1,
    "distinct words / words": 0.77,
    "function words": 0.28,
    "code-like words": 0.13,
}

FUNCTION_WORDS = (
    "the the the the a a an to to of of and and in in for for on on with is is it it that "
    "that we not when from by at as be this only after before always never should must can "
    "or but if then so are was were has have do does its you they their them our no all "
    "any each one more than into out up via per instead because while"
).split()

# A technical English vocabulary, commonest first: content words are drawn Zipf-distributed
# over it (and over invented words for the long tail).
ENGLISH = (
    "user test file code data change run build error server client config session path "
    "value state page memory name project type list table command fix update call check "
    "version issue feature model default time field line function request app api script "
    "tool output input key task step support case log event rule result option pattern "
    "commit branch repo release deploy setting cache index query schema column row record "
    "message format layout view component module package import export source target "
    "local remote main review plan flow order level mode status job worker queue thread "
    "process service endpoint route handler hook test suite fixture mock unit integration "
    "database migration token auth key secret env variable flag parameter argument return "
    "object array string number count size limit timeout retry error exception failure "
    "bug crash warning signal trigger callback promise async await loop batch stream file "
    "folder directory tree node edge graph map grid cell card player game score turn move "
    "match team round screen window panel button menu dialog modal form field label icon "
    "image color font style theme width height position offset scroll click select filter "
    "sort search result item entry history undo diff patch merge rebase push pull tag "
    "pipeline stage gate check lint format type hint docs readme note comment spec design "
    "decision reason context scope owner operator developer reviewer agent subagent prompt "
    "model provider chat response stream tool call plan skill workflow hook guard policy "
    "preference feedback project reference correction lesson gotcha trap workaround "
    "fallback default override explicit implicit silent visible hidden manual automatic "
    "local global shared private public internal external legacy current previous next "
    "first last new old real fake raw parsed valid invalid broken stale fresh clean dirty "
    "fast slow small large full empty single double exact partial strict loose simple "
    "complex safe unsafe stable flaky green red same different correct wrong good bad "
    "use add remove keep make read write load save send receive open close start stop "
    "create delete move copy rename replace split join parse render draw show hide "
    "enable disable install upgrade downgrade pin bump ship land revert fail pass skip "
    "wait poll sleep block allow deny reject accept confirm verify validate compare "
    "measure profile trace debug reproduce investigate document explain ask tell remind "
    "prefer avoid need want expect assume guess know find miss catch cover handle "
    "ensure prevent break work matter apply follow land cost save take give get set "
    "because although unless until whether already still again never often usually "
    "always sometimes explicitly directly instead rather only also even just both either "
    "backend frontend browser terminal shell container image cluster node pod region "
    "bucket storage disk volume network port host domain url header cookie payload body "
    "response status code request method json yaml toml csv markdown html css sql http "
    "python typescript javascript rust go java react vite node bun npm pip uv docker git "
    "github actions ci cd linux macos windows wsl ssh tls dns cdn proxy gateway webhook "
    "invoice payment billing customer account order product price stock report metric "
    "dashboard alert incident outage oncall postmortem latency throughput memory cpu gpu "
    "timeline deadline milestone sprint ticket backlog roadmap meeting call email slack "
    "monday tuesday wednesday thursday friday week month quarter year morning night"
).split()
TAIL_SYLLABLES = "ka lo mi ne ru sa ti vo ze pra sto gle dri fen mab cor tul vex quin ham".split()
TAIL = [a + b + c for a in TAIL_SYLLABLES for b in TAIL_SYLLABLES for c in ("", "r", "n", "er")]
CONTENT = ENGLISH + TAIL
ZIPF = [1.0 / (rank + 1) ** 0.9 for rank in range(len(CONTENT))]
CUMULATIVE = []
_total = 0.0
for _weight in ZIPF:
    _total += _weight
    CUMULATIVE.append(_total)

CJK_SENTENCES = (
    "この設定はテストの前に必ず確認すること", "部署前先运行完整的测试", "用户希望回答简洁直接",
    "キャッシュは毎回削除しない", "数据库迁移需要手动审核",
)
RELATIVE = ("yesterday", "last week", "next Thursday", "two days ago", "上周", "this sprint")


class StoreWords:
    """The identifiers one store keeps naming: its files, functions, flags and constants."""

    def __init__(self, rng: random.Random, count: int = 120) -> None:
        def word() -> str:
            return rng.choice(ENGLISH[:400]) if rng.random() < 0.7 else rng.choice(TAIL)

        made = []
        for _ in range(count):
            style = rng.random()
            a, b = word(), word()
            if style < 0.25:
                made.append(f"{a}_{b}")
            elif style < 0.45:
                made.append(a + b.capitalize())
            elif style < 0.6:
                made.append(a.capitalize() + b.capitalize() + rng.choice(("", "Store", "View")))
            elif style < 0.75:
                made.append(f"src/{a}/{b}.{rng.choice(('py', 'ts', 'tsx', 'go', 'rs'))}")
            elif style < 0.85:
                made.append(f"{a}_{b}".upper())
            elif style < 0.93:
                made.append(f"{a}{b.capitalize()}()")
            else:
                made.append(f"--{a}-{b}")
        self.identifiers = made


def content_word(rng: random.Random) -> str:
    return CONTENT[_bisect(CUMULATIVE, rng.random() * _total)]


def _bisect(cumulative: list[float], point: float) -> int:
    low, high = 0, len(cumulative) - 1
    while low < high:
        middle = (low + high) // 2
        if cumulative[middle] < point:
            low = middle + 1
        else:
            high = middle
    return low


def code_like(rng: random.Random, store: StoreWords, refs: bool = True) -> str:
    choice = rng.random()
    if choice < 0.004:  # an index or a label in brackets: `items[0]`, `[DONE]`
        return f"{rng.choice(store.identifiers)}[{rng.randint(0, 9)}]"
    if choice < 0.7:
        return rng.choice(store.identifiers)
    if choice < 0.8:
        return f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    if choice < 0.9 and refs:  # an issue: rare in descriptions, where YAML reads # as a comment
        return f"#{rng.randint(10, 1500)}"
    return f"v{rng.randint(1, 9)}.{rng.randint(0, 40)}"


def sentence(rng: random.Random, store: StoreWords, spans: float, words: int | None = None,
             refs: bool = True) -> str:
    """A sentence of 6-24 words; code-like words are put in backticks with chance `spans`."""
    out = []
    for _ in range(words or rng.randint(6, 24)):
        draw = rng.random()
        if draw < 0.014:  # the fourth commonest word of real memories
            out.append("—")
        elif draw < 0.294:
            out.append(rng.choice(FUNCTION_WORDS))
        elif draw < 0.424:
            token = code_like(rng, store, refs)
            out.append(f"`{token}`" if rng.random() < spans else token)
        else:
            out.append(content_word(rng))
    text = " ".join(out)
    return text[0].upper() + text[1:] + "."


def body_length(rng: random.Random) -> int:
    """Characters of a whole memory file: log-normal through the real p10, median and p90."""
    sigma = math.log(REAL["chars p90"] / REAL["chars median"]) / 1.2816
    return int(rng.lognormvariate(math.log(REAL["chars median"]), sigma))


def memory_body(rng: random.Random, kind: str, store: StoreWords, names: Sequence[str],
                length: int) -> str:
    """A body of about `length` characters with features drawn at the real shares."""
    spans = 0.55 if rng.random() < REAL["code span"] else 0.0
    has_heading = rng.random() < REAL["heading"]
    has_list = rng.random() < 0.85  # some bodies are too short for the list they could hold
    rationale = kind in ("feedback", "project")
    why = rng.random() < (0.8 if rationale else 0.12)
    how = why and rng.random() < 0.93
    if rng.random() < REAL["CJK"] - 0.01:  # the relative dates below hold some CJK too
        return "\n".join(rng.choice(CJK_SENTENCES) + "。" for _ in range(rng.randint(2, 8))) + "\n"

    blocks = [" ".join(sentence(rng, store, spans) for _ in range(rng.randint(1, 3)))]
    if why:
        blocks.append("**Why:** " + " ".join(sentence(rng, store, spans)
                                             for _ in range(rng.randint(1, 3))))
    if how:
        blocks.append("**How to apply:** " + " ".join(sentence(rng, store, spans)
                                                      for _ in range(rng.randint(1, 3))))
    extras: list[str] = []
    if rng.random() < REAL["fenced code"]:
        extras.append(fence(rng, store))
    if rng.random() < REAL["table"]:
        extras.append(table(rng, store))
    if rng.random() < REAL["inline link"]:
        extras.append(f"See [{content_word(rng)} notes](https://example.com/{content_word(rng)})"
                      f" and [{rng.choice(names) if names else 'index'}]"
                      f"({rng.choice(names) if names else 'other'}.md).")
    if spans and rng.random() < REAL["backslash"] / REAL["code span"]:
        extras.append(f"Run it from `C:\\Users\\dev\\{rng.choice(store.identifiers)}`.")
    blocks[1:1] = extras
    while sum(len(b) for b in blocks) < length - 150:
        if has_heading and rng.random() < 0.3:
            blocks.append(f"## {content_word(rng).capitalize()} {content_word(rng)}")
        if has_list and rng.random() < 0.6:
            blocks.append(bullets(rng, store, spans))
        else:
            blocks.append(" ".join(sentence(rng, store, spans) for _ in range(rng.randint(1, 4))))
    if rng.random() < REAL["[[wiki]] link"] + 0.04 and names:  # a store's first have none
        linked = rng.sample(list(names), min(len(names), rng.randint(1, 3)))
        if rng.random() < 0.1:
            linked.append(f"{content_word(rng)}-{content_word(rng)}")  # not written yet
        blocks.append("Related: " + ", ".join(f"[[{name}]]" for name in linked) + ".")
    if rng.random() < 0.08:
        blocks.append(f"We changed this {rng.choice(RELATIVE)} after the {content_word(rng)} incident.")
    return "\n\n".join(blocks) + "\n"


def bullets(rng: random.Random, store: StoreWords, spans: float) -> str:
    numbered = rng.random() < 0.25
    items = []
    for number in range(1, rng.randint(2, 6) + 1):
        marker = f"{number}." if numbered else "-"
        item = sentence(rng, store, spans, rng.randint(4, 16))
        if rng.random() < 0.3:
            item = f"**{content_word(rng).capitalize()}**: {item}"
        items.append(f"{marker} {item}")
        if rng.random() < 0.15:
            items.append(f"  - {sentence(rng, store, spans, rng.randint(3, 10))}")
    return "\n".join(items)


def fence(rng: random.Random, store: StoreWords) -> str:
    lines = []
    for _ in range(rng.randint(2, 10)):
        indent = "    " * rng.randint(0, 2)
        a, b = rng.choice(store.identifiers), content_word(rng)
        lines.append(rng.choice((
            f"{indent}{b} = {a}[{rng.randint(0, 9)}]",
            f"{indent}{a} --{b}",
            f"{indent}# {b} {content_word(rng)} {content_word(rng)}",
            f"{indent}if {b}: return {a}",
        )))
    return f"```{rng.choice(('', 'sh', 'python', 'ts', 'js'))}\n" + "\n".join(lines) + "\n```"


def table(rng: random.Random, store: StoreWords) -> str:
    rows = ["| Name | Value | Note |", "|---|---|---|"]
    for _ in range(rng.randint(2, 6)):
        rows.append(f"| `{rng.choice(store.identifiers)}` | {rng.randint(0, 999)} | "
                    f"{content_word(rng)} {content_word(rng)} |")
    return "\n".join(rows)


def description(rng: random.Random, store: StoreWords) -> str:
    return sentence(rng, store, 0.3, rng.randint(8, 22), refs=False).rstrip(".:—")


# --- measuring ---------------------------------------------------------------------------

_LIST = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s", re.M)
_CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_FUNCTION = frozenset(FUNCTION_WORDS)
_CODE_LIKE = re.compile(r"[_/.\-]\w|\d|[a-z][A-Z]")


def features(body: str) -> dict[str, bool]:
    lines = body.splitlines()
    return {
        "code span": "`" in body.replace("```", ""),
        "fenced code": any(line.lstrip().startswith(("```", "~~~")) for line in lines),
        "inline link": "](" in body,
        "[[wiki]] link": "[[" in body,
        "heading": any(line.startswith("#") for line in lines),
        "list": bool(_LIST.search(body)),
        "table": any(line.lstrip().startswith("|") for line in lines),
        "**Why:**": "**Why:**" in body,
        "**How to apply:**": "**How to apply:**" in body,
        "a [": "[" in body,
        "a [ and Markdown syntax": "[" in body and any(s in body for s in ("`", "\\", "~~~")),
        "backslash": "\\" in body,
        "CJK": bool(_CJK.search(body)),
    }


def measure(files: Iterable[tuple[str, str]]) -> dict[str, float]:
    """The statistics of REAL over (whole file, body) pairs."""
    counts: dict[str, int] = {}
    sizes, distinct, function, code, words_seen, characters = [], [], 0, 0, 0, 0
    for whole, body in files:
        sizes.append(len(whole))
        for name, present in features(body).items():
            counts[name] = counts.get(name, 0) + present
        words = body.split()
        if words:
            characters += len(body)
            distinct.append(len({w.lower() for w in words}) / len(words))
            words_seen += len(words)
            function += sum(1 for w in words if w.lower().strip(".,:;()*\"`'") in _FUNCTION)
            code += sum(1 for w in words if _CODE_LIKE.search(w))
    n = len(sizes) or 1
    sizes.sort()
    stats: dict[str, float] = {"files": len(sizes)}
    stats.update({name: count / n for name, count in counts.items()})
    stats.update({
        "chars p10": sizes[len(sizes) // 10] if sizes else 0,
        "chars median": sizes[len(sizes) // 2] if sizes else 0,
        "chars p90": sizes[len(sizes) * 9 // 10] if sizes else 0,
        "chars per word": characters / words_seen if words_seen else 0,
        "distinct words / words": sum(distinct) / len(distinct) if distinct else 0,
        "function words": function / words_seen if words_seen else 0,
        "code-like words": code / words_seen if words_seen else 0,
    })
    return stats
