from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("invitation/<uidb64>/<token>/", views.InvitationView.as_view(), name="invitation"),
]
