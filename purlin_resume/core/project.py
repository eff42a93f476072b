"""Where a project is and where purlin-resume keeps its files in it."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from purlin_resume.core import gitrepo
from purlin_resume.core.errors import PurlinError, UsageError


class Project(NamedTuple):
    """A project: the git top-level of the working directory, or the folder given by --project."""

    root: Path

    @property
    def purlin_dir(self) -> Path:
        return self.root / ".purlin"

    @property
    def settings_file(self) -> Path | None:
        """The project's own settings (``config``'s): ``.purlin/config.json``, else
        ``config.yaml`` or ``config.yml``; None when it has none."""
        names = ("config.json", "config.yaml", "config.yml")
        return next((p for n in names if (p := self.purlin_dir / n).is_file()), None)

    @property
    def cache_dir(self) -> Path:
        return self.purlin_dir / "cache"

    @property
    def planning_dir(self) -> Path:
        return self.root / ".planning"

    def relative(self, path: Path) -> str:
        """``path`` relative to the root, as a POSIX string; its folder's links followed, not
        its own (a link among the state files is named where it stands)."""
        path = Path(path)
        return (path.parent.resolve() / path.name).relative_to(self.root).as_posix()


GONE = "the working folder no longer exists; run in the project or pass --project"


def working_folder() -> Path | None:
    """The working folder; None when it was deleted under this process."""
    try:
        return Path.cwd()
    except FileNotFoundError:
        return None


def toplevel_here() -> Path | None:
    """The git top-level of the working folder; None outside a repository or in a deleted one."""
    here = working_folder()
    return gitrepo.toplevel(here) if here is not None else None


def locate(
    explicit: Path | None = None, cwd: Path | None = None, named: str = "--project"
) -> Project:
    """The project for ``--project`` when given, else the git top-level of ``cwd``; ``named``
    is how the caller's user knows ``explicit`` (an MCP tool's ``project`` argument)."""
    if explicit is not None:
        folder = Path(explicit).expanduser()
        if not folder.is_dir():
            what = "a file, not a folder" if folder.exists() else "no such folder"
            raise UsageError(f"{named} {explicit}: {what}")
        if gitrepo.is_git_dir(folder):
            raise UsageError(
                f"{named} {explicit}: a git repository's own folder (bare, or .git), which "
                "holds no working files; pass the project's working folder"
            )
        return Project(folder.resolve())
    cwd = cwd if cwd is not None else working_folder()
    if cwd is None:
        raise PurlinError(GONE)
    here = Path(cwd)
    top = gitrepo.toplevel(here)
    if top is None:
        raise PurlinError(
            f"{here} is not inside a git repository; run in the project or pass --project"
        )
    return Project(top)


def relative_paths(roots: list[Path | str | None], files: list[str]) -> list[str]:
    """Paths inside one of ``roots`` (the project, the session's cwd) made relative to it; the
    others are kept as they are."""
    out = []
    for name in files:
        path = Path(name)
        for root in (r for r in roots if r):
            if path.is_absolute() and path.is_relative_to(root):
                out.append(path.relative_to(root).as_posix())
                break
        else:
            out.append(name)
    return out


def project_files(roots: list[Path | str | None], files: list[str]) -> list[str]:
    """The paths of ``files`` inside one of ``roots`` (the project, the session's cwd), relative
    to it; paths elsewhere (``/etc/hosts``, another checkout, ``../x``) are left out."""
    roots = [r for r in roots if r and Path(r).parent != Path(r)]  # "/" holds everything
    inside = []
    for name in relative_paths(roots, files):
        path = Path(name)
        if not path.is_absolute() and ".." not in path.parts and name.strip():
            inside.append(path.as_posix())
    return list(dict.fromkeys(inside))
