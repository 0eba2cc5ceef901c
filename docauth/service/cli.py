"""``docauth serve``, ``docauth kiosk`` and ``docauth keys``."""

from __future__ import annotations

import click

from docauth.config import Settings
from docauth.errors import DocauthError
from docauth.service import server
from docauth.service.keys import KeyRing
from docauth.store import Store


def _settings(**explicit) -> Settings:
    try:
        return Settings.load(**explicit)
    except DocauthError as exc:
        raise click.ClickException(exc.message) from exc


@click.command()
@click.option("--mode", type=click.Choice(["realtime", "throughput"]), default=None,
              help="realtime: lowest latency per request; throughput: concurrent requests share batches.")
@click.option("--backend", default=None, help="auto (measured choice) or a backend name (see `docauth doctor`).")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8080, show_default=True, type=click.IntRange(0, 65535))
@click.option("--workers", default=None, type=click.IntRange(1, 64), help="Processes (default by mode).")
@click.option("--threads", default=None, type=click.IntRange(1, 256), help="Threads per process (default by mode).")
def serve(mode, backend, host, port, workers, threads):
    """Run the HTTP service with gunicorn (data under DOCAUTH_DATA_DIR: SQLite database, keys)."""
    settings = _settings(mode=mode, backend=backend)
    click.echo(f"docauth: serving on http://{host}:{port} mode={settings.mode} backend={settings.backend} "
               f"data={settings.data_dir}", err=True)
    try:
        server.run(settings, host=host, port=port, workers=workers, threads=threads)
    except DocauthError as exc:
        raise click.ClickException(exc.message) from exc


@click.command()
@click.option("--backend", default=None)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8080, show_default=True, type=click.IntRange(0, 65535))
def kiosk(backend, host, port):
    """Real-time mode, one worker, everything loaded and warmed before it says ready (time logged)."""
    settings = _settings(mode="realtime", backend=backend)
    click.echo(f"docauth kiosk: http://{host}:{port}; the log says 'ready' with the time to ready", err=True)
    try:
        server.run(settings, host=host, port=port, workers=1, threads=2)
    except DocauthError as exc:
        raise click.ClickException(exc.message) from exc


@click.group()
def keys():
    """Create, list and revoke API keys (stored as SHA-256 under DOCAUTH_DATA_DIR's database)."""


def _store():
    settings = _settings()
    try:
        store = Store.from_settings(settings)
        store.upgrade()
    except DocauthError as exc:
        raise click.ClickException(exc.message) from exc
    return store


@keys.command("create")
@click.option("--name", default="default", show_default=True, help="Who or what the key is for.")
def keys_create(name):
    """Create a key; the key itself is printed alone on the last line, once."""
    store = _store()
    try:
        record, key = KeyRing(store).create(name)
    except DocauthError as exc:
        raise click.ClickException(exc.message) from exc
    finally:
        store.close()
    click.echo(f"created API key #{record.id} ({record.name}); store it now, it is not shown again:")
    click.echo(key)


@keys.command("list")
def keys_list():
    """Keys by id, name, creation and revocation (never the keys themselves)."""
    store = _store()
    try:
        records = store.list_api_keys()
    except DocauthError as exc:
        raise click.ClickException(exc.message) from exc
    finally:
        store.close()
    click.echo(f"{'id':>4}  {'name':<24} {'created':<26} status")
    for r in records:
        status = "active" if r.revoked_at is None else f"revoked {r.revoked_at.isoformat(timespec='seconds')}"
        click.echo(f"{r.id:>4}  {r.name[:24]:<24} {r.created_at.isoformat(timespec='seconds'):<26} {status}")


@keys.command("revoke")
@click.argument("key_id", type=int)
def keys_revoke(key_id):
    """Revoke a key by id (takes effect on the next request)."""
    store = _store()
    try:
        record = store.revoke_api_key(key_id)
    except DocauthError as exc:
        raise click.ClickException(exc.message) from exc
    finally:
        store.close()
    click.echo(f"revoked API key #{record.id} ({record.name})")
