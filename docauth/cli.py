"""The ``docauth`` command line.

Sub-commands live beside the stage they drive (``docauth/<stage>/cli.py``) and
are imported only when invoked, so ``docauth --help`` loads no framework.
"""

from __future__ import annotations

import importlib
import sys

import click

from docauth import __version__
from docauth.errors import DocauthError


class LazyGroup(click.Group):
    """A click group whose commands are ``"module:attribute"`` strings, imported on use."""

    def __init__(self, *args, lazy: dict[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx, name):
        if name in self.lazy:
            module_name, attr = self.lazy[name].split(":")
            return getattr(importlib.import_module(module_name), attr)
        return super().get_command(ctx, name)

    def format_commands(self, ctx, formatter):
        # Listing must not import every stage (and TensorFlow with it).
        rows = []
        for name in self.list_commands(ctx):
            if name in self.lazy:
                rows.append((name, HELP.get(name, "")))
            else:
                rows.append((name, self.commands[name].get_short_help_str(60)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def lazy_group(name: str, help: str, commands: dict[str, str]) -> LazyGroup:
    return LazyGroup(name=name, help=help, lazy=commands)


HELP = {
    "synth": "Generate synthetic documents and non-documents with labels.",
    "classify": "Document / not, and which side, for images.",
    "ocr": "Locate the document, read its MRZ and printed fields.",
    "match-faces": "Compare the faces in two images (1:1).",
    "check": "Run the whole pipeline on one image.",
    "persons": "Enrol, show, list and erase persons.",
    "db": "Database migrations.",
    "export": "Export the Keras models to ONNX.",
    "tune": "Measure backends here and write the deployment profile.",
    "doctor": "Show the hardware probe and the active runtime choice.",
    "serve": "Run the HTTP service.",
    "kiosk": "Run the service in real-time kiosk mode.",
    "keys": "Create, list and revoke API keys.",
    "batch": "Scan an archive of images into a JSONL file.",
    "classifiers": "The document and side classifiers.",
    "mrz": "The MRZ line recogniser.",
    "viz": "The printed-field recogniser.",
    "outline": "The document outline (localisation) model.",
    "faces": "Face matching on real photos.",
}

COMMANDS = {
    "synth": "docauth.synth.cli:synth",
    "classify": "docauth.classifiers.cli:classify",
    "ocr": "docauth.ocr.cli:ocr",
    "match-faces": "docauth.matching.cli:match_faces",
    "check": "docauth.pipeline.cli:check",
    "persons": "docauth.store.cli:persons",
    "db": "docauth.store.cli:db",
    "export": "docauth.runtime.cli:export",
    "tune": "docauth.runtime.cli:tune",
    "doctor": "docauth.runtime.cli:doctor",
    "serve": "docauth.service.cli:serve",
    "kiosk": "docauth.service.cli:kiosk",
    "keys": "docauth.service.cli:keys",
    "batch": "docauth.batch.cli:batch",
}

train = lazy_group(
    "train",
    "Train models from generated data.",
    {"classifiers": "docauth.classifiers.cli:train_classifiers", "mrz": "docauth.ocr.cli:train_mrz",
     "viz": "docauth.ocr.cli:train_viz",
     "outline": "docauth.ocr.cli:train_outline"},
)
evaluate = lazy_group(
    "eval",
    "Evaluate models and stages on synthetic and real data.",
    {
        "classifiers": "docauth.classifiers.cli:eval_classifiers",
        "ocr": "docauth.ocr.cli:eval_ocr",
        "faces": "docauth.matching.cli:eval_faces",
        "real": "docauth.training.cli:eval_real",
    },
)
bench = lazy_group(
    "bench",
    "Benchmarks (one run, ratios against a baseline).",
    {"classify": "docauth.runtime.cli:bench_classify"},
)


@click.group(cls=LazyGroup, lazy=COMMANDS)
@click.version_option(__version__, prog_name="docauth")
def cli():
    """docauth: is it a document, which side, what does it say, whose is it."""


cli.add_command(train)
cli.add_command(evaluate)
cli.add_command(bench)


def main(argv: list[str] | None = None) -> None:
    try:
        cli.main(args=argv, prog_name="docauth", standalone_mode=True)
    except DocauthError as exc:  # an error a command did not handle itself
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
