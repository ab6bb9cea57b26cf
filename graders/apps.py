from django.apps import AppConfig


class GradersConfig(AppConfig):
    name = "graders"
    verbose_name = "Automated graders"

    def ready(self) -> None:
        # cases may not import graders (it is the lower layer): hand it the writer for imported grades.
        from cases.importers.writers import register_grade_writer
        from graders.importers import grader_decisions_import

        register_grade_writer(grader_decisions_import)
