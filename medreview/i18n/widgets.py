"""Form widgets for choices named by people (studies, releases, graders, models): each option
carries its own `lang`, so an English study title in a Chinese form is read as English."""

from __future__ import annotations

from typing import Any

from django import forms

from medreview.text import script_language


class _OwnLanguageOptions:
    def create_option(self, name: str, value: Any, label: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option = super().create_option(name, value, label, *args, **kwargs)  # type: ignore[misc]
        # The empty choice ("all models", "---------") is interface text: it keeps the page's language.
        if value not in (None, "") and (language := script_language(str(label))):
            option["attrs"]["lang"] = language
        return option


class UserTextSelect(_OwnLanguageOptions, forms.Select):
    pass


class UserTextRadioSelect(_OwnLanguageOptions, forms.RadioSelect):
    pass


class UserTextSelectMultiple(_OwnLanguageOptions, forms.SelectMultiple):
    pass
