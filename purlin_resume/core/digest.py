"""SHA-256 without loading OpenSSL when Python carries its own.

``hashlib`` loads OpenSSL's library when it is imported, which takes longer (about 4 ms) than
some commands take to do their work; every digest here is of a few kilobytes at most, where
Python's built-in one is as quick. The digest is the same either way.
"""

from __future__ import annotations

try:
    from _sha2 import sha256  # Python 3.12 and later
except ImportError:
    try:
        from _sha256 import sha256  # Python 3.11
    except ImportError:  # a Python built without them
        from hashlib import sha256

__all__ = ["sha256"]
