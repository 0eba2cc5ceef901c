"""persons, face templates, checks (audit), API keys

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "persons",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("external_ref", sa.String(128), nullable=True),
        sa.Column("surname", sa.String(200), nullable=False),
        sa.Column("given_names", sa.String(200), nullable=False, server_default=""),
        sa.Column("date_of_birth", sa.Date, nullable=True),
        sa.Column("nationality", sa.String(3), nullable=True),
        sa.Column("sex", sa.String(1), nullable=True),
        sa.Column("document_number", sa.String(32), nullable=True),
        sa.Column("document_expiry", sa.Date, nullable=True),
        sa.Column("pseudonym", sa.String(32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("external_ref", name="uq_persons_external_ref"),
        sa.UniqueConstraint("pseudonym", name="uq_persons_pseudonym"),
        sqlite_autoincrement=True,  # never reuse an erased person's id
    )
    op.create_index("ix_persons_document_number", "persons", ["document_number"])

    op.create_table(
        "face_templates",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "person_id",
            sa.Integer,
            sa.ForeignKey("persons.id", ondelete="CASCADE", name="fk_face_templates_person"),
            nullable=False,
        ),
        sa.Column("model_name", sa.String(100), nullable=False),
        sa.Column("model_version", sa.String(100), nullable=False),
        sa.Column("dtype", sa.String(16), nullable=False, server_default="float64"),
        sa.Column("vector", sa.LargeBinary, nullable=False),
        sa.Column("photo_sha256", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sqlite_autoincrement=True,  # (count, max id) must change on every enrol/erase
    )
    op.create_index("ix_face_templates_person_id", "face_templates", ["person_id"])

    op.create_table(
        "checks",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column(
            "person_id",
            sa.Integer,
            sa.ForeignKey("persons.id", ondelete="SET NULL", name="fk_checks_person"),
            nullable=True,
        ),
        sa.Column("subject_pseudonym", sa.String(32), nullable=True),
        sa.Column("verdict", sa.String(32), nullable=False),
        sa.Column("channel", sa.String(32), nullable=True),
        sa.Column("scores", sa.JSON, nullable=False),
        sa.Column("reasons", sa.JSON, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_checks_created_at", "checks", ["created_at"])
    op.create_index("ix_checks_person_id", "checks", ["person_id"])
    op.create_index("ix_checks_subject_pseudonym", "checks", ["subject_pseudonym"])

    op.create_table(
        "api_keys",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("key_sha256", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("note", sa.Text, nullable=True),
        sa.UniqueConstraint("key_sha256", name="uq_api_keys_key_sha256"),
        sqlite_autoincrement=True,
    )


def downgrade() -> None:
    op.drop_table("api_keys")
    op.drop_index("ix_checks_subject_pseudonym", table_name="checks")
    op.drop_index("ix_checks_person_id", table_name="checks")
    op.drop_index("ix_checks_created_at", table_name="checks")
    op.drop_table("checks")
    op.drop_index("ix_face_templates_person_id", table_name="face_templates")
    op.drop_table("face_templates")
    op.drop_index("ix_persons_document_number", table_name="persons")
    op.drop_table("persons")
