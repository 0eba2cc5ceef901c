"""check_reviews: a clerk's decision on a check sent to review, with who and when (audit)

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "check_reviews",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "check_id",
            sa.Integer,
            sa.ForeignKey("checks.id", ondelete="CASCADE", name="fk_check_reviews_check"),
            nullable=False,
        ),
        sa.Column("decision", sa.String(16), nullable=False),
        # The API key's name and id at the time: who decided, even after the key is revoked.
        sa.Column("reviewer", sa.String(100), nullable=False),
        sa.Column("api_key_id", sa.Integer, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sqlite_autoincrement=True,  # audit ids are never reused
    )
    op.create_index("ix_check_reviews_check_id", "check_reviews", ["check_id"])


def downgrade() -> None:
    op.drop_index("ix_check_reviews_check_id", table_name="check_reviews")
    op.drop_table("check_reviews")
