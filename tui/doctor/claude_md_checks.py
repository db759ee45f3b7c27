"""The user's own CLAUDE.md: loaded whole into every session of every project."""

from __future__ import annotations

from tui.doctor.context import DoctorContext
from tui.doctor.report import OK, WARN, Check
from tui.words import plural

# Claude Code's memory docs ask for under 200 lines per CLAUDE.md ("longer files consume
# more context and reduce adherence"), and Claude Code itself warns at start-up past 40,000
# characters ("Large CLAUDE.md will impact performance"). There is no cut: it is all loaded.
MAX_LINES = 200
MAX_CHARS = 40_000


def check_user_claude_md(ctx: DoctorContext) -> Check:
    from tui.claude.files import read_regular
    from tui.memory.promoted import user_memory_file, user_memory_size

    path = user_memory_file(ctx.home)
    try:
        text = read_regular(path).decode("utf-8", "replace")
    except FileNotFoundError:
        return Check("user_claude_md", OK, f"There is no {path}: nothing of yours is loaded "
                     "into every session.")
    size = user_memory_size(text)
    promoted = (f", {plural(size.promoted, 'section')} of it promoted by memtui"
                if size.promoted else "")
    found = (f"{path} adds {plural(size.lines, 'line')}, {plural(size.characters, 'character')} "
             f"(about {size.tokens:,} tokens) to every session of every project{promoted}")
    if size.lines > MAX_LINES or size.characters > MAX_CHARS:
        over = (f"over the {MAX_LINES} lines Claude Code's docs advise" if size.lines > MAX_LINES
                else f"over the {MAX_CHARS:,} characters past which Claude Code warns")
        fix = (f"{ctx.memtui('demote', 'SECTION', '--to', 'PROJECT')} moves a promoted section "
               "back into the one project it is about; " if size.promoted else "")
        return Check("user_claude_md", WARN, f"{found}: {over}, and it is loaded whole.",
                     f"{fix}move rules that matter to one project into that project's CLAUDE.md "
                     "or memory, and long procedures into skills")
    return Check("user_claude_md", OK, f"{found}.")
