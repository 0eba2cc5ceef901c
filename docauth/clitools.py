"""The command line's shared conventions: one exit-code rule, one flag vocabulary, errors as one line.

Exit codes (the same for every command; the README's table is checked against :data:`EXIT_CODES`):

>>> [code for code, _ in EXIT_CODES]
[0, 1, 2, 3, 4, 5]

Flags: ``--json`` prints machine-readable output on stdout instead of the text
for people; ``--out`` names the file or folder a command writes. Spellings
used before (``--json-out``, ``--output``) still work, hidden from the help,
and say on stderr that they are deprecated.
"""

from __future__ import annotations

import functools
import sys

import click

from docauth.errors import ConfigError, DocauthError

OK = 0
NEGATIVE = 1
USAGE = 2
REJECT = 3
UNAVAILABLE = 4
RETAKE = 5

EXIT_CODES = (
    (OK, "success: `check` accepts, `match-faces` finds the same person, every input was processed"),
    (NEGATIVE, "a negative answer: `check` wants a review, `match-faces` finds different persons, "
               "`batch` / `classify` could not process some inputs (each has its error record)"),
    (USAGE, "the command, an option, an input file or a `DOCAUTH_*` setting is wrong (the message says which)"),
    (REJECT, "`check` rejects the document"),
    (UNAVAILABLE, "docauth cannot run here now: a model file, the database or another dependency is unavailable"),
    (RETAKE, "`check` asks for a new photo (`retake`: blurred, glare, cut off, too small or too dark)"),
)

#: ``docauth check``'s decision -> exit code.
DECISION_EXIT = {"accept": OK, "review": NEGATIVE, "reject": REJECT, "retake": RETAKE}


def exit_code_for(exc: DocauthError) -> int:
    """USAGE for what the caller can fix, UNAVAILABLE for what is wrong with the installation or a server.

    >>> from docauth.errors import InvalidImage, Unavailable
    >>> exit_code_for(InvalidImage("x")), exit_code_for(Unavailable("x")), exit_code_for(ConfigError("x"))
    (2, 4, 2)
    """
    if exc.http_status >= 500 and not isinstance(exc, ConfigError):
        return UNAVAILABLE
    return USAGE


def fail(exc: DocauthError, *, prefix: str | None = None) -> None:
    """Print ``error: <message>`` on stderr and exit with the rule's code (never a traceback)."""
    message = exc.message if prefix is None or prefix in exc.message else f"{prefix}: {exc.message}"
    click.echo(f"error: {message}", err=True)
    sys.exit(exit_code_for(exc))


def handle_errors(func):
    """A command decorator: a :class:`DocauthError` it does not handle itself becomes :func:`fail`."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except DocauthError as exc:
            fail(exc)

    return wrapper


def json_option(help: str = "Print the result as JSON on stdout instead of text."):
    return click.option("--json", "as_json", is_flag=True, help=help)


def old_spelling(flag: str, name: str, new_flag: str, **kwargs):
    """A hidden, deprecated spelling ``flag`` of the option whose parameter is ``name`` (new: ``new_flag``)."""

    def take(ctx, param, value):
        if value is not None:
            click.echo(f"warning: {flag} is deprecated; use {new_flag}", err=True)
            ctx.params[name] = value  # click keeps a value another option's callback put in the slot
        return value

    # Its own parameter name: options sharing one are parsed into a single value, and the warning could
    # not tell which spelling was used.
    return click.option(flag, f"{name}_old_{flag.strip('-').replace('-', '_')}", default=None, hidden=True,
                        expose_value=False, callback=take, **kwargs)


def out_option(help: str, *, name: str = "out", old: tuple[str, ...] = (), **kwargs):
    """``--out`` (a file or folder to write), with ``old`` spellings kept as hidden aliases."""

    def decorate(command):
        for flag in old:
            command = old_spelling(flag, name, "--out", type=kwargs.get("type"))(command)
        return click.option("--out", name, default=None, help=help, **kwargs)(command)

    return decorate


def backend_option(default: str | None = None):
    """``--backend``: where the models run (the same choices as ``DOCAUTH_BACKEND``)."""
    return click.option("--backend", default=default, show_default=default is not None, metavar="NAME",
                        help="Model backend: auto (chosen by measurement, see `docauth doctor`), keras_tf, tf_gpu, "
                             "onnxruntime, onnxruntime_cuda, onnxruntime_openvino or openvino "
                             "(default: DOCAUTH_BACKEND, else auto).")
