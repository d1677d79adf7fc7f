"""qa-inspect."""
