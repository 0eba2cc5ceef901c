"""stored_images: what the review desk shows (a check's rectified document while it waits, enrolment photos)

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "stored_images",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("check_id", sa.Integer,
                  sa.ForeignKey("checks.id", ondelete="CASCADE", name="fk_stored_images_check"), nullable=True),
        # The person the image shows or is about: erased with them.
        sa.Column("person_id", sa.Integer,
                  sa.ForeignKey("persons.id", ondelete="CASCADE", name="fk_stored_images_person"), nullable=True),
        sa.Column("media_type", sa.String(32), nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_stored_images_check_id", "stored_images", ["check_id"])
    op.create_index("ix_stored_images_person_id", "stored_images", ["person_id"])
    op.create_index("ix_stored_images_expires_at", "stored_images", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_stored_images_expires_at", table_name="stored_images")
    op.drop_index("ix_stored_images_person_id", table_name="stored_images")
    op.drop_index("ix_stored_images_check_id", table_name="stored_images")
    op.drop_table("stored_images")
