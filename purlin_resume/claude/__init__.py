"""Claude Code specifics: its data folder layout and its JSONL transcript records (read-only)."""
