"""Small helpers shared by the e2e tests (kept out of conftest so test modules can import them)."""

from __future__ import annotations

import json
import queue
import threading
import time

import yaml


def wait_until(predicate, timeout: float = 10.0, interval: float = 0.05, message: str = "condition"):
    """Poll predicate until it returns a truthy value (returned) or the deadline passes (AssertionError)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {message}")
        time.sleep(interval)


# The ConfigMap the root CA publisher (kube-controller-manager's root-ca-cert-publisher) puts into every namespace
# a moment after it is made: tests that count or list a namespace's ConfigMaps leave it out or wait for it.
ROOT_CA_CONFIG_MAP = "kube-root-ca.crt"


def _name_of(item) -> str | None:
    if isinstance(item, str):  # a name, or kubectl's "configmap/<name>"
        kind, _, name = item.rpartition("/")
        return name if kind in ("", "configmap") else None
    if isinstance(item, dict):
        if isinstance(item.get("object"), dict) and "type" in item:  # a watch event
            return _name_of(item["object"])
        if item.get("kind") not in (None, "ConfigMap"):  # (the items of a typed list have no kind)
            return None
        meta = item.get("metadata")
        if isinstance(meta, dict):
            return meta.get("name")
        return item.get("NAME")  # a row of parse_table
    if getattr(item, "kind", None) not in (None, "ConfigMap"):  # a model of the Python client
        return None
    return getattr(getattr(item, "metadata", None), "name", None)


def is_root_ca(item) -> bool:
    """Whether item (a name, "configmap/<name>", an object, a watch event, a client model or a table row) is
    the namespace's kube-root-ca.crt ConfigMap."""
    return _name_of(item) == ROOT_CA_CONFIG_MAP


def without_root_ca(items) -> list:
    """items (as is_root_ca takes them) less the namespace's kube-root-ca.crt ConfigMap, in their order."""
    return [i for i in items if not is_root_ca(i)]


def wait_for_root_ca(server, namespace: str, timeout: float = 10.0) -> dict:
    """Wait until the root CA publisher has made kube-root-ca.crt in namespace; returns the ConfigMap."""

    def get():
        r = server.request("GET", f"/api/v1/namespaces/{namespace}/configmaps/{ROOT_CA_CONFIG_MAP}")
        return r.json() if r.status_code == 200 else None

    return wait_until(get, timeout=timeout, message=f"{ROOT_CA_CONFIG_MAP} in namespace {namespace}")


def free_form_crd(group: str, plural: str, kind: str, scope: str = "Namespaced") -> dict:
    """A CustomResourceDefinition of one served and stored version, v1, whose objects may hold anything."""
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": scope,
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": schema}],
        },
    }


def apply_crd(server, crd: dict) -> None:
    """kubectl apply of the CRD, then wait until it is established."""
    server.kubectl("apply", "-f", "-", input=json.dumps(crd))
    server.kubectl("wait", "--for", "condition=established", f"crd/{crd['metadata']['name']}", "--timeout=10s")


def parse_table(text: str) -> list[dict[str, str]]:
    """Parse kubectl's column output into dicts, cutting at the header's column starts (cells may be empty)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return []
    header = lines[0]
    starts, names = [], []
    # Columns are separated by at least two spaces ("NOMINATED NODE" has one inside).
    pos = 0
    for part in header.split("  "):
        if part.strip():
            idx = header.index(part.strip(), pos)
            starts.append(idx)
            names.append(part.strip())
            pos = idx + len(part.strip())
    rows = []
    for line in lines[1:]:
        row = {}
        for n, (name, start) in enumerate(zip(names, starts, strict=True)):
            end = starts[n + 1] if n + 1 < len(starts) else None
            row[name] = line[start:end].strip()
        rows.append(row)
    return rows


def header_of(text: str) -> list[str]:
    first = text.splitlines()[0]
    return [p.strip() for p in first.split("  ") if p.strip()]


def yaml_docs(text: str):
    return [d for d in yaml.safe_load_all(text) if d]


def dump(obj) -> str:
    return json.dumps(obj)


class LineReader:
    """Collect a subprocess's stdout lines on a thread so tests can wait for lines with a deadline."""

    def __init__(self, stream):
        self.lines: list[str] = []
        self._q: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream):
        for line in stream:
            with self._lock:
                self.lines.append(line.rstrip("\n"))

    def snapshot(self) -> list[str]:
        with self._lock:
            return list(self.lines)

    def wait_for(self, predicate, timeout: float = 10.0, message: str = "a line"):
        """Wait for a line satisfying predicate; returns it."""

        def find():
            for line in self.snapshot():
                if predicate(line):
                    return line
            return None

        try:
            return wait_until(find, timeout=timeout, message=message)
        except AssertionError as e:
            raise AssertionError(f"{e}; lines so far: {self.snapshot()!r}") from None


def status_of(r, code: int, reason: str) -> dict:
    """The body of a failed request, checked to be a Status as kube-apiserver writes it."""
    assert r.status_code == code, r.text[:500]
    assert r.headers["Content-Type"] == "application/json", r.headers
    body = json.loads(r.text)  # dicts keep the document's key order
    assert body["kind"] == "Status" and body["apiVersion"] == "v1", body
    assert body["status"] == "Failure" and body["reason"] == reason and body["code"] == code, body
    assert body["metadata"] == {}
    return body


def invalid_status(r) -> dict:
    """The 422 Invalid Status of a request validation refused."""
    return status_of(r, 422, "Invalid")


def kubectl_refused(server, verb: str, obj: dict) -> str:
    """kubectl <verb> -f - of obj, which the server must refuse: kubectl's stderr."""
    res = server.kubectl(verb, "-f", "-", input=yaml.safe_dump(obj), check=False)
    assert res.returncode != 0, res.stdout
    return res.stderr
