"""Codex CLI's sessions: the rollout files under ``$CODEX_HOME``."""
