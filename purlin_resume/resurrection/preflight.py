"""Pre-flight checks before a resurrection (FR-7, TR-7): each one ok, a warning, a question or a
failure, with its own message and what to do instead.

1. exists: the session and agent are in the transcripts (or in a bookmark's archive);
2. accessible: the bookmark was made on this host (else a warning); the original transcript is
   still there (else the archive is read: a warning); the source project, when it is on this
   machine, lies under the allowed roots (SEC-2) and its HEAD is still the recorded commit;
3. complete: the agent ended normally (crashed, API error, interrupted, unfinished, ended
   mid-work with tool results it never read: a warning, the partial context is used);
4. extractable: its file could be read (unreadable or binary: a failure);
5. meaningful: it holds a conversation (empty: a failure);
6. size: over ``context_warn_tokens`` a warning, over ``context_confirm_tokens`` a question
   (``--method summarized`` is offered); the full method on a long agent: a warning.

``outcome`` turns the checks into the outcome a resurrection is logged with (the one rule).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from purlin_resume.claude.transcript import INTERRUPTION
from purlin_resume.core import gitrepo, path_safety
from purlin_resume.core.errors import NotFound

OK, WARN, ASK, FAIL = "ok", "warn", "ask", "fail"
SUCCESS, PARTIAL, FAILURE = "success", "partial", "failure"
# The checks about the context itself: a warning from one of them means the new agent gets less
# than a finished agent would hand over. The other warnings (another host, the archive read, the
# project not here or moved on, a large context) are notes: the context is whole.
ABOUT_THE_CONTEXT = ("extractable", "complete")


@dataclass(frozen=True)
class Check:
    name: str
    level: str
    message: str
    suggestion: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        text = f"[{self.level}] {self.name}: {self.message}"
        return f"{text}; {self.suggestion}" if self.suggestion else text


class PreflightFailed(NotFound):
    """A check failed: the resurrection cannot go on (exit 1)."""

    def __init__(self, check: Check):
        self.check = check
        message = check.message + (f"; {check.suggestion}" if check.suggestion else "")
        super().__init__(message)


def failure(name: str, message: str, suggestion: str | None = None) -> PreflightFailed:
    """The failure of check ``name``, to raise."""
    return PreflightFailed(Check(name, FAIL, message, suggestion))


def outcome(checks: list[Check]) -> tuple[str, str | None]:
    """The outcome a resurrection is logged with, and why.

    - ``failure``: a check failed (the resurrection did not happen);
    - ``partial``: the context is only part of the agent's work: lines that did not parse, the
      agent crashed, hit an API error, was interrupted, ended mid-work or did not complete;
    - ``success``: otherwise; the other warnings are notes (``notes``), not an outcome.

    The reason names every check that made it so, in the order they ran.
    """
    failed = [c.message for c in checks if c.level == FAIL]
    if failed:
        return FAILURE, "; ".join(failed)
    warned = [c.message for c in checks if c.name in ABOUT_THE_CONTEXT and c.level == WARN]
    return (PARTIAL, "; ".join(warned)) if warned else (SUCCESS, None)


def notes(checks: list[Check]) -> list[str]:
    """The warnings that do not make the outcome (another host, the archive, the project), each
    with what it means for the new agent."""
    return [
        f"{c.message}; {c.suggestion}" if c.suggestion else c.message
        for c in checks
        if c.level == WARN and c.name not in ABOUT_THE_CONTEXT and c.name != "size"
    ]


def last_counted(transcript):
    """The transcript's last turn that counts, in one forward pass: its turns may be read
    again from their source on each pass (opencode's ``Turns``), which cannot be reversed."""
    last = None
    for turn in transcript.turns:
        if turn.counts:
            last = turn
    return last


def unread_results(transcript) -> int:
    """How many tool calls of the agent's last turn it never answered: their results never
    came, or came and the agent stopped before it read them (it ended mid-work). 0 when its
    last turn says something without calling a tool, as a finished agent's does."""

    last = last_counted(transcript)
    if last is None or last.role != "agent" or last.kind == INTERRUPTION:
        return 0
    return len(last.tool_calls)


def facts(transcript, subagent, document: dict[str, Any]) -> dict[str, Any]:
    """What the checks need to know about a conversation (cached with its context)."""

    last = last_counted(transcript)
    final = document.get("final_output") or ""
    stats = transcript.stats
    return {
        "turns": transcript.turn_count,
        "status": subagent.status if subagent is not None else None,
        "interrupted": last is not None and last.kind == INTERRUPTION,
        "mid_work": unread_results(transcript),
        "api_error": final.lstrip().startswith("API Error"),
        "answered": bool(final.strip()),
        "truncated": stats.truncated,
        "binary": stats.binary,
        "unreadable": stats.unreadable,
        "malformed": stats.malformed,
        "project_path": transcript.project_path,
        "git_commit": document.get("git_commit"),
    }


def completeness(known: dict[str, Any]) -> Check:
    status = known.get("status")
    if known.get("truncated"):
        return Check(
            "complete",
            WARN,
            "the transcript ends in a line cut short (a crash)",
            "its partial context is used",
        )
    if known.get("api_error"):
        return Check(
            "complete", WARN, "the agent ended with an API error", "its partial context is used"
        )
    if known.get("interrupted"):
        return Check(
            "complete", WARN, "the agent was interrupted by the user", "its partial context is used"
        )
    if known.get("mid_work"):
        calls = known["mid_work"]
        return Check(
            "complete",
            WARN,
            f"the agent ended mid-work: its last {calls} tool call(s) were never followed by "
            "an answer (it crashed or was stopped)",
            "its partial context is used",
        )
    if status == "unknown" and known.get("answered", True):
        # Its parent session's file is gone, so no record says how it ended; it was not cut
        # short and it gave a final answer, which is how an agent completes.
        return Check("complete", OK, "ended with a final answer (its status is not recorded)")
    if status not in (None, "completed"):
        return Check(
            "complete",
            WARN,
            f"the agent did not complete (status: {status})",
            "its partial context is used",
        )
    return Check("complete", OK, "ended normally")


def extractable(known: dict[str, Any], where: str) -> Check:
    if known.get("unreadable"):
        return Check(
            "extractable",
            FAIL,
            f"could not read {where} ({known['unreadable']})",
            "check the file's permissions, or resurrect another agent",
        )
    if known.get("binary"):
        return Check(
            "extractable",
            FAIL,
            f"{where} is not a JSONL transcript (binary)",
            "resurrect another agent of the session",
        )
    if known.get("malformed"):
        return Check(
            "extractable", WARN, f"{known['malformed']} line(s) did not parse and were skipped"
        )
    return Check("extractable", OK, "context extracted")


def meaningful(known: dict[str, Any]) -> Check:
    if not known.get("turns"):
        return Check(
            "meaningful",
            FAIL,
            "the conversation is empty: nothing to resurrect",
            "pick another agent ('purlin-resume find …' lists them)",
        )
    return Check("meaningful", OK, f"{known['turns']} turn(s)")


def hostname(recorded: str | None, here: str) -> Check:
    if recorded and recorded != here:
        return Check(
            "accessible",
            WARN,
            f"bookmarked on host {recorded}, you are on {here}: its history may not be here",
            "the archive is used when the transcript is missing",
        )
    return Check("accessible", OK, f"host {here}")


def size(
    tokens: int, method: str, turns: int, warn_at: int, ask_at: int, full_turns: int
) -> list[Check]:
    found = []
    if method == "full" and turns > full_turns:
        found.append(
            Check(
                "size",
                WARN,
                f"the full method is meant for agents of at most {full_turns} turns; this one has {turns}",
                "use --method hybrid or summarized",
            )
        )
    smaller = (  # summarized is the smallest there is: nothing to advise
        "--method summarized makes it smaller" if method != "summarized" else None
    )
    if tokens > ask_at:
        found.append(Check("size", ASK, f"the context is {tokens} tokens, over {ask_at}", smaller))
    elif tokens > warn_at:
        found.append(
            Check("size", WARN, f"the context is {tokens} tokens, over {warn_at}", smaller)
        )
    else:
        found.append(Check("size", OK, f"{tokens} tokens"))
    return found


def project(path: str | None, allowed: list[Path], recorded_commit: str | None) -> Check:
    """The source project: refused outside the allowed roots (SEC-2) when it is on this machine."""
    if not path:
        return Check("project", WARN, "the transcript names no project folder")
    if not Path(path).exists():
        return Check(
            "project",
            WARN,
            f"{path} is not on this machine",
            "the context comes from the transcript alone",
        )
    real = path_safety.checked(path, allowed, "source project")
    if recorded_commit and gitrepo.toplevel(real) is not None:
        head = gitrepo.head_commit(real)
        if head and not head.startswith(recorded_commit) and not recorded_commit.startswith(head):
            return Check(
                "project",
                WARN,
                f"{path} is now at {head[:12]}, the agent worked at {recorded_commit[:12]}",
                "files may have changed since",
            )
    return Check("project", OK, str(real))
