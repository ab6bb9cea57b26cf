"""python manage.py translation_consistency_report --study ID [--json]

LiveClin Appendix H: the consistency rate (95% Wilson CI) of a translation-consistency study,
pooled, per rater pseudonym and per field type, and Gwet's AC1 between the raters (docs/i18n.md).
"""

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from agreement.reports.tables.translation import report_as_dict, translation_consistency_report
from annotation.models import Study


def _rate(r: dict | None) -> str:
    if not r or r["value"] is None:
        return "-"
    lo, hi = r["ci"]
    return f"{100 * r['value']:.1f}% ({r['consistent']}/{r['n']}; 95% CI {100 * lo:.1f}-{100 * hi:.1f})"


class Command(BaseCommand):
    help = "Translation consistency of a study: rate with Wilson CI, per rater and field type; AC1."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--study", type=int, required=True)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        study = Study.objects.filter(pk=options["study"]).first()
        if study is None:
            raise CommandError(f"No study {options['study']}.")
        report = report_as_dict(translation_consistency_report(study))
        if options["json"]:
            self.stdout.write(json.dumps({"study": study.pk, **report}))
            return
        self.stdout.write(f"{study.name}: consistent {_rate(report['pooled'])}")
        for rater, rate in report["per_rater"].items():
            self.stdout.write(f"  rater {rater}: {_rate(rate)}")
        for field_type, rate in report["per_field_type"].items():
            self.stdout.write(f"  {field_type}: {_rate(rate)}")
        ac1 = report["ac1"]
        if ac1 and ac1["value"] is not None:
            self.stdout.write(f"  Gwet's AC1 between raters: {ac1['value']:.3f}")
