"""``docauth persons ...`` and ``docauth db ...``.

Enrolment encodes every photo before writing anything, then adds the person
and their templates in one transaction: a bad photo leaves no half-enrolled
person behind.
"""

from __future__ import annotations

import json

import click

from docauth.clitools import handle_errors as _handle_errors, json_option
from docauth.config import Settings
from docauth.errors import Conflict, DocauthError, InputError
from docauth.imageio import decode_image, read_bytes
from docauth.matching.face import encode_face, photo_sha256
from docauth.store.db import Store
from docauth.store.index import FaceIndex
from docauth.store.values import person_values


def _open_store(database_url: str | None, *, migrate: bool = True):
    """The store; its schema created or brought to head first, except for the ``db`` commands themselves."""
    store = Store.from_settings(Settings.load(database_url=database_url))
    if migrate:
        store.ensure_schema()
    return store


_db_option = click.option(
    "--database-url",
    default=None,
    metavar="URL",
    help="Database URL (default: DOCAUTH_DATABASE_URL, else SQLite under DOCAUTH_DATA_DIR).",
)


@click.group()
def db():
    """Database migrations."""


@db.command("upgrade")
@_db_option
@click.option("--revision", default="head", show_default=True, help="The Alembic revision to migrate to.")
@_handle_errors
def db_upgrade(database_url, revision):
    """Create or migrate the schema to the latest revision."""
    store = _open_store(database_url, migrate=False)
    reached = store.upgrade(revision)
    click.echo(f"{store.safe_url}: at revision {reached} (head {store.head_revision()})")


@db.command("current")
@_db_option
@_handle_errors
def db_current(database_url):
    """Show the schema revision of the database."""
    store = _open_store(database_url, migrate=False)
    click.echo(f"{store.safe_url}: revision {store.current_revision()} (head {store.head_revision()})")


@click.group()
def persons():
    """Enrol, show, list and erase persons."""


def _encode_photos(paths: tuple[str, ...]):
    """(encoding, sha256) per photo, or an error naming the file; nothing is stored yet."""
    faces = []
    for path in paths:
        data = read_bytes(path)
        try:
            image = decode_image(data).pixels
        except DocauthError as exc:
            message = exc.message if str(path) in exc.message else f"{path}: {exc.message}"
            raise type(exc)(message, code=exc.code) from exc
        outcome = encode_face(image, allow_multiple=False)
        if not outcome.ok:
            raise InputError(f"{path}: {outcome.message}; enrolment needs a photo of exactly one face", code=outcome.status)
        faces.append((outcome.face.encoding, photo_sha256(data)))
    return faces


@persons.command("add")
@_db_option
@click.option("--surname", required=True, help="Surname as printed (the MRZ's primary identifier).")
@click.option("--given-names", default="", show_default=False, help="Given names, space-separated.")
@click.option("--dob", "date_of_birth", required=True, metavar="YYYY-MM-DD", help="Date of birth.")
@click.option("--document-number", default=None, help="The identity document's number.")
@click.option("--nationality", default=None, metavar="CODE", help="ICAO 3-letter code.")
@click.option("--sex", type=click.Choice(["M", "F", "X"], case_sensitive=False), default=None,
              help="Sex as the MRZ writes it (X: unspecified).")
@click.option("--expiry", "document_expiry", default=None, metavar="YYYY-MM-DD", help="Document expiry.")
@click.option("--external-ref", default=None, help="The bank's own reference (unique).")
@click.option("--photo", "photos", multiple=True, type=click.Path(dir_okay=False), help="Enrolment photo (repeatable).")
@click.option("--allow-duplicate-face", is_flag=True, help="Enrol even when the face matches another person.")
@json_option("Print the new person as JSON.")
@_handle_errors
def persons_add(database_url, photos, allow_duplicate_face, as_json, **fields):
    """Enrol a person with their photos (each must show exactly one face)."""
    person_values(fields, partial=False)  # field errors before the slow part
    faces = _encode_photos(photos)
    settings = Settings.load(database_url=database_url)
    store = _open_store(database_url)
    if faces and not allow_duplicate_face:
        index = FaceIndex.from_store(store)
        for path, (encoding, _) in zip(photos, faces):
            hits = index.search(encoding, k=3, max_distance=settings.duplicate_face_threshold)
            if hits:
                found = ", ".join(f"person {h.person_id} (distance {h.distance:.3f})" for h in hits)
                raise Conflict(
                    f"{path}: this face is already enrolled as {found}; "
                    "use --allow-duplicate-face to enrol anyway",
                    code="duplicate_face",
                )
    person, templates = store.enrol(fields, faces)
    if as_json:
        click.echo(json.dumps({**person.export(), "face_templates": [t.export() for t in templates]}, indent=2))
    else:
        click.echo(f"enrolled person {person.id} with {len(templates)} face template(s)")


@persons.command("show")
@_db_option
@click.argument("person_id", type=int)
@_handle_errors
def persons_show(database_url, person_id):
    """Show one person (JSON), with their face templates' metadata."""
    store = _open_store(database_url)
    person = store.get_person(person_id)
    templates = store.face_templates(person_id)
    click.echo(json.dumps({**person.export(), "face_templates": [t.export() for t in templates]}, indent=2))


@persons.command("list")
@_db_option
@json_option("Print the persons as a JSON list.")
@click.option("--limit", default=1000, show_default=True, help="At most this many persons.")
@_handle_errors
def persons_list(database_url, as_json, limit):
    """List enrolled persons."""
    store = _open_store(database_url)
    people = store.list_persons(limit=limit)
    if as_json:
        click.echo(json.dumps([p.export() for p in people], indent=2))
        return
    if not people:
        click.echo("no persons enrolled")
        return
    click.echo(f"{'id':>6}  {'surname':<20} {'given names':<24} {'born':<10}  {'document':<12} faces")
    for p in people:
        born = p.date_of_birth.isoformat() if p.date_of_birth else "-"
        click.echo(
            f"{p.id:>6}  {p.surname[:20]:<20} {p.given_names[:24]:<24} {born:<10}  "
            f"{(p.document_number or '-')[:12]:<12} {p.n_face_templates}"
        )


@persons.command("delete")
@_db_option
@click.argument("person_id", type=int)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@_handle_errors
def persons_delete(database_url, person_id, yes):
    """Erase a person: personal fields and face templates; audit records keep a pseudonym only."""
    store = _open_store(database_url)
    store.get_person(person_id)  # NotFound before asking
    if not yes:
        click.confirm(f"erase person {person_id} and their face templates?", abort=True)
    report = store.delete_person(person_id)
    click.echo(
        f"erased person {report.person_id}: {report.face_templates_deleted} face template(s) deleted, "
        f"{report.checks_pseudonymised} audit record(s) now pseudonymous"
    )
