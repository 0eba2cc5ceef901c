"""The ``docauth`` command line.

Sub-commands live beside the stage they drive (``docauth/<stage>/cli.py``) and
are imported only when invoked, so ``docauth --help`` loads no framework.
"""

from __future__ import annotations

import importlib

import click

from docauth import __version__
from docauth.clitools import fail
from docauth.errors import DocauthError


class LazyGroup(click.Group):
    """A click group whose commands are ``"module:attribute"`` strings, imported on use.

    ``lazy`` maps a command's name to ``(target, help)``: the help is what the listing shows, so
    ``docauth --help`` imports no stage (tests/test_cli_conventions.py keeps each one its own).
    """

    def __init__(self, *args, lazy: dict[str, tuple[str, str]] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx, name):
        if name in self.lazy:
            module_name, attr = self.lazy[name][0].split(":")
            return getattr(importlib.import_module(module_name), attr)
        return super().get_command(ctx, name)

    def format_commands(self, ctx, formatter):
        # Listing must not import every stage (and TensorFlow with it).
        rows = []
        for name in self.list_commands(ctx):
            if name in self.lazy:
                rows.append((name, self.lazy[name][1]))
            else:
                rows.append((name, self.commands[name].get_short_help_str(60)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def lazy_group(name: str, help: str, commands: dict[str, tuple[str, str]]) -> LazyGroup:
    return LazyGroup(name=name, help=help, lazy=commands)


COMMANDS = {
    "synth": ("docauth.synth.cli:synth", "Generate synthetic documents and non-documents with labels."),
    "classify": ("docauth.pipeline.cli:classify", "Document / not, and which side, for images."),
    "ocr": ("docauth.ocr.cli:ocr", "Locate the document, read its MRZ and printed fields."),
    "match-faces": ("docauth.matching.cli:match_faces", "Compare the faces in two images (1:1)."),
    "check": ("docauth.pipeline.cli:check", "Check one document image: the whole pipeline, a decision."),
    "persons": ("docauth.store.cli:persons", "Enrol, show, list and erase persons."),
    "db": ("docauth.store.cli:db", "Database migrations."),
    "export": ("docauth.runtime.cli:export", "Export the Keras models to ONNX."),
    "tune": ("docauth.runtime.cli:tune", "Measure backends here and write the deployment profile."),
    "doctor": ("docauth.runtime.cli:doctor", "Show the hardware probe and the active runtime choice."),
    "serve": ("docauth.service.cli:serve", "Run the HTTP service."),
    "kiosk": ("docauth.service.cli:kiosk", "Run the service in real-time kiosk mode."),
    "keys": ("docauth.service.cli:keys", "Create, list and revoke API keys."),
    "batch": ("docauth.batch.cli:batch", "Scan an archive of images into JSON lines (and CSV)."),
}

train = lazy_group(
    "train",
    "Train models from generated data.",
    {
        "classifiers": ("docauth.training.classifiers.cli:train_classifiers", "Train the document and side classifiers."),
        "mrz": ("docauth.training.ocr_cli:train_mrz", "Train the MRZ line recogniser."),
        "outline": ("docauth.training.ocr_cli:train_outline", "Train the document outline (localisation) model."),
        "face-embedder": ("docauth.training.face_model:convert_face_embedder",
                          "Convert dlib's face descriptor network to ONNX (same encodings)."),
    },
)
evaluate = lazy_group(
    "eval",
    "Evaluate models and stages on synthetic and real data.",
    {
        "classifiers": ("docauth.training.classifiers.cli:eval_classifiers",
                        "Accuracy of the document and side classifiers."),
        "ocr": ("docauth.training.ocr_cli:eval_ocr", "Exact-match rates of the MRZ and printed fields."),
        "faces": ("docauth.training.cli:eval_faces", "Calibrate the face threshold on real photos."),
        "real": ("docauth.training.cli:eval_real", "Every stage on the real sets beside generated captures."),
    },
)
bench = lazy_group(
    "bench",
    "Benchmarks (one run, ratios against a baseline).",
    {"classify": ("docauth.training.cli:bench_classify", "Keras against every backend and mode, same inputs.")},
)


@click.group(cls=LazyGroup, lazy=COMMANDS)
@click.version_option(__version__, prog_name="docauth")
def cli():
    """docauth: is it a document, which side, what does it say, whose is it.

    Exit codes, the same for every command: 0 success (accept, same person), 1 a negative answer (review,
    different persons, some inputs failed), 2 a usage or input error, 3 reject, 4 a model or the database
    unavailable. --json prints JSON on stdout; --out names what a command writes.
    """


cli.add_command(train)
cli.add_command(evaluate)
cli.add_command(bench)


def main(argv: list[str] | None = None) -> None:
    try:
        cli.main(args=argv, prog_name="docauth", standalone_mode=True)
    except DocauthError as exc:  # an error a command did not handle itself
        fail(exc)


if __name__ == "__main__":
    main()
