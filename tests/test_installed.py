"""Installed versions read from dist-info folders agree with importlib.metadata."""

from __future__ import annotations

import sys
from importlib.metadata import version

import pytest

from tui.installed import dist_info_folders, installed_version


@pytest.mark.parametrize("project", ["detect-secrets", "rapidfuzz", "PyYAML", "markdown-it-py",
                                     "google-re2", "textual"])
def test_the_installed_version_is_the_one_importlib_metadata_reads(project):
    assert installed_version(project) == version(project)


def test_the_first_folder_on_sys_path_wins_and_a_missing_project_is_none(tmp_path, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    (first / "Some_Tool-2.0.dist-info").mkdir(parents=True)
    (second / "some_tool-1.0.dist-info").mkdir(parents=True)
    monkeypatch.setattr(sys, "path", [str(tmp_path / "absent"), str(first), str(second)])
    assert installed_version("some-tool") == "2.0"
    assert dist_info_folders(["some.tool"]) == {"some_tool": str(first / "Some_Tool-2.0.dist-info")}
    assert installed_version("no-such-tool") is None
