"""``docauth persons ...`` and ``docauth db ...`` against a real SQLite database."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from docauth.cli import cli
from docauth.imageio import encode_png


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    import skimage.data

    folder = tmp_path_factory.mktemp("photos")
    astronaut = np.ascontiguousarray(skimage.data.astronaut()[..., :3])
    files = {
        "astronaut": encode_png(astronaut),
        "no_face": encode_png(np.stack([skimage.data.camera()] * 3, -1)),
        "two_faces": encode_png(np.hstack([astronaut, astronaut[:, ::-1]])),
        "corrupt": b"\x89PNG\r\n\x1a\nthis is not really a png",
    }
    paths = {}
    for name, data in files.items():
        paths[name] = folder / f"{name}.png"
        paths[name].write_bytes(data)
    return paths


@pytest.fixture
def run(tmp_path):
    runner = CliRunner()
    env = {"DOCAUTH_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.sqlite3'}"}

    def invoke(*args, input=None):
        return runner.invoke(cli, [str(a) for a in args], env=env, input=input)

    result = invoke("db", "upgrade")
    assert result.exit_code == 0, result.output
    assert "at revision 0004" in result.output
    return invoke


PERSON = ["--surname", "Collins", "--given-names", "Eileen Marie", "--dob", "1956-11-19", "--nationality", "USA",
          "--sex", "F", "--document-number", "X1234567", "--expiry", "2030-01-01", "--external-ref", "nasa-1"]  # fmt: skip


def test_enrol_show_list_delete(run, photos):
    added = run("persons", "add", *PERSON, "--photo", photos["astronaut"], "--json")
    assert added.exit_code == 0, added.output
    person = json.loads(added.stdout)
    assert person["surname"] == "Collins" and person["n_face_templates"] == 1
    assert len(person["face_templates"][0]["photo_sha256"]) == 64

    shown = run("persons", "show", person["id"])
    assert shown.exit_code == 0 and json.loads(shown.stdout)["external_ref"] == "nasa-1"
    listed = run("persons", "list", "--json")
    assert [p["id"] for p in json.loads(listed.stdout)] == [person["id"]]
    table = run("persons", "list")
    assert "Collins" in table.stdout and "1956-11-19" in table.stdout

    # the same face under another name is flagged (1:N), unless allowed explicitly
    again = run("persons", "add", "--surname", "Impostor", "--dob", "1970-01-01", "--photo", photos["astronaut"])
    assert again.exit_code == 2
    assert f"already enrolled as person {person['id']}" in again.stderr
    assert json.loads(run("persons", "list", "--json").stdout)[0]["id"] == person["id"]
    allowed = run("persons", "add", "--surname", "Twin", "--dob", "1970-01-01", "--photo", photos["astronaut"],
                  "--allow-duplicate-face")  # fmt: skip
    assert allowed.exit_code == 0, allowed.output

    deleted = run("persons", "delete", person["id"], "--yes")
    assert deleted.exit_code == 0 and "1 face template(s) deleted" in deleted.stdout
    missing = run("persons", "show", person["id"])
    assert missing.exit_code == 2 and f"no person with id {person['id']}" in missing.stderr
    refused = run("persons", "delete", 2, input="n\n")
    assert refused.exit_code != 0 and len(json.loads(run("persons", "list", "--json").stdout)) == 1


@pytest.mark.parametrize(
    ("photo", "message"),
    [
        ("no_face", "no face was found"),
        ("two_faces", "faces were found"),
        ("corrupt", "cannot decode"),
        ("missing", "no such file"),
    ],
)
def test_bad_photo_is_a_clear_error_and_writes_nothing(run, photos, photo, message):
    path = photos.get(photo, photos["astronaut"].parent / "missing.jpg")
    result = run("persons", "add", "--surname", "Nobody", "--dob", "1990-01-01",
                 "--photo", photos["astronaut"], "--photo", path)  # fmt: skip
    assert result.exit_code == 2
    assert str(path) in result.stderr and message in result.stderr
    assert "Traceback" not in result.output
    assert json.loads(run("persons", "list", "--json").stdout) == []


def test_bad_fields_are_refused_before_any_photo_is_read(run, photos):
    result = run("persons", "add", "--surname", "X", "--dob", "31.12.1990", "--photo", photos["astronaut"])
    assert result.exit_code == 2 and "date_of_birth must be a date" in result.stderr
    assert run("persons", "list").stdout.strip() == "no persons enrolled"


def test_a_new_database_is_created_on_first_use(tmp_path):
    url = f"sqlite:///{tmp_path / 'new.sqlite3'}"
    result = CliRunner().invoke(cli, ["persons", "list", "--database-url", url])
    assert result.exit_code == 0 and result.stdout.strip() == "no persons enrolled", result.output
    current = CliRunner().invoke(cli, ["db", "current", "--database-url", url])
    assert "revision None" not in current.stdout and current.exit_code == 0


def test_unreachable_database_is_a_clean_error():
    result = CliRunner().invoke(cli, ["db", "upgrade", "--database-url", "postgresql://x@127.0.0.1:9/none"])
    assert result.exit_code == 4 and "database is unavailable" in result.stderr  # 4: cannot run here now
    assert "Traceback" not in result.output
