from typing import Any

from django.apps import AppConfig


def _validated_revisions(*args: Any, **kwargs: Any) -> Any:
    # Imported on first use: quality_check loads pandas and scipy, which every command and every
    # worker start-up would otherwise pay for (about 0.5 s).
    from agreement.quality_check.loading import validated_revisions

    return validated_revisions(*args, **kwargs)


class AgreementConfig(AppConfig):
    name = "agreement"
    verbose_name = "Agreement reports"

    def ready(self) -> None:
        # annotation sits below agreement: hand it the "validated" item filter (LiveClin outcomes).
        from annotation.selection_filters import VALIDATED, register_selection_filter

        register_selection_filter(VALIDATED, _validated_revisions)
