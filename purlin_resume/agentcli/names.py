"""The names of the agent CLIs the product knows, as users type them (``--cli``, ``--into``)."""

CLAUDE, CODEX, GEMINI, OPENCODE = "claude", "codex", "gemini", "opencode"
CLIS = (CLAUDE, CODEX, GEMINI, OPENCODE)
OTHERS = (CODEX, GEMINI, OPENCODE)
