"""opencode's sessions: its SQLite database, and the JSON files it kept before."""
