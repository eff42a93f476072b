"""Live and dead agents: the registry, revival through tmux, lineage, text injected into panes,
activity and stall detection, watch, and which agent made each commit.
"""
