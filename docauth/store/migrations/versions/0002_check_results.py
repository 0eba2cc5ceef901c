"""check_results: a check's result (no images), kept for a while, erased with the person

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "check_results",
        sa.Column(
            "check_id",
            sa.Integer,
            sa.ForeignKey("checks.id", ondelete="CASCADE", name="fk_check_results_check"),
            primary_key=True,
        ),
        # The person the check was about (by id, or the one a claimed external_ref names): erased with them.
        sa.Column(
            "person_id",
            sa.Integer,
            sa.ForeignKey("persons.id", ondelete="CASCADE", name="fk_check_results_person"),
            nullable=True,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("result", sa.JSON, nullable=False),
    )
    op.create_index("ix_check_results_person_id", "check_results", ["person_id"])
    op.create_index("ix_check_results_expires_at", "check_results", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_check_results_expires_at", table_name="check_results")
    op.drop_index("ix_check_results_person_id", table_name="check_results")
    op.drop_table("check_results")
