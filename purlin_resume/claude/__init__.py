"""Claude Code's own data, read-only: its data folder layout, transcript records, the catalog of
sessions and agents, hook payloads, settings, and rendering and exporting a conversation."""
