"""A small OpenID Connect provider for tests and local trials: no network, no real identity provider.

Serves on 127.0.0.1 (a free port unless given):

    /.well-known/openid-configuration   discovery
    /jwks                               the public key (RS256; generated at start, never stored)
    /authorize                          approves at once as `provider.next_user` and redirects back
    /token                              authorization code -> access token + signed ID token
    /userinfo                           the claims, for a Bearer access token

It checks what a real provider checks on the code flow (client id and secret, redirect URI, one use
per code, the nonce carried into the ID token) so the relying party is tested against the protocol,
not against a stub that accepts anything.

    with OIDCProvider(client_id="medreview", client_secret="s3cret") as provider:
        provider.next_user = {"sub": "u-1", "preferred_username": "dr.ada", "email": "...", "groups": [...]}
        ... provider.issuer, provider.discovery() ...

Also runnable by hand: `python -m devtools.oidc_provider --port 8766 --user dr.ada --groups physicians`.
"""

from __future__ import annotations

import argparse
import base64
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _int_b64url(value: int) -> str:
    return _b64url(value.to_bytes((value.bit_length() + 7) // 8, "big"))


class OIDCProvider:
    def __init__(self, *, client_id: str = "medreview", client_secret: str = "test-secret",  # noqa: S107
                 port: int = 0) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self.port = port
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = secrets.token_hex(8)
        self.next_user: dict[str, Any] = {"sub": "user-1", "preferred_username": "user1", "email": "user1@example.org"}
        self.codes: dict[str, dict[str, Any]] = {}
        self.access_tokens: dict[str, dict[str, Any]] = {}
        self.requests: list[str] = []  # paths served, for assertions
        # Merged into the userinfo answer only (not the ID token): a provider answering about
        # someone else, which a relying party must refuse.
        self.userinfo_extra: dict[str, Any] = {}
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -----------------------------------------------------------------------------

    def start(self) -> OIDCProvider:
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), _handler_for(self))
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> OIDCProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # --- documents -----------------------------------------------------------------------------

    def discovery(self) -> dict[str, Any]:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "userinfo_endpoint": f"{self.issuer}/userinfo",
            "jwks_uri": f"{self.issuer}/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "profile"],
            "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
        }

    def jwks(self) -> dict[str, Any]:
        numbers = self.key.public_key().public_numbers()
        return {"keys": [{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": self.kid,
                          "n": _int_b64url(numbers.n), "e": _int_b64url(numbers.e)}]}

    def sign(self, claims: dict[str, Any]) -> str:
        header = {"alg": "RS256", "typ": "JWT", "kid": self.kid}
        signing_input = (_b64url(json.dumps(header).encode()) + "." + _b64url(json.dumps(claims).encode())).encode()
        signature = self.key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        return signing_input.decode() + "." + _b64url(signature)

    # --- the code flow ---------------------------------------------------------------------------

    def authorize(self, query: dict[str, str]) -> tuple[int, dict[str, str], dict[str, Any]]:
        """(status, headers, body): a redirect to the client with a code, or an error."""
        if query.get("client_id") != self.client_id or query.get("response_type") != "code":
            return 400, {}, {"error": "unauthorized_client"}
        if "openid" not in query.get("scope", "").split():
            return 400, {}, {"error": "invalid_scope"}
        code = secrets.token_urlsafe(16)
        self.codes[code] = {"user": dict(self.next_user), "nonce": query.get("nonce"),
                            "redirect_uri": query.get("redirect_uri")}
        target = query["redirect_uri"] + "?" + urlencode({"code": code, "state": query.get("state", "")})
        return 302, {"Location": target}, {}

    def token(self, form: dict[str, str], basic: tuple[str, str] | None) -> tuple[int, dict[str, Any]]:
        client_id, client_secret = basic or (form.get("client_id"), form.get("client_secret"))
        if (client_id, client_secret) != (self.client_id, self.client_secret):
            return 401, {"error": "invalid_client"}
        grant = self.codes.pop(form.get("code", ""), None)  # a code works once
        if form.get("grant_type") != "authorization_code" or grant is None:
            return 400, {"error": "invalid_grant"}
        if form.get("redirect_uri") != grant["redirect_uri"]:
            return 400, {"error": "invalid_grant", "error_description": "redirect_uri differs"}
        now = int(time.time())
        claims = {**grant["user"], "iss": self.issuer, "aud": self.client_id, "iat": now, "exp": now + 300}
        if grant["nonce"]:
            claims["nonce"] = grant["nonce"]
        access = secrets.token_urlsafe(24)
        self.access_tokens[access] = grant["user"]
        return 200, {"access_token": access, "token_type": "Bearer", "expires_in": 300, "id_token": self.sign(claims)}

    def userinfo(self, authorization: str) -> tuple[int, dict[str, Any]]:
        scheme, _, value = authorization.partition(" ")
        user = self.access_tokens.get(value) if scheme.lower() == "bearer" else None
        return (200, {**user, **self.userinfo_extra}) if user is not None else (401, {"error": "invalid_token"})


def _handler_for(provider: OIDCProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
            pass

        def _send(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            payload = json.dumps(body).encode()
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            url = urlsplit(self.path)
            provider.requests.append(url.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if url.path == "/.well-known/openid-configuration":
                self._send(200, provider.discovery())
            elif url.path == "/jwks":
                self._send(200, provider.jwks())
            elif url.path == "/authorize":
                status, headers, body = provider.authorize(query)
                self._send(status, body, headers)
            elif url.path == "/userinfo":
                self._send(*provider.userinfo(self.headers.get("Authorization", "")))
            else:
                self._send(404, {"error": "not_found"})

        def do_POST(self) -> None:  # noqa: N802
            url = urlsplit(self.path)
            provider.requests.append(url.path)
            length = int(self.headers.get("Content-Length") or 0)
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            basic = None
            scheme, _, value = self.headers.get("Authorization", "").partition(" ")
            if scheme.lower() == "basic":
                user, _, password = base64.b64decode(value).decode().partition(":")
                basic = (user, password)
            if url.path == "/token":
                self._send(*provider.token(form, basic))
            else:
                self._send(404, {"error": "not_found"})

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--client-id", default="medreview")
    parser.add_argument("--client-secret", default="test-secret")
    parser.add_argument("--user", default="dr.ada")
    parser.add_argument("--email", default="dr.ada@example.org")
    parser.add_argument("--groups", default="physicians", help="comma-separated")
    args = parser.parse_args()
    provider = OIDCProvider(client_id=args.client_id, client_secret=args.client_secret, port=args.port)
    provider.next_user = {"sub": args.user, "preferred_username": args.user, "email": args.email,
                          "groups": [g for g in args.groups.split(",") if g]}
    provider.start()
    print(f"OIDC provider at {provider.issuer} (discovery: {provider.issuer}/.well-known/openid-configuration)")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        provider.stop()


if __name__ == "__main__":
    main()
