from django.urls import path

from accounts import views
from accounts.invitations import views as invitation_views

app_name = "accounts"

urlpatterns = [
    path("invitation/<uidb64>/<token>/", views.InvitationView.as_view(), name="invitation"),
    path("people/", invitation_views.people, name="people"),
    path("people/<str:username>/resend/", invitation_views.people_resend, name="people_resend"),
    path("people/<str:username>/revoke/", invitation_views.people_revoke, name="people_revoke"),
]
