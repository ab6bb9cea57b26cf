"""python manage.py load_demo: made-up, de-identified data in every format plus one user per role.

Safe to run again: files already imported are reported as unchanged and users are updated.
"""

import json
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from accounts.models import Profile, Rank, Role
from cases.services import release_import
from cases.translations import translations_import
from demo.graders import load_demo_graders
from demo.labels import load_demo_labels
from demo.review import load_demo_review

DEMO_DIR = Path(__file__).resolve().parents[2] / "data"
DEMO_PASSWORD = "demo-pass-2026"  # noqa: S105 - printed on purpose: demo logins for the quick start only
DEMO_MODELS = ("demo-model-alpha", "demo-model-beta", "demo-model-gamma")
DEMO_GRADER = "gpt-4.1-2025-04-14"

# (format, file, dataset, release, model)
DEMO_FILES: list[tuple[str, str, str, str, str | None]] = [
    ("livemedbench", "livemedbench_cases.json", "LiveMedBench", "demo-2025", None),
    *[
        ("livemedbench-responses", f"livemedbench_responses_{m.replace('-', '_')}.json", "LiveMedBench",
         "demo-2025", m)
        for m in DEMO_MODELS
    ],
    *[
        ("livemedbench-grades", f"evaluation_results_{m.replace('-', '_')}.json", "LiveMedBench", "demo-2025", m)
        for m in DEMO_MODELS
    ],
    ("liveclin", "liveclin.jsonl", "LiveClin", "demo-2025H1", None),
    ("liveclin-judge", "liveclin_judge.jsonl", "LiveClin", "demo-2025H1-judge", None),  # the Judge's pre-screen
    ("healthbench", "healthbench.jsonl", "HealthBench", "demo", None),
    ("generic", "generic_cases.json", "ClinConsensus", "demo", None),
    ("generic", "generic_cases.csv", "ClinConsensus", "demo-csv", None),
]

# username, role, specialties, languages, rank, pseudonym, staff
DEMO_USERS: list[tuple[str, str, list[str], list[str], str, str, bool]] = [
    ("physician1", Role.PHYSICIAN, ["Internal Medicine", "Pediatrics"], ["en", "zh"], Rank.ATTENDING, "Rater-01", False),
    ("physician2", Role.PHYSICIAN, ["Internal Medicine", "Emergency Medicine"], ["en", "zh"], Rank.ATTENDING,
     "Rater-02", False),
    ("inspector1", Role.INSPECTOR, ["Internal Medicine"], ["en", "zh"], Rank.CHIEF, "Inspector-01", False),
    ("researcher1", Role.RESEARCHER, [], ["en"], "", "Researcher-01", False),
    ("admin1", Role.ADMIN, [], ["en"], "", "Admin-01", True),
]


class Command(BaseCommand):
    help = "Load the demo data set and demo users (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        for fmt, file_name, dataset, release, model in DEMO_FILES:
            report = release_import(
                fmt=fmt, data=(DEMO_DIR / file_name).read_bytes(), file_name=file_name,
                dataset_name=dataset, release_label=release, model_name=model, grader_model=DEMO_GRADER,
            )
            if not report.ok:
                raise CommandError(f"demo file {file_name} was refused: " + "; ".join(map(str, report.errors)))
            created = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in report.created.items() if n)
            self.stdout.write(f"{file_name}: {report.status}{' (' + created + ')' if created else ''}")
        self._translations()
        self._users()

        load_demo_review(stdout=self.stdout)
        load_demo_graders(stdout=self.stdout)
        load_demo_labels(stdout=self.stdout)

        self.stdout.write(f"\nDemo logins (password for all: {DEMO_PASSWORD})")
        self.stdout.write(f"  {'username':<13} role")
        for username, role, *_ in DEMO_USERS:
            self.stdout.write(f"  {username:<13} {role}")

    def _translations(self) -> None:
        """Chinese translations of two LiveMedBench demo cases (docs/i18n.md): bilingual raters read
        them beside the English; two variants of a field feed the translation-consistency task."""
        records = json.loads((DEMO_DIR / "translations_zh.json").read_text(encoding="utf-8"))
        result = translations_import(dataset="LiveMedBench", release="demo-2025", records=records,
                                     file_name="translations_zh.json", user=None)
        self.stdout.write(f"translations_zh.json: {result.created} translations added, {result.unchanged} unchanged")

    def _users(self) -> None:
        User = get_user_model()
        # Users and profiles together, so a failure never leaves a user without a role.
        with transaction.atomic():
            for username, role, specialties, languages, rank, pseudonym, staff in DEMO_USERS:
                user, _ = User.objects.get_or_create(username=username)
                user.set_password(DEMO_PASSWORD)
                user.is_staff = staff
                user.is_superuser = staff
                user.save()
                Profile.objects.update_or_create(
                    user=user,
                    defaults={"role": role, "specialties": specialties, "languages": languages, "rank": rank,
                              "pseudonym": pseudonym},
                )
