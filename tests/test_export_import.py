"""`memtui export` and `memtui import`: real zips, made by memtui or built here by hand in
the shapes a hostile archive takes, imported into throw-away config homes."""

from __future__ import annotations

import json
import os
import stat
import zipfile

import pytest
from conftest import index_line, make_repo, memory_text, real, write_index, write_memory

from tui import cli
from tui.memory import import_zip
from tui.memory.export_zip import FORMAT, MANIFEST
from tui.memory.frontmatter import parse
from tui.memory.writes import history

OLD = 1_700_000_000.123456


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def machine(tmp_path, make_home):
    """Two projects on one machine, with a subfolder, a second-level file and old mtimes."""
    home = make_home()
    repos = []
    for name in ("app", "site"):
        make_repo(tmp_path / name)
        repo = real(tmp_path / name)
        store = home.store(repo)
        write_memory(store, "testing.md", memory_text(body=f"Test {name} with pytest.\n"),
                     mtime=OLD)
        write_memory(store, "team/deploy.md", memory_text("deploy", "how we deploy",
                                                          body="Tag, then push.\n"), mtime=OLD + 1)
        write_index(store, [index_line("testing.md", "Testing"),
                            index_line("team/deploy.md", "Deploy")])
        home.session(repo)
        repos.append(repo)
    return home, repos


def tree(store):
    """Every file under the store: bytes and mtime in nanoseconds."""
    found = {}
    for folder, _, names in os.walk(store):
        for name in names:
            path = os.path.join(folder, name)
            found[os.path.relpath(path, store)] = (open(path, "rb").read(),
                                                   os.stat(path).st_mtime_ns)
    return found


def same_tree(copy, original) -> bool:
    """The same files, bytes and mtimes to the nanosecond."""
    return tree(copy) == tree(original)


def test_export_all_then_import_onto_another_home_is_byte_exact_with_mtimes(
        machine, make_home, tmp_path, capsys):
    home, repos = machine
    archive = tmp_path / "all.zip"
    code, out, err = run(capsys, "--config-dir", str(home.home), "export", "--all",
                         "-o", str(archive))
    assert code == 0, err
    assert "Exported 2 stores (6 files" in out
    other = make_home()
    code, out, err = run(capsys, "--config-dir", str(other.home), "import", str(archive))
    assert code == 0, err
    for repo in repos:
        assert same_tree(other.store(repo), home.store(repo))
        assert f"{repo} -> " in out
    assert "3 new" in out and "undo" in out
    # Imported again: the same bytes, nothing to change, no second change in the log.
    code, out, _ = run(capsys, "--config-dir", str(other.home), "import", str(archive))
    assert code == 0 and out.count("nothing to change") == 2
    assert len(history(other.store(repos[0]))) == 1


def test_manifest_names_projects_by_their_real_path(machine, tmp_path, capsys):
    home, repos = machine
    archive = tmp_path / "app.zip"
    assert run(capsys, "--config-dir", str(home.home), "export", str(repos[0]),
               "-o", str(archive))[0] == 0
    with zipfile.ZipFile(archive) as opened:
        manifest = json.loads(opened.read(MANIFEST))
        names = sorted(opened.namelist())
    [project] = manifest["projects"]
    assert manifest["format"] == FORMAT and project["path"] == str(repos[0])
    folder = project["folder"]
    assert names == sorted([MANIFEST, f"{folder}/MEMORY.md", f"{folder}/testing.md",
                            f"{folder}/team/deploy.md"])
    assert project["files"]["testing.md"]["mtime_ns"] == os.stat(
        home.store(repos[0]) / "testing.md").st_mtime_ns


def test_export_never_replaces_a_file(machine, tmp_path, capsys):
    home, repos = machine
    existing = tmp_path / "taken.zip"
    existing.write_bytes(b"mine")
    code, _, err = run(capsys, "--config-dir", str(home.home), "export", str(repos[0]),
                       "-o", str(existing))
    assert code == 2 and "already exists" in err and existing.read_bytes() == b"mine"


def test_import_merges_as_sync_first_contact(machine, make_home, tmp_path, capsys):
    home, repos = machine
    archive = tmp_path / "app.zip"
    run(capsys, "--config-dir", str(home.home), "export", str(repos[0]), "-o", str(archive))
    other = make_home()
    store = other.store(repos[0])
    same = (home.store(repos[0]) / "team" / "deploy.md").read_bytes()
    write_memory(store, "team/deploy.md", same)
    write_memory(store, "testing.md", memory_text(body="Test app with unittest.\n"))
    write_index(store, [index_line("testing.md", "Testing"), index_line("local.md", "Local")])
    code, out, err = run(capsys, "--config-dir", str(other.home), "import", str(archive))
    assert code == 0, err
    merged = (store / "testing.md").read_text()
    fm = parse(merged)
    assert fm.error is None and fm.data["name"] == "testing"  # markers only in the body
    assert "Test app with unittest." in fm.body and "Test app with pytest." in fm.body
    assert "<<<<<<<" in fm.body and "the archive app.zip" in fm.body
    assert (store / "team/deploy.md").read_bytes() == same
    index = (store / "MEMORY.md").read_text()
    assert "(local.md)" in index and "(team/deploy.md)" in index and index.count("(testing.md)") == 1
    assert "1 with conflict markers in the body (testing.md)" in out
    assert "1 already the same" in out
    # One undo takes the whole import back.
    assert run(capsys, "--config-dir", str(other.home), "undo", str(store))[0] == 0
    assert "Test app with pytest." not in (store / "testing.md").read_text()
    assert "(team/deploy.md)" not in (store / "MEMORY.md").read_text()


def test_a_dry_run_says_what_would_be_imported_and_writes_nothing(machine, make_home, tmp_path,
                                                                  capsys):
    home, repos = machine
    archive = tmp_path / "app.zip"
    run(capsys, "--config-dir", str(home.home), "export", str(repos[0]), "-o", str(archive))
    other = make_home()
    code, out, _ = run(capsys, "--config-dir", str(other.home), "import", str(archive),
                       "--dry-run")
    assert code == 0 and "would import 3 new" in out
    assert not other.projects.exists() or not any(other.projects.rglob("*.md"))


def test_import_into_a_target_store(machine, make_home, tmp_path, capsys):
    home, repos = machine
    archive = tmp_path / "app.zip"
    run(capsys, "--config-dir", str(home.home), "export", str(repos[0]), "-o", str(archive))
    other = make_home()
    make_repo(tmp_path / "elsewhere")
    target = real(tmp_path / "elsewhere")
    code, _, err = run(capsys, "--config-dir", str(other.home), "import", str(archive),
                       str(target))
    assert code == 0, err
    assert (other.store(target) / "team" / "deploy.md").is_file()
    assert not (other.store(repos[0]) / "testing.md").exists()
    all_zip = tmp_path / "all.zip"
    run(capsys, "--config-dir", str(home.home), "export", "--all", "-o", str(all_zip))
    code, _, err = run(capsys, "--config-dir", str(other.home), "import", str(all_zip),
                       str(target))
    assert code == 2 and "holds 2 projects" in err


def test_a_secret_is_refused_and_the_rest_imported(machine, make_home, tmp_path, capsys):
    home, repos = machine
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    write_memory(home.store(repos[0]), "keys.md", memory_text("keys", "keys", body=f"{token}\n"))
    archive = tmp_path / "app.zip"
    code, out, _ = run(capsys, "--config-dir", str(home.home), "export", str(repos[0]),
                       "-o", str(archive))
    assert code == 0 and "hold a secret" in out and token not in out
    other = make_home()
    code, out, _ = run(capsys, "--config-dir", str(other.home), "import", str(archive))
    assert code == 0
    assert not (other.store(repos[0]) / "keys.md").exists()
    assert (other.store(repos[0]) / "testing.md").exists()
    assert "1 entry holding a secret" in out and token not in out


# --- hostile archives ---------------------------------------------------------------------


def hostile_zip(path, folder, entries, manifest_path):
    """A zip with a manifest naming one project, and `entries`: (name or ZipInfo, bytes)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(MANIFEST, json.dumps({"format": FORMAT, "version": 1, "projects": [
            {"name": "app", "path": manifest_path, "folder": folder, "files": {}}]}))
        for name, data in entries:
            archive.writestr(name, data)
    return path


def symlink_entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    info.create_system = 3
    return info


GOOD = memory_text(body="A good memory.\n")


@pytest.fixture
def target(tmp_path, make_home):
    home = make_home()
    make_repo(tmp_path / "app")
    repo = real(tmp_path / "app")
    return home, repo


def outside_files(tmp_path, store):
    """Every file under tmp_path outside the config homes and the repos (where an escape
    would land), and every file of the store."""
    return sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")
                  if p.is_file() and ".git" not in p.parts)


HOSTILE = [
    ("absolute", "/tmp/evil.md", "absolute name"),
    ("parent", "p/../../../evil.md", "climbs out"),
    ("parent_deep", "p/team/../../evil.md", "climbs out"),
    ("windows_absolute", "C:/evil.md", "absolute name"),
    ("backslash", "p\\..\\evil.md", "climbs out"),
    ("long", "p/" + "a" * 253 + ".md", "over 255 bytes"),
    ("not_md", "p/run.sh", "no memory"),
    ("git", "p/.git/hooks/x.md", "no store can hold"),
    ("outside", "elsewhere/evil.md", "outside every project"),
]


@pytest.mark.parametrize("kind,name,said", HOSTILE, ids=[kind for kind, *_ in HOSTILE])
def test_a_hostile_name_writes_nothing_outside_and_is_said(kind, name, said, target, tmp_path,
                                                           capsys):
    home, repo = target
    source = hostile_zip(tmp_path / "evil.zip", "p", [(name, GOOD), ("p/good.md", GOOD)],
                         str(repo))
    before = outside_files(tmp_path, None)
    code, out, err = run(capsys, "--config-dir", str(home.home), "import", str(source))
    assert code == 0, err
    store = home.store(repo)
    written = sorted(set(outside_files(tmp_path, None)) - set(before))
    assert written == [str((store / "good.md").relative_to(tmp_path))]
    [sentence] = [line for line in out.splitlines() if said in line]
    assert sentence.startswith("1 entry") and sentence.endswith(".")


def test_a_symlink_entry_is_skipped(target, tmp_path, capsys):
    home, repo = target
    source = hostile_zip(tmp_path / "evil.zip", "p",
                         [(symlink_entry("p/link.md"), "/etc/passwd"), ("p/good.md", GOOD)],
                         str(repo))
    code, out, _ = run(capsys, "--config-dir", str(home.home), "import", str(source))
    store = home.store(repo)
    assert code == 0 and not os.path.lexists(store / "link.md")
    assert "1 entry stored as a symlink (p/link.md) skipped" in out


def test_a_zip_bomb_stops_at_its_header(target, tmp_path, capsys):
    home, repo = target
    source = hostile_zip(tmp_path / "bomb.zip", "p",
                         [("p/bomb.md", b"\0" * (6 * 1024 * 1024)),
                          ("p/dense.md", b"a" * (1024 * 1024)), ("p/good.md", GOOD)], str(repo))
    assert os.path.getsize(source) < 64 * 1024
    code, out, _ = run(capsys, "--config-dir", str(home.home), "import", str(source))
    store = home.store(repo)
    assert code == 0 and sorted(os.listdir(store)) == ["good.md"]
    assert "2 entries unpacking to over 5 MB or over 100 times its packed size" in out


def test_the_total_unpacked_size_is_bounded(target, tmp_path, capsys, monkeypatch):
    home, repo = target
    monkeypatch.setattr(import_zip, "MAX_TOTAL_BYTES", 2 * len(GOOD) + 1)
    source = hostile_zip(tmp_path / "many.zip", "p",
                         [(f"p/m{n}.md", GOOD) for n in range(5)], str(repo))
    code, out, _ = run(capsys, "--config-dir", str(home.home), "import", str(source))
    assert code == 0 and sorted(os.listdir(home.store(repo))) == ["m0.md", "m1.md"]
    assert "3 entries past the" in out


def test_a_header_that_lies_about_its_size_is_damaged(target, tmp_path, capsys):
    home, repo = target
    source = hostile_zip(tmp_path / "liar.zip", "p", [("p/liar.md", GOOD * 50)], str(repo))
    data = bytearray(source.read_bytes())
    with zipfile.ZipFile(source) as opened:
        info = opened.getinfo("p/liar.md")
    # The central directory's uncompressed size, claimed 10 bytes.
    central = data.rindex(b"PK\x01\x02")
    data[central + 24:central + 28] = (10).to_bytes(4, "little")
    source.write_bytes(bytes(data))
    assert info.file_size > 10
    code, out, _ = run(capsys, "--config-dir", str(home.home), "import", str(source))
    assert code == 0 and not (home.store(repo) / "liar.md").exists()
    assert "1 entry damaged or encrypted (p/liar.md) skipped" in out


def test_duplicate_and_case_only_names_import_none_of_their_copies(target, tmp_path, capsys):
    home, repo = target
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name it writes
        source = hostile_zip(tmp_path / "dup.zip", "p", [
            ("p/twice.md", GOOD), ("p/twice.md", memory_text(body="The other copy.\n")),
            ("p/Case.md", GOOD), ("p/case.md", GOOD), ("p/caf\u00e9.md", GOOD),
            ("p/cafe\u0301.md", GOOD), ("p/good.md", GOOD)], str(repo))
    code, out, _ = run(capsys, "--config-dir", str(home.home), "import", str(source))
    assert code == 0 and sorted(os.listdir(home.store(repo))) == ["good.md"]
    assert "1 entry appearing more than once in the archive (p/twice.md) skipped, every copy" in out
    assert "4 entries differing from another only in case or Unicode form" in out


def test_a_symlink_in_the_store_is_not_followed(target, tmp_path, capsys):
    home, repo = target
    store = home.store(repo)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, store / "team")
    source = hostile_zip(tmp_path / "a.zip", "p", [("p/team/x.md", GOOD), ("p/good.md", GOOD)],
                         str(repo))
    code, out, _ = run(capsys, "--config-dir", str(home.home), "import", str(source))
    assert code == 0 and os.listdir(outside) == [] and (store / "good.md").exists()
    assert "1 entry whose place in the store a folder, a link or a file takes" in out


TWICE = {"format": FORMAT, "projects": [{"folder": "p"}, {"folder": "p"}]}


@pytest.mark.parametrize("content,said", [
    (b"not a zip", "is not a zip archive"),
    (None, "manifest.json is missing"),
    (b"{", "cannot be read"),
    (json.dumps({"format": "other"}).encode(), "says otherwise"),
    (json.dumps({"format": FORMAT, "projects": [{"folder": ".."}]}).encode(),
     "names a project folder no archive holds"),
    (json.dumps(TWICE).encode(), "names one project folder twice"),
], ids=["no zip", "no manifest", "bad json", "other format", "bad folder", "folder twice"])
def test_no_archive_of_ours_is_one_sentence(content, said, target, tmp_path, capsys):
    home, _ = target
    source = tmp_path / "x.zip"
    if content is None or content.startswith((b"{", b"[")):
        with zipfile.ZipFile(source, "w") as archive:
            archive.writestr("p/a.md", GOOD)
            if content is not None:
                archive.writestr(MANIFEST, content)
    else:
        source.write_bytes(content)
    code, _, err = run(capsys, "--config-dir", str(home.home), "import", str(source))
    assert code == 2 and said in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_store_no_session_names_goes_to_the_folder_of_the_same_name(make_home, tmp_path,
                                                                     capsys):
    home = make_home()
    store = home.store(folder="-home-ana-gone")
    write_memory(store, "note.md", GOOD, mtime=OLD)
    archive = tmp_path / "all.zip"
    assert run(capsys, "--config-dir", str(home.home), "export", "--all",
               "-o", str(archive))[0] == 0
    other = make_home()
    code, _, err = run(capsys, "--config-dir", str(other.home), "import", str(archive))
    assert code == 0, err
    assert same_tree(other.projects / "-home-ana-gone" / "memory", store)


def test_a_project_the_manifest_names_by_nothing_is_skipped_saying_why(target, tmp_path,
                                                                      capsys):
    home, _ = target
    source = hostile_zip(tmp_path / "a.zip", "p", [("p/good.md", GOOD)], None)
    code, out, _ = run(capsys, "--config-dir", str(home.home), "import", str(source))
    assert code == 0 and "name a TARGET store" in out
    assert not any(home.projects.rglob("good.md"))


def test_a_secret_in_a_name_is_refused_and_never_printed(target, tmp_path, capsys):
    home, repo = target
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    source = hostile_zip(tmp_path / "a.zip", "p", [(f"p/{token}.md", GOOD), ("p/good.md", GOOD)],
                         str(repo))
    code, out, err = run(capsys, "--config-dir", str(home.home), "import", str(source))
    assert code == 0 and token not in out + err and "[REDACTED]" in out
    assert sorted(os.listdir(home.store(repo))) == ["good.md"]


def test_an_archive_of_too_many_entries_is_refused_whole(target, tmp_path, capsys, monkeypatch):
    home, repo = target
    monkeypatch.setattr(import_zip, "MAX_ENTRIES", 3)
    source = hostile_zip(tmp_path / "many.zip", "p", [(f"p/m{n}.md", GOOD) for n in range(3)],
                         str(repo))
    code, _, err = run(capsys, "--config-dir", str(home.home), "import", str(source))
    assert code == 2 and "over 3 entries" in err and not any(home.projects.rglob("*.md"))
