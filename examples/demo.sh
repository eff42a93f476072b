#!/bin/sh
# Save and restore a Builder checkpoint in a throwaway copy of the sample project, then read the
# bundled Claude Code transcripts.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
cp -R "$here/sample-project/." "$work/"
cd "$work"
git init -q -b main
git add -A && git -c user.name=demo -c user.email=demo@example.com commit -q -m "sample project"

echo "== purlin-resume save --from examples/checkpoint.yaml"
purlin-resume save --from "$here/checkpoint.yaml"
echo
echo "== purlin-resume checkpoints"
purlin-resume checkpoints
echo
echo "== purlin-resume trust (the sample's tools/cdd/status.sh may run; kept in a temp folder here)"
XDG_DATA_HOME=$(mktemp -d)
export XDG_DATA_HOME
purlin-resume trust
echo
echo "== purlin-resume restore builder"
purlin-resume restore builder
echo
echo "== purlin-resume sessions --all --claude-dir examples/claude"
purlin-resume sessions --all --claude-dir "$here/claude"
echo
echo "== purlin-resume agents fe5e --claude-dir examples/claude"
purlin-resume agents fe5e --claude-dir "$here/claude"
echo
echo "== purlin-resume transcript 1af7 --claude-dir examples/claude"
purlin-resume transcript 1af7 --claude-dir "$here/claude"
echo
echo "(sample project left in $work)"
