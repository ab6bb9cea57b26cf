from django.apps import AppConfig


class GradersConfig(AppConfig):
    name = "graders"
    verbose_name = "Automated graders"

    def ready(self) -> None:
        # cases may not import graders (it is the lower layer): hand it the writer for imported grades.
        from annotation.studies.selection import PASSED_PRESCREEN, register_selection_filter
        from cases.importers.writers import register_grade_writer, register_judgement_writer
        from graders.imports.grades import grader_decisions_import
        from graders.kinds.question_set_judge import (
            passed_prescreen_revisions,
            question_set_judgements_import,
        )

        register_grade_writer(grader_decisions_import)
        register_judgement_writer(question_set_judgements_import)
        # annotation may not import graders either: hand it the "passed the pre-screen" item filter.
        register_selection_filter(PASSED_PRESCREEN, passed_prescreen_revisions)
        # Judge scores and pairwise verdicts collected outside medreview (issue 13).
        from cases.services.outside_import import register_outside_writer
        from graders.imports.outside import judge_scores_import, pairwise_verdicts_import

        register_outside_writer("judge-scores", judge_scores_import)
        register_outside_writer("pairwise-verdicts", pairwise_verdicts_import)
