"""Search every memory: a query's words found in the name, description and body of the
memories of many stores, ranked in four tiers.

1. the exact phrase (the whole query, its quotes dropped) appears;
2. every word appears (a quoted part counts as one word);
3. every word appears or is near a word of the memories (rapidfuzz), for a typo;
4. all the words but one appear, for a query of three words or more.

The words are the query's content words: a common word (`how`, `we`, `the`, `to` and
their like in Spanish, Portuguese, French, German and Dutch) is not required when the query
has another word, so `how we deploy` finds what says `deploy`; the phrase tier still wants
the whole phrase, and a query of common words alone looks for them.
Within a tier, a memory whose name or description holds the words (where a word starts)
comes first, and among those the one whose own name or file name holds them; then the
one holding them most often, then the newest.

A word is found where a word of the text starts (`deploy` finds `deployment`, `ci` does
not find `incident`), in folded text: case and accents are ignored (`Café` finds `cafe`),
and the query's characters are characters, never a pattern (`a.b` does not find `axb`).
Text written without spaces (Chinese, Japanese) is found anywhere, and a query in it is
split into pairs of characters, the usual length of its words: `部署手順` finds
`手順: 部署` in the all-words tier and `部署手順` itself in the phrase tier.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import NamedTuple

FUZZY_CUTOFF = 80  # rapidfuzz ratio a word must reach to stand for a typed one
FUZZY_MIN_LENGTH = 4  # shorter words are too many others' neighbours
FUZZY_NEIGHBOURS = 8  # the closest words of the memories each typed word may stand for
LINE_CHARS = 240  # a matching line longer than this is shown around its first match

_MARKS = re.compile("[\u0300-\u036f]")  # Latin accents, once decomposed (NFKD)
_ASCII = bytes(range(128))
_QUOTED = re.compile(r'"([^"]*)"?|(\S+)')
_WORD = re.compile(r"[^\W_]+")
# Scripts written without spaces between words (kana, Han, Thai; Hangul is spaced).
_UNSPACED_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0e7f"
_UNSPACED = re.compile(f"[{_UNSPACED_CHARS}]+")


# Function and question words of the languages memtui reads (see language.py), folded:
# a query needs them to be a sentence, a memory rarely says them around what it is about.
COMMON_WORDS = frozenset("""
a an the and or of to in on at for with by from is are was were be been am do does did how
what where when which who why we i you it my our your this that these those there here can
el la los las un una unos unas y de del en con por para que como donde cuando cual quien es
son se lo al mi hay
o os as um uma e ou do da dos das no na nos nas com onde quando qual quem eu ao
le les une des du et au aux dans pour par sur avec qui quoi comment quand est je nous on ce
der die das den dem ein eine einen und oder zu von mit fur im ist sind wie wo was wann wer
warum wir ich auf
het een van te op voor zijn hoe waar wat wanneer wie waarom wij ik
""".split())


class SearchError(ValueError):
    """A query that cannot be searched for, in one sentence."""


def fold(text: str) -> str:
    """Text as it is compared: accents dropped, case folded, compatibility forms (ｆｕｌｌ
    width, ligatures) made plain."""
    if text.isascii():
        return text.lower()
    data = text.encode("utf-8", "surrogatepass")
    if all(map(_folds_to_itself, set(data.translate(None, _ASCII).decode("utf-8",
                                                                         "surrogatepass")))):
        # Its other characters (a dash, CJK) fold to themselves and never move: only its
        # ASCII letters change, lowered in C (a third of the time of folding it whole).
        return data.lower().decode("utf-8", "surrogatepass")
    return _MARKS.sub("", unicodedata.normalize("NFKD", text)).casefold()


@lru_cache(maxsize=8192)
def _folds_to_itself(char: str) -> bool:
    """Whether `fold` leaves the character as it is, wherever it stands: no decomposition,
    no accent, no other case, and no canonical reordering with its neighbours."""
    return (unicodedata.combining(char) == 0 and not _MARKS.match(char)
            and unicodedata.normalize("NFKD", char) == char and char.casefold() == char)


def folded_with_offsets(text: str) -> tuple[str, list[int]]:
    """`fold(text)` made character by character, and for each folded character the offset
    of the character of `text` it came from (one more entry: the end)."""
    if text.isascii():
        return text.lower(), list(range(len(text) + 1))
    folded = fold(text)
    if len(folded) == len(text) and unicodedata.is_normalized("NFKD", text):
        # Nothing decomposed, dropped or case-folded to more letters: one for one.
        return folded, list(range(len(text) + 1))
    parts: list[str] = []
    offsets: list[int] = []
    for position, char in enumerate(text):
        folded = fold(char)
        parts.append(folded)
        offsets.extend([position] * len(folded))
    offsets.append(len(text))
    return "".join(parts), offsets


class Query(NamedTuple):
    text: str  # as typed
    phrase: str  # folded, quotes dropped, spaces collapsed
    words: tuple[str, ...]  # folded; what must all appear (the common words left out)
    quoted: frozenset[str]  # the words that were quoted: never matched loosely


def parse_query(text: str) -> Query:
    """The query's phrase and words; SearchError when it holds nothing to search for. A
    quote left open runs to the end (a live search sees every half-typed query)."""
    parts: list[str] = []
    words: list[str] = []
    quoted: set[str] = set()
    for match in _QUOTED.finditer(text):
        inside, bare = match.group(1), match.group(2)
        if inside is not None:
            phrase = " ".join(fold(inside).split())
            if phrase:
                parts.append(phrase)
                words.append(phrase)
                quoted.add(phrase)
            continue
        word = fold(bare)
        parts.append(word)
        words.extend(_units(word))
    phrase = " ".join(parts)
    if not phrase:
        raise SearchError("The query is empty: give a word to search for.")
    content = [word for word in words if word in quoted or word not in COMMON_WORDS]
    return Query(text, phrase, tuple(dict.fromkeys(content or words)), frozenset(quoted))


def _units(word: str) -> list[str]:
    """A typed word as the units that must appear: itself, or for a run of an unspaced
    script its pairs of characters (the last pair overlapping when the run is odd)."""
    found = _UNSPACED.search(word)
    if found is None or (found.start() == 0 and found.end() == len(word) and len(word) <= 2):
        return [word]
    units: list[str] = []
    rest = 0
    for run in _UNSPACED.finditer(word):
        if word[rest:run.start()]:
            units.append(word[rest:run.start()])
        chars = run.group()
        if len(chars) <= 2:
            units.append(chars)
        else:
            units.extend(chars[i:i + 2] for i in range(0, len(chars) - 1, 2))
            if len(chars) % 2:
                units.append(chars[-2:])
        rest = run.end()
    if word[rest:]:
        units.append(word[rest:])
    return units


@dataclass(frozen=True)
class Document:
    """One memory as search sees it."""

    store: str  # the store's path
    project: str  # the project's path, as `memtui projects` shows it (or the store's)
    file: str  # store-relative
    type: str | None
    name: str
    description: str
    body: str | None  # the body (the whole text when the frontmatter could not be read);
    # None when it was not read back from the cache: `Corpus.bodies` reads it if shown
    body_line: int  # the file's line number of the body's first line
    mtime: float

    @property
    def path(self) -> str:
        return f"{self.store}/{self.file}"


class Hit(NamedTuple):
    document: Document
    tier: str  # "phrase", "words", "fuzzy" or "most"
    score: float  # within its tier: higher first
    field: str  # where the line shown is: "name", "description" or "body"
    line: str  # the matching line, as written (cut around the match when long)
    line_number: int | None  # in the file, for a body line
    marks: tuple[tuple[int, int], ...]  # [start, end) of each match in `line`


def haystack(document: Document) -> str:
    """What a query's words are looked for in: the file's name, the memory's name,
    description and body, folded. A lone surrogate (a file name's byte that is not UTF-8,
    a YAML `\\udcff`) becomes U+FFFD: no one types it, and SQLite cannot keep it."""
    head = f"{document.file}\n{document.name}\n{document.description}"
    if not head.isascii():
        head = head.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return fold(f"{head}\n{document.body}")


def head_of(haystack: str) -> str:
    """The name and description of a memory's haystack."""
    return "\n".join(haystack.split("\n", 3)[1:3])


class Corpus:
    """Many stores' memories, folded once, searched many times."""

    def __init__(self, documents: Sequence[Document],
                 haystacks: Sequence[str] | None = None,
                 bodies: Callable[[Document], str] | None = None,
                 heads: Sequence[str] | None = None) -> None:
        """`haystacks`: each document's `haystack`, when they were kept, and `heads`, each
        one's `head_of`; `bodies`: what reads the body of a document that came without
        one."""
        self.documents = list(documents)
        self.bodies = bodies
        # Each store's place among the documents, and what it was read as: a corpus read
        # again takes the unchanged stores from this one (`search_stores.load_corpus`).
        self.parts: dict = {}
        # What the stores were when read (a digest of their fingerprints), when every one
        # could be fingerprinted: the vocabulary holds while it does.
        self.read_as: str | None = None
        # The last search's (query, types) and the memories holding every word: a query
        # typed on from it is looked for among those only (one tuple: threads swap it whole).
        self._last: tuple[tuple[Query, frozenset[str]], list[int]] | None = None
        self.haystacks = (list(haystacks) if haystacks is not None
                          else [haystack(d) for d in self.documents])
        # Each memory's name and description, folded: a match there ranks first.
        self.heads = (list(heads) if heads is not None
                      else [head_of(text) for text in self.haystacks])

    def __len__(self) -> int:
        return len(self.documents)

    @cached_property
    def mtimes(self) -> list[float]:
        return [document.mtime for document in self.documents]

    @property
    def has_vocabulary(self) -> bool:
        """Whether the vocabulary was made (or given)."""
        return "vocabulary" in self.__dict__

    @cached_property
    def vocabulary(self) -> list[str]:
        """Every distinct word of the memories, for the fuzzy tier: made once, when a query
        first needs it."""
        words: set[str] = set()
        for haystack in self.haystacks:
            words.update(haystack.split())
        found: set[str] = set()
        for token in words:
            found.update(_WORD.findall(token))
        return sorted(word for word in found if len(word) >= FUZZY_MIN_LENGTH - 1)

    def search(self, query: Query | str, types: Iterable[str] | None = None,
               limit: int | None = None) -> tuple[list[Hit], int]:
        """The hits, best first, at most `limit` (None: all), and how many memories match
        in all. The fuzzy tier is only looked at when the exact ones leave room (or to
        count, when `limit` is None)."""
        query = parse_query(query) if isinstance(query, str) else query
        wanted = set(types) if types else None
        candidates = [i for i, d in enumerate(self.documents)
                      if wanted is None or d.type in wanted]
        key = (query, frozenset(wanted or ()))
        last = self._last
        # Typed on: only what held every word before can hold every word now.
        exact = last[1] if last is not None and _narrows(last[0], key) else candidates
        words = [Needle(word) for word in _rarest_first(query.words)]
        every_word = self._holding(exact, words)
        self._last = (key, every_word)
        # The phrase holds every word where words start: its memories are among those.
        phrase = Needle(query.phrase)
        phrase_hits = (every_word if query.words == (query.phrase,)
                       else self._holding(every_word, [phrase]))
        named = self._named_by(every_word, query)
        seen = set(named)
        phrase_hits = [i for i in phrase_hits if i not in seen]
        seen.update(phrase_hits)
        word_hits = [i for i in every_word if i not in seen]
        seen.update(word_hits)
        total = len(named) + len(phrase_hits) + len(word_hits)
        ranked: list[tuple[str, int, dict[str, str]]] = [
            *(("phrase", i, {}) for i in self._ranked(named, [phrase], limit)),
            *(("phrase", i, {}) for i in self._ranked(phrase_hits, [phrase], limit)),
            *(("words", i, {}) for i in self._ranked(word_hits, words, limit)),
        ]
        if limit is None or total < limit:
            fuzzy = self._fuzzy(query, [i for i in candidates if i not in seen])
            ranked.extend(("fuzzy", i, near) for i, near, _ in fuzzy)
            seen.update(i for i, _, _ in fuzzy)
            total += len(fuzzy)
        if len(query.words) > 2 and (limit is None or total < limit):
            most = self._all_but_one(words, [i for i in candidates if i not in seen])
            ranked.extend(("most", i, {}) for i in self._ranked(most, words, limit))
            total += len(most)
        shown = ranked if limit is None else ranked[:limit]
        return [self._hit(tier, i, query, near) for tier, i, near in shown], total

    @cached_property
    def _titles(self) -> dict[int, str]:
        """`title_of` each document looked at so far, by its place."""
        return {}

    def _named_by(self, hits: list[int], query: Query) -> list[int]:
        """The hits named by a phrase of several words: it stands in the file's name or the
        memory's `name:` read as words (`user_profile.md` is named "user profile"), the
        first of the phrase tier."""
        if len(query.words) < 2:
            return []
        needle = Needle(_SEPARATORS.sub(" ", query.phrase).strip())
        first = needle.word.split(" ")[0]  # in the name or the file's, where it is named
        heads, documents, titles = self.heads, self.documents, self._titles
        named = []
        for i in hits:
            file = documents[i].file
            if first not in heads[i] and first not in (file.lower() if file.isascii()
                                                       else fold(file)):
                continue
            title = titles.get(i)
            if title is None:
                title = titles[i] = title_of(documents[i])
            if needle.word and needle.found(title):
                named.append(i)
        return named

    def _holding(self, candidates: list[int], needles: Sequence[Needle]) -> list[int]:
        """The candidates whose haystack holds every needle, narrowed a needle at a time,
        each by a plain substring test first (C speed), then where words start."""
        haystacks = self.haystacks
        for needle in needles:
            word = needle.word
            candidates = [i for i in candidates if word in haystacks[i]]
            if not needle.anywhere:
                search = needle.pattern.search
                candidates = [i for i in candidates if search(haystacks[i])]
        return candidates

    def _all_but_one(self, words: Sequence[Needle], candidates: list[int]) -> list[int]:
        """The candidates holding every word but one (none holds them all)."""
        found: set[int] = set()
        for left_out in words:
            found.update(self._holding(candidates, [w for w in words if w is not left_out]))
        return [i for i in candidates if i in found]

    def _ranked(self, hits: list[int], needles: Sequence[Needle], limit: int | None
                ) -> list[int]:
        """Within a tier: a match in the name or description first, the memory's own name
        or file name holding the words before the others; then more occurrences; then the
        newest; then the order read. A word counts in the name or description
        where a word starts there, as in the body; the occurrences are counted anywhere. Only the first `limit` are sorted out, and
        only the memories that can be among them are counted: when `limit` of them match
        in the name or description, the others cannot (a second keystroke ranks 15,000
        memories: a third of them counted). Each key is made in one comprehension, by plain
        substring tests first."""
        heads, haystacks, mtimes = self.heads, self.haystacks, self.mtimes
        words = [needle.word for needle in needles]
        if len(needles) == 1:
            holds = _head_test(needles[0])
            in_head = [-holds(heads[i]) for i in hits]
        else:
            tests = [_head_test(needle) for needle in needles]
            in_head = [-sum(holds(heads[i]) for holds in tests) for i in hits]
        if limit is not None and len(hits) > limit:
            worst = sorted(in_head)[limit - 1]  # the head score the last shown one has
            hits, in_head = (
                [i for i, score in zip(hits, in_head, strict=True) if score <= worst],
                [score for score in in_head if score <= worst])
        named = self._in_title(hits, needles, in_head)
        if len(words) == 1:
            word = words[0]
            keyed = [(score, title, -haystacks[i].count(word), -mtimes[i], i)
                     for score, title, i in zip(in_head, named, hits, strict=True)]
        else:
            keyed = [(score, title, -sum(haystacks[i].count(word) for word in words),
                      -mtimes[i], i)
                     for score, title, i in zip(in_head, named, hits, strict=True)]
        if limit is not None and len(keyed) > limit:
            import heapq

            keyed = heapq.nsmallest(limit, keyed)
        else:
            keyed.sort()
        return [key[-1] for key in keyed]

    def _in_title(self, hits: list[int], needles: Sequence[Needle], in_head: list[int]
                  ) -> list[int]:
        """How many of the words (negated, to sort first) stand in the memory's own name or
        file name, for the hits whose name or description holds one: `feedback_deploy.md`
        is about deploying, a description that mentions a deployed address is not."""
        documents, titles = self.documents, self._titles
        counts = []
        for score, i in zip(in_head, hits, strict=True):
            if not score:
                counts.append(0)
                continue
            title = titles.get(i)
            if title is None:
                title = titles[i] = title_of(documents[i])
            counts.append(-sum(needle.found(title) for needle in needles))
        return counts

    def _fuzzy(self, query: Query, candidates: list[int]
               ) -> list[tuple[int, dict[str, str], float]]:
        """(document, {typed word: the word of the memory that stands for it}, score) of
        each memory where every word is found, some only near."""
        loose = [w for w in query.words if w not in query.quoted and _WORD.fullmatch(w)
                 and len(w) >= FUZZY_MIN_LENGTH]
        if not loose or not candidates:
            return []
        from rapidfuzz import fuzz, process

        neighbours: dict[str, list[tuple[Needle, float]]] = {}
        for word in loose:
            found = process.extract(word, self.vocabulary, scorer=fuzz.ratio,
                                    score_cutoff=FUZZY_CUTOFF, limit=FUZZY_NEIGHBOURS)
            neighbours[word] = [(Needle(near), score) for near, score, _ in found
                                if near != word]
        if not any(neighbours.values()):
            return []
        candidates = self._holding(candidates, [Needle(w) for w in query.words
                                                if w not in neighbours])
        # For each typed word, each memory's best stand-in: itself, else its nearest word.
        stand_ins: list[dict[int, tuple[str | None, float]]] = []
        for word, options in neighbours.items():
            # With one word, no memory left holds it: it would have matched exactly.
            itself = self._holding(candidates, [Needle(word)]) if len(query.words) > 1 else []
            best: dict[int, tuple[str | None, float]] = dict.fromkeys(itself, (None, 100.0))
            for option, score in sorted(options, key=lambda pair: -pair[1]):
                for i in self._holding(candidates, [option]):
                    best.setdefault(i, (option.word, score))
            stand_ins.append(best)
            candidates = list(best)
        hits = []
        for i in candidates:
            chosen = [found[i] for found in stand_ins]
            near = {word: stand_in for word, (stand_in, _) in zip(neighbours, chosen,
                                                                  strict=True) if stand_in}
            if near:
                hits.append((i, near, sum(score for _, score in chosen) / len(chosen)))
        hits.sort(key=lambda hit: self._fuzzy_order(query, *hit))
        return hits

    def _fuzzy_order(self, query: Query, i: int, near: dict[str, str], score: float
                     ) -> tuple[int, float, float]:
        """As in the exact tiers, a match in the name or description first (counting the
        near words that stand in); then the nearest; then the newest."""
        head = self.heads[i]
        in_head = sum(Needle(near.get(word, word)).found(head) for word in query.words)
        return -in_head, -score, -self.documents[i].mtime

    def _hit(self, tier: str, i: int, query: Query, near: dict[str, str]) -> Hit:
        document = self.documents[i]
        score = {"phrase": 3.0, "words": 2.0, "fuzzy": 1.0}.get(tier, 0.5)
        if tier == "phrase":
            wanted = [Needle(query.phrase)]
        else:
            wanted = [Needle(near.get(word, word)) for word in query.words]
        if document.body is None:
            body = self.bodies(document) if self.bodies else ""
            document = replace(document, body=body)
        field, line, number, marks = matching_line(document, wanted)
        return Hit(document, tier, score, field, line, number, marks)


_SEPARATORS = re.compile(r"[\s_-]+")


def title_of(document: Document) -> str:
    """The file's name (its folder and `.md` left out) and the memory's `name:`, folded,
    their `_` and `-` read as spaces."""
    stem = document.file.rpartition("/")[2].removesuffix(".md")
    return fold(f"{_SEPARATORS.sub(' ', stem)}\n{_SEPARATORS.sub(' ', document.name)}")


class Needle:
    """A folded word looked for where a word starts: `ci` finds `CI` and `ci-cd`, never the
    `ci` inside `incident`; `deploy` finds `deployment` and `deploy_key`. A word that starts
    with a character of an unspaced script, or with no letter at all (`(x`, `.env`), is
    found anywhere. Found by `str.find`, each place's previous character checked: a
    pattern with a look-behind tries every position of 40 MB (ten times slower)."""

    def __init__(self, word: str) -> None:
        self.word = word
        self.anywhere = not word[:1].isalnum() or _UNSPACED.match(word) is not None

    def found(self, text: str) -> bool:
        return self._next(text, 0) >= 0

    @property
    def pattern(self) -> re.Pattern[str]:
        """The word where a word starts, as a pattern that finds it by its letters first
        (C speed from one place to the next), then looks behind it: twice as fast as
        `found` on a word that starts few words and ends many (`de`: code, made)."""
        return _starting_word(self.word)

    def count(self, text: str) -> int:
        """Its places in `text` (for ranking: any place, word start or not)."""
        return text.count(self.word)

    def starts(self, text: str) -> list[int]:
        found = []
        at = self._next(text, 0)
        while at >= 0:
            found.append(at)
            at = self._next(text, at + len(self.word))
        return found

    def _next(self, text: str, start: int) -> int:
        word = self.word
        at = text.find(word, start)
        if self.anywhere or not word:
            return at if word else -1
        while at > 0 and _in_word(text[at - 1]):
            at = text.find(word, at + 1)
        return at


def _head_test(needle: Needle) -> Callable[[str], bool]:
    """Whether a name and description hold the needle where a word starts: a substring
    test first, the pattern only where it passes."""
    word = needle.word
    if needle.anywhere:
        return lambda head: word in head
    search = needle.pattern.search
    return lambda head: word in head and search(head) is not None


@lru_cache(maxsize=256)
def _starting_word(word: str) -> re.Pattern[str]:
    letters = re.escape(word)
    return re.compile(f"{letters}(?<![^\\W_{_UNSPACED_CHARS}]{letters})")


def _in_word(char: str) -> bool:
    """Whether a character continues a word of a spaced script."""
    return char.isalnum() and not _UNSPACED.match(char)


def _narrows(before: tuple[Query, frozenset[str]], now: tuple[Query, frozenset[str]]) -> bool:
    """Whether every memory holding the words of `now` holds those of `before`: the same
    types, and each word of before continued by the word in its place now (`fla` ->
    `flaky`), more words after. Not for a script written without spaces, whose pairs of
    characters shift as a word grows."""
    (old, old_types), (new, new_types) = before, now
    return (old_types == new_types and len(new.words) >= len(old.words)
            and not _UNSPACED.search(old.text) and not _UNSPACED.search(new.text)
            and all(word.startswith(was)
                    for was, word in zip(old.words, new.words, strict=False)))


def _rarest_first(words: Sequence[str]) -> list[str]:
    """The longest word first: it rules out most memories before the others are looked for."""
    return sorted(words, key=len, reverse=True)


def matching_line(document: Document, wanted: Sequence[Needle]
                  ) -> tuple[str, str, int | None, tuple[tuple[int, int], ...]]:
    """(field, line, line number, marks): the line of the name, description or body holding
    the most of the `wanted` words, the first such; its matches marked."""
    best: tuple[int, str, str, int | None] | None = None
    candidates = [("name", document.name, None), ("description", document.description, None)]
    lines = (document.body or "").split("\n")
    candidates += [("body", line, document.body_line + n) for n, line in enumerate(lines)]
    for field, line, number in candidates:
        folded = fold(line)
        found = sum(1 for needle in wanted if needle.found(folded))
        if found and (best is None or found > best[0]):
            best = (found, field, line, number)
            if found == len(wanted):
                break
    if best is None:  # a word of the file name only
        return "name", document.name, None, ()
    _, field, line, number = best
    line = line.rstrip("\r")
    return (field, *_marked(line, wanted, number))


def _marked(line: str, wanted: Sequence[Needle], number: int | None
            ) -> tuple[str, int | None, tuple[tuple[int, int], ...]]:
    folded, offsets = folded_with_offsets(line)
    spans: list[tuple[int, int]] = []
    for needle in wanted:
        for start in needle.starts(folded):
            # To the next folded character's origin: the accents dropped after the last
            # letter (a decomposed é) are the letter's.
            last = start + len(needle.word)
            spans.append((offsets[start], max(offsets[last], offsets[last - 1] + 1)))
    spans = _merged(spans)
    if len(line) > LINE_CHARS and spans:
        begin = max(0, min(spans[0][0] - LINE_CHARS // 4, len(line) - LINE_CHARS))
        end = begin + LINE_CHARS
        prefix = "…" if begin else ""
        cut = prefix + line[begin:end] + ("…" if end < len(line) else "")
        shift = len(prefix) - begin
        spans = [(max(s + shift, len(prefix)), min(e + shift, len(cut))) for s, e in spans
                 if e > begin and s < end]
        return cut, number, tuple(spans)
    return line, number, tuple(spans)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
