"""User accounts with their Profile (role, rank, specialties, languages, pseudonym), and the single
sign-on identities an admin maps to existing accounts."""

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from accounts.models import OIDCIdentity, Profile
from accounts.services import account_deactivate, check_can_deactivate, check_can_link_identity
from medreview.admin import ReadOnlyInline

User = get_user_model()


class ProfileInline(admin.StackedInline):
    model = Profile
    can_delete = False
    fields = ["role", "rank", "specialties", "languages", "pseudonym"]


class OIDCIdentityInline(ReadOnlyInline):
    model = OIDCIdentity
    fk_name = "user"
    fields = ["issuer", "subject", "linked_by", "linked_at", "last_sign_in"]
    readonly_fields = fields
    can_delete = True  # unlinking is allowed here; linking on the single sign-on identities page


class AccountChangeForm(UserChangeForm):
    """Unticking "active" follows the rules of `account_deactivate`: not your own account, not the
    last active superuser or admin."""

    request_user: Any = None  # set per request by AccountAdmin.get_form

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.instance.pk and self.instance.is_active and cleaned.get("is_active") is False:
            try:
                check_can_deactivate(user=self.instance, by=self.request_user)
            except ValidationError as exc:
                raise ValidationError(exc.message_dict["username"]) from exc
        return cleaned


class AccountAdmin(UserAdmin):
    form = AccountChangeForm
    inlines = [ProfileInline, OIDCIdentityInline]

    def get_form(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, **kwargs)  # a new class per request
        form.request_user = request.user
        return form

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        deactivating = change and "is_active" in form.changed_data and not obj.is_active
        if deactivating:
            obj.is_active = True  # account_deactivate does it, ending sessions and voiding tokens too
        super().save_model(request, obj, form, change)
        if deactivating:
            account_deactivate(user=obj, by=request.user)
    list_display = ["username", "email", "role", "is_active", "last_login"]
    list_select_related = ["profile"]
    list_filter = ["profile__role", "is_active", "is_staff"]

    @admin.display(ordering="profile__role")
    def role(self, obj: Any) -> str:
        profile = getattr(obj, "profile", None)
        return profile.get_role_display() if profile else "-"


if admin.site.is_registered(User):
    admin.site.unregister(User)
admin.site.register(User, AccountAdmin)


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "role", "rank", "pseudonym"]
    list_filter = ["role", "rank"]
    search_fields = ["user__username", "pseudonym"]


class OIDCIdentityForm(forms.ModelForm):
    class Meta:
        model = OIDCIdentity
        fields = ["user", "issuer", "subject"]

    def clean_user(self) -> Any:
        user = self.cleaned_data["user"]
        try:
            check_can_link_identity(user)
        except ValidationError as exc:
            raise ValidationError(exc.message_dict["username"]) from exc
        return user


@admin.register(OIDCIdentity)
class OIDCIdentityAdmin(admin.ModelAdmin):
    """An admin's explicit mapping: the provider's person (issuer, subject) signs in as this account.
    Identities are added or deleted, never edited (a changed subject would be another person)."""

    form = OIDCIdentityForm
    list_display = ["user", "issuer", "subject", "linked_by", "linked_at", "last_sign_in"]
    list_select_related = ["user", "linked_by"]
    search_fields = ["user__username", "subject", "issuer"]
    autocomplete_fields = ["user"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return ["user", "issuer", "subject", "linked_by", "linked_at", "last_sign_in"] if obj else []

    def save_model(self, request: HttpRequest, obj: OIDCIdentity, form: Any, change: bool) -> None:
        obj.linked_by = request.user
        super().save_model(request, obj, form, change)
