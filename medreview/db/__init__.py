"""Database helpers shared by every app: hot reads compiled once per process (`precompiled`)."""
