"""System checks of the platform. `manage.py check --deploy` runs the deploy ones.

medreview.E001: an interface language has no catalogue; medreview.E002: a catalogue is not compiled,
or was compiled from an older `.po` (the server would show English, or yesterday's wording, to a
Chinese physician). `manage.py compile_catalogues` fixes both of the second kind.
"""

from __future__ import annotations

from typing import Any

from django.core.checks import Error, register

from medreview.i18n.catalogues import catalogues, translated_languages

HINT = "Run `manage.py compile_catalogues` after every checkout or upgrade (docs/deployment.md)."


@register("translation", deploy=True)
def check_catalogues_compiled(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    errors = []
    for language in translated_languages():
        found = catalogues(language)
        if not found:
            errors.append(Error(f"The interface language {language} has no catalogue (.po) in LOCALE_PATHS.",
                                hint="Add it (docs/i18n.md) or remove it from LANGUAGES.", id="medreview.E001"))
        errors.extend(
            Error(f"{catalogue.mo.name} of {language} is {catalogue.problem}: {catalogue.po}", hint=HINT,
                  id="medreview.E002")
            for catalogue in found if catalogue.problem
        )
    return errors
