"""`save`, `restore` and `checkpoints`: role-aware session checkpoints."""
