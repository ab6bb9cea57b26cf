"""User accounts with their Profile (role, rank, specialties, languages, pseudonym)."""

from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

from accounts.models import Profile

User = get_user_model()


class ProfileInline(admin.StackedInline):
    model = Profile
    can_delete = False
    fields = ["role", "rank", "specialties", "languages", "pseudonym"]


class AccountAdmin(UserAdmin):
    inlines = [ProfileInline]
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
