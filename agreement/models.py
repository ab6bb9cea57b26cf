"""Agreement reports are computed from annotation and cases data; no tables of their own yet."""
