from django.apps import AppConfig


class MedreviewConfig(AppConfig):
    """The platform package as an app: its system checks and its `compile_catalogues` command."""

    name = "medreview"
    verbose_name = "medreview"

    def ready(self) -> None:
        from medreview.i18n import checks  # noqa: F401 - registers the checks
