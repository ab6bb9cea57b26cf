from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.db.models.signals import post_delete, post_save


def _token_deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    from medreview.authentication import forget_token_digest

    forget_token_digest(instance.digest)


def _user_saved(sender: Any, instance: Any, **kwargs: Any) -> None:
    from medreview.authentication import forget_user_tokens

    forget_user_tokens(instance.pk)


def _profile_saved(sender: Any, instance: Any, **kwargs: Any) -> None:
    from medreview.authentication import forget_user_tokens

    forget_user_tokens(instance.user_id)


class MedreviewConfig(AppConfig):
    """The platform package as an app: its system checks and its `compile_catalogues` command."""

    name = "medreview"
    verbose_name = "medreview"

    def ready(self) -> None:
        from knox.models import get_token_model

        from medreview.i18n import checks  # noqa: F401 - registers the checks

        # The verified-token cache (medreview/authentication.py) forgets a token deleted, or a user
        # saved (deactivated, role changed), in this process at once; other processes within
        # API_TOKEN_CACHE_SECONDS.
        post_delete.connect(_token_deleted, sender=get_token_model(), dispatch_uid="medreview_token_deleted")
        post_save.connect(_user_saved, sender=settings.AUTH_USER_MODEL, dispatch_uid="medreview_user_saved")
        # The role lives on the profile (a lazy reference: platform modules import no app).
        post_save.connect(_profile_saved, sender="accounts.Profile", dispatch_uid="medreview_profile_saved")
