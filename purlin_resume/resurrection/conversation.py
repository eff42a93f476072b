"""What a resurrection candidate and a recommendation share: one conversation (a session's main
agent, or one of its subagents) named by its ids, and how it is labelled and written out."""

from __future__ import annotations

from typing import Any


class Conversation:
    """Mixed into the dataclasses that name a conversation: they hold ``session_id``,
    ``agent_id``, ``title``, ``project``, ``agent_type``, ``ended_at`` and ``cli`` (the agent
    CLI that wrote it)."""

    session_id: str
    agent_id: str | None
    title: str | None
    project: str | None
    agent_type: str | None
    ended_at: str | None
    cli: str

    def label(self) -> str:
        what = f"agent {self.agent_id}" if self.agent_id else f"session {self.session_id}"
        return what if self.cli == "claude" else f"{self.cli} {what}"

    def identity(self) -> dict[str, Any]:
        """The conversation's fields, in the order every JSON output gives them."""
        return {
            "session_id": self.session_id,
            "agent_id": self.agent_id,
            "title": self.title,
            "project": self.project,
            "agent_type": self.agent_type,
            "ended_at": self.ended_at,
            "cli": self.cli,
        }
