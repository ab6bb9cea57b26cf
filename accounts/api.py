"""Accounts API (admins): list, create, update, deactivate, bulk CSV import, invite, and the single
sign-on identities mapped to an account."""

from django.conf import settings
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import access
from accounts.serializers import (
    AccountImportReportSerializer,
    AccountImportSerializer,
    AccountSerializer,
    InvitationSerializer,
    OIDCIdentitySerializer,
)
from accounts.services import (
    AccountData,
    account_deactivate,
    account_invite,
    account_reactivate,
    account_save,
    accounts_import_csv,
    oidc_identity_link,
)
from medreview.drf import report_or_validation_errors


def _data(validated: dict, username: str | None = None) -> AccountData:
    return AccountData(
        username=username or validated["username"], role=validated["role"], email=validated.get("email", ""),
        rank=validated.get("rank", ""), specialties=tuple(validated.get("specialties", ())),
        languages=tuple(validated.get("languages", ())), first_name=validated.get("first_name", ""),
        last_name=validated.get("last_name", ""),
    )


class AccountListAPI(APIView):
    @extend_schema(responses=AccountSerializer(many=True), summary="Every account (admins)")
    def get(self, request: Request) -> Response:
        return Response(AccountSerializer(access.access_accounts_for_management(request.user), many=True).data)

    @extend_schema(request=AccountSerializer, responses={201: AccountSerializer, 200: AccountSerializer},
                   summary="Create an account, or update the one with this username (admins)")
    def post(self, request: Request) -> Response:
        access.check_can_manage_accounts(request.user)
        incoming = AccountSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        user, created = account_save(data=_data(incoming.validated_data))
        return Response(AccountSerializer(user).data, status=201 if created else 200)


class AccountDetailAPI(APIView):
    @extend_schema(responses=AccountSerializer, summary="One account (admins)")
    def get(self, request: Request, username: str) -> Response:
        return Response(AccountSerializer(access.access_account_for_management(request.user, username)).data)

    @extend_schema(request=AccountSerializer, responses=AccountSerializer, summary="Update an account (admins)")
    def put(self, request: Request, username: str) -> Response:
        user = access.access_account_for_management(request.user, username)
        incoming = AccountSerializer(data={**request.data, "username": user.username})
        incoming.is_valid(raise_exception=True)
        user, _ = account_save(data=_data(incoming.validated_data, user.username))
        return Response(AccountSerializer(user).data)


class AccountDeactivateAPI(APIView):
    @extend_schema(request=None, responses=AccountSerializer,
                   summary="Deactivate: no sign-in, sessions ended, invitation and tokens void; every label is kept "
                           "(admins; not your own account, not the last superuser or admin)")
    def post(self, request: Request, username: str) -> Response:
        user = access.access_account_for_management(request.user, username)
        account_deactivate(user=user, by=request.user)
        return Response(AccountSerializer(user).data)


class AccountReactivateAPI(APIView):
    @extend_schema(request=None, responses=AccountSerializer, summary="Reactivate an account (admins); its password is gone: invite it again")
    def post(self, request: Request, username: str) -> Response:
        user = access.access_account_for_management(request.user, username)
        account_reactivate(user=user)
        return Response(AccountSerializer(user).data)


class AccountInviteAPI(APIView):
    @extend_schema(request=None, responses=InvitationSerializer,
                   summary="E-mail a one-time link to choose a password (admins)")
    def post(self, request: Request, username: str) -> Response:
        user = access.access_account_for_management(request.user, username)
        link = account_invite(user=user, base_url=request.build_absolute_uri("/"))
        return Response({"username": user.username, "emailed": bool(user.email), "link": "" if user.email else link})


class AccountImportAPI(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request={"multipart/form-data": AccountImportSerializer},
        responses={200: AccountImportReportSerializer, 201: AccountImportReportSerializer,
                   400: report_or_validation_errors("AccountImportReport")},
        summary="Create or update accounts from CSV; one bad row refuses the whole file (admins)",
    )
    def post(self, request: Request) -> Response:
        access.check_can_manage_accounts(request.user)
        incoming = AccountImportSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        report = accounts_import_csv(data=incoming.validated_data["file"].read(),
                                     dry_run=incoming.validated_data["dry_run"])
        status = 400 if report.errors else (200 if report.dry_run else 201)
        return Response(report.to_dict(), status=status)


class AccountOIDCIdentityListAPI(APIView):
    @extend_schema(responses=OIDCIdentitySerializer(many=True),
                   summary="The single sign-on identities that reach this account (admins)")
    def get(self, request: Request, username: str) -> Response:
        user = access.access_account_for_management(request.user, username)
        return Response(OIDCIdentitySerializer(user.oidc_identities.select_related("linked_by"), many=True).data)

    @extend_schema(request=OIDCIdentitySerializer, responses={201: OIDCIdentitySerializer},
                   summary="Map a provider's person (issuer, subject) to this existing account (admins); "
                           "refused for superuser and staff accounts")
    def post(self, request: Request, username: str) -> Response:
        user = access.access_account_for_management(request.user, username)
        incoming = OIDCIdentitySerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        identity = oidc_identity_link(
            user=user, issuer=incoming.validated_data.get("issuer") or settings.OIDC_OP_ISSUER,
            subject=incoming.validated_data["subject"], linked_by=request.user,
        )
        return Response(OIDCIdentitySerializer(identity).data, status=201)


class AccountOIDCIdentityDetailAPI(APIView):
    @extend_schema(request=None, responses={204: None},
                   summary="Unlink: single sign-on as this identity no longer reaches the account (admins)")
    def delete(self, request: Request, username: str, pk: int) -> Response:
        user = access.access_account_for_management(request.user, username)
        get_object_or_404(user.oidc_identities, pk=pk).delete()
        return Response(status=204)
