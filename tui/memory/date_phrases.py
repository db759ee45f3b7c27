"""Relative-date phrases in eight languages: how to recognise each one, and what it means.

Each `Rule` is one regex for one language plus the words that must occur for it to have a
chance (its triggers, see tui/memory/dates.py). The named groups of a rule say what it means:
`fixed` (a phrase with one meaning: "yesterday", "去年"), `shift` + `unit` ("last week"),
`shift` + `weekday` ("next Friday"), both with a unit ("上周五": Friday of last week), `det`
(a demonstrative, "esta semana": this one), `count` + `unit` + `back`/`ahead` ("two days
ago"). A rule without these groups is vague ("recently"): found, but no date can replace it.

False positives this guards against, deliberately:
- Latin words must stand alone (`(?<!\\w)` ... `(?!\\w)`): "hoy" is not in "hoyo".
- Idioms: "hoy en día", "hoje em dia" (nowadays), "la mañana" (the morning), German "Morgen"
  as a noun (morning: capitalised mid-sentence, or after a determiner: "am Morgen"), French
  "hier" only on a line with French words (German "hier" means "here"), "the last week of",
  "die letzte Woche des", "most recently", "ce soir-là" (that evening).
- CJK has no word boundaries, so each CJK rule names what may not follow or precede:
  "上周期" (previous cycle), "下周一起" (next week, together), "之前天气" (the weather before),
  "3天后端" (three days of backend), "2024年前三季度", "3月3日前" (before 3 March),
  "最近的节点" (the nearest node: Chinese 最近 alone is not a date). Korean words take
  particles, so a Korean rule lists the particles that may follow ("다음 주요" is "next main").
- Kana spellings (きのう, きょう) are not matched: きのう is also 機能 (a feature).
- 明朝 is not read as "tomorrow morning": it is the Mincho typeface and the Ming dynasty far
  more often; 後天 before 学/的/性 is "acquired" (先天 / 後天: innate / acquired).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class Shift:
    """What a relative phrase means, counted from the day the text was written.

    unit: day, week, weekend, month, quarter, year; weekday (the nearest such day: amount -1
    the last one before today, 0 this one, today included, 1 the next one after today) or
    day_of_week (that weekday in the week `amount` weeks away).
    """

    unit: str
    amount: int
    weekday: int | None = None


@dataclass(frozen=True)
class Language:
    code: str
    fixed: Mapping[str, Shift]
    count: Callable[[str], int | None]  # None: a vague count ("a few")
    units: Mapping[str, str | None]  # None: a unit with no calendar ("sprint")
    shifts: Mapping[str, int]
    weekdays: Mapping[str, int]
    fold: Callable[[str], str]  # a matched word as the tables spell it
    cue: re.Pattern[str] | None = None  # words that say a line is in this language


@dataclass(frozen=True, eq=False)
class Rule:
    language: Language
    pattern: str
    flags: int
    triggers: tuple[str, ...]
    needs_cue: bool = False  # the line must show the language's cue

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """Compiled when a line first holds one of its triggers: most rules of most runs
        never see one, and compiling all of them was ~16 ms of every audit's start."""
        return re.compile(self.pattern, self.flags)

    def meaning(self, match: re.Match[str]) -> Shift | None:
        language = self.language
        groups = {name: value for name, value in match.groupdict().items() if value is not None}
        key = language.fold
        if "fixed" in groups:
            return language.fixed[key(groups["fixed"])]
        if "back" in groups or "ahead" in groups:
            amount = language.count(key(groups.get("count") or groups["days"]))
            unit = language.units[key(groups["unit"])] if "unit" in groups else "day"
            if amount is None or unit is None:
                return None
            amount = -amount if "back" in groups else amount
            return Shift("day", amount * 7) if unit == "week" else Shift(unit, amount)
        if "shift" not in groups and "det" not in groups:
            return None
        shift = language.shifts[key(groups["shift"])] if "shift" in groups else 0
        if "weekday" in groups:
            weekday = language.weekdays[key(groups["weekday"])]
            return Shift("day_of_week" if "unit" in groups else "weekday", shift, weekday)
        unit = "weekend" if "weekend" in groups else language.units[key(groups["unit"])]
        return None if unit is None else Shift(unit, shift)


def _latin_fold(word: str) -> str:
    plain = "".join(c for c in unicodedata.normalize("NFKD", word.lower())
                    if not unicodedata.combining(c))
    return " ".join(plain.replace("’", "'").split())


def _cjk_fold(word: str) -> str:
    return "".join(word.split())


def _counting(words: Mapping[str, int | None]) -> Callable[[str], int | None]:
    def count(word: str) -> int | None:
        return int(word) if word.isdigit() else words[word]
    return count


_CJK_DIGITS = {"一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
               "八": 8, "九": 9}


def _cjk_count(word: str) -> int | None:
    """Digits, or a Chinese numeral up to 99 (五, 十五, 二十); None for 几 / 数 (a few)."""
    if word.isdigit():
        return int(word)
    tens, ten, ones = word.partition("十")
    digits = [c for c in (tens, ones) if c]
    if any(d not in _CJK_DIGITS for d in digits) or (not ten and len(word) != 1):
        return None  # 几天 (a few days), 数日 (several days)
    if not ten:
        return _CJK_DIGITS[word]
    return _CJK_DIGITS.get(tens, 1) * 10 + _CJK_DIGITS.get(ones, 0)


def _days(table: Mapping[str, int]) -> dict[str, Shift]:
    return {word: Shift("day", offset) for word, offset in table.items()}


def _years(table: Mapping[str, int]) -> dict[str, Shift]:
    return {word: Shift("year", offset) for word, offset in table.items()}


def _weekdays(*names: str) -> dict[str, int]:
    return {name: index % 7 for index, name in enumerate(names)}


def _latin(language: Language, pattern: str, triggers: str, needs_cue: bool = False) -> Rule:
    return Rule(language, rf"(?<!\w)(?:{pattern})(?!\w)", re.IGNORECASE,
                tuple(triggers.split()), needs_cue)


def _cjk(language: Language, pattern: str, triggers: str | list[str]) -> Rule:
    words = triggers.split() if isinstance(triggers, str) else triggers
    return Rule(language, pattern, 0, tuple(words))


# --- English --------------------------------------------------------------------------------

ENGLISH = Language(
    "en",
    fixed=_days({
        "the day before yesterday": -2, "yesterday": -1, "last night": -1, "today": 0,
        "tonight": 0, "earlier today": 0, "this morning": 0, "this afternoon": 0,
        "this evening": 0, "tomorrow": 1, "the day after tomorrow": 2,
    }),
    count=_counting({
        "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
        "seven": 7, "eight": 8, "nine": 9, "ten": 10, "few": None, "a few": None,
        "couple of": None, "a couple of": None, "several": None,
    }),
    units={"day": "day", "days": "day", "week": "week", "weeks": "week", "weekend": "weekend",
           "month": "month", "months": "month", "year": "year", "years": "year",
           "quarter": "quarter", "sprint": None},
    shifts={"last": -1, "this": 0, "next": 1, "coming": 1},
    weekdays=_weekdays("monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                       "sunday"),
    fold=_latin_fold,
)
_EN_WEEKDAY = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_EN_COUNT = r"\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|(?:a )?few|(?:a )?couple of|several"
_EN_DAYS = "yesterday today tonight tomorrow morning afternoon evening night"
_EN_UNITS = "weekend week month year quarter sprint"

# --- Spanish --------------------------------------------------------------------------------

SPANISH = Language(
    "es",
    fixed=_days({
        "anteayer": -2, "antier": -2, "ayer": -1, "anoche": -1, "hoy": 0, "esta noche": 0,
        "esta manana": 0, "esta tarde": 0, "manana": 1, "pasado manana": 2,
    }),
    count=_counting({
        "un": 1, "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6,
        "siete": 7, "ocho": 8, "nueve": 9, "diez": 10, "unos": None, "unas": None,
        "algunos": None, "algunas": None, "varios": None, "varias": None,
    }),
    units={"dia": "day", "dias": "day", "semana": "week", "semanas": "week",
           "fin de semana": "weekend", "mes": "month", "meses": "month", "ano": "year",
           "anos": "year", "trimestre": "quarter", "sprint": None},
    shifts={"pasado": -1, "pasada": -1, "proximo": 1, "proxima": 1, "que viene": 1},
    weekdays=_weekdays("lunes", "martes", "miercoles", "jueves", "viernes", "sabado",
                       "domingo"),
    fold=_latin_fold,
    cue=re.compile(r"ñ|(?<!\w)(?:el|los|del|y|una|con|pero|muy|está|fue)(?!\w)",
                   re.IGNORECASE),
)
_ES_UNIT = "fin de semana|semana|mes|año|trimestre|sprint"
_ES_WEEKDAY = "lunes|martes|mi[ée]rcoles|jueves|viernes|s[áa]bado|domingo"
_ES_COUNT = r"\d+|un[oa]?|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|un[oa]s|algun[oa]s|vari[oa]s"
_ES_COUNTED_UNIT = r"d[íi]as?|semanas?|mes(?:es)?|años?"
_ES_UNITS = "semana mes año trimestre sprint"
_ES_WEEKDAYS = "lunes martes miércoles miercoles jueves viernes sábado sabado domingo"

# --- Portuguese -----------------------------------------------------------------------------

PORTUGUESE = Language(
    "pt",
    fixed=_days({
        "anteontem": -2, "ontem": -1, "hoje": 0, "esta noite": 0, "nesta noite": 0,
        "amanha": 1, "depois de amanha": 2,
    }),
    count=_counting({
        "um": 1, "uma": 1, "dois": 2, "duas": 2, "tres": 3, "quatro": 4, "cinco": 5,
        "seis": 6, "sete": 7, "oito": 8, "nove": 9, "dez": 10, "uns": None, "umas": None,
        "alguns": None, "algumas": None, "varios": None, "varias": None, "poucos": None,
        "poucas": None,
    }),
    units={"dia": "day", "dias": "day", "semana": "week", "semanas": "week",
           "fim de semana": "weekend", "mes": "month", "meses": "month", "ano": "year",
           "anos": "year", "trimestre": "quarter", "sprint": None},
    shifts={"passado": -1, "passada": -1, "proximo": 1, "proxima": 1, "que vem": 1},
    weekdays={**_weekdays("segunda", "terca", "quarta", "quinta", "sexta", "sabado", "domingo"),
              **_weekdays("segunda-feira", "terca-feira", "quarta-feira", "quinta-feira",
                          "sexta-feira")},
    fold=_latin_fold,
    cue=re.compile(r"[ãõç]|(?<!\w)(?:é|n[ãa]o|voc[êe]|do|da|dos|das|na|nas|em|um|uma|ou|foi"
                   r"|s[ãa]o|isso|isto|tamb[ée]m|com)(?!\w)", re.IGNORECASE),
)
_PT_UNIT = "fim de semana|semana|m[êe]s|ano|trimestre|sprint"
_PT_WEEKDAY = r"(?:segunda|ter[çc]a|quarta|quinta|sexta)(?:-feira)?|s[áa]bado|domingo"
_PT_COUNT = (r"\d+|uma?|dois|duas|tr[êe]s|quatro|cinco|seis|sete|oito|nove|dez|uns|umas"
             r"|algu(?:ns|mas)|v[áa]ri[oa]s|pouc[oa]s")
_PT_COUNTED_UNIT = r"dias?|semanas?|m[êe]s|meses|anos?"
_PT_UNITS = "semana mês mes ano trimestre sprint"
_PT_WEEKDAYS = "segunda terça terca quarta quinta sexta sábado sabado domingo"

# --- French ---------------------------------------------------------------------------------

FRENCH = Language(
    "fr",
    fixed=_days({
        "avant-hier": -2, "hier": -1, "hier soir": -1, "aujourd'hui": 0, "ce soir": 0,
        "ce matin": 0, "cet apres-midi": 0, "demain": 1, "demain matin": 1, "demain soir": 1,
        "apres-demain": 2,
    }),
    count=_counting({
        "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7,
        "huit": 8, "neuf": 9, "dix": 10, "quelques": None, "plusieurs": None,
    }),
    units={"jour": "day", "jours": "day", "semaine": "week", "semaines": "week",
           "week-end": "weekend", "mois": "month", "an": "year", "ans": "year",
           "annee": "year", "annees": "year", "trimestre": "quarter", "sprint": None},
    shifts={"dernier": -1, "derniere": -1, "passe": -1, "passee": -1, "prochain": 1,
            "prochaine": 1},
    weekdays=_weekdays("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi",
                       "dimanche"),
    fold=_latin_fold,
    # German writes "hier" too (here): French "hier" needs a French word on its line.
    cue=re.compile(r"[éèêàç]|(?<!\w)(?:le|la|les|du|est|et|je|on|il|elle|ils|nous|vous|une|a"
                   r"|en|pas|que|qui|pour|avec|dans|sur|ai|avons|ont|sont|au|aux|ce|cette"
                   r"|mais|ou|depuis)(?!\w)|(?<!\w)[cjldqn]['’]", re.IGNORECASE),
)
_FR_UNIT = "semaine|mois|ann[ée]e|an|trimestre|week-end|sprint"
_FR_WEEKDAY = "lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche"
_FR_COUNT = r"\d+|une?|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|quelques|plusieurs"
_FR_COUNTED_UNIT = r"jours?|semaines?|mois|ans?|ann[ée]es?"
_FR_WEEKDAYS = "lundi mardi mercredi jeudi vendredi samedi dimanche"
_FR_NOT_THAT = r"(?!-l[àa])"  # "ce soir-là": that evening, not this one

# --- German ---------------------------------------------------------------------------------

GERMAN = Language(
    "de",
    fixed=_days({
        "vorgestern": -2, "gestern": -1, "letzte nacht": -1, "heute": 0, "morgen": 1,
        "ubermorgen": 2, "uebermorgen": 2,
    }),
    count=_counting({
        "ein": 1, "eine": 1, "einem": 1, "einer": 1, "zwei": 2, "drei": 3, "vier": 4,
        "funf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
        "ein paar": None, "einigen": None, "wenigen": None, "mehreren": None,
    }),
    units={"tag": "day", "tagen": "day", "woche": "week", "wochen": "week",
           "wochenende": "weekend", "monat": "month", "monaten": "month", "jahr": "year",
           "jahren": "year", "quartal": "quarter", "sprint": None},
    shifts={"letzt": -1, "vorig": -1, "vergangen": -1, "dies": 0, "nachst": 1, "naechst": 1,
            "kommend": 1},
    weekdays={**_weekdays("montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag",
                          "sonntag"), "sonnabend": 5},
    fold=_latin_fold,
)
_DE_SHIFT = r"(?P<shift>letzt|vorig|vergangen|n[äa]chst|naechst|kommend|dies)(?P<ending>e[nrsm]?)"
_DE_COUNT = (r"\d+|ein paar|eine[mr]?|ein|zwei|drei|vier|f[üu]nf|sechs|sieben|acht|neun|zehn"
             r"|einigen|wenigen|mehreren")
_DE_COUNTED_UNIT = r"tag(?:en)?|wochen?|monat(?:en)?|jahr(?:en)?"
_DE_WEEKDAY = "montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonnabend|sonntag"
# "Morgen" is also the morning: a noun, so capitalised mid-sentence, and it follows a
# determiner ("am Morgen", "jeden Morgen"). Lower-case "morgen" is tomorrow unless a
# determiner precedes it; capitalised, only where a sentence starts.
_DE_TOMORROW = (
    r"(?P<fixed>(?:(?<!am )(?<!dem )(?<!den )(?<!der )(?<!des )(?<!jeden )(?<!jedem )"
    r"(?<!guten )(?<!gute )(?<!einen )(?<!ganzen )(?<!diesen )(?<!heute )(?<!gestern )"
    r"(?-i:(?=morgen))|(?:^|(?<=[.!?:] )|(?<=[-*>] )|(?<=\*\*))(?-i:(?=Morgen)))morgen)"
    r"(?:\s+(?:fr[üu]h|vormittag|mittag|nachmittag|abend))?"
)

# --- Chinese, Japanese, Korean --------------------------------------------------------------

CHINESE = Language(
    "zh",
    fixed={**_days({
        "大前天": -3, "前天": -2, "昨天": -1, "昨晚": -1, "昨夜": -1, "今天": 0, "今晚": 0,
        "今早": 0, "今晨": 0, "明天": 1, "明晚": 1, "明早": 1, "后天": 2, "後天": 2,
        "大后天": 3, "大後天": 3,
    }), **_years({"前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2, "後年": 2})},
    count=_cjk_count,
    units={"天": "day", "周": "week", "週": "week", "星期": "week", "个星期": "week",
           "個星期": "week", "礼拜": "week", "禮拜": "week", "月": "month", "个月": "month",
           "個月": "month", "年": "year", "季度": "quarter"},
    shifts={"上上": -2, "上": -1, "本": 0, "这": 0, "這": 0, "下": 1, "下下": 2},
    weekdays={"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6},
    fold=_cjk_fold,
)
JAPANESE = Language(
    "ja",
    fixed={**_days({
        "一昨日": -2, "昨日": -1, "昨夜": -1, "昨晩": -1, "今日": 0, "本日": 0, "今朝": 0,
        "今夜": 0, "今晩": 0, "明日": 1, "明後日": 2,
    }), **_years({"一昨年": -2, "去年": -1, "昨年": -1, "今年": 0, "来年": 1, "再来年": 2})},
    count=_cjk_count,
    units={"日": "day", "週": "week", "週間": "week", "月": "month", "か月": "month",
           "ヶ月": "month", "カ月": "month", "ヵ月": "month", "箇月": "month", "ケ月": "month",
           "年": "year"},
    shifts={"先々": -2, "先先": -2, "先": -1, "今": 0, "来": 1, "來": 1, "再来": 2},
    weekdays={"月": 0, "火": 1, "水": 2, "木": 3, "金": 4, "土": 5, "日": 6},
    fold=_cjk_fold,
    cue=re.compile(r"[\u3040-\u30ff]"),  # kana: a line in Japanese, not Chinese
)
KOREAN = Language(
    "ko",
    fixed={**_days({"그저께": -2, "그제": -2, "어제": -1, "어젯밤": -1, "오늘": 0, "내일": 1,
                    "모레": 2}),
           **_years({"재작년": -2, "작년": -1, "지난해": -1, "올해": 0, "금년": 0, "내년": 1,
                     "내후년": 2})},
    count=_counting({"한": 1, "두": 2, "세": 3, "네": 4, "다섯": 5, "여섯": 6, "일곱": 7,
                     "여덟": 8, "아홉": 9, "열": 10, "몇": None, "하루": 1, "이틀": 2,
                     "사흘": 3, "나흘": 4, "일주일": 7, "보름": 15}),
    units={"일": "day", "주": "week", "주일": "week", "달": "month", "개월": "month",
           "년": "year", "분기": "quarter"},
    shifts={"지난": -1, "저번": -1, "이번": 0, "다음": 1, "다다음": 2},
    weekdays={"월": 0, "화": 1, "수": 2, "목": 3, "금": 4, "토": 5, "일": 6},
    fold=_cjk_fold,
)
_KO_START = r"(?<![가-힣])"
# A Korean word takes particles: after 주 / 달 only these may follow ("다음 주요" is "next main").
_KO_END = r"(?=$|[^가-힣]|에|의|는|은|도|까지|부터|엔|동안|중|내|초|와|과|랑|가|이|를|을|만|쯤)"
# 之前天气 (the weather before), 今后天天 (from now on, every day), 天然 (natural)...
_ZH_TIAN_NOT = r"(?![气氣数數然空使才性堂文地学學习習的])"
_CJK_AGO_NOT = r"(?![端台缀綴面者提续續果门門半後])"  # 前端 (front end), 年前半, 日前後...
# "3天前", "两周后", "3日前", "2週間後": the unit and the direction together
_CJK_AGO_TRIGGERS = [unit + way for unit in ("天", "周", "週", "期", "月", "年", "日", "間")
                     for way in ("前", "后", "後", "以", "之")]
_KO_SHIFTS = "지난 저번 이번 다음"
# "3일 전", "2주 후", "한 달 뒤", "이틀 전": the unit (or day word) and the direction together
_KO_AGO_TRIGGERS = [unit + space + way for unit in ("일", "주", "달", "월", "년", "루", "틀", "흘", "름")
                    for space in ("", " ") for way in ("전", "후", "뒤")]

RULES: tuple[Rule, ...] = (
    # English
    _latin(ENGLISH, r"(?P<fixed>the day before yesterday|the day after tomorrow|earlier today"
                    r"|this (?:morning|afternoon|evening)|last night|yesterday|today|tonight"
                    r"|tomorrow)", _EN_DAYS),
    _latin(ENGLISH, r"(?P<shift>last|next|this|coming) (?P<unit>weekend|week|month|year"
                    r"|quarter|sprint)(?! of\b)", _EN_UNITS),
    _latin(ENGLISH, r"earlier (?P<shift>this) (?P<unit>week|month|year)", "week month year"),
    _latin(ENGLISH, rf"(?P<shift>last|next|this|coming) (?P<weekday>{_EN_WEEKDAY})(?! of\b)",
           _EN_WEEKDAY.replace("|", " ")),
    _latin(ENGLISH, rf"(?P<count>{_EN_COUNT}) (?P<unit>days?|weeks?|months?|years?) (?P<back>ago)",
           "ago"),
    _latin(ENGLISH, rf"(?P<ahead>in) (?P<count>{_EN_COUNT}) (?P<unit>days?|weeks?|months?)",
           "day days week weeks month months"),
    _latin(ENGLISH, r"(?<!most )(?<!least )recently(?![-‐]| used\b)|lately|the other day"
                    r"|a while ago", "recently lately day ago"),
    # Spanish
    _latin(SPANISH, r"(?P<fixed>anteayer|antier|ayer|anoche|pasado ma[ñn]ana"
                    r"|esta (?:noche|ma[ñn]ana|tarde)|(?<!por )hoy(?! (?:en )?d[íi]a| por hoy)"
                    r"|(?<!la )(?<!una )(?<!cada )(?<!esa )(?<!toda )(?<!media )(?<!esta )"
                    r"ma[ñn]ana(?!s))", "anteayer antier ayer anoche mañana manana hoy noche tarde"),
    _latin(SPANISH, rf"(?P<unit>{_ES_UNIT})\s+(?P<shift>pasad[oa]|pr[óo]xim[oa]|que viene)",
           _ES_UNITS),
    _latin(SPANISH, rf"(?P<shift>pr[óo]xim[oa])\s+(?P<unit>{_ES_UNIT})", _ES_UNITS),
    _latin(SPANISH, rf"(?P<det>est[ae])\s+(?P<unit>{_ES_UNIT})", _ES_UNITS),
    _latin(SPANISH, rf"(?P<weekday>{_ES_WEEKDAY})\s+(?P<shift>pasado|pr[óo]ximo|que viene)",
           _ES_WEEKDAYS),
    _latin(SPANISH, rf"(?P<shift>pr[óo]ximo)\s+(?P<weekday>{_ES_WEEKDAY})", _ES_WEEKDAYS),
    _latin(SPANISH, rf"(?P<det>este)\s+(?P<weekday>{_ES_WEEKDAY})", _ES_WEEKDAYS),
    _latin(SPANISH, rf"(?P<back>hace)\s+(?P<count>{_ES_COUNT})\s+(?P<unit>{_ES_COUNTED_UNIT})",
           "hace"),
    _latin(SPANISH, rf"(?P<ahead>dentro de|en)\s+(?P<count>{_ES_COUNT})\s+"
                    rf"(?P<unit>{_ES_COUNTED_UNIT})", "días dias día dia semana semanas mes meses año años"),
    _latin(SPANISH, r"recientemente|[úu]ltimamente|el otro d[íi]a|hace poco(?: tiempo)?",
           "recientemente últimamente ultimamente día dia hace"),
    # Portuguese
    _latin(PORTUGUESE, r"(?P<fixed>anteontem|ontem|depois de amanh[ãa]|amanh[ãa]"
                       r"|hoje(?! em dia)|n?esta noite)", "anteontem ontem amanhã amanha hoje noite"),
    _latin(PORTUGUESE, rf"(?P<unit>{_PT_UNIT})\s+(?P<shift>passad[oa]|que vem)", _PT_UNITS),
    _latin(PORTUGUESE, rf"(?P<shift>pr[óo]xim[oa])\s+(?P<unit>{_PT_UNIT})", _PT_UNITS),
    _latin(PORTUGUESE, rf"(?P<det>n?(?:est|ess)[ae])\s+(?P<unit>{_PT_UNIT})", _PT_UNITS),
    _latin(PORTUGUESE, rf"(?P<weekday>{_PT_WEEKDAY})\s+(?P<shift>passad[oa]|que vem)",
           _PT_WEEKDAYS),
    _latin(PORTUGUESE, rf"(?P<shift>pr[óo]xim[oa])\s+(?P<weekday>{_PT_WEEKDAY})", _PT_WEEKDAYS),
    _latin(PORTUGUESE, rf"(?P<det>n?(?:est|ess)[ae])\s+(?P<weekday>{_PT_WEEKDAY})",
           _PT_WEEKDAYS),
    _latin(PORTUGUESE, rf"(?P<back>h[áa]|faz)\s+(?P<count>{_PT_COUNT})\s+"
                       rf"(?P<unit>{_PT_COUNTED_UNIT})(?!\s+de\b)",
           "dia dias semana semanas mês mes meses ano anos"),
    _latin(PORTUGUESE, rf"(?P<count>{_PT_COUNT})\s+(?P<unit>{_PT_COUNTED_UNIT})\s+"
                       rf"(?P<back>atr[áa]s)", "atrás atras"),
    _latin(PORTUGUESE, rf"(?P<ahead>daqui a|em)\s+(?P<count>{_PT_COUNT})\s+"
                       rf"(?P<unit>{_PT_COUNTED_UNIT})", "dia dias semana semanas mês mes meses ano anos"),
    _latin(PORTUGUESE, r"recentemente|ultimamente|outro dia|h[áa] pouco(?: tempo)?",
           "recentemente ultimamente dia pouco"),
    # French
    _latin(FRENCH, rf"(?P<fixed>avant-hier|apr[èe]s-demain|hier soir|aujourd['’]hui"
                   rf"|ce soir{_FR_NOT_THAT}|ce matin{_FR_NOT_THAT}"
                   rf"|cet apr[èe]s-midi{_FR_NOT_THAT}|demain(?: matin| soir)?)",
           "hier aujourd demain soir matin midi"),
    _latin(FRENCH, r"(?P<fixed>hier)", "hier", needs_cue=True),
    _latin(FRENCH, rf"(?P<unit>{_FR_UNIT})\s+(?P<shift>derni[èe]re?|pass[ée]e?|prochaine?)",
           "dernier dernière derniere passé passée passe passee prochain prochaine"),
    _latin(FRENCH, rf"(?P<det>cette|cet|ce)\s+(?P<unit>{_FR_UNIT})(?:-ci)?{_FR_NOT_THAT}",
           "semaine mois année annee trimestre week sprint"),
    _latin(FRENCH, rf"(?P<weekday>{_FR_WEEKDAY})\s+(?P<shift>dernier|pass[ée]|prochain)",
           _FR_WEEKDAYS),
    _latin(FRENCH, rf"(?P<det>ce)\s+(?P<weekday>{_FR_WEEKDAY}){_FR_NOT_THAT}", _FR_WEEKDAYS),
    _latin(FRENCH, rf"(?P<back>il y a)\s+(?P<count>{_FR_COUNT})\s+(?P<unit>{_FR_COUNTED_UNIT})",
           "il"),
    _latin(FRENCH, rf"(?P<ahead>dans)\s+(?P<count>{_FR_COUNT})\s+(?P<unit>{_FR_COUNTED_UNIT})",
           "dans"),
    _latin(FRENCH, r"r[ée]cemment|derni[èe]rement|l['’]autre jour|il y a peu",
           "récemment recemment dernièrement dernierement jour il"),
    # German
    _latin(GERMAN, r"(?P<fixed>vorgestern|gestern|heute|[üu]bermorgen|uebermorgen|letzte nacht)"
                   r"(?:\s+(?:morgen|fr[üu]h|vormittag|mittag|nachmittag|abend|nacht))?",
           "vorgestern gestern heute übermorgen ubermorgen uebermorgen nacht"),
    _latin(GERMAN, _DE_TOMORROW, "morgen"),
    _latin(GERMAN, rf"{_DE_SHIFT}\s+(?P<unit>wochenende|woche|monat|jahr|quartal|sprint)"
                   rf"(?!\s+(?:des|der)\b)", "woche wochenende monat jahr quartal sprint"),
    _latin(GERMAN, rf"{_DE_SHIFT}\s+(?P<weekday>{_DE_WEEKDAY})", _DE_WEEKDAY.replace("|", " ")),
    _latin(GERMAN, rf"(?P<back>vor)\s+(?P<count>{_DE_COUNT})\s+(?P<unit>{_DE_COUNTED_UNIT})",
           "vor"),
    _latin(GERMAN, rf"(?P<ahead>in)\s+(?P<count>{_DE_COUNT})\s+(?P<unit>{_DE_COUNTED_UNIT})",
           "tag tagen woche wochen monat monaten jahr jahren"),
    _latin(GERMAN, r"k[üu]rzlich|kuerzlich|neulich|letztens|unl[äa]ngst|vor kurzem",
           "kürzlich kurzlich kuerzlich neulich letztens unlängst unlangst kurzem"),
    # Chinese
    _cjk(CHINESE, rf"(?<![之以然最午今目提当當背落向])(?P<fixed>大前天|前天|大[后後]天|[后後]天|昨天"
                  rf"|今天|明天|昨晚|今晚|明晚|今早|今晨|明早|昨夜){_ZH_TIAN_NOT}",
         "前天 昨天 今天 明天 后天 後天 昨晚 今晚 明晚 今早 今晨 明早 昨夜"),
    _cjk(CHINESE, r"(?<![之以然最])(?P<fixed>去年|今年|明年|前年|[后後]年)(?![代级級])",
         "去年 今年 明年 前年 后年 後年"),
    _cjk(CHINESE, r"(?P<shift>上上|下下|[上下本这這])(?:个|個)?(?P<unit>周|週|星期|礼拜|禮拜)"
                  r"(?:(?P<weekend>末)|(?P<weekday>[二三四五六日天]|一(?![起样樣直些下般定致切共点點次]))"
                  r"|(?![期围圍边邊长長刊年]))",
         "上周 下周 本周 这周 這周 上週 下週 本週 這週 星期 礼拜 禮拜"),
    _cjk(CHINESE, r"(?P<shift>上上|下下|[上下本这這])(?:个|個)?(?P<unit>月)(?![球亮光台])",
         "上月 下月 本月 这月 這月 个月 個月"),
    _cjk(CHINESE, r"(?P<shift>[上下本这這])(?:个|個)?(?P<unit>季度)", "季度"),
    _cjk(CHINESE, rf"(?<![\d.月])(?P<count>\d{{1,3}}|[一二两兩三四五六七八九十几幾]{{1,3}}|数|數)\s*"
                  rf"(?P<unit>天|周|週|[个個]?星期|[个個]月|年)\s*"
                  rf"(?:(?P<back>以前|之前|前)|(?P<ahead>以[后後]|之[后後]|[后後])){_CJK_AGO_NOT}",
         _CJK_AGO_TRIGGERS),
    _cjk(CHINESE, r"最近(?:几|幾)(?:天|周|週|[个個]月|年)|最近(?:这|這|一)段(?:时间|時間)"
                  r"|前(?:几|幾|些)(?:天|日子)|前(?:阵|陣)子|前段(?:时间|時間)|近期|近(?:来|來)"
                  r"|(?:这|這)(?:几|幾)天",
         "最近 前几 前幾 前些 前阵 前陣 前段 近期 近来 近來 这几 這幾"),
    # Japanese
    _cjk(JAPANESE, r"(?P<fixed>一昨日|昨日|昨夜|昨晩|今日|本日|今朝|今夜|今晩|明後日|明日)",
         "昨日 今日 本日 今朝 今夜 今晩 明日 明後 昨夜 昨晩"),
    _cjk(JAPANESE, r"(?P<fixed>一昨年|去年|昨年|今年|再来年|来年)", "去年 昨年 今年 来年"),
    _cjk(JAPANESE, r"(?P<shift>先々|先先|先|今|再来|来|來)(?P<unit>週)"
                   r"(?:(?P<weekend>末)|の?(?P<weekday>[月火水木金土日])曜日?|(?!間))",
         "先週 今週 来週 來週 々週"),
    _cjk(JAPANESE, r"(?P<shift>先々|先|今|再来|来|來)(?P<unit>月)(?!曜)", "先月 今月 来月 來月 々月"),
    _cjk(JAPANESE, rf"(?<![\d月])(?P<count>\d{{1,3}}|[一二三四五六七八九十]{{1,3}}|数|何)"
                   rf"(?P<unit>日|週間|[かヶカヵ箇ケ]月|年)(?:(?P<back>前)|(?P<ahead>後)){_CJK_AGO_NOT}",
         _CJK_AGO_TRIGGERS),
    _cjk(JAPANESE, r"最近(?=[、，,はもで]|になって)|先日", "最近 先日"),
    # Korean
    _cjk(KOREAN, rf"{_KO_START}(?P<fixed>그저께|그제(?!서야)|어젯밤|어제|오늘(?!날)|내일|모레)",
         "그저께 그제 어젯 어제 오늘 내일 모레"),
    _cjk(KOREAN, rf"{_KO_START}(?P<fixed>재작년|작년|지난해|올해|금년|내후년|내년)",
         "작년 지난해 올해 금년 내후년 내년"),
    _cjk(KOREAN, rf"{_KO_START}(?P<shift>지난|저번|이번|다다음|다음)\s?(?P<unit>주)"
                 rf"(?:(?P<weekend>말)|\s?(?P<weekday>[월화수목금토일])요일|{_KO_END})", _KO_SHIFTS),
    _cjk(KOREAN, rf"{_KO_START}(?P<shift>지난|저번|이번|다음)\s(?P<weekday>[월화수목금토일])요일",
         _KO_SHIFTS),
    _cjk(KOREAN, rf"{_KO_START}(?P<shift>지난|저번|이번|다다음|다음)\s?(?P<unit>달){_KO_END}",
         _KO_SHIFTS),
    _cjk(KOREAN, rf"{_KO_START}(?P<shift>지난|이번|다음)\s?(?P<unit>분기)", "분기"),
    _cjk(KOREAN, rf"(?<![\d가-힣])(?<!월 )(?:(?P<count>\d{{1,3}}|한|두|세|네|다섯|여섯|일곱|여덟"
                 rf"|아홉|열|몇)\s?(?P<unit>주일|일|주|개월|달|년)|(?P<days>하루|이틀|사흘|나흘|보름"
                 rf"|일주일))\s?(?:(?P<back>전)|(?P<ahead>후|뒤)){_KO_END}",
         _KO_AGO_TRIGGERS),
    _cjk(KOREAN, rf"{_KO_START}(?:최근에|얼마 전|엊그제|며칠 전|요전에?)", "최근에 얼마 엊그제 며칠 요전"),
)
