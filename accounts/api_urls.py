from django.urls import path

from accounts import api

app_name = "accounts_api"

urlpatterns = [
    path("", api.AccountListAPI.as_view(), name="account_list"),
    path("import/", api.AccountImportAPI.as_view(), name="account_import"),
    path("<str:username>/", api.AccountDetailAPI.as_view(), name="account_detail"),
    path("<str:username>/deactivate/", api.AccountDeactivateAPI.as_view(), name="account_deactivate"),
    path("<str:username>/reactivate/", api.AccountReactivateAPI.as_view(), name="account_reactivate"),
    path("<str:username>/invite/", api.AccountInviteAPI.as_view(), name="account_invite"),
    path("<str:username>/oidc-identities/", api.AccountOIDCIdentityListAPI.as_view(),
         name="account_oidc_identities"),
    path("<str:username>/oidc-identities/<int:pk>/", api.AccountOIDCIdentityDetailAPI.as_view(),
         name="account_oidc_identity"),
]
