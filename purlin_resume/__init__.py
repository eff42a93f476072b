"""purlin-resume: continuity for AI coding agents working in git repositories."""

__version__ = "0.1.0"
