"""The plumbing every wing uses: the store (the only writer), gitrepo (the only git), tmux (the
only tmux), redaction, settings, errors, time, paths, ids and the trust of project commands.
"""
