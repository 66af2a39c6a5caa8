"""What a Python user's program does with the generated client (test/client/python.test.ts runs
it against a live server): write a fact, read it back, find it by search, then a miss and a bad
body raised as their typed problems. Prints one JSON line."""

import json
import os
import sys

from typed_memory import Client, NotFoundError, ProblemError, ValidationError
from typed_memory.models import FactInput

memory = Client(os.environ["BASE_URL"], os.environ["TOKEN"])
content = os.environ["CONTENT"]
fact: FactInput = {"content": content, "tags": ["python"]}
written = memory.post_memory_facts(fact, idempotency_key="py-1")
read = memory.get_memory_facts_by_sha8(written["id"])
found = memory.post_memory_search({"query": content, "categories": ["fact"]})
page = memory.get_memory_facts(limit=5, tag="python")
out = {
    "category": written["category"],
    "read_back": read["content"] == content,
    "found": any(r["entry"]["id"] == written["id"] for r in found["results"]),
    "listed": [e["id"] for e in page["items"]] == [written["id"]],
}
try:
    memory.get_memory_facts_by_sha8("00000000")
except NotFoundError as e:
    out["missing"] = {"class": type(e).__name__, "status": e.status, "code": e.code}
try:
    memory.post_memory_facts({"content": ""})  # type: ignore[typeddict-item]
except ValidationError as e:
    out["invalid"] = {
        "class": type(e).__name__,
        "status": e.status,
        "is_problem": isinstance(e, ProblemError),
        "paths": [err["path"] for err in e.errors],
        "type": e.type,
    }
json.dump(out, sys.stdout)
print()
