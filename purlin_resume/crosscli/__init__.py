"""Sessions of every agent CLI at once: one listing, one way to open a conversation by id."""
