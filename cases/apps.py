from django.apps import AppConfig


class CasesConfig(AppConfig):
    name = "cases"
    verbose_name = "Benchmark data"

    def ready(self) -> None:
        # The people forms (accounts, below this app) offer the specialties of the imported cases.
        from accounts.invitations.choices import register_specialty_source
        from cases.models import Specialty

        register_specialty_source(lambda: Specialty.objects.values_list("name", flat=True))
