"""The one HTTP step under the generated methods, over the standard library (urllib.request,
json): the path template filled, the query encoded, the bearer token sent, the answer decoded, an
error answer raised as a ProblemError. Hand-written; client.py is generated."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

from .errors import ProblemError, problem_error

Token = str | Callable[[], str]

_DETAIL_MAX = 500


class Transport:
    def __init__(self, base_url: str, token: Token | None, timeout: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def url(self, template: str, path: Mapping[str, str], query: Mapping[str, Any]) -> str:
        for name, value in path.items():
            template = template.replace("{" + name + "}", urllib.parse.quote(str(value), safe=""))
        pairs: list[tuple[str, str]] = []
        for name, value in query.items():
            if value is None:
                continue
            # An array parameter is repeated (`categories=fact&categories=decision`).
            for item in value if isinstance(value, (list, tuple)) else [value]:
                pairs.append((name, _scalar(item)))
        return self.base_url + template + ("?" + urllib.parse.urlencode(pairs) if pairs else "")

    def request(
        self,
        method: str,
        template: str,
        *,
        path: Mapping[str, str],
        query: Mapping[str, Any],
        headers: Mapping[str, Any],
        body: Any = None,
        content_type: str | None = None,
    ) -> Any:
        sent = {"accept": "application/json, application/problem+json;q=0.9, */*;q=0.1"}
        sent.update({k: str(v) for k, v in headers.items() if v is not None})
        if self.token is not None:
            sent["authorization"] = "Bearer " + (self.token() if callable(self.token) else self.token)
        data: bytes | None = None
        if body is not None:
            if content_type == "application/json":
                data = json.dumps(body).encode()
            else:
                data = body.encode() if isinstance(body, str) else bytes(body)
            sent["content-type"] = content_type or "application/octet-stream"
        req = urllib.request.Request(self.url(template, path, query), data=data, headers=sent, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                return _decode(res.read(), res.headers.get("content-type", ""))
        except urllib.error.HTTPError as err:
            raise _problem(err) from None


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _decode(raw: bytes, content_type: str) -> Any:
    if not raw:
        return None
    if "json" in content_type:
        return json.loads(raw)
    return raw.decode("utf-8", "replace")


def _problem(err: urllib.error.HTTPError) -> ProblemError:
    raw = err.read()
    try:
        doc = json.loads(raw)
        if isinstance(doc, dict) and isinstance(doc.get("status"), int) and "title" in doc:
            return problem_error(doc)
    except ValueError:
        pass
    # What sits in front of the service may answer otherwise (a proxy's HTML 502).
    return problem_error(
        {
            "type": "about:blank",
            "title": f"HTTP {err.code}",
            "status": err.code,
            "detail": raw.decode("utf-8", "replace")[:_DETAIL_MAX] or f"The server answered {err.code}",
            "code": "unexpected_response",
            "request_id": err.headers.get("x-request-id", "") if err.headers else "",
        }
    )
