"""Whether a value a secret rule matched is a credential someone could use.

The rules find the shapes (`password: …`, `sk-ant-…`, `https://user:pass@host`); on real
memories most such shapes hold no credential at all. Seen in public stores and docs:

- placeholders: `<PASSWORD>`, `${DB_PASSWORD}`, `$PW`, `%PW%`, `{{token}}`, `xxx`, `***`,
  `sk-...`, `sk-your-key`, `your-api-key-here`, `changeme`, AWS's own `…EXAMPLE` key, a
  value of one repeated character or of a short repeated unit;
- references to where the secret is: `see 1Password`, `.env`, `~/.config/key`,
  `op://vault/item`, `process.env.DB_PASSWORD`, `os.environ["PW"]`, an env var's name;
- words: `password: required`, `pwd: string`, `"password": "plaintext"`, a schema's type
  (`VARCHAR(128)`), a date or a version;
- public values: a Supabase anon key (a JWT whose role is `anon`), a publishable key
  (`pk_live_…`), an SSH public key, an Ethereum address.

A password must mix two kinds of characters (letters and digits, or cases, or a symbol),
or be six digits or more, or be a long run of random lowercase letters (Gmail's app
passwords), or WordPress's six groups of four. A key or token must be long, and mix letters
and digits.
"""

from __future__ import annotations

import base64
import binascii
import json
import re

# Words that make a value a stand-in for the secret, not the secret.
_STAND_IN_WORDS = re.compile(
    r"your|example|sample|placeholder|changeme|change[_-]me|redacted|dummy|fake|"
    r"passw(?:or)?d|passwort|secret|token|here|xxx|todo|tbd|\bn/a\b|none|null|undefined|"
    r"empty|blank|hidden|masked|omitted|elided|removed|insert|replace|"
    r"<[^>]*>|\{[^}]*\}|\[[^\]]*\]|\.\.\.|…|\*\*\*|•|●|■",
    re.IGNORECASE,
)
# Where a value only says where the secret is, or how a program reads it.
_REFERENCE = re.compile(
    r"^(?:\$|%\w+%|~|\.{0,2}/|[A-Za-z]:\\|\\\\|vault:|ssm:|arn:|keychain|env:|file:)|"
    r"^[a-z][a-z0-9+.\-]*://|\\|\w\(|"
    r"\.(?:env|json|ya?ml|toml|ini|cfg|conf|txt|md|pem|key|crt|p12|sh|py|js|ts)\b|"
    r"process\.env|os\.environ|getenv|\benv\(|secrets\.|config\.|settings\.",
    re.IGNORECASE,
)
# Words that lead a reference or a sentence, not a password: "password: see 1Password".
_LEADING_WORDS = {
    "see", "in", "from", "stored", "via", "use", "using", "ask", "read", "set", "saved",
    "voir", "siehe", "ver", "veja", "vedi", "zie", "the", "a", "an", "same", "as", "is",
}
_TYPE_NAMES = {
    "string", "str", "text", "varchar", "char", "int", "integer", "number", "bool", "boolean",
    "bytes", "hash", "bcrypt", "argon2", "sha256", "optional", "required", "any", "object",
    "secretstr", "password", "uuid", "nullable", "true", "false", "yes", "no",
}
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_CODE = re.compile(r"[A-Za-z_][^\W\d]*(?:\.[A-Za-z_][^\W\d]*)+(?:\(.*\))?|[A-Za-z_]\w*\(.*\)")
# A name made of words: `automationact_meta_2026`, `claude-adsense-remediation-260821`.
_NAME_OF_WORDS = re.compile(r"(?:[^\W\d_]+\d{0,3}|\d+)(?:[_.:\-](?:[^\W\d_]+\d{0,3}|\d+))+")
_DATE_OR_NUMBER = re.compile(r"v?[\d.,:/\-]+[a-z]{0,2}", re.IGNORECASE)
# Publishable keys, SSH public keys, Ethereum addresses, Google OAuth client ids.
_PUBLIC = re.compile(r"pk_(?:live|test)_|pk\.|ssh-(?:rsa|ed25519|dss)|ecdsa-sha2|0x[0-9a-f]{40}$|"
                     r"\d{12}-[a-z0-9]{32}(?:\.apps\.googleusercontent\.com)?$", re.IGNORECASE)
_TOKEN_CHARACTERS = re.compile(r"[A-Za-z0-9_\-+/=.:~]+")
_APP_PASSWORD_GROUPS = re.compile(r"[A-Za-z0-9]{4}(?: [A-Za-z0-9]{4}){3,5}")
_WORD_JOINERS = re.compile(r"(?<=[^\W\d_])[-'’.](?=[^\W\d_])")
_VOWELS = set("aeiouy")


def stand_in(value: str) -> bool:
    """A placeholder, an example or a run no generator makes (`aaaa…`, `Ab1Ab1Ab1…`)."""
    if _STAND_IN_WORDS.search(value) or _sequential(value):
        return True
    core = re.sub(r"[^A-Za-z0-9]", "", value)
    return len(core) >= 8 and _repeats_a_short_unit(core)


def _repeats_a_short_unit(core: str) -> bool:
    return any(core == (core[:size] * (len(core) // size + 1))[:len(core)] for size in range(1, 5))


def _sequential(value: str) -> bool:
    lowered = value.lower()
    return any(run in lowered for run in ("123456789", "abcdefgh", "qwertyui"))


def reference(value: str) -> bool:
    """Where the secret is kept, or code that reads it, rather than the secret."""
    return bool(_REFERENCE.search(value) or value.endswith("*")  # a name pattern: `INIT_*`
                or _ENV_NAME.fullmatch(value)
                or _CODE.fullmatch(value)
                or _NAME_OF_WORDS.fullmatch(value))


def password_value(value: str) -> bool:
    """A password written out, as opposed to a stand-in, a reference or a word."""
    value = value.strip()
    first = re.split(r"[\s(<\[?|]", value.lower(), maxsplit=1)[0]
    if (first in _LEADING_WORDS or first in _TYPE_NAMES or stand_in(value) or reference(value)
            or _PUBLIC.match(value)):
        return False
    if _APP_PASSWORD_GROUPS.fullmatch(value):
        letters = value.replace(" ", "")
        return not letters.isalpha() or not letters.islower() or _random_letters(letters)
    if " " in value or len(value) < 6:
        return False
    if value.isdigit():
        return True  # a PIN-like password, long enough not to be a count or a port
    if _DATE_OR_NUMBER.fullmatch(value):
        return False
    if value.isalpha():  # a word (`MacBook`), unless a long run no language writes
        return len(value) >= 12 and _random_letters(value)
    return _character_kinds(value) >= 2


def _random_letters(letters: str) -> bool:
    """Few vowels: a generated string, not a word or a phrase."""
    return sum(char in _VOWELS for char in letters) / len(letters) < 0.25


def _character_kinds(value: str) -> int:
    """Lowercase, uppercase past the first letter, digits, symbols (a hyphen or apostrophe
    inside a word counts as none: `e-mail`, `don't`)."""
    plain = _WORD_JOINERS.sub("", value)
    kinds = [
        any(char.islower() for char in plain),
        any(char.isupper() for char in plain[1:]),
        any(char.isdigit() for char in plain),
        any(not char.isalnum() for char in plain),
    ]
    return sum(kinds)


def key_value(value: str, shortest: int = 16, *, uuid_allowed: bool = True) -> bool:
    """A key or token written out: long, letters and digits mixed, no stand-in."""
    value = value.strip()
    if (len(value) < shortest or not _TOKEN_CHARACTERS.fullmatch(value) or stand_in(value) or reference(value)
            or _PUBLIC.match(value) or _ENV_NAME.fullmatch(value)):
        return False
    if not uuid_allowed and re.fullmatch(r"[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}", value, re.I):
        return False
    return random_token(value)


def random_token(value: str) -> bool:
    """Letters and digits mixed, as every generated key has (a word-like identifier such as
    `APCollectorAgent` has no digit)."""
    return (any(char.isdigit() for char in value) and any(char.isalpha() for char in value)
            and len(set(value)) >= 8 and not stand_in(value))


def jwt_value(token: str) -> bool:
    """A signed JWT that grants something: its header and claims decode, it is signed, and
    it is neither a public anon key nor the well-known example token."""
    parts = token.split(".")
    if len(parts) < 3 or len(parts[2]) < 16:
        return False
    try:
        claims = json.loads(_b64url(parts[1]))
        json.loads(_b64url(parts[0]))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return False
    if not isinstance(claims, dict):
        return False
    if claims.get("role") == "anon" or claims.get("name") == "John Doe":
        return False
    return True


def _b64url(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
