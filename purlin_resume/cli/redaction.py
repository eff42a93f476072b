"""`redact report`: what redaction would take out of a conversation."""

from __future__ import annotations

import typer

from purlin_resume.claude import exposure, layout
from purlin_resume.claude.catalog import Catalog
from purlin_resume.cli.app import PurlinGroup, app
from purlin_resume.cli.common import print_json, print_text
from purlin_resume.cli.options import ClaudeDirOption, IdArgument, JsonOption

redact_app = typer.Typer(
    cls=PurlinGroup,
    help="What redaction takes out of a conversation before it leaves the tool.",
    no_args_is_help=True,
)
app.add_typer(redact_app, name="redact", rich_help_panel="Transcripts")


@redact_app.command("report")
def redact_report_command(
    identifier: IdArgument,
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Secrets redaction would hide in a session or agent: by kind and place, file and line,
    each as its placeholder (kind and fingerprint, no character of the secret). Review it before
    resurrecting."""
    found = exposure.report(Catalog(layout.claude_dir(claude_dir)), identifier)
    if as_json:
        print_json(found.to_dict())
        return
    if not found.exposures:
        print_text(f"No secrets found in {found.target} ({len(found.files)} file(s)).\n")
        return
    lines = [f"{len(found.exposures)} secret(s) in {found.target}, redacted on every output:"]
    lines.append("by kind:  " + ", ".join(f"{k} {n}" for k, n in found.by_kind.items()))
    lines.append("by place: " + ", ".join(f"{k} {n}" for k, n in found.by_place.items()))
    lines += [
        f"  {e.file}:{e.line}  {e.place:<14}  {e.kind:<22}  {e.placeholder}"
        for e in found.exposures
    ]
    print_text("\n".join(lines) + "\n")
