"""Problems as exceptions: every error answer of the service is a problem document
(application/problem+json, RFC 9457); the client raises it as a ProblemError, or the subclass its
status names (NotFoundError for a 404, ValidationError for a 422, ...), carrying its fields."""

from __future__ import annotations

from typing import Any


class ProblemError(Exception):
    """An error answer: `status`, `type`, `title`, `detail`, `code`, `errors` (the fields that
    failed validation: [{"path", "message"}]), `request_id`, and the whole document in `problem`."""

    def __init__(self, problem: dict[str, Any]) -> None:
        self.problem = problem
        self.status: int = int(problem.get("status", 0))
        self.type: str = str(problem.get("type", "about:blank"))
        self.title: str = str(problem.get("title", ""))
        self.detail: str = str(problem.get("detail", ""))
        self.code: str = str(problem.get("code", ""))
        self.errors: list[dict[str, str]] = list(problem.get("errors") or [])
        self.request_id: str = str(problem.get("request_id", ""))
        super().__init__(f"{self.status} {self.title}: {self.detail}")


class BadRequestError(ProblemError):
    """400: the request could not be read (a body that is not JSON, say)."""


class UnauthorizedError(ProblemError):
    """401: no token, or one that is invalid or expired (mint a new one)."""


class ForbiddenError(ProblemError):
    """403: the token's roles do not grant the action."""


class NotFoundError(ProblemError):
    """404: no such entry, tenant or route."""


class ConflictError(ProblemError):
    """409: the entry or tenant is not in a state that allows the action."""


class UnsupportedMediaTypeError(ProblemError):
    """415: the body is not of the media type the route reads."""


class ValidationError(ProblemError):
    """422: the body or a parameter failed validation; `errors` lists each field."""


class RateLimitedError(ProblemError):
    """429: too many requests; the answer's Retry-After says when to retry."""


class ServerError(ProblemError):
    """5xx: the service (or what sits in front of it) failed."""


_BY_STATUS: dict[int, type[ProblemError]] = {
    400: BadRequestError,
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    415: UnsupportedMediaTypeError,
    422: ValidationError,
    429: RateLimitedError,
}


def problem_error(problem: dict[str, Any]) -> ProblemError:
    """The exception for a problem document, by its status."""
    status = int(problem.get("status", 0))
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else ProblemError)
    return cls(problem)
