"""relative_date findings and the offline dream's absolute dates, one table per language.

Each table row is a line a user could have written: the phrases found in it (none for the
false positives each language has), and what the dream writes in their place, counted from
Wednesday 2026-03-11. Rules: tui/memory/date_phrases.py (what is found), tui/agents/absdates.py
(what replaces it).
"""

from __future__ import annotations

import datetime as dt

import pytest
from conftest import index_line, memory_text, write_index, write_memory
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tui.agents.absdates import absolute
from tui.agents.absdates import rewritten as replaced
from tui.memory import dates
from tui.memory.audit import audit_store
from tui.memory.dates import relative_dates
from tui.memory.store import load_store

WEDNESDAY = dt.date(2026, 3, 11)


def phrases(line: str) -> list[str]:
    return [found.phrase for found in relative_dates(line)]


def rewritten(line: str) -> str:
    """`line` with each phrase found written as the day it means, counted from WEDNESDAY."""
    changes = [(found, new) for found in relative_dates(line) if (new := absolute(found, WEDNESDAY))]
    return replaced(line, changes)


def ids(table):
    return [row[0][:40] for row in table]


# --- English ----------------------------------------------------------------------------------

ENGLISH_FOUND = [
    ("We froze the schema yesterday.", ["yesterday"]),
    ("Ship it today, or tonight at the latest.", ["today", "tonight"]),
    ("Tomorrow we cut the release.", ["Tomorrow"]),
    ("Decided the day before yesterday.", ["the day before yesterday"]),
    ("Moved last week; next month we migrate.", ["last week", "next month"]),
    ("The demo is this Friday.", ["this Friday"]),
    ("It broke two days ago, and 3 weeks ago before that.", ["two days ago", "3 weeks ago"]),
    ("Due in 2 weeks.", ["in 2 weeks"]),
    ("We recently moved to pnpm.", ["recently"]),
    ("Fixed earlier this week.", ["earlier this week"]),
    # not relative dates
    ("Evict the least recently used entry.", []),
    ("The last week of March is the freeze.", []),
    ("Run `git log --since=yesterday` first.", []),
    ("See https://example.com/today for the status.", []),
    ("Notes live in [today](notes/today.md).", ["today"]),  # the link text is prose
    ("Holidays and weekdays are configured in cron.", []),
    ("DST ends on the last Sunday of October.", []),  # a weekday of a month
]
ENGLISH_REWRITTEN = [
    ("We froze the schema yesterday.", "We froze the schema 2026-03-10."),
    ("Ship it tomorrow.", "Ship it 2026-03-12."),
    ("Moved last week.", "Moved the week of 2026-03-02."),
    ("Last week we moved.", "The week of 2026-03-02 we moved."),
    ("Next month we migrate.", "2026-04 we migrate."),
    ("The demo is this Friday.", "The demo is 2026-03-13."),
    ("It was last Wednesday.", "It was 2026-03-04."),
    ("It broke two days ago.", "It broke 2026-03-09."),
    ("Due in 2 weeks.", "Due 2026-03-25."),
    ("Planned for next quarter.", "Planned for 2026-Q2."),
    ("We recently moved to pnpm.", "We recently moved to pnpm."),  # no single date: kept
]


@pytest.mark.parametrize(("line", "found"), ENGLISH_FOUND, ids=ids(ENGLISH_FOUND))
def test_english_relative_dates_are_found_and_look_alikes_are_not(line, found):
    assert phrases(line) == found


@pytest.mark.parametrize(("line", "expected"), ENGLISH_REWRITTEN, ids=ids(ENGLISH_REWRITTEN))
def test_english_relative_dates_become_absolute(line, expected):
    assert rewritten(line) == expected


# --- Chinese ----------------------------------------------------------------------------------

CHINESE_FOUND = [
    ("昨天把表结构冻结了。", ["昨天"]),
    ("今天和明天都要发版。", ["今天", "明天"]),
    ("上周迁移，下个月上线。", ["上周", "下个月"]),
    ("上週遷移，這個月上線。", ["上週", "這個月"]),
    ("下周一开会。", ["下周一"]),
    ("3天前出的问题，两周后复查。", ["3天前", "两周后"]),
    ("去年定的规则，今年还有效。", ["去年", "今年"]),
    ("最近几天一直报错。", ["最近几天"]),
    # not relative dates: CJK has no word boundaries
    ("上周期的数据要保留。", []),  # 上 + 周期: the previous cycle
    ("下周一起讨论。", ["下周"]),  # 一起 is "together", not Monday
    ("之前天气不好。", []),  # 之前 + 天气: the weather before
    ("今后天天都要检查。", []),  # 今后 + 天天: from now on, every day
    ("目前天数不够。", []),  # 目前 + 天数: at present, the number of days
    ("花了3天后端开发。", []),  # 3 days of backend work
    ("2024年前三季度的报表。", []),
    ("选最近的节点。", []),  # 最近 alone: the nearest
    ("这周围都是服务器。", []),  # 这 + 周围: around here
    ("抗体は後天学習で獲得する。", []),  # 先天 / 後天: innate / acquired
]
CHINESE_REWRITTEN = [
    ("昨天把表结构冻结了。", "2026-03-10把表结构冻结了。"),
    ("上周迁移。", "2026-03-02 那一周迁移。"),
    ("上週遷移。", "2026-03-02 那一週遷移。"),
    ("上周五开会。", "2026-03-06开会。"),
    ("下个月上线。", "2026年4月上线。"),
    ("3天前出的问题。", "2026-03-08出的问题。"),
    ("去年定的规则。", "2025年定的规则。"),
    ("上周末加班。", "2026-03-07 那个周末加班。"),
    ("最近几天一直报错。", "最近几天一直报错。"),
]


@pytest.mark.parametrize(("line", "found"), CHINESE_FOUND, ids=ids(CHINESE_FOUND))
def test_chinese_relative_dates_are_found_and_look_alikes_are_not(line, found):
    assert phrases(line) == found


@pytest.mark.parametrize(("line", "expected"), CHINESE_REWRITTEN, ids=ids(CHINESE_REWRITTEN))
def test_chinese_relative_dates_become_absolute(line, expected):
    assert rewritten(line) == expected


# --- Japanese ---------------------------------------------------------------------------------

JAPANESE_FOUND = [
    ("昨日スキーマを凍結した。", ["昨日"]),
    ("今日と明日でリリースする。", ["今日", "明日"]),
    ("先週移行し、来週レビューする。", ["先週", "来週"]),
    ("今週の金曜日にデモ。", ["今週の金曜日"]),
    ("先月決めて、来月出す。", ["先月", "来月"]),
    ("3日前に壊れた。", ["3日前"]),
    ("最近、pnpm に移った。", ["最近"]),
    # not relative dates
    ("3月3日前に提出する。", []),  # before 3 March
    ("3日前後かかる。", []),  # about three days
    ("最近傍探索を使う。", []),  # nearest-neighbour search
    ("きのうを追加した。", []),  # kana: also 機能 (a feature)
    ("見出しは明朝体で組む。", []),  # 明朝: the Mincho typeface (and the Ming dynasty)
]
JAPANESE_REWRITTEN = [
    ("昨日スキーマを凍結した。", "2026-03-10スキーマを凍結した。"),
    ("先週移行した。", "2026-03-02の週移行した。"),
    ("先週の金曜日にデモ。", "2026-03-06にデモ。"),
    ("来月出す。", "2026年4月出す。"),
    ("3日前に壊れた。", "2026-03-08に壊れた。"),
    ("去年決めた。", "2025年決めた。"),
]


@pytest.mark.parametrize(("line", "found"), JAPANESE_FOUND, ids=ids(JAPANESE_FOUND))
def test_japanese_relative_dates_are_found_and_look_alikes_are_not(line, found):
    assert phrases(line) == found


@pytest.mark.parametrize(("line", "expected"), JAPANESE_REWRITTEN, ids=ids(JAPANESE_REWRITTEN))
def test_japanese_relative_dates_become_absolute(line, expected):
    assert rewritten(line) == expected


# --- Korean -----------------------------------------------------------------------------------

KOREAN_FOUND = [
    ("어제 스키마를 고정했다.", ["어제"]),
    ("오늘과 내일 배포한다.", ["오늘", "내일"]),
    ("지난주에 옮겼고 다음 주에 검토한다.", ["지난주", "다음 주"]),
    ("다음 주 월요일에 데모.", ["다음 주 월요일"]),
    ("지난달에 정했다.", ["지난달"]),
    ("3일 전에 깨졌다.", ["3일 전"]),
    ("작년에 정한 규칙.", ["작년"]),
    ("최근에 pnpm으로 옮겼다.", ["최근에"]),
    # not relative dates: Korean words take particles
    ("오늘날의 웹은 느리다.", []),  # nowadays
    ("다음 주요 기능.", []),  # next main feature
    ("3월 3일 전에 제출.", []),  # before 3 March
    ("지난 달력을 본다.", []),  # the old calendar
]
KOREAN_REWRITTEN = [
    ("어제 스키마를 고정했다.", "2026-03-10 스키마를 고정했다."),
    ("지난주에 옮겼다.", "2026-03-02 주에 옮겼다."),
    ("지난주 금요일에 데모.", "2026-03-06에 데모."),
    ("다음 달에 출시.", "2026년 4월에 출시."),
    ("3일 전에 깨졌다.", "2026-03-08에 깨졌다."),
    ("이틀 전에 깨졌다.", "2026-03-09에 깨졌다."),
    ("작년에 정한 규칙.", "2025년에 정한 규칙."),
]


@pytest.mark.parametrize(("line", "found"), KOREAN_FOUND, ids=ids(KOREAN_FOUND))
def test_korean_relative_dates_are_found_and_look_alikes_are_not(line, found):
    assert phrases(line) == found


@pytest.mark.parametrize(("line", "expected"), KOREAN_REWRITTEN, ids=ids(KOREAN_REWRITTEN))
def test_korean_relative_dates_become_absolute(line, expected):
    assert rewritten(line) == expected


# --- Spanish ----------------------------------------------------------------------------------

SPANISH_FOUND = [
    ("Congelamos el esquema ayer.", ["ayer"]),
    ("Hoy y mañana publicamos.", ["Hoy", "mañana"]),
    ("Lo movimos la semana pasada.", ["semana pasada"]),
    ("La próxima semana revisamos.", ["próxima semana"]),
    ("El mes que viene migramos.", ["mes que viene"]),
    ("Esta semana está congelado.", ["Esta semana"]),
    ("El viernes pasado fue la demo.", ["viernes pasado"]),
    ("Se rompió hace dos días.", ["hace dos días"]),
    ("Lo cambiamos recientemente.", ["recientemente"]),
    ("Mañana por la mañana desplegamos.", ["Mañana"]),
    # not relative dates
    ("Hoy en día todo es JSON.", []),  # nowadays
    ("Por la mañana corre el cron.", []),  # in the morning
    ("Cada mañana revisa los logs.", []),
    ("Las mañanas son lentas.", []),
]
SPANISH_REWRITTEN = [
    ("Congelamos el esquema ayer.", "Congelamos el esquema 2026-03-10."),
    ("Lo movimos la semana pasada.", "Lo movimos la semana del 2026-03-02."),
    ("La próxima semana revisamos.", "La semana del 2026-03-16 revisamos."),
    ("Esta semana está congelado.", "La semana del 2026-03-09 está congelado."),
    ("Desde el mes pasado.", "Desde el mes de 2026-02."),
    ("A finales del mes pasado.", "A finales del mes de 2026-02."),
    ("Este año migramos.", "El año 2026 migramos."),
    ("El viernes pasado fue la demo.", "El viernes 2026-03-06 fue la demo."),
    ("Se rompió hace dos días.", "Se rompió 2026-03-09."),
    ("Lo cambiamos hace 3 meses.", "Lo cambiamos 2025-12."),
    ("Lo cambiamos hace unos días.", "Lo cambiamos hace unos días."),  # vague: kept
]


@pytest.mark.parametrize(("line", "found"), SPANISH_FOUND, ids=ids(SPANISH_FOUND))
def test_spanish_relative_dates_are_found_and_look_alikes_are_not(line, found):
    assert phrases(line) == found


@pytest.mark.parametrize(("line", "expected"), SPANISH_REWRITTEN, ids=ids(SPANISH_REWRITTEN))
def test_spanish_relative_dates_become_absolute(line, expected):
    assert rewritten(line) == expected


# --- Portuguese -------------------------------------------------------------------------------

PORTUGUESE_FOUND = [
    ("Congelamos o esquema ontem.", ["ontem"]),
    ("Hoje e amanhã publicamos.", ["Hoje", "amanhã"]),
    ("Amanha publicamos.", ["Amanha"]),  # typed without the tilde
    ("Migramos na semana passada.", ["semana passada"]),
    ("Na próxima semana não revisamos.", ["próxima semana"]),
    ("No mês que vem migramos.", ["mês que vem"]),
    ("Nesta semana está congelado.", ["Nesta semana"]),
    ("Quebrou há dois dias.", ["há dois dias"]),
    ("Quebrou 3 dias atrás.", ["3 dias atrás"]),
    ("Mudamos recentemente.", ["recentemente"]),
    # not relative dates
    ("Hoje em dia tudo é JSON.", []),  # nowadays
    ("Há duas semanas de trabalho pela frente.", []),  # there are two weeks of work
]
PORTUGUESE_REWRITTEN = [
    ("Congelamos o esquema ontem.", "Congelamos o esquema 2026-03-10."),
    ("Migramos na semana passada.", "Migramos na semana de 2026-03-02."),
    ("Semana passada migramos.", "Na semana de 2026-03-02 migramos."),
    ("Na próxima semana não revisamos.", "Na semana de 2026-03-16 não revisamos."),
    ("Nesta semana está congelado.", "Na semana de 2026-03-09 está congelado."),
    ("Esta semana é de congelamento.", "A semana de 2026-03-09 é de congelamento."),
    ("No mês passado não mudou.", "No mês de 2026-02 não mudou."),
    ("Na sexta-feira passada foi a demo.", "Na sexta-feira 2026-03-06 foi a demo."),
    ("Quebrou há dois dias.", "Quebrou 2026-03-09."),
    ("No ano passado não mudou.", "No ano de 2025 não mudou."),
]


@pytest.mark.parametrize(("line", "found"), PORTUGUESE_FOUND, ids=ids(PORTUGUESE_FOUND))
def test_portuguese_relative_dates_are_found_and_look_alikes_are_not(line, found):
    assert phrases(line) == found


@pytest.mark.parametrize(("line", "expected"), PORTUGUESE_REWRITTEN,
                         ids=ids(PORTUGUESE_REWRITTEN))
def test_portuguese_relative_dates_become_absolute(line, expected):
    assert rewritten(line) == expected


# --- French -----------------------------------------------------------------------------------

FRENCH_FOUND = [
    ("On a gelé le schéma hier.", ["hier"]),
    ("Aujourd'hui et demain on publie.", ["Aujourd'hui", "demain"]),
    ("Aujourd’hui on publie.", ["Aujourd’hui"]),
    ("On a migré la semaine dernière.", ["semaine dernière"]),
    ("Le mois prochain on migre.", ["mois prochain"]),
    ("Cette semaine c'est gelé.", ["Cette semaine"]),
    ("Vendredi dernier, la démo.", ["Vendredi dernier"]),
    ("Ça a cassé il y a deux jours.", ["il y a deux jours"]),
    ("On a changé récemment.", ["récemment"]),
    ("Avant-hier on a gelé.", ["Avant-hier"]),
    # not relative dates
    ("Die Datei liegt hier.", []),  # German "hier": here
    ("Hier ist der Code.", []),
    ("Ce soir-là, tout a cassé.", []),  # that evening
    ("La dernière semaine du sprint.", []),  # the final week
]
FRENCH_REWRITTEN = [
    ("On a gelé le schéma hier.", "On a gelé le schéma 2026-03-10."),
    ("On a migré la semaine dernière.", "On a migré la semaine du 2026-03-02."),
    ("Cette semaine c'est gelé.", "La semaine du 2026-03-09 c'est gelé."),
    ("Depuis le mois dernier.", "Depuis le mois de 2026-02."),
    ("L'année dernière on a migré.", "L'année 2025 on a migré."),
    ("L'an dernier on a migré.", "L'an 2025 on a migré."),
    ("Vendredi dernier, la démo.", "Le vendredi 2026-03-06, la démo."),
    ("Ça a cassé il y a deux jours.", "Ça a cassé 2026-03-09."),
    ("On publie dans 3 jours.", "On publie 2026-03-14."),
]


@pytest.mark.parametrize(("line", "found"), FRENCH_FOUND, ids=ids(FRENCH_FOUND))
def test_french_relative_dates_are_found_and_look_alikes_are_not(line, found):
    assert phrases(line) == found


@pytest.mark.parametrize(("line", "expected"), FRENCH_REWRITTEN, ids=ids(FRENCH_REWRITTEN))
def test_french_relative_dates_become_absolute(line, expected):
    assert rewritten(line) == expected


# --- German -----------------------------------------------------------------------------------

GERMAN_FOUND = [
    ("Wir haben das Schema gestern eingefroren.", ["gestern"]),
    ("Heute und morgen veröffentlichen wir.", ["Heute", "morgen"]),
    ("Morgen früh deployen wir.", ["Morgen früh"]),
    ("Wir sind letzte Woche umgezogen.", ["letzte Woche"]),
    ("Nächsten Monat migrieren wir.", ["Nächsten Monat"]),
    ("Diese Woche ist Freeze.", ["Diese Woche"]),
    ("Letzten Freitag war die Demo.", ["Letzten Freitag"]),
    ("Es ist vor zwei Tagen kaputtgegangen.", ["vor zwei Tagen"]),
    ("Wir haben kürzlich gewechselt.", ["kürzlich"]),
    ("Heute Abend deployen wir.", ["Heute Abend"]),
    # not relative dates
    ("Am Morgen läuft der Cron.", []),  # in the morning
    ("Jeden Morgen prüft er die Logs.", []),
    ("Das Backup läuft um sechs Uhr am Morgen.", []),
    ("Guten Morgen!", []),
    ("Die letzte Woche des Sprints ist Freeze.", []),  # the final week
    ("Heutzutage ist alles JSON.", []),  # nowadays
]
GERMAN_REWRITTEN = [
    ("Wir haben das Schema gestern eingefroren.", "Wir haben das Schema 2026-03-10 eingefroren."),
    ("Wir sind letzte Woche umgezogen.", "Wir sind in der Woche vom 2026-03-02 umgezogen."),
    ("Seit letzter Woche ist Freeze.", "Seit der Woche vom 2026-03-02 ist Freeze."),
    ("Nächsten Monat migrieren wir.", "Im Monat 2026-04 migrieren wir."),
    ("Im letzten Monat gab es zwei Ausfälle.", "Im Monat 2026-02 gab es zwei Ausfälle."),
    ("Letztes Jahr haben wir migriert.", "Im Jahr 2025 haben wir migriert."),
    ("Letzten Freitag war die Demo.", "Am Freitag, 2026-03-06 war die Demo."),
    ("Es ist vor zwei Tagen kaputtgegangen.", "Es ist 2026-03-09 kaputtgegangen."),
    ("Wir deployen morgen.", "Wir deployen 2026-03-12."),
]


@pytest.mark.parametrize(("line", "found"), GERMAN_FOUND, ids=ids(GERMAN_FOUND))
def test_german_relative_dates_are_found_and_look_alikes_are_not(line, found):
    assert phrases(line) == found


@pytest.mark.parametrize(("line", "expected"), GERMAN_REWRITTEN, ids=ids(GERMAN_REWRITTEN))
def test_german_relative_dates_become_absolute(line, expected):
    assert rewritten(line) == expected


# --- across languages -------------------------------------------------------------------------


def test_relative_dates_inside_fences_and_code_spans_are_not_findings():
    text = "```sh\nmake deploy  # ran ayer, 昨天\n```\nRun `hace dos días` now.\n~~~\nlast week\n~~~\n"
    assert relative_dates(text) == []


def test_plain_english_text_is_read_for_english_dates_only():
    assert phrases("The hoy column is the one we keep, since yesterday.") == ["yesterday"]
    assert phrases("La columna hoy es la que guardamos.") == ["hoy"]


def test_chinese_japanese_and_korean_dates_are_found_inside_english_text():
    assert phrases("The freeze started 上周 and ends 来週の金曜日, see 다음 주 notes.") == [
        "上周", "来週の金曜日", "다음 주"]


def test_the_same_words_in_spanish_and_portuguese_are_rewritten_in_the_line_s_language():
    assert rewritten("Esta semana migramos el esquema.") == (
        "La semana del 2026-03-09 migramos el esquema.")
    assert rewritten("Esta semana não migramos o esquema.") == (
        "A semana de 2026-03-09 não migramos o esquema.")


def test_an_audit_reports_relative_dates_in_every_language_with_their_lines(tmp_path):
    store = tmp_path / "projects" / "-p" / "memory"
    store.mkdir(parents=True)
    body = ("Fine.\nEl equipo lo decidió ayer.\nO time decidiu isso ontem.\n"
            "L'équipe l'a décidé hier.\nDas Team hat es gestern entschieden.\n"
            "昨日チームで決めた。\n어제 팀이 정했다.\n昨天团队决定的。\n")
    write_memory(store, "when.md", memory_text(type="user", body=body))
    write_index(store, [index_line("when.md")])
    findings = [f for f in audit_store(load_store(store)) if f.kind == "relative_date"]
    assert [(f.line, f.severity) for f in findings] == [(line, "info") for line in range(8, 15)]
    assert "'gestern'" in findings[3].message


SCREEN_PIECES = ["the ", " the ", "Yesterday", "DAY", "week", "weeK", "\u212a", "\u0130", "—", "é",
                 "ÿ", "ɏ", "ɐ", "぀", "ｱ", "上周", "ayer ", "ayer", "last ", "\n", " ", "ago", "a",
                 "\ud800"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(SCREEN_PIECES), max_size=30).map("".join))
def test_the_screen_finds_on_utf8_bytes_the_lines_lowering_the_text_finds(text):
    """Text beyond ASCII that is not plain English is screened by its UTF-8 bytes, lowered
    as ASCII, and its lead bytes: the same lines, with the same rules, as the lowered text."""
    screened = "\n" + text.lower()
    if " the " in screened and (text.isascii() or not dates._ACCENTED.search(text)):
        return  # plain English: test_plain_english_finds_what_every_english_rule_finds
    hits = [(m.start(1), dates._BY_TRIGGER[m.group(1)])
            for m in dates._latin_trigger().finditer(screened)]
    if not text.isascii() and dates._cjk_text().search(text):
        hits += [(m.start(), dates._BY_TRIGGER[m.group()])
                 for m in dates._cjk_trigger().finditer(screened)]
    assert dates._candidate_lines(text) == dates._lines_of(hits, screened)


ENGLISH_PIECES = ["the ", " the ", "Yesterday", "yesterday's", "DAY", "days", " day", "Thursday",
                  "holiday", "week", "weeK", "weekend", "weekly", "mid-week", "two", " ago",
                  "hampragood", "last ", "next ", "this ", "in ", "recently", "morning", "a while",
                  "\u212a", "\u0130", "\u017f", "λ", "—", "’", "ÿ", "\n", " ", "`", "a", "#", "=",
                  "_", "9", "\ud800"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(ENGLISH_PIECES), max_size=40).map("".join))
@example("Decided the day before yesterday, mid-week\u2014last Thursday; λtoday, two days ago")
def test_plain_english_finds_what_every_english_rule_finds(text):
    """Plain English text runs on each line only the rules its words name; every English
    rule run on every line finds the same."""
    if " the " not in "\n" + text.lower() or dates._ACCENTED.search(text):
        return  # not screened as plain English
    english = {rule for rule in dates.RULES if rule.language.code == "en"}
    lines = text.split("\n")
    fences = dates._fence_lines(lines, len(lines)) if "```" in text or "~~~" in text else []
    everywhere = [
        (index + 1, match.start(), match.group())
        for index, line in enumerate(lines) if not (fences and dates._in_fence(fences, index))
        for match, _ in dates._matches(dates._prose(line), english)
    ]
    assert [(found.line, found.column, found.phrase) for found in relative_dates(text)] == everywhere
