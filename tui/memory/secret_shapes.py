"""memtui's own secret rules, beside detect-secrets' pattern detectors, and the test every
match must pass before it is called a secret.

Own rules: keys of providers detect-secrets does not know (Anthropic, OpenAI's project and
service keys, GitHub's fine-grained tokens, Google, Hugging Face, npm), and what people
write in notes: a labelled password or key (`password: …`, `DB_PASSWORD=…`, `Senha: …`,
`비밀번호: …`, `**Gmail app password** (`…`)`, `client_secret: …`), a password in a command
(`curl -u user:…`, `--password=…`, `sshpass -p …`) and a bearer token. A match counts only
when its value is a credential (see tui/memory/credential_values.py): detect-secrets'
shapes and the labels match placeholders, references, schema types and words as often as
real secrets.

Not written here: detect-secrets' keyword and entropy detectors. Their keywords are English
and Spanish, their value tests are made for source code (quoted strings), and on prose they
flag every long word; the labels below are the ones people write in notes, in the languages
memtui reads.
"""

from __future__ import annotations

import re

from tui.memory import credential_values as values

PASSWORD = "Password"
KEY = "Secret key or token"

_PROVIDER_RULES = (
    ("Anthropic API Key or token", r"\bsk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_\-]{32,}"),
    ("OpenAI API Key", r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{32,}|\bsk-[A-Za-z0-9]{48}\b"),
    ("GitHub Token", r"\bgithub_pat_[A-Za-z0-9_]{50,}"),
    ("Google API Key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("Hugging Face Token", r"\bhf_[A-Za-z0-9]{34,}"),
    ("NPM tokens", r"\bnpm_[A-Za-z0-9]{36}\b"),
)

_PASSWORD_WORDS = ("password|passwd|passphrase|passcode|passwort|kennwort|mot de passe|"
                   "contraseña|contrasena|senha|wachtwoord|пароль|密码|密碼|口令|パスワード|"
                   "비밀번호|비번")
_KEY_WORDS = (r"api[ _-]?key|apikey|secret[ _-]?(?:access[ _-]?)?key|private[ _-]?key|"
              r"auth[ _-]?key|app[ _-]?key|master[ _-]?key|signing[ _-]?(?:key|secret)|"
              r"client[ _-]?secret|app[ _-]?secret|webhook[ _-]?secret|secret|"
              r"(?:access|auth|api|bot|refresh|verify|personal[ _-]access)[ _-]?token|token|"
              r"(?<![^\W_])key|토큰|トークン|シークレット|密钥|令牌|API ?키")
# After the label: its closing emphasis or quote, a qualifier in parentheses, a separator.
_AFTER_LABEL = r"(?![^\W_])[*_`'\"\]]{0,3}(?:[ \t]*\([^()`\n]{1,40}\))?"
_SEPARATOR = (r"(?:[ \t]*(?::=|=>|->|[:=：→⇒])[ \t]*"
              r"|[ \t]+(?:(?:is|was|ist|est|es|é|era)[ \t]+)?(?=[`\"'])"
              r"|[ \t]*\([^()`\n]{0,24}?(?=`)|[ \t]*\|[ \t]*(?=`))")
_VALUE = (r"(?:\*\*|__)?(?:`(?P<v1>[^`\n]{1,100})`|\"(?P<v2>[^\"\n]{1,100})\""
          r"|'(?P<v3>[^'\n]{1,100})'|(?P<v0>[A-Za-z0-9]{4}(?: [A-Za-z0-9]{4}){3,5})(?![A-Za-z0-9])"
          r"|(?P<v4>[^\s`|]{1,200}))")

_LABELLED_RULES = (
    # `pass` only as a variable's name (`DB_PASS=`, `pass=`): "pass `x`" and "PASS: 4" are a
    # verb and a test result.
    (PASSWORD, rf"(?:(?<![^\W_])(?:pwd|pw)|(?<=[_-])pass|(?<![^\W_])(?-i:pass)(?=[:=])|"
               rf"{_PASSWORD_WORDS}){_AFTER_LABEL}{_SEPARATOR}{_VALUE}"),
    (PASSWORD, r"(?:\bcurl\b[^\n]*?[ \t](?:-u|--user)[ \t]+['\"]?[^\s:'\"]+:"
               r"|\bsshpass[ \t]+-p[ \t]*|--password[= ]|\bmysql\b[^\n]*?[ \t]-p)"
               r"(?:'(?P<v3>[^'\n]{1,100})'|\"(?P<v2>[^\"\n]{1,100})\"|(?P<v4>[^\s'\"`|]{1,200}))"),
    (KEY, rf"(?:{_KEY_WORDS}){_AFTER_LABEL}{_SEPARATOR}{_VALUE}"),
    (KEY, r"\bbearer[ \t]+(?P<v4>[A-Za-z0-9._~+/\-]{16,}=*)"),
)
LABELLED_KINDS = {PASSWORD, KEY}
# Where a labelled rule could start: a label and its separator, or a command's name. One RE2
# pass of this over a text is a third faster than one of the rules themselves.
LABEL_SCREEN = (rf"(?i:(?:pwd|pw|pass|{_PASSWORD_WORDS}|{_KEY_WORDS})[*_`'\"\]]{{0,3}}"
                r"(?:[ \t]*\([^()`\n]{1,40}\))?"
                r"(?:[ \t]*(?::=|=>|->|[:=：→⇒|])|[ \t]+(?:(?:is|was|ist|est|es|é|era)[ \t]+)?[`\"']"
                r"|[ \t]*\([^()`\n]{0,24}`)"
                r"|curl|sshpass|--password|mysql|bearer)")

# Labels whose value is public by design, and words that make a line an example.
_PUBLIC_LABEL = re.compile(r"public|publishable|anon|\bpub\b|\bid\b|_id\b|client[ _-]?key|data-\w+\W{0,2}$",
                           re.IGNORECASE)
_EXAMPLE_CUE = re.compile(
    r"\be\.\s?g\.|\bfor (?:example|instance)\b|\bz\.\s?b\.|\bpor ejemplo\b|\bpar exemple\b|"
    r"\bzum beispiel\b|\bp\.\s?ex\.|例如|例：|예시|예:|\bexample\b|\bplaceholder\b",
    re.IGNORECASE,
)
_JWT = re.compile(r"[A-Za-z0-9_\-=]+\.[A-Za-z0-9_\-=]+(?:\.[A-Za-z0-9_\-+/=]*)?")
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_\-]*")
_KEY_BODY = re.compile(r"[A-Za-z0-9+/=]{40,}")


def own_rules() -> tuple[tuple[str, str, int], ...]:
    """(kind, pattern, flags) of memtui's own rules, provider keys first."""
    provider = tuple((kind, pattern, 0) for kind, pattern in _PROVIDER_RULES)
    labelled = tuple((kind, pattern, re.IGNORECASE) for kind, pattern in _LABELLED_RULES)
    return provider + labelled


def keyword_candidates() -> str:
    """The label words, for the pre-check used when RE2 cannot screen the rules."""
    return rf"(?i:{_PASSWORD_WORDS}|pass|pwd|\bpw\b|secret|token|key|bearer|키)"


def secret_span(kind: str, match: re.Match[str], line: str, next_line: str) -> tuple[int, int] | None:
    """The span of the credential a match found in `line`, or None when the match holds
    none (a placeholder, a reference, a word, a public value)."""
    if kind in LABELLED_KINDS:
        return _labelled_span(kind, match, line)
    start, end = match.span(1) if kind == "Basic Auth Credentials" else _matched_secret(match)
    text = line[start:end]
    if kind == "Private Key":
        return (start, end) if _KEY_BODY.search(line[end:]) or _KEY_BODY.match(next_line.strip()) else None
    if kind == "JSON Web Token":  # detect-secrets' pattern ends lazily, before the signature
        whole = _JWT.match(line, start)
        end = whole.end() if whole else end
        return (start, end) if values.jwt_value(line[start:end]) else None
    if kind == "Basic Auth Credentials":
        return (start, end) if values.password_value(text) else None
    return (start, end) if values.random_token(text) else None


def _labelled_span(kind: str, match: re.Match[str], line: str) -> tuple[int, int] | None:
    group = next((name for name in ("v1", "v2", "v3", "v0", "v4")
                  if name in match.re.groupindex and match.group(name) is not None), None)
    if group is None or _EXAMPLE_CUE.search(line) or "<script" in line:
        return None
    start, end = match.span(group)
    if group == "v4":  # a bare value: without the punctuation or emphasis that closes it
        while end > start and line[end - 1] in ".,;:)]}*_":
            end -= 1
    while end - start > 2 and line[start] == line[end - 1] and line[start] in "\"'":
        start, end = start + 1, end - 1  # `"1000"`: the quotes are the writer's, not the value's
    value = line[start:end]
    if kind == PASSWORD:
        return (start, end) if values.password_value(value) else None
    label = line[max(0, match.start() - 24):match.start(group)]
    if _PUBLIC_LABEL.search(label):
        return None
    said = match.group(0).lower()
    shortest = 10 if "secret" in said else 16  # a client secret can be short (Naver's: 10)
    uuid_allowed = not said.startswith("key")
    return (start, end) if values.key_value(value, shortest, uuid_allowed=uuid_allowed) else None


def _matched_secret(match: re.Match[str]) -> tuple[int, int]:
    """The part of a match that is the secret: a captured group when it is the credential
    (a URL's password), the whole match when the group is only a prefix (`ghp`), without
    the space or quote some patterns take in before it."""
    groups = [g for g in range(1, (match.re.groups or 0) + 1) if match.group(g)]
    longest = max(groups, key=lambda g: len(match.group(g)), default=0)
    if longest and len(match.group(longest)) >= 8:
        return match.start(longest), match.end(longest)
    start, end = match.span()
    text = match.string
    while start < end and text[start] in " \t=:\"'":
        start += 1
    while end > start and text[end - 1] in " \t\"'":
        end -= 1
    if end == match.end():  # a pattern that reads a fixed length (`sk_live_` and 24): the rest
        end = _TOKEN_TAIL.match(text, end).end()  # of the key is redacted with it
    return start, end
