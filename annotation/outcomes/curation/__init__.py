"""Curation: a release and the final labels of chosen studies become a new release in the
benchmark's own format, with a manifest (docs/curation.md)."""
