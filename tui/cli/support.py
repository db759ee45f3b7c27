"""What every `memtui` command shares: the config home, its environment, the target store."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from tui.claude import paths


class UsageError(Exception):
    """One sentence for the user; exit 2."""


class CommandParser(argparse.ArgumentParser):
    """argparse, except that a word starting with '-' is an argument unless it names an option.

    Claude Code's folder names start with '-' (`-home-me-repo`): plain argparse takes them
    for unknown options, and `-home-me-repo` for `-h` given the value `ome-me-repo`. So the
    words are sorted before argparse sees them: options (with their values) first, then
    `--` and the arguments in their order. `-h` and `--help` alone still ask for help.
    """

    def __init__(self, *args, **kwargs) -> None:
        self.takes_value: dict[str, bool] = {}  # option string -> does it take a value
        self.has_commands = False
        self.adding = False
        super().__init__(*args, **kwargs)

    def _get_formatter(self):
        # argparse makes a formatter for each argument added, only to check its metavar
        # (and one for the commands' prog): one of a set width skips shutil's import and
        # a terminal size query each time.
        if self.adding:
            return self.formatter_class(prog=self.prog, width=80)
        return super()._get_formatter()

    def add_argument(self, *args, **kwargs):
        self.adding = True
        try:
            action = super().add_argument(*args, **kwargs)
        finally:
            self.adding = False
        if action.option_strings and action.nargs not in (None, 0, 1):
            raise ValueError("memtui options take no value or exactly one")
        for option in action.option_strings:
            self.takes_value[option] = action.nargs != 0
        return action

    def add_subparsers(self, **kwargs):
        self.has_commands = True
        self.adding = True  # its formatter only makes the commands' prog: `memtui`
        try:
            return super().add_subparsers(**kwargs)
        finally:
            self.adding = False

    def exit(self, status: int = 0, message: str | None = None):
        if message:  # the words it quotes are the user's: shown, never obeyed
            from tui.visible import visible

            message = visible(message)
        super().exit(status, message)

    def error(self, message: str):
        """argparse's complaint as one sentence, without its usage block."""
        self.exit(2, f"{self.prog}: {message}.\n")

    def _check_value(self, action, value):
        if action.choices is None or value in action.choices:
            return
        choices = [str(choice) for choice in action.choices]
        guess = close_match(str(value), choices)
        hint = f" (did you mean {guess}?)" if guess else ""
        raise argparse.ArgumentError(
            action, f"{value!r} is not {and_list(choices, 'or')}{hint}")

    def options(self) -> list[str]:
        """Each option by its long name, in the order `--help` lists them (help aside)."""
        return [max(action.option_strings, key=len) for action in self._actions
                if action.option_strings and action.dest != "help"]

    def unknown_option(self, word: str):
        """A word starting with `--` that names none of this command's options."""
        name = word.split("=", 1)[0]
        options = self.options()
        guess = close_match(name, options)
        hint = f" (did you mean {guess}?)" if guess else ""
        after = " (a command's options go after it)" if self.has_commands else ""
        self.exit(2, f"{self.prog} has no {name} option{hint}; its options are "
                     f"{and_list(options)}{after}.\n")

    def parse_known_args(self, args=None, namespace=None):
        words = list(sys.argv[1:] if args is None else args)
        namespace, extras = super().parse_known_args(self.options_first(words), namespace)
        # Left over when a command takes no argument: the words after it are what is extra.
        return namespace, [word for word in extras if word != "--"]

    def options_first(self, words: list[str]) -> list[str]:
        """The words with options first and every argument after `--`.

        A parser with commands stops at the command: the command's own parser (this class
        too) sorts the words that follow it.
        """
        options: list[str] = []
        arguments: list[str] = []
        rest = iter(words)
        for word in rest:
            if word == "--":
                arguments.extend(rest)
                break
            option = self.option_of(word)
            if option is None and word.startswith("--"):
                self.unknown_option(word)  # folder names start with one dash, never two
            if option is None:
                if self.has_commands:
                    return [*options, word, *rest]
                arguments.append(word)
            elif self.takes_value[option] and "=" not in word and (
                word.startswith("--") or word == option
            ):
                value = next(rest, None)
                # `--opt=value` keeps a value that starts with '-' from reading as an option.
                options.append(word if value is None else f"{word}={value}")
            else:
                options.append(word)
        return options + (["--", *arguments] if arguments else [])

    def option_of(self, word: str) -> str | None:
        """The option a word names (exactly, as `--opt=value`, or abbreviated), else None."""
        if not word.startswith("-") or word == "-":
            return None
        if not word.startswith("--"):
            # `-x` exactly, or `-xVALUE` for a short option that takes a value.
            short = word[:2]
            if short in self.takes_value and (word == short or self.takes_value[short]):
                return short
            return None
        name = word.split("=", 1)[0]
        if name in self.takes_value:
            return name
        if not self.allow_abbrev or name == "--":
            return None
        # An ambiguous abbreviation stays an option, for argparse to name the candidates.
        return next((option for option in self.takes_value if option.startswith(name)), None)


def close_match(word: str, choices: Sequence[str]) -> str | None:
    """The choice a typo most likely meant, if one is close."""
    import difflib

    bare = {choice.lstrip("-"): choice for choice in choices}  # `--` is no likeness
    found = difflib.get_close_matches(word.lstrip("-"), bare, n=1, cutoff=0.6)
    return bare[found[0]] if found else None


def and_list(words: Sequence[str], last: str = "and") -> str:
    """"a, b and c" (`last`: "or" for "a, b or c")."""
    if len(words) < 2:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


def check_settings_file(path: Path | None) -> None:
    """`--settings` must name a readable JSON object, as `claude --settings` needs."""
    if path is None:
        return
    from tui.claude.settings import parse_settings

    try:
        data = parse_settings(Path(path).read_bytes())
    except FileNotFoundError:
        raise UsageError(f"--settings {path}: there is no such file.") from None
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or "not UTF-8 text"
        raise UsageError(f"--settings {path} cannot be read ({reason}).") from None
    except ValueError as error:
        raise UsageError(f"--settings {path} is not valid JSON ({error}).") from None
    if not isinstance(data, dict):
        raise UsageError(f"--settings {path} holds {type(data).__name__}, not a settings object.")


def command_name() -> str:
    """How the user can run this memtui again, pasted in any folder: `memtui` when the PATH
    finds this very script, else the script's absolute path (`/home/ana/memtui/.venv/bin/
    memtui`: a relative one runs only from where memtui was started, and not even there
    without a `./`)."""
    import shlex
    import shutil

    script = Path(sys.argv[0])
    if script.name != "memtui":
        return "memtui"
    found = shutil.which("memtui")
    try:
        if found and os.path.samefile(found, script):
            return "memtui"
    except OSError:
        pass
    return shlex.quote(str(script.absolute()))


def check_asking(args: argparse.Namespace, command: str) -> None:
    """A command that asks before it writes: --yes or --dry-run, or a terminal to ask on."""
    if args.yes and args.dry_run:
        raise UsageError("Give --yes or --dry-run, not both.")
    if not (args.yes or args.dry_run) and (args.json or not sys.stdin.isatty()):
        why = "--json never asks" if args.json else "stdin is not a terminal to ask on"
        raise UsageError(f"`memtui {command}` asks before it writes and {why}: add --dry-run "
                         "to see the change, or --yes to apply it.")


def undo_command(store: Path) -> str:
    """The command that takes memtui's newest change to `store` back, ready to paste."""
    import shlex

    return f"{command_name()} undo {shlex.quote(str(store))}"


def confirmed(args: argparse.Namespace, command: str) -> bool:
    """Whether to write the change just shown: `--yes`; else the user's answer on a
    terminal; else `UsageError` (a script must say --yes), nothing written."""
    if getattr(args, "yes", False):
        return True
    if not sys.stdin.isatty():
        raise UsageError(f"`memtui {command}` asks before it writes and stdin is not a terminal "
                         "to ask on: add --yes to apply the change shown (--dry-run shows it "
                         "only); nothing was written.")
    return ask_yes()


def apply_question(pushed_out: int = 0) -> str:
    """The question before a write; past the cut, as in the app, one that says so."""
    if not pushed_out:
        return "Apply this change? [y/N] "
    return (f"Apply it anyway, leaving {pushed_out} entr{'y' if pushed_out == 1 else 'ies'} "
            "past the loaded cut? [y/N] ")


def ask_yes(question: str = "Apply this change? [y/N] ") -> bool:
    """The user's yes to `question`, asked on stderr, read from stdin."""
    sys.stderr.write(question)
    sys.stderr.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def config_home_of(args: argparse.Namespace) -> Path:
    """`--config-dir`, else `$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    if args.config_dir:
        return Path(args.config_dir).expanduser()
    return paths.config_home()


def env_of(args: argparse.Namespace) -> dict[str, str]:
    """The environment Claude Code would see, with `--config-dir` as `CLAUDE_CONFIG_DIR`.

    Without `--config-dir` the variable stays as it is: setting it changes other rules
    (`CLAUDE_CODE_PROJECT_DIR_NAME` is honoured only beside it).
    """
    env = dict(os.environ)
    if args.config_dir:
        env["CLAUDE_CONFIG_DIR"] = str(config_home_of(args))
    return env


def resolve_store(args: argparse.Namespace, target: str | None, stranded: bool = True,
                  config_home: bool = False):
    """The `tui.claude.targets.Target` a command's TARGET names (`stranded`, `config_home`:
    see `resolve_target`)."""
    from tui.claude.targets import TargetError, resolve_target

    try:
        resolved = resolve_target(
            target, home=config_home_of(args), env=env_of(args), settings_file=args.settings,
            stranded=stranded, config_home=config_home,
        )
    except TargetError as error:
        raise UsageError(str(error)) from None
    tidy_store(resolved.memory_dir)
    return resolved


def existing_store(args: argparse.Namespace, target: str | None, stranded: bool = True,
                   config_home: bool = False):
    """The `Target` of a command that reads a store: UsageError when its memory dir is not
    there (yet), rather than an answer about an empty one."""
    resolved = resolve_store(args, target, stranded, config_home)
    if not os.path.isdir(resolved.memory_dir):
        where = f" for {resolved.project_path}" if resolved.project_path else ""
        raise UsageError(f"There is no memory directory{where} yet "
                         f"(looked at {resolved.memory_dir}).")
    return resolved


def recover_interrupted() -> None:
    """Finish what a killed memtui left half done, saying so in one line each."""
    if not _maybe_interrupted():
        return
    from tui.memory.intents import recover_pending

    try:
        messages = recover_pending()
    except OSError as error:
        messages = [f"could not check for interrupted changes ({error.strerror or error})"]
    for message in messages:
        print(f"memtui: {message}", file=sys.stderr)


def _maybe_interrupted() -> bool:
    """Whether a killed memtui may have left work behind (see `tui.xdg`): four listings,
    so that the recovery code, ~15 ms of imports, loads only when there is something."""
    from tui import xdg

    return (any(_lists(folder, "") for folder in (xdg.intents_dir(), xdg.lock_leases_dir(),
                                                   xdg.pairs_dir()))
            or any(_lists(folder, xdg.RUN_COPY_PREFIX, _abandoned)
                   for folder in _temp_dir_candidates()))


def _lists(folder: str | os.PathLike[str], prefix: str,
           counts: Callable[[str], bool] = lambda name: True) -> bool:
    """Whether the folder holds an entry named with `prefix` that `counts`; a folder that
    cannot be read counts (the recovery then says what is wrong with it), a missing one
    does not."""
    try:
        with os.scandir(folder) as entries:
            return any(entry.name.startswith(prefix) and counts(entry.name)
                       for entry in entries)
    except FileNotFoundError:
        return False
    except OSError:
        return True


def _abandoned(run_copy: str) -> bool:
    """Whether a run's store copy may be a killed run's: a running memtui's (a dream in
    another terminal) leaves nothing to recover."""
    from tui import xdg
    from tui.claude.lock import pid_alive

    owner = xdg.run_copy_owner(run_copy)
    return owner is None or not pid_alive(owner)


def _may_need_tidying(store: Path) -> bool:
    """Whether a killed memtui may have left this store half changed: an intent record for
    it, or a memtui temp file in it. A listing and a walk, so that the recovery code (~7 ms
    of imports) loads only when there is something."""
    from tui import xdg
    from tui.walk import walk

    if os.path.lexists(xdg.intents_dir(store)):
        return True
    for _, folders, names in walk(store):
        folders[:] = [name for name in folders if not name.startswith(".git")]
        if any(map(xdg.is_temp_name, names)):
            return True
    return False


def _temp_dir_candidates() -> list[str]:
    """Every folder `tempfile.gettempdir()` may choose, in its order, and the one in memory
    (`xdg.run_copy_parent`): the one run copies are in is among them, without importing
    tempfile (~4 ms) to ask which."""
    from tui import xdg

    named = [os.environ.get(variable) for variable in ("TMPDIR", "TEMP", "TMP")]
    return list(dict.fromkeys(filter(None, [*named, "/tmp", "/var/tmp", "/usr/tmp",
                                            xdg.MEMORY_TEMP_DIR])))


def tidy_store(store: Path) -> None:
    """Roll back an interrupted change of a store a command opens, and remove temp files."""
    if not os.path.isdir(store) or not _may_need_tidying(store):
        return
    from tui.memory.intents import recover_store
    from tui.memory.refusals import WriteRefused

    try:
        messages = recover_store(store, wait=1.0)
    except WriteRefused:
        return  # another memtui is writing it; that one tidies up after itself
    except OSError as error:
        messages = [f"{store}: could not tidy interrupted changes ({error.strerror or error})"]
    for message in messages:
        print(f"memtui: {message}", file=sys.stderr)


def print_json(data: object) -> None:
    """JSON on stdout, exact: controls in the data are escaped, never written raw."""
    from tui.jsontext import json_text, long_json_utf8
    from tui.visible import json_visible, raw_stream, utf8_json_is_visible

    out = raw_stream(sys.stdout)
    utf8 = long_json_utf8(data)
    if utf8 is not None and _utf8_stream(out) and utf8_json_is_visible(utf8):
        out.flush()
        out.buffer.write(utf8)  # megabytes: not decoded, checked and encoded again
        out.buffer.write(b"\n")
        out.buffer.flush()
        return
    out.write(json_visible(json_text(data) if utf8 is None else utf8.decode()))
    out.write("\n")


def _utf8_stream(stream) -> bool:
    import codecs

    try:
        return (hasattr(stream, "buffer")
                and codecs.lookup(stream.encoding or "").name == "utf-8")
    except LookupError:
        return False
