from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from medreview.middleware import session_refreshed_at_login

        # A new session starts its idle clock at sign-in (SessionIdleTimeoutMiddleware).
        user_logged_in.connect(session_refreshed_at_login, dispatch_uid="medreview-session-idle")
