from django.apps import AppConfig


class DemoConfig(AppConfig):
    """The demo data set, studies and graders behind `manage.py load_demo`; the top layer, imported by nothing."""

    name = "demo"
    verbose_name = "Demo data"
