from django.http import HttpRequest

from accounts.roles import user_role


def roles(request: HttpRequest) -> dict[str, str | None]:
    return {"role": user_role(request.user)}
