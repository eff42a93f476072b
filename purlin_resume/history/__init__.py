"""GSD's agent history (``.planning/agent-history.json``): tracking subagent spawns, resuming
interrupted ones, and the git changes that conflict with a resumption.
"""
