"""The people forms: inviting one person, a CSV of people, and the profile the Django admin edits,
all with the same list controls for specialties and languages."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.invitations.choices import language_choices, specialty_choices
from accounts.models import Profile, Rank, Role
from accounts.services import new_pseudonym
from medreview.text import split_values


class _ListChoices(forms.Form):
    """Specialties and languages from lists (any stored value of the instance stays choosable)."""

    def set_list_choices(self, specialties: Any = (), languages: Any = ()) -> None:
        self.fields["specialties"].choices = specialty_choices(specialties or ())
        self.fields["languages"].choices = language_choices(languages or ())


class InviteForm(_ListChoices):
    email = forms.EmailField(label=_("E-mail address"))
    username = forms.CharField(
        max_length=150, required=False, label=_("Username"),
        help_text=_("Empty: made from the e-mail address"),
    )
    first_name = forms.CharField(max_length=150, required=False, label=_("First name"))
    last_name = forms.CharField(max_length=150, required=False, label=_("Last name"))
    role = forms.ChoiceField(choices=Role.choices, initial=Role.PHYSICIAN, label=_("Role"))
    rank = forms.ChoiceField(choices=[("", _("No rank"))] + Rank.choices, required=False, label=_("Rank"))
    specialties = forms.MultipleChoiceField(
        required=False, widget=forms.SelectMultiple(attrs={"size": 6}), label=_("Specialties"),
    )
    other_specialties = forms.CharField(
        required=False, label=_("Other specialties"), help_text=_("Not in the list: comma-separated"),
    )
    languages = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, label=_("Languages the person reads"),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.set_list_choices()

    def all_specialties(self) -> tuple[str, ...]:
        data = self.cleaned_data
        return tuple(dict.fromkeys([*data["specialties"], *split_values(data.get("other_specialties") or "", ",\n")]))


class InviteCSVForm(forms.Form):
    file = forms.FileField(
        label=_("CSV file"),
        help_text=_("Columns: username, email, role, rank, specialties, languages, first_name, last_name "
                    "(specialties and languages separated by ;)"),
    )


class ProfileAdminForm(_ListChoices, forms.ModelForm):
    """The Django admin's profile: role, rank, specialties and languages from lists; the pseudonym
    is generated and shown, not typed."""

    specialties = forms.MultipleChoiceField(required=False, widget=forms.SelectMultiple(attrs={"size": 6}),
                                            label=_("Specialties"))
    languages = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple,
                                          label=_("Languages the person reads"))

    class Meta:
        model = Profile
        fields = ["role", "rank", "specialties", "languages"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        instance = self.instance
        self.set_list_choices(getattr(instance, "specialties", ()), getattr(instance, "languages", ()))

    def save(self, commit: bool = True) -> Profile:
        if not self.instance.pseudonym:
            self.instance.pseudonym = new_pseudonym()
        return super().save(commit=commit)
