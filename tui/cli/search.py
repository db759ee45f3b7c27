"""`memtui search QUERY`: the memories of every store (or one project's) that hold the words.

Exit codes: 0 something matched, 1 nothing did, 2 bad usage or unreadable input.
"""

from __future__ import annotations

import argparse
import sys

from tui.cli.support import UsageError, env_of, existing_store, print_json
from tui.memory.frontmatter import MEMORY_TYPES

DEFAULT_LIMIT = 20


def cmd_search(args: argparse.Namespace) -> int:
    from tui.memory.search import SearchError, parse_query
    from tui.memory.search_cache import SearchCache
    from tui.memory.search_stores import keep_vocabulary, load_corpus

    try:
        query = parse_query(args.query)
    except SearchError as error:
        raise UsageError(str(error)) from None
    if args.limit < 0:
        raise UsageError(f"--limit {args.limit}: give a count of results, or 0 for all.")
    stores = searched_stores(args)
    with SearchCache() as cache:
        corpus, problems = load_corpus(stores, cache)
        for problem in problems:
            print(f"memtui: {problem}", file=sys.stderr)
        hits, total = corpus.search(query, args.type, args.limit or None)
        keep_vocabulary(corpus, cache)
    if args.json:
        print_json([hit_to_json(hit) for hit in hits])
    else:
        from tui.render import print_search_hits

        print_search_hits(hits, total)
        if not hits:
            where = "" if args.project else f" of {len(stores)} stores"
            print(f"memtui: no memory{where} holds {args.query!r}.", file=sys.stderr)
    return 0 if hits else 1


def searched_stores(args: argparse.Namespace) -> list:
    """The stores to search: `--project`'s, or every one discovery finds."""
    from tui.memory.search_stores import SearchedStore

    if args.project:
        target = existing_store(args, args.project)
        return [SearchedStore(target.memory_dir, target.project_path or str(target.memory_dir))]
    from tui.claude.discovery import discover
    from tui.cli.stores import projects_home

    home = projects_home(args)
    found: dict = {}
    for project in discover(home, env_of(args), args.settings).projects:
        if project.store is not None and project.store_exists and project.store not in found:
            label = project.key_path or (project.paths[0] if project.paths else None)
            found[project.store] = SearchedStore(project.store, label or str(project.store))
    return list(found.values())


def hit_to_json(hit) -> dict:
    document = hit.document
    return {
        "project": document.project,
        "store": document.store,
        "file": document.file,
        "path": document.path,
        "type": document.type,
        "name": document.name,
        "description": document.description,
        "tier": hit.tier,
        "field": hit.field,
        "line_number": hit.line_number,
        "line": hit.line,
        "marks": [list(mark) for mark in hit.marks],
    }


def _count(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is no whole number") from None


def add_search_command(commands) -> None:
    search = commands.add_parser(
        "search", help="find memories by their words, in every store (exit 1: none match)")
    search.add_argument("query", help='words to find; "quoted words" as a phrase')
    search.add_argument("--project", metavar="TARGET",
                        help="only this project's store (memory dir, project path or folder)")
    search.add_argument("--type", action="append", choices=MEMORY_TYPES,
                        help="only memories of this type (again for more types)")
    search.add_argument("--limit", type=_count, default=DEFAULT_LIMIT, metavar="N",
                        help=f"show at most N results (default {DEFAULT_LIMIT}; 0: all)")
    search.add_argument("--json", action="store_true", help="machine-readable output")
    search.set_defaults(run=cmd_search)
