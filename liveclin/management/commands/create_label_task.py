"""python manage.py create_label_task NAME --kind assignment|audit --dataset D --release LABEL
[--taxonomy KEY] [--model M] [--raters-per-unit N] [--rater USER ...] [--inspector USER ...]

A physician task over the AI's labels (docs/review.md, "LiveClin's label tasks"): a blind taxonomy
assignment over the release's cases, or an audit of their image and table labels."""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from cases.models import Release, Taxonomy
from liveclin.labelling.services import label_task_add_members, label_task_create
from liveclin.models import LabelTask, LabelTaskMember


class Command(BaseCommand):
    help = "Create a blind taxonomy assignment or an AI label audit over a release's cases."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--kind", required=True, choices=LabelTask.Kind.values)
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--release", required=True, help="The label of the release that imported the cases")
        parser.add_argument("--taxonomy", default="liveclin", help="Assignment: the taxonomy key (its latest version)")
        parser.add_argument("--model", default="", help="Only this model's labels (empty: any)")
        parser.add_argument("--raters-per-unit", type=int, default=1)
        parser.add_argument("--rater", action="append", default=[])
        parser.add_argument("--inspector", action="append", default=[])

    def handle(self, *args: Any, **options: Any) -> None:
        release = Release.objects.filter(dataset__name=options["dataset"], label=options["release"]).order_by("pk").first()
        if release is None:
            raise CommandError(f"--release: no release {options['release']!r} in dataset {options['dataset']!r}")
        taxonomy = None
        if options["kind"] == LabelTask.Kind.ASSIGNMENT:
            taxonomy = Taxonomy.objects.filter(key=options["taxonomy"]).order_by("-imported_at").first()
            if taxonomy is None:
                raise CommandError(f"--taxonomy: {options['taxonomy']!r} is not loaded (load_taxonomy)")
        people = {}
        for role in ("rater", "inspector"):
            found = list(get_user_model().objects.filter(username__in=options[role]))
            missing = set(options[role]) - {u.get_username() for u in found}
            if missing:
                raise CommandError(f"--{role}: no user {sorted(missing)[0]!r}")
            people[role] = found
        try:
            task = label_task_create(name=options["name"], kind=options["kind"], release=release, taxonomy=taxonomy,
                                     ai_model=options["model"], raters_per_unit=options["raters_per_unit"],
                                     created_by=None)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        label_task_add_members(task=task, users=people["rater"], role=LabelTaskMember.Role.RATER)
        label_task_add_members(task=task, users=people["inspector"], role=LabelTaskMember.Role.INSPECTOR)
        self.stdout.write(f"label task {task.pk} “{task.name}”: {task.units.count()} items")
