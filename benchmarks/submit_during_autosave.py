#!/usr/bin/env python3
"""Submit during an autosave against the quick start (issue 21): no server error on SQLite.

    python3 dev.py demo            # in another terminal (SQLite, runserver, the task worker)
    .venv/bin/python benchmarks/submit_during_autosave.py [--url http://127.0.0.1:8000] [--attempts 50]

What the page does when a physician presses Enter while an autosave is on the wire, done as fast as
the server answers: the demo physicians (physician1, physician2) sign in over HTTP, claim the next
item of each demo study they rate, and for each attempt post a draft save from one thread while the
other posts submit-and-next with the same labels (every field's first choice). When no item is left
to claim, an attempt re-submits (an edit) the last submitted item that is still open, so the
database keeps seeing two writers. Prints the attempts, every answer by status, and the figure that
matters: server errors (HTTP 500 and other 5xx; a 503 is the busy answer the page retries, counted
apart). Exits 1 when a server error was seen.
"""

from __future__ import annotations

import argparse
import collections
import http.cookiejar
import re
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

PASSWORD = "demo-pass-2026"  # noqa: S105 - the demo logins printed by load_demo
RADIO = re.compile(r'<input type="radio" name="([^"]+)" value="([^"]*)"')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
NEXT_FORM = re.compile(r'action="(/review/studies/\d+/next/)"')


class Session:
    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def request(self, path: str, data: dict[str, str] | None = None) -> tuple[int, str, str]:
        """(status, final path, body); HTTP errors are answers, not exceptions."""
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        req = urllib.request.Request(self.base + path, data=body, headers={"Referer": self.base + "/"})
        try:
            with self.opener.open(req, timeout=120) as response:
                return response.status, urllib.parse.urlparse(response.url).path, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, path, exc.read().decode(errors="replace")

    def csrf(self) -> str:
        return next((c.value for c in self.jar if c.name == "csrftoken"), "")

    def sign_in(self, username: str) -> None:
        _status, _path, page = self.request("/accounts/login/")
        token = CSRF.search(page).group(1)
        status, path, _ = self.request("/accounts/login/", {"csrfmiddlewaretoken": token, "username": username,
                                                            "password": PASSWORD})
        if path.startswith("/accounts/login"):
            sys.exit(f"could not sign in as {username} (HTTP {status}); is `python3 dev.py demo` running?")


def labels_of(page: str) -> dict[str, str]:
    """Every field of the rating form with its first choice (what a quick physician would press)."""
    labels: dict[str, str] = {}
    for name, value in RADIO.findall(page):
        labels.setdefault(name, value)
    return labels


def attempt(session: Session, path: str, page: str, tally: collections.Counter) -> str | None:
    """One submit during an autosave on the item at `path`; returns where the server went next."""
    labels = labels_of(page)
    if not labels:
        return None
    form = {"csrfmiddlewaretoken": session.csrf(), "seconds_spent": "5", **labels}
    answers: list[int] = []

    def draft() -> None:
        status, _p, _b = session.request(path + "draft/", form)
        answers.append(status)

    saver = threading.Thread(target=draft)
    saver.start()
    for _retry in range(10):  # the page retries the busy answer, so does this
        status, next_path, body = session.request(path + "submit-next/", form)
        tally[f"submit {status}"] += 1
        if status != 503:
            break
        time.sleep(1)
    saver.join()
    for status in answers:
        tally[f"draft {status}"] += 1
    return next_path if RADIO.search(body) else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--attempts", type=int, default=50)
    args = parser.parse_args()
    sessions = []
    for username in ("physician1", "physician2"):
        session = Session(args.url)
        session.sign_in(username)
        sessions.append(session)
    tally: collections.Counter = collections.Counter()
    done = 0
    recent: dict[int, list[str]] = {0: [], 1: []}
    started = time.monotonic()
    while done < args.attempts:
        progressed = False
        for i, session in enumerate(sessions):
            _s, _p, dashboard = session.request("/review/")
            for next_url in dict.fromkeys(NEXT_FORM.findall(dashboard)):
                if done >= args.attempts:
                    break
                status, path, page = session.request(next_url, {"csrfmiddlewaretoken": session.csrf()})
                tally[f"claim {status}"] += 1
                if not re.fullmatch(r"/review/assignments/\d+/", path) or not labels_of(page):
                    continue
                attempt(session, path, page, tally)
                recent[i].append(path)
                done += 1
                progressed = True
        if not progressed:
            # Nothing left to claim: edit the last submitted items (still open) under the same race.
            for i, session in enumerate(sessions):
                for path in reversed(recent[i][-5:]):
                    if done >= args.attempts:
                        break
                    status, _p, page = session.request(path + "?edit=1")
                    if 'id="submit-rating"' not in page:
                        continue
                    attempt(session, path, page, tally)
                    done += 1
                    progressed = True
        if not progressed:
            print("no item left to claim or edit; stopped early")
            break
    seconds = time.monotonic() - started
    errors = sum(n for key, n in tally.items() if key.split()[1].startswith("5") and key.split()[1] != "503")
    busy = sum(n for key, n in tally.items() if key.split()[1] == "503")
    print(f"attempts: {done} in {seconds:.1f} s against {args.url}")
    for key in sorted(tally):
        print(f"  {key}: {tally[key]}")
    print(f"server errors: {errors}   busy answers (retried): {busy}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
