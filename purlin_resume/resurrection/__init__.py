"""Resurrection: bookmarks, archives, the search index, compression, pre-flight, the flow, the log
(and its team outbox), recommendations, and handing a session back to Claude Code (``open``).
"""
