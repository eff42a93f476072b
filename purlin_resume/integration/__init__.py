"""Claude Code and git integration: install, one hook call, what each hook event records, the
SessionStart briefing, git hooks, doctor.
"""
