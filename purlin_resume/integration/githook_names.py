"""The names of the git hooks ``purlin-resume git-hook NAME`` runs (see ``githooks``).

Kept apart from ``githooks`` so that the command line can list them in its help without
importing the hooks themselves.
"""

NAMES = ("agent-history", "no-cache", "no-secrets", "post-commit")
