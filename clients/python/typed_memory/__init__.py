"""A Python client of the typed-memory runtime's HTTP API, generated from its OpenAPI document
(`bun run client:python`), on the standard library only.

    from typed_memory import Client, NotFoundError
    memory = Client("http://127.0.0.1:8080", token)
    fact = memory.post_memory_facts({"content": "Acme renews in March"})
"""

from . import models
from .client import Client
from .errors import (
    BadRequestError,
    ConflictError,
    ForbiddenError,
    NotFoundError,
    ProblemError,
    RateLimitedError,
    ServerError,
    UnauthorizedError,
    UnsupportedMediaTypeError,
    ValidationError,
)

__all__ = [
    "BadRequestError",
    "Client",
    "ConflictError",
    "ForbiddenError",
    "NotFoundError",
    "ProblemError",
    "RateLimitedError",
    "ServerError",
    "UnauthorizedError",
    "UnsupportedMediaTypeError",
    "ValidationError",
    "models",
]
