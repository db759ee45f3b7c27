"""memtui's optional settings file, `<xdg config>/memtui/config.toml`.

One document, one table per part of memtui: `[anthropic]` for runs (`tui.agents.client`),
`[backups]` for how long the undo log keeps changes (`tui.memory.retention`). Each part
reads its own table; a file that cannot be read, or a key no part reads (a typo would
leave the default in force), is one sentence (`ConfigError`).
"""

from __future__ import annotations

from pathlib import Path

from tui import xdg

CONFIG_LIMIT = 1 << 20  # a config.toml past this is no config memtui wrote or documents


class ConfigError(ValueError):
    """config.toml is there but unusable; the message is one sentence."""


def config_file() -> Path:
    return xdg.config_dir() / "config.toml"


def read_config(path: Path) -> dict:
    """The whole document ({} when there is no file); ConfigError when it is no TOML memtui
    can use."""
    import tomllib

    from tui.claude.files import read_regular

    try:
        text = read_regular(path, CONFIG_LIMIT).decode("utf-8")
        return tomllib.loads(text)
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise ConfigError(f"{path} cannot be read ({error.strerror or error}).") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text, so it cannot be read as TOML.") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} cannot be read as TOML ({error}).") from None
    except (ValueError, RecursionError):  # a number past Python's digit limit, deep nesting
        raise ConfigError(f"{path} holds values too large or too deep to be settings.") from None


def read_table(path: Path, name: str) -> dict:
    """The `[name]` table ({} when the file or the table is absent); ConfigError otherwise."""
    table = read_config(path).get(name, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: `{name}` must be a table ([{name}]).")
    return table


def refuse_unknown_keys(path: Path, name: str, table: dict, known: tuple[str, ...]) -> None:
    """ConfigError naming the keys of `[name]` that memtui does not read, and those it does."""
    unknown = [key for key in table if key not in known]
    if unknown:
        raise ConfigError(f"{path}: memtui reads no {_either(unknown, 'or')} in [{name}] "
                          f"(only {_either(list(known), 'and')}).")


def _either(keys: list[str], word: str) -> str:
    quoted = [f"`{key}`" for key in keys]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} {word} {quoted[-1]}"
