"""The team's git ref: set up, fetched, appended to and pushed.

Each teammate keeps a bare local copy of the ref (``team/repo.git``). A sync fetches the ref,
reads this teammate's files at its tip, appends the local rows the team lacks (``members``),
commits on top of the tip with git's plumbing (no work tree, no merge) and pushes. A push the
remote refuses because another teammate pushed first is tried again from a new fetch, after a
wait that doubles, with jitter; since every teammate writes only their own files, and every
sync starts again from the remote's tip, no sync can conflict, drop or overwrite a row. The
local copy is a cache: one that is broken (a sync killed midway) is made again.
"""

from __future__ import annotations

import grp
import hashlib
import os
import random
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from purlin_resume.core.errors import UsageError
from purlin_resume.resurrection.team_membership import CONFIG, Membership
from purlin_resume.team import TeamError, refuse_secrets

TRACKING = "refs/remotes/team/tip"
ATTEMPTS = 40
WAIT_FIRST = 0.05
WAIT_MOST = 2.0
REFUSED = ("[rejected]", "fetch first", "non-fast-forward", "cannot lock ref", "stale info")
MOVED = ("stale info", "fetch first", "cannot lock ref", "failed to update ref")  # a lease lost
LOCK_STALE = 5.0  # seconds a lock on the remote's ref may stay before it is called stale


def shown_url(url: str | None) -> str:
    """A remote URL fit to print: without a password or token."""
    return re.sub(r"(//[^/@:\s]+):[^@/\s]*@", r"\1@", url or "")


def _env(member: str | None = None, remote: str | None = None) -> dict[str, str]:
    """git's environment: no prompt, this teammate as author, and the team's remote under the
    name ``team`` (given here, not in git's arguments, which every user of the machine can
    read: a URL may carry a token)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_TERMINAL_PROMPT="0",
        LC_ALL="C",
        GIT_SSH_COMMAND=os.environ.get("GIT_SSH_COMMAND", "ssh -o BatchMode=yes"),
    )
    if remote:
        env.update(GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="remote.team.url")
        env["GIT_CONFIG_VALUE_0"] = remote
    if member:
        who = {"NAME": member, "EMAIL": f"{member}@purlin-resume"}
        for role in ("AUTHOR", "COMMITTER"):
            for part, value in who.items():
                env[f"GIT_{role}_{part}"] = value
    return env


def git(
    repo: Path | None,
    *args: str,
    data: bytes | None = None,
    env: dict[str, str] | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess:
    command = ["git", *(["--git-dir", str(repo)] if repo else []), *args]
    # every path given is absolute: git runs in a folder that exists, whatever the working
    # folder became (a deleted one makes git fail and the team look empty)
    where = repo if repo is not None and repo.is_dir() else Path("/")
    try:
        done = subprocess.run(
            command,
            input=data,
            capture_output=True,
            env=env or _env(),
            cwd=where,
            timeout=300,
            check=False,
        )
    except FileNotFoundError:
        raise TeamError("git is not installed; team sharing through git needs it") from None
    except subprocess.TimeoutExpired:
        raise TeamError(f"git {args[0]} took longer than 5 minutes; try again") from None
    if check and done.returncode != 0:
        raise TeamError(f"git {args[0]} failed: {_last_line(done.stderr)}")
    return done


def _last_line(text: bytes) -> str:
    lines = [line for line in text.decode("utf-8", "replace").splitlines() if line.strip()]
    useful = [line for line in lines if line.startswith(("fatal:", "error:"))] or lines
    return shown_url(" ".join(useful[-1].split())) if useful else "no message"


# ---------------------------------------------------------------------------------------------
# the remote and the local copy


def remote_url(remote: str, project: Path | None) -> str:
    """The URL ``--remote`` names: a git URL, a path (made absolute), or ``origin`` (the
    project's own origin)."""
    refuse_secrets(remote, "--remote")
    if remote == "origin":
        if project is None:
            raise UsageError("--remote origin: run it inside a git project that has an origin")
        found = git(None, "-C", str(project), "remote", "get-url", "origin", check=False)
        if found.returncode != 0:
            raise UsageError(f"--remote origin: {project} has no remote named origin")
        remote = found.stdout.decode().strip()
        refuse_secrets(remote, "--remote origin (the project's origin)")
    if remote.startswith("file://"):
        remote = remote[len("file://") :]
    if "://" in remote or re.match(r"^[\w.-]+@[\w.-]+:", remote):
        return remote
    return str(Path(remote).expanduser().absolute())


def create_on_disk(path: str, group: str | None) -> bool:
    """Make a bare repository at ``path`` for the team when none is there: readable and
    writable by its group (``group``, or the folder's), never by others. True when made."""
    target = Path(path)
    if target.exists():
        return False
    if not target.parent.is_dir():
        raise TeamError(f"cannot create the team repository {path}: its folder does not exist")
    git(None, "init", "--quiet", "--bare", "--shared=0660", str(target))
    if group:
        try:
            gid = grp.getgrnam(group).gr_gid
        except KeyError:
            shutil.rmtree(target, ignore_errors=True)
            raise UsageError(f"--group {group!r}: no such group on this machine") from None
        for folder, dirs, files in os.walk(target):
            for name in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
                os.chown(name, -1, gid)
    return True


def local_copy(m: Membership) -> Path:
    """The local bare copy, made when missing or broken; locks a killed git left are dropped
    (the caller holds the team lock, so no git of ours is running on it)."""
    repo = m.repo
    if repo.is_dir():
        for stale in list(repo.glob("*.lock")) + list((repo / "refs").rglob("*.lock")):
            stale.unlink(missing_ok=True)
        if (repo / "HEAD").is_file() and (repo / "objects").is_dir():
            return repo
        shutil.rmtree(repo, ignore_errors=True)
    git(None, "init", "--quiet", "--bare", str(repo))
    return repo


def ref_in_the_way(m: Membership) -> str | None:
    """A ref of the remote that keeps the team's ref from being made there (``refs/a`` against
    ``refs/a/b``, either way: git keeps refs as files and folders); None when there is none."""
    listed = git(None, "ls-remote", "team", env=_env(remote=m.remote), check=False)
    for line in listed.stdout.decode("utf-8", "replace").splitlines():
        name = line.rpartition("\t")[2]
        if m.ref.startswith(name + "/") or name.startswith(m.ref + "/"):
            return name
    return None


def in_the_way(m: Membership, other: str) -> str:
    """The line saying ``other`` keeps the team's ref from being made."""
    return (
        f"{shown_url(m.remote)} has the ref {other}, so the team's ref {m.ref} cannot be made there"
    )


def _with_remote(m: Membership, *args: str) -> subprocess.CompletedProcess:
    """git on the local copy, with the team's remote as ``team``; the caller checks the result."""
    return git(m.repo, *args, env=_env(remote=m.remote), check=False)


def silent(text: str) -> None:
    """A warning nobody reads (the default ``warn``)."""


def fetch(m: Membership, warn: Callable[[str], None] = silent) -> str | None:
    """Fetch the team ref; its tip, or None when the remote has no such ref yet. A local copy
    git cannot use is made again (with one ``warn`` line) before a failure is reported."""
    done = _fetched(m)
    if done is not None and done.returncode != 0 and _reachable(m):
        shutil.rmtree(m.repo, ignore_errors=True)
        done = _fetched(m)
        if done is None or done.returncode == 0:
            warn(f"the local copy of the team ref {m.repo} was unusable; it was made again")
    if done is None:
        git(m.repo, "update-ref", "-d", TRACKING, check=False)
        return None
    if done.returncode != 0:
        raise TeamError(
            f"cannot fetch from {shown_url(m.remote)}: {_last_line(done.stderr)}; "
            "check the URL, your access and the network"
        )
    return tip(m)


def _reachable(m: Membership) -> bool:
    """The remote answers (asked without the local copy, which may be what is broken)."""
    listed = git(None, "ls-remote", "team", m.ref, env=_env(remote=m.remote), check=False)
    return listed.returncode == 0


def _fetched(m: Membership) -> subprocess.CompletedProcess | None:
    """One fetch of the team ref into the local copy; None when the remote has no such ref."""
    local_copy(m)
    done = _with_remote(m, "fetch", "--quiet", "--no-tags", "team", f"+{m.ref}:{TRACKING}")
    missing = "couldn't find remote ref" in done.stderr.decode("utf-8", "replace")
    return None if done.returncode != 0 and missing else done


def tip(m: Membership) -> str | None:
    if not m.repo.is_dir():
        return None
    found = git(m.repo, "rev-parse", "--verify", "--quiet", TRACKING, check=False)
    return found.stdout.decode().strip() or None


def read(m: Membership, commit: str | None, path: str) -> bytes | None:
    if commit is None:
        return None
    found = git(m.repo, "cat-file", "blob", f"{commit}:{path}", check=False)
    return found.stdout if found.returncode == 0 else None


def read_many(m: Membership, commit: str | None, paths: list[str]) -> dict[str, bytes]:
    """Several files at ``commit`` through one ``git cat-file --batch``; missing ones left out."""
    if commit is None or not paths:
        return {}
    asked = "".join(f"{commit}:{p}\n" for p in paths).encode("utf-8")
    out = git(m.repo, "cat-file", "--batch", data=asked).stdout
    found, at = {}, 0
    for name in paths:
        end = out.index(b"\n", at)
        head = out[at:end].split()
        at = end + 1
        if len(head) == 3 and head[1] != b"missing":
            length = int(head[2])
            found[name] = out[at : at + length]
            at += length + 1
    return found


def blob_id(data: bytes) -> str:
    """The id git gives a file holding ``data``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def blobs(m: Membership, commit: str | None) -> dict[str, str]:
    """Every file at ``commit``: path -> blob id."""
    if commit is None:
        return {}
    listing = git(m.repo, "ls-tree", "-r", "-z", commit).stdout.decode("utf-8", "replace")
    found = {}
    for item in listing.split("\0"):
        if "\t" in item:
            head, name = item.split("\t", 1)
            found[name] = head.split()[2]
    return found


# ---------------------------------------------------------------------------------------------
# publishing


Changes = dict[str, bytes | None]  # path -> new content, or None to delete it


def _commit(m: Membership, base: str | None, changes: Changes, message: str) -> str:
    repo = m.repo
    env = {**_env(m.member), "GIT_INDEX_FILE": str(repo / f"team-index-{os.getpid()}")}
    try:
        if base:
            git(repo, "read-tree", base, env=env)
        else:
            git(repo, "read-tree", "--empty", env=env)
        entries = []
        for name, content in changes.items():
            if content is None:  # mode 0: the entry is removed
                entries.append(f"0 {'0' * 40}\t{name}\n")
                continue
            entries.append(f"100644 {store_blob(m, content)}\t{name}\n")
        git(repo, "update-index", "--index-info", data="".join(entries).encode(), env=env)
        tree = git(repo, "write-tree", env=env).stdout.decode().strip()
    finally:
        Path(env["GIT_INDEX_FILE"]).unlink(missing_ok=True)
    parents = ["-p", base] if base else []
    made = git(repo, "commit-tree", tree, *parents, "-m", message, env=env)
    return made.stdout.decode().strip()


def _waited(wait: float) -> float:
    """Sleep about ``wait`` seconds (with jitter, so teammates do not meet again); the next."""
    time.sleep(wait * random.uniform(0.5, 1.5))
    return min(WAIT_MOST, wait * 2)


@dataclass
class Refusals:
    """The remote's refusals of a push over the tries, told apart from a teammate's push first:
    a ref in the way of the team's (``refs/a`` against ``refs/a/b``) refuses every push, so does
    a lock file the user may not create, and so does a lock on the ref still there after
    ``LOCK_STALE`` seconds, which a git killed midway left (a teammate's push holds it for
    milliseconds) and only a person can tell is safe to delete."""

    m: Membership
    lock: str | None = None
    since: float = 0.0

    def note(self, said: str) -> None:
        """Note git's words on a refused push; TeamError when no try can go through."""
        other = re.search(r"cannot lock ref '[^']+': '([^']+)' exists; cannot create", said)
        if other:
            raise TeamError(
                f"{in_the_way(self.m, other[1])}; remove {self.m.folder / CONFIG} and join "
                "again with another --ref"
            )
        found = re.search(r"Unable to create '([^']+\.lock)': ([^.\n]+)", said)
        if found and found[2] != "File exists":  # the user may not write there
            raise TeamError(
                f"cannot push to {shown_url(self.m.remote)}: cannot create "
                f"{os.path.normpath(found[1])}: {found[2].strip()}; check your access to the remote"
            )
        lock = os.path.normpath(found[1]) if found else None
        if lock is None or lock != self.lock:
            self.lock, self.since = lock, time.monotonic()
        elif time.monotonic() - self.since >= LOCK_STALE:
            raise TeamError(
                f"{shown_url(self.m.remote)}: {lock} was left by a git stopped midway and "
                "no push goes through while it is there; if no teammate is syncing now, "
                "delete it and run 'purlin-resume team sync' again"
            )


def _push(m: Membership, commit: str, refusals: Refusals) -> bool:
    """Push ``commit`` as the team ref; False when the remote moved first."""
    done = _with_remote(m, "push", "--quiet", "team", f"{commit}:{m.ref}")
    if done.returncode == 0:
        git(m.repo, "update-ref", TRACKING, commit)
        return True
    said = done.stderr.decode("utf-8", "replace")
    if any(sign in said for sign in REFUSED):
        refusals.note(said)
        return False
    raise TeamError(
        f"cannot push to {shown_url(m.remote)}: {_last_line(done.stderr)}; "
        "check your access to the remote"
    )


@dataclass(frozen=True)
class Fetched:
    """The team ref's tip as a fetch just found it (None: the remote has no such ref yet)."""

    tip: str | None


def publish(
    m: Membership,
    plan: Callable[[str | None], tuple[Changes, str]],
    warn: Callable[[str], None] = silent,
    fetched: Fetched | None = None,
) -> dict[str, Any]:
    """Fetch, ``plan`` the changes on the tip, commit and push, until a push goes through.
    ``plan(tip)`` gives the changes to make on that tip and the commit message. ``fetched``:
    what the caller's fetch just found, the first try's tip."""
    wait, refusals = WAIT_FIRST, Refusals(m)
    for attempt in range(1, ATTEMPTS + 1):
        base = fetched.tip if fetched and attempt == 1 else fetch(m, warn)
        changes, message = plan(base)
        if not changes:
            return {"attempts": attempt, "commit": None, "tip": base}
        commit = _commit(m, base, changes, message)
        if _push(m, commit, refusals):
            return {"attempts": attempt, "commit": commit, "tip": commit}
        wait = _waited(wait)
    raise TeamError(
        f"{shown_url(m.remote)} kept moving through {ATTEMPTS} tries; "
        "run 'purlin-resume team sync' again"
    )


# ---------------------------------------------------------------------------------------------
# taking rows back out of the history

REWRITTEN = "refs/purlin/rewritten"
Keep = Callable[[str, str], "str | None"]  # (path, blob id) -> the blob id kept, or None


def rewrite(m: Membership, folder: str, keep: Keep | None = None) -> dict[str, Any]:
    """Rewrite every commit of the team ref without ``folder`` (``keep`` None; commits that
    touched only it are dropped), or with each of its files replaced by ``keep(path, blob)``;
    force-pushed with a lease on the tip it was made from, so another teammate's push is never
    lost (a ref that moved meanwhile is rewritten again). ``rewritten`` False, with the
    remote's ``reason``, when the remote refuses a forced push (a protected ref). It starts
    from the tip last fetched or pushed (the caller has just published), and fetches only when
    the lease says the ref moved."""
    old, refusals, wait = tip(m), Refusals(m), WAIT_FIRST
    for _ in range(ATTEMPTS):
        if old is None:
            return {"rewritten": True, "commits": 0}
        new, count = _rewritten(m, old, folder, keep)
        if new == old:
            return {"rewritten": True, "commits": count}
        lease = f"--force-with-lease={m.ref}:{old}"
        done = _with_remote(m, "push", "--quiet", lease, "team", f"{new or ''}:{m.ref}")
        said = done.stderr.decode("utf-8", "replace")
        if done.returncode == 0:
            git(m.repo, *(["update-ref", TRACKING, new] if new else ["update-ref", "-d", TRACKING]))
            git(m.repo, "update-ref", "-d", REWRITTEN, check=False)
            git(m.repo, "gc", "--quiet", "--prune=now", check=False)
            return {"rewritten": True, "commits": count}
        if not any(sign in said for sign in MOVED):
            return {"rewritten": False, "commits": count, "reason": _last_line(done.stderr)}
        refusals.note(said)
        wait = _waited(wait)
        old = fetch(m)
    raise TeamError(f"{shown_url(m.remote)} kept moving through {ATTEMPTS} tries; try again")


def _rewritten(m: Membership, old: str, folder: str, keep: Keep | None) -> tuple[str | None, int]:
    """The tip of ``old``'s history rewritten (None: nothing is left) and its commit count."""
    limit = ["--", f":(exclude){folder}"] if keep is None else []
    stream = git(
        m.repo, "fast-export", "--no-data", f"--refspec={TRACKING}:{REWRITTEN}", TRACKING, *limit
    ).stdout
    made, at, count, inside = [], 0, 0, folder.encode() + b"/"
    while at < len(stream):
        end = stream.index(b"\n", at)
        line, at = stream[at:end], end + 1
        if line.startswith(b"data "):  # a commit message, copied as it is
            length = int(line[5:])
            made.append(line + b"\n" + stream[at : at + length])
            at += length
            continue
        count += line.startswith(b"commit ")
        if (
            keep is not None
            and line.startswith(b"M ")
            and line.split(b" ", 3)[3].startswith(inside)
        ):
            _, mode, blob, name = line.decode().split(" ", 3)
            kept = keep(name, blob)
            if kept is None:
                continue
            line = f"M {mode} {kept} {name}".encode()
        made.append(line + b"\n")
    git(m.repo, "fast-import", "--quiet", "--force", data=b"".join(made))
    found = git(m.repo, "rev-parse", "--verify", "--quiet", REWRITTEN, check=False)
    tip = found.stdout.decode().strip()
    return (tip if tip and set(tip) != {"0"} else None), count


def store_blob(m: Membership, data: bytes) -> str:
    return git(m.repo, "hash-object", "-w", "--stdin", data=data).stdout.decode().strip()


def blob(m: Membership, blob_id: str) -> bytes:
    return git(m.repo, "cat-file", "blob", blob_id).stdout


def history(m: Membership, limit: int) -> list[dict[str, Any]]:
    """The team ref's latest commits, newest first."""
    if tip(m) is None:
        return []
    out = git(
        m.repo, "log", f"--max-count={limit}", "--format=%H%x1f%aI%x1f%an%x1f%s", TRACKING
    ).stdout.decode("utf-8", "replace")
    found = []
    for line in out.splitlines():
        commit, date, who, subject = (line.split("\x1f") + ["", "", "", ""])[:4]
        found.append({"commit_hash": commit, "date": date, "committer": who, "message": subject})
    return found
