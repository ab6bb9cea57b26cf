"""manage.py compile_catalogues: compile every interface language's .po into the .mo Django serves.

Pure Python (`medreview.i18n.msgfmt`), so a server without GNU gettext serves Chinese too. A deployment
step: run it after each checkout or upgrade, before starting the web servers (docs/deployment.md);
`check --deploy` fails until it has run.
"""

from typing import Any

from django.core.management.base import BaseCommand

from medreview.i18n.catalogues import catalogues, translated_languages
from medreview.i18n.msgfmt import compile_po


class Command(BaseCommand):
    help = "Compile the translation catalogues (locale/*/LC_MESSAGES/*.po -> .mo) in pure Python."
    requires_system_checks: list[str] = []  # it is what makes the deploy check pass

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--force", action="store_true", help="Compile even the catalogues that are current.")

    def handle(self, *args: Any, force: bool = False, **options: Any) -> None:
        compiled = current = 0
        for language in translated_languages():
            for catalogue in catalogues(language):
                if catalogue.problem or force:
                    compile_po(catalogue.po, catalogue.mo)
                    self.stdout.write(f"{language}: compiled {catalogue.mo}")
                    compiled += 1
                else:
                    current += 1
        self.stdout.write(self.style.SUCCESS(f"{compiled} compiled, {current} already current."))
