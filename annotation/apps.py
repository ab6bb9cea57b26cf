from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Physician review"

    def ready(self) -> None:
        from annotation import checks  # noqa: F401 - registers the deploy check
