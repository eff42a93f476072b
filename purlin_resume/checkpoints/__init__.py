"""Session checkpoints (``/pl-resume``): the format, where checkpoints live and their life, the
restore briefing, instructions, roles, project state, autosave and GSD's hand-off files.
"""
