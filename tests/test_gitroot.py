"""The canonical git root memory is keyed by (reference §1 "Canonical git root"), with real git."""

from __future__ import annotations

import shutil
import subprocess

from conftest import add_worktree, make_repo, real

from tui.claude.gitroot import canonical_project_root, find_git_root


def root_of(path) -> object:
    return canonical_project_root(str(real(path)))


def test_git_root_of_main_checkout_is_itself(tmp_path):
    make_repo(tmp_path / "repo")
    assert root_of(tmp_path / "repo") == real(tmp_path / "repo")


def test_git_root_of_subdirectory_is_the_checkout_root(tmp_path):
    make_repo(tmp_path / "repo")
    sub = tmp_path / "repo" / "src" / "deep"
    sub.mkdir(parents=True)
    assert root_of(sub) == real(tmp_path / "repo")


def test_git_root_of_linked_worktree_is_main_checkout(tmp_path):
    repo = make_repo(tmp_path / "repo")
    worktree = add_worktree(repo, tmp_path / "worktrees" / "feature", "feature")
    assert (worktree / ".git").is_file()
    assert root_of(worktree) == real(tmp_path / "repo")
    (worktree / "pkg").mkdir()
    assert root_of(worktree / "pkg") == real(tmp_path / "repo")


def test_git_root_of_worktree_inside_the_checkout_is_main_checkout(tmp_path):
    repo = make_repo(tmp_path / "repo")
    worktree = add_worktree(repo, tmp_path / "repo" / ".worktrees" / "2573", "w2573")
    assert root_of(worktree) == real(tmp_path / "repo")


def test_git_root_of_submodule_keeps_its_own_root(tmp_path, git_env):
    make_repo(tmp_path / "library")
    make_repo(tmp_path / "app")
    subprocess.run(
        ["git", "-c", "protocol.file.allow=always", "submodule", "add",
         str(tmp_path / "library"), "vendor/library"],
        cwd=tmp_path / "app", env=git_env, check=True, capture_output=True,
    )
    submodule = tmp_path / "app" / "vendor" / "library"
    assert (submodule / ".git").is_file()
    assert root_of(submodule) == real(submodule)
    assert root_of(tmp_path / "app" / "vendor") == real(tmp_path / "app")


def test_git_root_of_bare_repo_worktree_is_the_bare_repo_dir(tmp_path, git_env):
    make_repo(tmp_path / "source")
    subprocess.run(["git", "clone", "--bare", str(tmp_path / "source"), str(tmp_path / "proj.git")],
                   env=git_env, check=True, capture_output=True)
    subprocess.run(["git", "worktree", "add", str(tmp_path / "checkout"), "main"],
                   cwd=tmp_path / "proj.git", env=git_env, check=True, capture_output=True)
    assert root_of(tmp_path / "checkout") == real(tmp_path / "proj.git")


def test_git_root_forged_worktree_with_wrong_back_link_is_the_checkout_itself(tmp_path):
    repo = make_repo(tmp_path / "repo")
    worktree = add_worktree(repo, tmp_path / "wt", "wt")
    forged = tmp_path / "forged"
    forged.mkdir()
    # Same gitdir pointer, but the worktree's `gitdir` file points back at wt/.git, not here.
    shutil.copy(worktree / ".git", forged / ".git")
    assert root_of(forged) == real(forged)
    assert root_of(worktree) == real(tmp_path / "repo")


def test_git_root_worktree_git_dir_outside_commondir_worktrees_is_the_checkout(tmp_path):
    make_repo(tmp_path / "repo")
    fake_git_dir = tmp_path / "elsewhere" / "wt"
    fake_git_dir.mkdir(parents=True)
    (fake_git_dir / "commondir").write_text(str(tmp_path / "repo" / ".git") + "\n")
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / ".git").write_text(f"gitdir: {fake_git_dir}\n")
    (fake_git_dir / "gitdir").write_text(str(checkout / ".git") + "\n")
    assert root_of(checkout) == real(checkout)


def test_git_root_dot_git_file_without_gitdir_prefix_is_the_checkout(tmp_path):
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / ".git").write_text("not a pointer\n")
    assert root_of(tmp_path / "odd") == real(tmp_path / "odd")


def test_git_root_of_non_git_dir_is_itself(tmp_path):
    plain = tmp_path / "plain" / "dir"
    plain.mkdir(parents=True)
    assert find_git_root(real(plain)) is None
    assert root_of(plain) == real(plain)
