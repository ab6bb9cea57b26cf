"""Run one runner of a grading job in the foreground (what a db_worker does for a queued runner task)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from graders.jobs import runner


class Command(BaseCommand):
    help = (
        "Work on a grading job in this process until it has no unclaimed chunk left. Normally workers do "
        "this (`manage.py db_worker --queue-name grading`); this is for debugging and tests."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("job_id", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        status = runner.grading_job_work(job_id=options["job_id"])
        self.stdout.write(f"Job {options['job_id']}: {status}")
