"""Content negotiation (k8s.io/apiserver/pkg/endpoints/handlers/negotiation).

Output forms a client can ask for with Accept:
  json, yaml                          the object itself
  table                               meta.k8s.io Table (as=Table;g=meta.k8s.io;v=v1|v1beta1), JSON or YAML
  pom                                 PartialObjectMetadata(List) (as=PartialObjectMetadata[List]), JSON or YAML
  discovery                           apidiscovery.k8s.io APIGroupDiscoveryList (v2 or v2beta1)
Protobuf is not offered: clients that ask for it list JSON as well.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import orjson

from kube_apiserver.runtime.errors import StatusError, new_not_acceptable, new_unsupported_media_type
from kube_apiserver.runtime.serializer import encode_yaml

JSON = "application/json"
YAML = "application/yaml"


@dataclass(frozen=True)
class MediaType:
    type: str
    params: dict[str, str] = field(default_factory=dict)
    q: float = 1.0


@dataclass(frozen=True)
class Output:
    form: str  # json, yaml, table, pom, discovery
    version: str = ""  # Table: v1 or v1beta1; discovery: v2 or v2beta1
    content_type: str = JSON
    as_kind: str = ""  # pom: PartialObjectMetadata or PartialObjectMetadataList, as the client asked


_POM_KINDS = ("PartialObjectMetadata", "PartialObjectMetadataList")


def _quality(value: str) -> float:
    """A clause's q as goautoneg reads it (strconv.ParseFloat): anything that is not a number is 0."""
    if value != value.strip(" ") or "_" in value:  # Go's parser takes neither padding nor digit separators
        return 0.0
    try:
        return float(value)
    except ValueError:
        return 0.0


def _before(a: MediaType, b: MediaType) -> bool:
    """goautoneg's Less: higher q first, then a concrete type or subtype before a wildcard (each test on
    its own, as written there, so a wildcard of higher q can still come after a concrete type)."""
    a_type, _, a_sub = a.type.partition("/")
    b_type, _, b_sub = b.type.partition("/")
    if a.q > b.q:
        return True
    if a_type != "*" and b_type == "*":
        return True
    return a_sub != "*" and b_sub == "*"


def parse_accept(header: str) -> list[MediaType]:
    """goautoneg.ParseAccept: the clauses of an Accept header in the order negotiation tries them. A clause
    with q=0 is kept (kube-apiserver 1.33 matches it like any other: NegotiateMediaTypeOptions has no
    quality check), and a clause that is not type/subtype (or "*") is dropped."""
    out: list[MediaType] = []
    for part in header.split(","):
        pieces = part.strip(" ").split(";")
        kind, slash, sub = pieces[0].lower().partition("/")
        kind, sub = kind.strip(), sub.strip()
        if not slash:
            if kind != "*":
                continue
            sub = "*"
        elif "/" in sub:
            continue
        media = f"{kind}/{sub}"
        params: dict[str, str] = {}
        q = 1.0
        for p in pieces[1:]:
            k, eq, v = p.partition("=")
            if not eq or "=" in v:
                continue
            k = k.strip().lower()
            if k == "q":
                q = _quality(v)
            else:
                params[k] = v.strip().strip('"')
        out.append(MediaType(media, params, q))
    # sort.Sort on so few clauses is Go's insertion sort; with goautoneg's Less, which is not a strict
    # order, the result depends on that algorithm, so it is the one used here
    for i in range(1, len(out)):
        j = i
        while j > 0 and _before(out[j], out[j - 1]):
            out[j], out[j - 1] = out[j - 1], out[j]
            j -= 1
    return out


def _is_json(t: str) -> bool:
    return t in (JSON, "*/*", "application/*", "application/json-seq")


@lru_cache(maxsize=512)  # clients send the same few Accept headers on every request
def negotiate(
    header: str, *, table: bool = False, pom: bool = False, discovery: bool = False, stream: bool = False
) -> Output:
    """Pick the first acceptable form. discovery=True: never 406, fall back to plain JSON. stream=True (a
    watch): a first choice with no stream form (YAML) is a 406 (NegotiateOutputMediaTypeStream)."""
    if not header:
        return Output("json")
    for m in parse_accept(header):
        as_ = m.params.get("as", "")
        g = m.params.get("g", "")
        v = m.params.get("v", "")
        if as_:
            if not (_is_json(m.type) or m.type == YAML):
                continue
            meta_version = g == "meta.k8s.io" and v in ("v1", "v1beta1")
            if meta_version and ((table and as_ == "Table") or (pom and as_ in _POM_KINDS)):
                # AllowsMediaTypeTransform: a Table or PartialObjectMetadata(List) is written in JSON or
                # YAML, as the clause asks; a watch has no YAML stream (NegotiateOutputMediaTypeStream)
                if m.type == YAML and stream:
                    raise new_not_acceptable(stream=True)
                content_type = YAML if m.type == YAML else JSON
                if as_ == "Table":
                    return Output("table", v, content_type=content_type)
                return Output("pom", v, content_type=content_type, as_kind=as_)
            if discovery and as_ == "APIGroupDiscoveryList" and g == "apidiscovery.k8s.io" and v in ("v2", "v2beta1"):
                return Output("discovery", v)
            continue
        if _is_json(m.type):
            return Output("json")
        if m.type == YAML:
            if stream:
                raise new_not_acceptable(stream=True)
            return Output("yaml", content_type=YAML)
    if discovery:
        return Output("json")
    raise new_not_acceptable(stream=stream)


def encode_transformed(out: Output, doc: Any) -> bytes:
    """A Table or PartialObjectMetadata(List) in the media type its clause named (Output.content_type)."""
    return encode_yaml(doc) if out.content_type == YAML else orjson.dumps(doc)


PROTOBUF = "application/vnd.kubernetes.protobuf"
# Built-in types also take protobuf bodies: kubectl's typed commands and Go clients send them.
READ_TYPES = (JSON, YAML, PROTOBUF)
PATCH_TYPES = (
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
)


def request_media_type(content_type: str, allowed: tuple[str, ...] = READ_TYPES) -> str:
    """The media type of a request body, or 415 UnsupportedMediaType."""
    media = content_type.split(";")[0].strip().lower() or JSON
    if media not in allowed:
        raise new_unsupported_media_type(media)
    return media


def is_status_error(e: BaseException) -> bool:
    return isinstance(e, StatusError)
