"""Submit and the next item in one response, for the rating screen's script (issue 16).

The rating page's own POST (`annotation:rate`) answers a successful submit with a redirect to the
next claimed item, which costs the browser a second request before it can show it. This view runs
that same POST and, when it redirects to a rating page, renders that page in the same response
(with `X-Location` naming its address, which the script puts in the address bar), so the physician
has the next item after one round trip. Everything else (validation errors, "nothing left", "back to
my queue") is the rate view's own answer, unchanged.

It adds no logic of its own: submitting and claiming stay in the rate view and the services, so
the queue's guarantees are exactly those of the ordinary submit (the next item is claimed only
because this submit asked for it, as before).
"""

from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve, reverse
from django.views.decorators.http import require_POST


@require_POST
def submit_and_next(request: HttpRequest, pk: int) -> HttpResponse:
    rate = resolve(reverse("annotation:rate", kwargs={"pk": pk})).func
    response = rate(request, pk=pk)
    if response.status_code != 302:
        return response
    location = response["Location"]
    try:
        match = resolve(location)
    except Resolver404:
        return response
    if match.view_name != "annotation:rate":
        return response
    # The redirect's GET, served now: same user, same session, the same view.
    request.method = "GET"
    page = match.func(request, *match.args, **match.kwargs)
    page["X-Location"] = location
    page["Cache-Control"] = "no-store"
    return page
