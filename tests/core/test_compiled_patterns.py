"""The compiled form of large expressions kept between processes (core/compiled_patterns.py):
the same answers as ``re.compile``, and anything odd in the cache is ignored, never trusted."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from purlin_resume.core import compiled_patterns, redact

SOURCE = r"(?P<key>api[_-]?key|token)\s*[:=]\s*(?P<value>[A-Za-z0-9]{12,})|\bsk-[a-z]{3}\b"
TEXT = "token = abcdefghijkl1234\nAPI_KEY: nope\napi-key=ZZZZZZZZZZZZZZ sk-abc sk-abcd"
SECRET_LINE = "export ANTHROPIC_API_KEY=sk-ant-api03-" + "Q7x" * 30 + "AA"


def kept_files() -> list[Path]:
    folder = Path(compiled_patterns.folder())
    return sorted(folder.iterdir()) if folder.is_dir() else []


def same_matches(a: re.Pattern[str], b: re.Pattern[str], text: str) -> None:
    assert [m.groupdict() | {"span": m.span()} for m in a.finditer(text)] == [
        m.groupdict() | {"span": m.span()} for m in b.finditer(text)
    ]
    assert (a.pattern, a.flags, a.groups, a.groupindex) == (
        b.pattern,
        b.flags,
        b.groups,
        b.groupindex,
    )


def test_first_use_keeps_the_compiled_form_privately_and_answers_like_re():
    fresh = compiled_patterns.compiled(SOURCE, re.IGNORECASE)
    same_matches(fresh, re.compile(SOURCE, re.IGNORECASE), TEXT)
    [kept] = kept_files()
    assert kept.stat().st_mode & 0o777 == 0o600
    assert Path(compiled_patterns.folder()).stat().st_mode & 0o777 == 0o700


def test_later_use_reads_the_kept_form_without_parsing(monkeypatch):
    compiled_patterns.compiled(SOURCE)

    def no_parsing(*args, **kwargs):
        raise AssertionError("parsed again")

    with monkeypatch.context() as patched:
        patched.setattr(compiled_patterns._parser, "parse", no_parsing)
        kept = compiled_patterns.compiled(SOURCE)
    same_matches(kept, re.compile(SOURCE), TEXT)


def test_flags_and_interpreter_are_part_of_the_key():
    compiled_patterns.compiled(SOURCE)
    compiled_patterns.compiled(SOURCE, re.IGNORECASE)
    assert len(kept_files()) == 2
    same_matches(compiled_patterns.compiled(SOURCE), re.compile(SOURCE), TEXT)


def test_the_redaction_scanner_in_a_new_process_finds_the_same_secrets(tmp_path):
    program = (
        "import sys\nfrom purlin_resume.core import redact\n"
        "print(redact.redact(sys.stdin.read()).text, end='')"
    )
    text = Path(redact.__file__).read_text() + "\n" + SECRET_LINE + "\npassword: 'hunter2hunter2'\n"
    outputs = [
        subprocess.run(
            [sys.executable, "-c", program], input=text, capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)  # the first compiles and keeps, the second reads
    ]
    assert outputs[0] == outputs[1] == redact.redact(text).text
    assert "Q7x" * 30 not in outputs[1] and "hunter2hunter2" not in outputs[1]
    assert len(kept_files()) == 1


def plant(content: bytes) -> Path:
    compiled_patterns.compiled(SOURCE)
    [kept] = kept_files()
    kept.write_bytes(content)
    return kept


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00garbage",
        marshal.dumps("not a tuple"),
        marshal.dumps((SOURCE, 32, [1, 2, "x"], 0, {}, ())),
        marshal.dumps((SOURCE, 32, [999999, 12, 7], 0, {}, ())),  # not code the engine accepts
        marshal.dumps((SOURCE, 32, [], -5, {"a": 1}, (None,))),
        marshal.dumps(compiled_patterns._compile(SOURCE, 0)),  # the expression left out
    ],
    ids=[
        "empty",
        "garbage",
        "wrong type",
        "word not int",
        "invalid code",
        "wrong groups",
        "short",
    ],  # fmt: skip
)
def test_a_damaged_kept_form_is_compiled_afresh_and_replaced(content):
    kept = plant(content)
    same_matches(compiled_patterns.compiled(SOURCE), re.compile(SOURCE), TEXT)
    assert kept.read_bytes() != content


def matching_nothing(source: str = SOURCE) -> bytes:
    """A valid kept form of ``source`` holding the code of an expression that matches nothing:
    trusted, it would make the scanner blind."""
    return marshal.dumps((source, *compiled_patterns._compile(r"(?!)", 0)))


def test_a_kept_form_of_another_expression_under_the_same_name_is_not_used():
    kept = plant(matching_nothing(source="another expression"))
    same_matches(compiled_patterns.compiled(SOURCE), re.compile(SOURCE), TEXT)
    assert marshal.loads(kept.read_bytes())[0] == SOURCE  # replaced by this one's


def test_a_kept_form_is_read_without_loading_a_cryptographic_library():
    program = (
        "import sys\nfrom purlin_resume.core import redact\n"
        "print(redact.redact('nothing secret here').text, 'hashlib' in sys.modules)"
    )
    outputs = [
        subprocess.run([sys.executable, "-c", program], capture_output=True, text=True).stdout
        for _ in range(2)  # the first compiles and keeps, the second reads
    ]
    assert outputs == ["nothing secret here False\n"] * 2


def test_a_kept_form_writable_by_others_is_not_trusted():
    kept = plant(matching_nothing())
    kept.chmod(0o666)
    same_matches(compiled_patterns.compiled(SOURCE), re.compile(SOURCE), TEXT)


def test_a_symbolic_link_in_place_of_the_kept_form_is_not_followed(tmp_path):
    kept = plant(b"")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(matching_nothing())
    elsewhere.chmod(0o600)
    kept.unlink()
    kept.symlink_to(elsewhere)
    same_matches(compiled_patterns.compiled(SOURCE), re.compile(SOURCE), TEXT)
    assert elsewhere.read_bytes() == matching_nothing()  # never written through


def test_a_fifo_in_place_of_the_kept_form_is_neither_waited_on_nor_trusted():
    kept = plant(b"")
    kept.unlink()
    os.mkfifo(kept, 0o600)
    same_matches(compiled_patterns.compiled(SOURCE), re.compile(SOURCE), TEXT)  # no hang


def test_a_folder_writable_by_others_is_not_trusted():
    kept = plant(matching_nothing())
    kept.parent.chmod(0o777)
    same_matches(compiled_patterns.compiled(SOURCE), re.compile(SOURCE), TEXT)
    assert kept.read_bytes() == matching_nothing()  # and nothing is written into it


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file away needs root")
def test_a_kept_form_owned_by_someone_else_is_not_trusted():
    kept = plant(matching_nothing())
    os.chown(kept, 65534, 65534)
    same_matches(compiled_patterns.compiled(SOURCE), re.compile(SOURCE), TEXT)


def test_an_unusable_cache_folder_still_compiles(monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    same_matches(compiled_patterns.compiled(SOURCE), re.compile(SOURCE), TEXT)


def test_a_linked_cache_folder_is_not_trusted(tmp_path):
    kept = plant(matching_nothing())
    elsewhere = tmp_path / "elsewhere"
    kept.parent.rename(elsewhere)
    Path(compiled_patterns.folder()).symlink_to(elsewhere)
    same_matches(compiled_patterns.compiled(SOURCE), re.compile(SOURCE), TEXT)
    assert (elsewhere / kept.name).read_bytes() == matching_nothing()


def test_a_bad_expression_fails_as_re_does():
    with pytest.raises(re.error):
        compiled_patterns.compiled("(unclosed")
    assert kept_files() == []


# -- an expression kept under the module that assembles it ------------------------------------


class Builds:
    """A ``build`` that counts its calls."""

    def __init__(self, source: str = SOURCE) -> None:
        self.source, self.calls = source, 0

    def __call__(self) -> str:
        self.calls += 1
        return self.source


def test_a_kept_assembly_is_used_without_assembling_again(tmp_path):
    module = tmp_path / "rules.py"
    module.write_text("RULES = ('token',)\n")
    first, again = Builds(), Builds()

    same_matches(compiled_patterns.compiled_from(first, str(module)), re.compile(SOURCE), TEXT)
    same_matches(compiled_patterns.compiled_from(again, str(module)), re.compile(SOURCE), TEXT)

    assert (first.calls, again.calls) == (1, 0)
    [kept] = kept_files()
    assert kept.name.startswith("built-") and kept.stat().st_mode & 0o777 == 0o600


def test_a_changed_module_assembles_and_keeps_its_expression_afresh(tmp_path):
    module = tmp_path / "rules.py"
    module.write_text("RULES = ('token',)\n")
    compiled_patterns.compiled_from(Builds(), str(module))
    module.write_text("RULES = ('token', 'sk')\n")  # the same size or not: its checksum differs
    changed = Builds(r"\bsk-[a-z]{4}\b")

    found = compiled_patterns.compiled_from(changed, str(module))

    assert changed.calls == 1 and [m.group() for m in found.finditer(TEXT)] == ["sk-abcd"]
    assert len(kept_files()) == 2


def test_an_unreadable_module_or_a_damaged_kept_assembly_assembles_afresh(tmp_path):
    module = tmp_path / "rules.py"
    module.write_text("RULES = ()\n")
    compiled_patterns.compiled_from(Builds(), str(module))
    [kept] = kept_files()
    kept.write_bytes(matching_nothing()[:-3])
    damaged, missing = Builds(), Builds()

    same_matches(compiled_patterns.compiled_from(damaged, str(module)), re.compile(SOURCE), TEXT)
    gone = str(tmp_path / "gone.py")
    same_matches(compiled_patterns.compiled_from(missing, gone), re.compile(SOURCE), TEXT)
    assert (damaged.calls, missing.calls) == (1, 1)


def test_the_scanner_assembles_nothing_when_its_expression_is_kept(monkeypatch):
    assert redact.Scanner().pattern.search(SECRET_LINE)  # assembled and kept

    def no_assembly(self):
        raise AssertionError("assembled again")

    with monkeypatch.context() as patched:
        patched.setattr(redact.Scanner, "_assemble", no_assembly)
        scanner = redact.Scanner()
        assert scanner.find("a line of plain words, with nothing secret in it") == []
    # the rules of one place are assembled when the scan first stops at one
    assert [f.kind for f in scanner.find(SECRET_LINE)] == ["anthropic-key"]


def test_an_expression_compiled_later_answers_as_re_does():
    later = compiled_patterns.Later(SOURCE, re.IGNORECASE)
    assert [m.span() for m in later.finditer(TEXT)] == [
        m.span() for m in re.finditer(SOURCE, TEXT, re.IGNORECASE)
    ]
    assert later.search("API_KEY = abcdefghijkl1234").group("key") == "API_KEY"
    with pytest.raises(re.error):
        compiled_patterns.Later("(unclosed").search("x")
