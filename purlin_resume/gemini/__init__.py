"""Gemini CLI's sessions: the chat files under ``~/.gemini/tmp``."""
