"""Files -> symbols and typed edges, stored in SQLite and kept fresh incrementally."""
