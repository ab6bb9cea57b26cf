from typing import Any

from django.apps import AppConfig


def _validated_revisions(*args: Any, **kwargs: Any) -> Any:
    # Imported on first use: the quality check loads pandas and scipy, which every command and every
    # worker start-up would otherwise pay for (about 0.5 s).
    from liveclin.quality.loading import validated_revisions

    return validated_revisions(*args, **kwargs)


class LiveClinConfig(AppConfig):
    name = "liveclin"
    verbose_name = "LiveClin quality check"

    def ready(self) -> None:
        # annotation sits below liveclin: hand it the question-set review protocol (two phases) and the
        # "validated" item filter (LiveClin outcomes) instead of being imported by it.
        from annotation.models import ItemKind
        from annotation.protocols import register_protocol
        from annotation.studies.selection import VALIDATED, register_selection_filter
        from liveclin.protocol import QuestionSetReview

        register_protocol(ItemKind.QUESTION_SET, QuestionSetReview())
        register_selection_filter(VALIDATED, _validated_revisions)
