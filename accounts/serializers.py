from typing import Any

from rest_framework import serializers

from accounts.models import Rank, Role


class AccountSerializer(serializers.Serializer):
    """An account as admins see and write it."""

    username = serializers.CharField(max_length=150)
    email = serializers.EmailField(required=False, allow_blank=True, default="")
    first_name = serializers.CharField(required=False, allow_blank=True, max_length=150, default="")
    last_name = serializers.CharField(required=False, allow_blank=True, max_length=150, default="")
    role = serializers.ChoiceField(choices=Role.choices)
    rank = serializers.ChoiceField(choices=Rank.choices, required=False, allow_blank=True, default="")
    specialties = serializers.ListField(child=serializers.CharField(max_length=200), required=False, default=list)
    languages = serializers.ListField(child=serializers.CharField(max_length=16), required=False, default=list)
    is_active = serializers.BooleanField(read_only=True)
    pseudonym = serializers.CharField(read_only=True)

    def to_representation(self, instance: Any) -> dict[str, Any]:
        profile = getattr(instance, "profile", None)
        return {
            "username": instance.username, "email": instance.email, "first_name": instance.first_name,
            "last_name": instance.last_name, "is_active": instance.is_active,
            "role": profile.role if profile else None, "rank": profile.rank if profile else "",
            "specialties": profile.specialties if profile else [], "languages": profile.languages if profile else [],
            "pseudonym": profile.pseudonym if profile else "",
        }


class AccountImportSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="CSV: username,email,role,rank,specialties,languages,first_name,last_name")
    dry_run = serializers.BooleanField(default=False)


class AccountImportErrorSerializer(serializers.Serializer):
    line = serializers.IntegerField(allow_null=True)
    column = serializers.CharField(allow_null=True)
    message = serializers.CharField()


class AccountImportReportSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["imported", "dry-run", "refused"])
    created = serializers.ListField(child=serializers.CharField())
    updated = serializers.ListField(child=serializers.CharField())
    errors = AccountImportErrorSerializer(many=True)


class InvitationSerializer(serializers.Serializer):
    username = serializers.CharField()
    emailed = serializers.BooleanField(help_text="False when the account has no e-mail address")
    link = serializers.CharField(allow_blank=True, help_text="Only when it could not be e-mailed")


class OIDCIdentitySerializer(serializers.Serializer):
    """A single sign-on identity bound to an account (admins map existing accounts explicitly)."""

    id = serializers.IntegerField(read_only=True)
    issuer = serializers.CharField(max_length=500, required=False, allow_blank=True,
                                   help_text="The provider's `iss`; default OIDC_OP_ISSUER")
    subject = serializers.CharField(max_length=255, help_text="The person's `sub` at the provider")
    linked_by = serializers.CharField(read_only=True, allow_null=True, source="linked_by.username",
                                      help_text="null when single sign-on created the account")
    linked_at = serializers.DateTimeField(read_only=True)
    last_sign_in = serializers.DateTimeField(read_only=True, allow_null=True)
