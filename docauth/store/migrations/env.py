"""Alembic environment: runs on the connection handed over by ``Store.upgrade()``.

No alembic.ini is needed; ``docauth.store.db.alembic_config`` builds the config.
For the ``alembic`` command line, set ``sqlalchemy.url`` in the config instead.
"""

from alembic import context
from sqlalchemy import engine_from_config, pool

from docauth.store.models import Base

try:
    config = context.config
except AttributeError:  # imported outside an Alembic run (e.g. pytest --doctest-modules): nothing to do
    config = None
target_metadata = Base.metadata


def _run(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite cannot ALTER most things
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = engine_from_config(config.get_section(config.config_ini_section, {}), prefix="sqlalchemy.", poolclass=pool.NullPool)
    with engine.connect() as conn:
        _run(conn)


def run_migrations_offline() -> None:
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


if config is None:
    pass
elif context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
