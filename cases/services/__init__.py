"""Writes to benchmark data. Public names are importable from `cases.services`.

- `imports`: importing a release file, all of it in one transaction or nothing (`release_import`);
- `import_jobs`: browser imports around it (validate, confirm, run in a worker).
"""

from cases.services.import_jobs import import_job_confirm, import_job_create, import_job_run, run_import_job
from cases.services.imports import (
    CREATED_KEYS,
    DEFAULT_DATASETS,
    DEFAULT_GRADER_MODEL,
    NEEDS_MODEL,
    ImportReport,
    Progress,
    release_import,
)

__all__ = [
    "CREATED_KEYS",
    "DEFAULT_DATASETS",
    "DEFAULT_GRADER_MODEL",
    "NEEDS_MODEL",
    "ImportReport",
    "Progress",
    "import_job_confirm",
    "import_job_create",
    "import_job_run",
    "release_import",
    "run_import_job",
]
