"""`memtui search` and the search core: ranking in tiers, what a query's characters mean
(patterns, quotes, CJK, accents, case), and memories and stores that cannot be read."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import memory_text, write_index, write_memory

from tui import cli
from tui.memory.search import Corpus, Document, SearchError, parse_query
from tui.memory.search_cache import SearchCache
from tui.memory.search_stores import SearchedStore, load_corpus

OLD = 1_700_000_000.0


def doc(file: str, body: str = "", name: str | None = None, description: str = "",
        type: str | None = "project", mtime: float = OLD, project: str = "/code/app"
        ) -> Document:
    return Document(f"{project}-store", project, file, type, name or file.removesuffix(".md"),
                    description, body, 5, mtime)


def found(corpus: Corpus, query: str, **options) -> list[tuple[str, str]]:
    hits, _ = corpus.search(query, **options)
    return [(hit.document.file, hit.tier) for hit in hits]


def marked(hit) -> list[str]:
    return [hit.line[start:end] for start, end in hit.marks]


# --- ranking ------------------------------------------------------------------------------

def test_the_exact_phrase_ranks_before_all_words_and_all_words_before_a_typo():
    corpus = Corpus([
        doc("typo.md", "we deplyo the service on fridays"),
        doc("words.md", "the service is what we deploy, on fridays"),
        doc("phrase.md", "on fridays we deploy the service"),
        doc("none.md", "nothing about it"),
    ])
    assert found(corpus, "deploy the service") == [
        ("phrase.md", "phrase"), ("words.md", "words"), ("typo.md", "fuzzy")]


def test_within_a_tier_the_memorys_own_name_then_its_description_then_its_body():
    # On the 41 real stores, "how we deploy" first showed memories whose description
    # mentioned a deployed address before `feedback_deploy.md`.
    corpus = Corpus([
        doc("body.md", "see the deploy runbook", mtime=OLD + 10),
        doc("described.md", "steps", description="how we deploy"),
        doc("named.md", "steps", name="deploy"),
        doc("feedback_deploy.md", "steps", description="the deploy rule"),
    ])
    files = [file for file, _ in found(corpus, "deploy")]
    assert sorted(files[:2]) == ["feedback_deploy.md", "named.md"]
    assert files[2:] == ["described.md", "body.md"]


def test_a_memory_whose_file_is_named_by_the_phrase_ranks_before_body_mentions():
    # Real stores name files `user_profile.md`, `topics/user-profile.md`: the name a person
    # types as "user profile", and the one memory they want, among notes that say it in
    # passing (on 41 real stores, 21 body mentions came before it).
    corpus = Corpus([
        *(doc(f"lab_{n}.md", f"set the User Profile of VLAN {n}", mtime=OLD + n)
          for n in range(5)),
        doc("user_profile.md", "Works nights; prefers short answers.", name="About me"),
        doc("topics/user-profile.md", "Backend engineer.", name="Who they are"),
    ])
    files = [file for file, _ in found(corpus, "user profile")]
    assert sorted(files[:2]) == ["topics/user-profile.md", "user_profile.md"]
    assert found(corpus, "user profile")[0][1] == "phrase"


def test_common_words_are_not_required_but_the_phrase_keeps_them():
    corpus = Corpus([
        doc("ship.md", "Deploy: `make ship` from main, never on Fridays", name="Deployment"),
        doc("phrase.md", "this is how we deploy the docs"),
        doc("howto.md", "how we test it"),
    ])
    assert found(corpus, "how we deploy") == [("phrase.md", "phrase"), ("ship.md", "words")]
    assert found(corpus, "où est le deploy") == [("ship.md", "words"),
                                                 ("phrase.md", "words")]
    # Only common words: they are what is looked for.
    assert found(corpus, "how we") == [("phrase.md", "phrase"), ("howto.md", "phrase")]
    # Quoted, a common word is required.
    assert found(corpus, '"we" deploy') == [("phrase.md", "phrase")]


def test_a_word_counts_in_the_name_or_description_only_where_a_word_starts():
    corpus = Corpus([
        doc("latest.md", "run the test once", description="latest numbers", mtime=OLD + 9),
        doc("plan.md", "steps", description="test plan"),
        doc("shows.md", "how to release", description="showed the numbers", mtime=OLD + 9),
        doc("release.md", "how to release", description="release howto"),
    ])
    assert [file for file, _ in found(corpus, "test")] == ["plan.md", "latest.md"]
    assert [file for file, _ in found(corpus, "how")] == ["release.md", "shows.md"]


def test_memories_holding_all_words_but_one_come_last():
    corpus = Corpus([
        doc("rankmath.md", "RankMath keeps the sitemap cached; clear it after publishing"),
        doc("all.md", "SEO: the sitemap cache is purged nightly"),
        doc("both.md", "SEO checklist: sitemap submitted", name="seo", mtime=OLD + 5),
        doc("seo.md", "SEO titles under 60 characters"),
        doc("none.md", "nothing about it"),
    ])
    assert found(corpus, "sitemap seo cache") == [
        ("all.md", "words"), ("both.md", "most"), ("rankmath.md", "most")]
    assert found(corpus, "sitemap seo cache", limit=1) == [("all.md", "words")]
    # Two words must both appear; of three, one may be missing, never two.
    assert found(corpus, "rankmath seo") == []
    assert found(corpus, "clear seo titles") == [("seo.md", "most")]
    assert found(corpus, "clear seo publishing") == [("rankmath.md", "most")]


def test_a_near_word_in_the_name_or_description_comes_first_among_typos():
    # As in the exact tiers: "deploymnet" wants the memory about deployment, not the newest
    # note that says the word once (on real stores it came 96th of 288).
    corpus = Corpus([
        *(doc(f"note_{n}.md", f"the deployment of build {n} went fine", mtime=OLD + 100 + n)
          for n in range(5)),
        doc("described.md", "steps", description="Deployment status of the landing page"),
        doc("named.md", "steps", name="LMS deployment"),
    ])
    files = [file for file, _ in found(corpus, "deploymnet")]
    assert sorted(files[:2]) == ["described.md", "named.md"]
    assert {tier for _, tier in found(corpus, "deploymnet")} == {"fuzzy"}


def test_the_matching_line_is_shown_with_its_number_and_the_match_marked():
    corpus = Corpus([doc("runbook.md", "first line\nrun `make Deploy` from main\nlast\n")])
    [hit] = corpus.search("deploy")[0]
    assert (hit.field, hit.line, hit.line_number) == ("body", "run `make Deploy` from main", 6)
    assert marked(hit) == ["Deploy"]


def test_types_limit_and_the_count_of_all_matches():
    corpus = Corpus([doc(f"m{i}.md", "deploy", type="feedback" if i % 2 else "user")
                     for i in range(7)])
    hits, total = corpus.search("deploy", types=["feedback"], limit=2)
    assert len(hits) == 2 and total == 3
    assert {hit.document.type for hit in hits} == {"feedback"}


# --- what a query's characters mean -------------------------------------------------------

@pytest.mark.parametrize("query", ["a.b", "(deploy", "[x]*", "c++", "^$", "\\d+", "a|b"])
def test_pattern_characters_are_characters(query):
    corpus = Corpus([doc("literal.md", f"we wrote {query} here"),
                     doc("pattern.md", "we wrote axb and deploy and x and d9 and a and b")])
    assert found(corpus, query)[0] == ("literal.md", "phrase")
    assert "pattern.md" not in [file for file, tier in found(corpus, query) if tier in ("phrase", "words")]


def test_quoted_words_must_appear_together_and_an_open_quote_runs_to_the_end():
    corpus = Corpus([doc("together.md", "a blue green deploy tonight"),
                     doc("apart.md", "green first, then blue; deploy tonight")])
    assert found(corpus, '"blue green" tonight') == [("together.md", "words")]
    assert found(corpus, 'tonight "blue green') == [("together.md", "words")]
    assert {f for f, _ in found(corpus, "blue green tonight")} == {"together.md", "apart.md"}


@pytest.mark.parametrize("query", ["", "   ", '""', '" "'])
def test_a_query_with_nothing_to_find_is_refused_in_one_sentence(query):
    with pytest.raises(SearchError, match="The query is empty"):
        parse_query(query)


def test_cjk_words_written_without_spaces_still_match():
    corpus = Corpus([
        doc("phrase.md", "本番環境の部署手順は月曜日です"),
        doc("apart.md", "手順: まず部署を確認する"),
        doc("half.md", "部署だけ"),
    ])
    assert found(corpus, "部署手順") == [("phrase.md", "phrase"), ("apart.md", "words")]
    [hit] = corpus.search("部署手順")[0][:1]
    assert marked(hit) == ["部署手順"]


def test_accents_and_case_are_ignored_and_the_original_letters_marked():
    corpus = Corpus([doc("meet.md", "Meet at the CAFÉ on Straße 5", mtime=OLD + 1),
                     doc("plain.md", "cafe is closed")])
    assert [f for f, _ in found(corpus, "café")] == ["meet.md", "plain.md"]
    [hit] = corpus.search("strasse")[0]
    assert marked(hit) == ["Straße"]
    hits, _ = corpus.search("Cafe")
    assert marked(hits[0]) == ["CAFÉ"] and marked(hits[1]) == ["cafe"]


def test_a_decomposed_accent_in_the_text_matches_a_composed_one_in_the_query():
    corpus = Corpus([doc("nfd.md", "re\u0301sume\u0301 review")])
    [hit] = corpus.search("résumé")[0]
    assert marked(hit) == ["re\u0301sume\u0301"]


def test_short_or_quoted_words_are_never_matched_loosely():
    corpus = Corpus([doc("near.md", "the deploy and the api")])
    assert found(corpus, "deplyo") == [("near.md", "fuzzy")]
    assert found(corpus, "apu") == []
    assert found(corpus, '"deplyo"') == []


def test_a_long_line_is_cut_around_its_match():
    line = "x" * 1000 + " needle " + "y" * 1000
    [hit] = Corpus([doc("long.md", line)]).search("needle")[0]
    assert len(hit.line) < 300 and marked(hit) == ["needle"]


# --- stores on disk -----------------------------------------------------------------------

@pytest.fixture
def stores(claude_home, tmp_path):
    """Two projects: one whose memories say how it deploys, one that does not."""
    made = {}
    for name, memories in {
        "shop": {"project_deploy.md": memory_text("deploy", "how we deploy the shop", "project",
                                                  "Tag a release.\nThen run `make deploy`.\n"),
                 "user_role.md": memory_text("role", "a backend engineer", "user")},
        "blog": {"feedback_style.md": memory_text("style", "short posts", "feedback",
                                                  "Keep the posts under 800 words.\n")},
    }.items():
        project = tmp_path / "code" / name
        project.mkdir(parents=True)
        claude_home.session(project)
        store = claude_home.store(project)
        for file, text in memories.items():
            write_memory(store, file, text, mtime=OLD)
        write_index(store, [])
        made[name] = (project, store)
    return made


def searched(made) -> list[SearchedStore]:
    return [SearchedStore(store, str(project)) for project, store in made.values()]


def test_a_binary_file_and_bad_yaml_do_not_stop_the_search(stores):
    _, store = stores["shop"]
    write_memory(store, "deploy_notes.md", b"\x00\x01deploy\xff" * 50)
    write_memory(store, "broken.md", "---\nname: deploy notes\nname: again\n---\nbody\n")
    corpus, problems = load_corpus(searched(stores))
    hits = {hit.document.file: hit for hit in corpus.search("deploy")[0]}
    assert problems == []
    assert hits["deploy_notes.md"].field == "name"  # by its file name; its bytes are no text
    broken = hits["broken.md"]
    assert broken.document.type is None and broken.line == "name: deploy notes"
    assert broken.line_number == 2


def test_an_unreadable_store_is_said_and_the_others_are_searched(stores):
    import hostile_homes

    if not hostile_homes.can_deny_permissions():
        pytest.skip("permissions cannot be denied here (root without prctl)")
    _, store = stores["blog"]
    script = ("import sys, json\n"
              "from pathlib import Path\n"
              "from tui.memory.search_stores import load_corpus, SearchedStore\n"
              "corpus, problems = load_corpus([SearchedStore(Path(p), p) for p in sys.argv[1:]])\n"
              "print(json.dumps([problems, [h.document.file for h in corpus.search('the')[0]]]))\n")
    store.chmod(0)
    try:
        result = subprocess.run(
            [sys.executable, "-c", script, str(stores["shop"][1]), str(store)],
            capture_output=True, text=True, timeout=60,
            preexec_fn=hostile_homes.drop_root_bypass if os.geteuid() == 0 else None)
    finally:
        store.chmod(0o755)
    problems, files = json.loads(result.stdout)
    assert problems == [f"{store} cannot be read (Permission denied): its memories were not "
                        "searched."]
    assert "project_deploy.md" in files and "feedback_style.md" not in files


def test_an_unchanged_store_comes_from_the_cache_and_a_changed_one_is_read_again(
        stores, tmp_path, monkeypatch):
    from tui.memory import search_stores

    later = lambda: 10**20  # noqa: E731 - every store settled long ago
    with SearchCache(tmp_path / "search.bin", clock=later) as cache:
        first = load_corpus(searched(stores), cache)[0].search("deploy")[0]
    reads = []
    read = search_stores.read_store_text
    monkeypatch.setattr(search_stores, "read_store_text",
                        lambda store: reads.append(store) or read(store))
    with SearchCache(tmp_path / "search.bin", clock=later) as cache:
        again = load_corpus(searched(stores), cache)[0].search("deploy")[0]
    assert reads == [] and again == first  # bodies too, read back for the lines shown
    _, store = stores["shop"]
    write_memory(store, "project_deploy.md",
                 memory_text("deploy", "how we ship", "project", "Now run `just ship`.\n"))
    with SearchCache(tmp_path / "search.bin", clock=later) as cache:
        shipped = load_corpus(searched(stores), cache)[0].search("just ship")[0]
    assert reads == [store] and [h.line for h in shipped] == ["Now run `just ship`."]


# --- the command --------------------------------------------------------------------------

def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_search_prints_project_file_type_description_and_the_line(stores, claude_home, capsys):
    code, out, err = run(capsys, "--config-dir", str(claude_home.home), "search", "make deploy")
    project, _ = stores["shop"]
    assert code == 0, err
    assert out.splitlines() == [
        f"{project}  project_deploy.md:8  project",
        "  how we deploy the shop",
        "  Then run `make deploy`.",
    ]


def test_search_json_says_where_and_what_matched(stores, claude_home, capsys):
    code, out, _ = run(capsys, "--config-dir", str(claude_home.home), "search", "deploy",
                       "--json")
    project, store = stores["shop"]
    [hit] = [h for h in json.loads(out) if h["file"] == "project_deploy.md"]
    assert code == 0
    assert hit["project"] == str(project) and hit["store"] == str(store)
    assert (hit["field"], hit["type"], hit["tier"]) == ("name", "project", "phrase")
    assert hit["line"][slice(*hit["marks"][0])] == "deploy"


def test_search_type_project_and_limit(stores, claude_home, capsys):
    home = ["--config-dir", str(claude_home.home)]
    code, out, _ = run(capsys, *home, "search", "the", "--type", "feedback", "--json")
    assert code == 0 and {h["file"] for h in json.loads(out)} == {"feedback_style.md"}
    blog, _ = stores["blog"]
    code, out, _ = run(capsys, *home, "search", "the", "--project", str(blog), "--json")
    assert code == 0 and {h["project"] for h in json.loads(out)} == {str(blog)}
    code, out, err = run(capsys, *home, "search", "the", "--limit", "1")
    assert code == 0 and "1 of 3 memories that match shown; --limit 0 shows them all" in err


def test_search_exits_1_when_nothing_matches_and_2_for_bad_input(stores, claude_home, capsys):
    home = ["--config-dir", str(claude_home.home)]
    code, out, err = run(capsys, *home, "search", "kubernetes")
    assert (code, out) == (1, "") and "no memory of 2 stores holds 'kubernetes'" in err
    assert run(capsys, *home, "search", "kubernetes", "--json")[:2] == (1, "[]\n")
    code, _, err = run(capsys, *home, "search", '""')
    assert code == 2 and err == "memtui: The query is empty: give a word to search for.\n"
    code, _, err = run(capsys, *home, "search", "x", "--type", "feedbak")
    assert code == 2 and "did you mean feedback?" in err
    code, _, err = run(capsys, *home, "search", "x", "--limit", "-1")
    assert code == 2 and "--limit -1" in err


def test_control_characters_in_a_memory_are_shown_not_obeyed(stores, claude_home, capsys):
    _, store = stores["blog"]
    write_memory(store, "evil.md", memory_text("evil", "clear \x1b[2J screen", "user",
                                               "deploy \x1b]0;owned\x07 now\n"))
    code, out, _ = run(capsys, "--config-dir", str(claude_home.home), "search", "owned")
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    assert "deploy ␛]0;owned␇ now" in out


def test_a_word_is_found_where_a_word_starts():
    corpus = Corpus([doc("prefix.md", "the deployment of CI-CD and process_select"),
                     doc("inside.md", "an incident was redeployed; preselect it")])
    assert found(corpus, "ci") == [("prefix.md", "phrase")]
    assert found(corpus, "deploy") == [("prefix.md", "phrase")]
    assert found(corpus, "select")[0] == ("prefix.md", "phrase")
    assert found(corpus, "select")[1:] == [("inside.md", "fuzzy")]  # a near word, last
    [hit] = corpus.search("ci deploy")[0]
    assert marked(hit) == ["deploy", "CI"]


def test_the_words_for_near_matches_are_kept_while_no_store_changes(stores, tmp_path):
    from tui.memory.search_stores import keep_vocabulary

    later = lambda: 10**20  # noqa: E731 - every store settled long ago
    with SearchCache(tmp_path / "search.bin", clock=later) as cache:
        corpus = load_corpus(searched(stores), cache)[0]
        assert [h.document.file for h in corpus.search("relaese")[0]] == ["project_deploy.md"]
        keep_vocabulary(corpus, cache)
    with SearchCache(tmp_path / "search.bin", clock=later) as cache:
        kept = load_corpus(searched(stores), cache)[0]
    assert kept.has_vocabulary and kept.vocabulary == corpus.vocabulary
    _, store = stores["blog"]
    write_memory(store, "project_new.md", memory_text("new", "a newer word: kubernetes"))
    with SearchCache(tmp_path / "search.bin", clock=later) as cache:
        changed = load_corpus(searched(stores), cache)[0]
    assert not changed.has_vocabulary
    assert [h.document.file for h in changed.search("kubernetse")[0]] == ["project_new.md"]


def test_a_file_name_that_is_not_utf8_is_searched_and_kept(stores, tmp_path):
    _, store = stores["blog"]
    name = os.fsdecode(b"deploy-\xff.md")
    write_memory(store, name, memory_text("odd", 'a "\\udcff" name', "user", "deploy it\n"),
                 mtime=OLD)
    for _ in range(2):  # read, then from the cache
        with SearchCache(tmp_path / "search.bin", clock=lambda: 10**20) as cache:
            hits = load_corpus(searched(stores), cache)[0].search('"deploy it"')[0]
        assert [hit.document.file for hit in hits] == [name]


def test_typing_on_gives_what_a_fresh_search_gives():
    """A query typed on is looked for among the last one's matches: the same answer as
    asking it alone, and a query typed back or changed is asked anew."""
    corpus = Corpus([doc("a.md", "flaky tests on ci"), doc("b.md", "flat test file"),
                     doc("c.md", "flaky network"), doc("d.md", "部署 手順"),
                     doc("e.md", "部署手順")])
    for typed in ["f", "fl", "fla", "flak", "flaky", "flaky t", "flaky te", "fla", "flat",
                  "flat te", "部", "部署", "部署手", "部署手順", '"flaky', '"flaky t']:
        alone = Corpus(corpus.documents).search(typed)
        assert corpus.search(typed) == alone, typed


# --- what the fast paths must not change --------------------------------------------------

FOLDED_CHARS = ["é", "e\u0301", "ß", "ﬁ", "Σ", "ς", "—", "部署", "İ", "Ｆ", "\u0345", "\u05b0",
                "\u05c2", "한", "Å", "ǅ", "½", "\u200b", "€", " ", "\n", "A", "z", "-"]


def test_folding_a_text_gives_what_folding_it_whole_gives():
    """`fold` lowers only the ASCII letters of a text whose other characters fold to
    themselves: the same text as accents dropped, compatibility forms made plain and case
    folded, for any mix of characters."""
    import random
    import re
    import unicodedata

    from tui.memory.search import fold

    def whole(text: str) -> str:
        return re.sub("[\u0300-\u036f]", "", unicodedata.normalize("NFKD", text)).casefold()

    chooser = random.Random(43)
    texts = ["Deploy — 部署 DONE", "the CAFÉ", "x\u05b0\u0301y", "Ｆull—width"]
    texts += ["".join(chooser.choices(FOLDED_CHARS, k=chooser.randint(1, 12)))
              for _ in range(3000)]
    assert [fold(text) for text in texts] == [whole(text) for text in texts]


def reference_search(documents: list[Document], query: str) -> list[tuple[str, str]]:
    """The phrase and all-words tiers as the module's docstring states them, the slow and
    obvious way: a word found by a pattern where a word starts (in the name and description
    too), every memory's key made whole and sorted."""
    import re

    from tui.memory.search import _UNSPACED, fold, haystack

    parsed = parse_query(query)

    def holds(text: str, word: str) -> bool:
        if not word[:1].isalnum() or _UNSPACED.match(word):
            return word in text
        return re.search(r"(?<![^\W_\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
                         r"\u0e00-\u0e7f])" + re.escape(word), text) is not None

    ranked = []
    for position, document in enumerate(documents):
        text = haystack(document)
        head = "\n".join(text.split("\n", 3)[1:3])
        if not all(holds(text, word) for word in parsed.words):
            continue
        phrase = holds(text, parsed.phrase)
        words = [parsed.phrase] if phrase else list(parsed.words)
        in_head = -sum(holds(head, word) for word in words)
        stem = document.file.rsplit("/", 1)[-1].removesuffix(".md")
        title = fold(re.sub(r"[\s_-]+", " ", f"{stem}\n{document.name}"))
        in_title = -sum(holds(title, word) for word in words) if in_head else 0
        ranked.append((not phrase, in_head, in_title,
                       -sum(text.count(word) for word in words), -document.mtime, position))
    ranked.sort()
    return [(documents[key[-1]].file, "words" if key[0] else "phrase") for key in ranked]


def test_the_ranking_of_phrase_and_words_is_the_reference_ranking():
    """On a few hundred memories in real shapes (headings, code, CJK, accents, names in
    the description), every query's phrase and all-words hits come in the order the
    reference ranking gives, whole and with a limit, and typed a letter at a time."""
    import random

    chooser = random.Random(7)
    words = ["deploy", "deployment", "Deploy", "cache", "memcache", "cache_key", "CI",
             "incident", "flaky", "tests", "test", "config", "café", "Café", "部署", "手順",
             "release", "kubernetes", "helm", "(x", ".env", "a.b", "naïve", "straße",
             "latest", "showed", "how", "we", "the"]
    documents = []
    for n in range(400):
        body = "\n".join(" ".join(chooser.choices(words, k=chooser.randint(3, 9)))
                         for _ in range(chooser.randint(1, 6)))
        if n % 5 == 0:
            body = f"## Why\n{body}\n\n**How to apply:** `make {chooser.choice(words)}`"
        documents.append(doc(f"m{n:03}.md", body, name=chooser.choice(words + [f"note {n}"]),
                             description=" ".join(chooser.choices(words, k=3)) if n % 3 else "",
                             mtime=OLD + chooser.randint(0, 5)))
    corpus = Corpus(documents)
    for query in ["deploy", "cache", "c", "de", "ci", "flaky test", "deploy config",
                  '"cache key"', "café", "cafe", "部署", "部署手順", ".env", "(x", "a.b",
                  "straße", "strasse", "naive", "release helm", "k", "test", "how",
                  "how we deploy", "the flaky test", "how we"]:
        expected = reference_search(documents, query)
        hits = [(file, tier) for file, tier in found(corpus, query) if tier in ("phrase", "words")]
        assert hits == expected, query
        limited = [(file, tier) for file, tier in found(corpus, query, limit=7)
                   if tier in ("phrase", "words")]
        assert limited == expected[:len(limited)] and len(limited) == min(7, len(expected))
    typed = Corpus(documents)
    for end in range(1, len("deploy config") + 1):
        query = "deploy config"[:end]
        hits = [(f, t) for f, t in found(typed, query, limit=50) if t != "fuzzy"]
        assert hits == reference_search(documents, query)[:len(hits)], query


def test_a_memory_changed_in_place_is_found_by_its_new_words_at_once(stores, tmp_path):
    """Rewritten with the same size and its mtime set back (an editor that keeps it, a
    copy with `-p`), a memory is still read again: its ctime moved."""
    _, store = stores["shop"]
    path = store / "project_deploy.md"
    with SearchCache(tmp_path / "search.bin", clock=lambda: 10**20) as cache:
        assert load_corpus(searched(stores), cache)[0].search("make deploy")[0]
    assert (tmp_path / "search.bin").exists()
    before = path.stat()
    text = path.read_text().replace("make deploy", "helm upgrad")
    assert len(text) == before.st_size
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    with SearchCache(tmp_path / "search.bin") as cache:  # the real clock: just changed
        corpus = load_corpus(searched(stores), cache)[0]
    assert [hit.line for hit in corpus.search("helm upgrad")[0]] == ["Then run `helm upgrad`."]
    assert corpus.search("make deploy")[0] == []


def test_a_damaged_cache_file_is_read_past_and_written_again(stores, tmp_path):
    cached = tmp_path / "search.bin"
    with SearchCache(cached, clock=lambda: 10**20) as cache:
        first = load_corpus(searched(stores), cache)[0].search("deploy")[0]
    whole = cached.read_bytes()
    for damaged in [whole[:len(whole) // 2], whole[:40], b"garbage", whole.replace(
            b"how we deploy", b"how we\x00deploy")]:
        cached.write_bytes(damaged)
        with SearchCache(cached, clock=lambda: 10**20) as cache:
            assert load_corpus(searched(stores), cache)[0].search("deploy")[0] == first
        assert cached.read_bytes() != damaged  # replaced by a good one


def test_lines_are_shown_right_when_another_run_wrote_the_cache_again(stores, tmp_path):
    """A corpus read from the cache shows its memories' lines though another run has
    written the cache file again since (a changed store): from the disk, as they are."""
    cached = tmp_path / "search.bin"
    with SearchCache(cached, clock=lambda: 10**20) as cache:
        load_corpus(searched(stores), cache)
    with SearchCache(cached, clock=lambda: 10**20) as cache:
        corpus = load_corpus(searched(stores), cache)[0]
    _, blog = stores["blog"]
    write_memory(blog, "project_new.md", memory_text("new", "newer", "project", "Zebras.\n"))
    with SearchCache(cached, clock=lambda: 10**20) as cache:
        load_corpus(searched(stores), cache)  # writes the file again
    hits = corpus.search("make deploy")[0]
    assert [hit.line for hit in hits] == ["Then run `make deploy`."]
    with SearchCache(cached, clock=lambda: 10**20) as cache:  # the shop's carried over
        again = load_corpus(searched(stores), cache)[0]
    assert [hit.line for hit in again.search("make deploy")[0]] == ["Then run `make deploy`."]
    assert [hit.line for hit in again.search("zebras")[0]] == ["Zebras."]
