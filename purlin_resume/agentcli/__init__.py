"""What the readers of the agent CLIs other than Claude Code share: the shape they give."""
