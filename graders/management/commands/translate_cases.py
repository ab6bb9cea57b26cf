"""python manage.py translate_cases (--study ID | --release ID) --base-url URL --model NAME --key-env VAR
[--language zh-Hans] [--variant NAME] [--now] | --resume JOB

Machine-translate a study's or a release's case text through an OpenAI-compatible endpoint (docs/i18n.md).
The key is read by the worker from the environment variable named; it is never stored. Without
--now the job runs on a background worker (`db_worker --queue-name grading`).
"""

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from graders.models import TranslationJob
from graders.translation.services import (
    translation_job_create,
    translation_job_resume,
    translation_job_run,
)


class Command(BaseCommand):
    help = "Translate case text of a study or release with an OpenAI-compatible endpoint."

    def add_arguments(self, parser: CommandParser) -> None:
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--study", type=int)
        target.add_argument("--release", type=int)
        target.add_argument("--resume", type=int, metavar="JOB")
        parser.add_argument("--base-url")
        parser.add_argument("--model")
        parser.add_argument("--key-env", help="Environment variable holding the API key")
        parser.add_argument("--language", default="zh-Hans")
        parser.add_argument("--variant", default="", help="Default machine:<model>")
        parser.add_argument("--now", action="store_true", help="Run in this process instead of a worker")

    def handle(self, *args: Any, **options: Any) -> None:
        now = options["now"]
        try:
            if options["resume"]:
                job = TranslationJob.objects.filter(pk=options["resume"]).first()
                if job is None:
                    raise CommandError(_("No translation job %(job)s.") % {"job": options["resume"]})
                job = translation_job_resume(job=job, enqueue=not now)
            else:
                if not (options["base_url"] and options["model"] and options["key_env"]):
                    raise CommandError(_("--base-url, --model and --key-env are required for a new job."))
                selection = {"study": options["study"]} if options["study"] else {"release": options["release"]}
                job = translation_job_create(
                    selection=selection, base_url=options["base_url"], model=options["model"],
                    api_key_env=options["key_env"], language=options["language"], variant=options["variant"],
                    created_by=None, enqueue=not now,
                )
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        if now:
            self.stdout.write(translation_job_run(job_id=job.pk))
        else:
            self.stdout.write(_("Translation job %(job)s queued: %(n)s field(s) of %(selection)s.")
                              % {"job": job.pk, "n": job.total, "selection": job.selection_label})
