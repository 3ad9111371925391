"""Content negotiation (k8s.io/apiserver/pkg/endpoints/handlers/negotiation).

Output forms a client can ask for with Accept:
  json, yaml                          the object itself
  table                               meta.k8s.io Table (as=Table;g=meta.k8s.io;v=v1|v1beta1)
  pom                                 PartialObjectMetadata(List) (as=PartialObjectMetadata[List])
  discovery                           apidiscovery.k8s.io APIGroupDiscoveryList (v2 or v2beta1)
Protobuf is not offered: clients that ask for it list JSON as well.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from kube_apiserver.runtime.errors import StatusError, new_not_acceptable, new_unsupported_media_type

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


def parse_accept(header: str) -> list[MediaType]:
    out: list[MediaType] = []
    for part in header.split(","):
        part = part.strip()
        if not part:
            continue
        pieces = [p.strip() for p in part.split(";")]
        params: dict[str, str] = {}
        q = 1.0
        for p in pieces[1:]:
            if "=" in p:
                k, v = p.split("=", 1)
                k, v = k.strip().lower(), v.strip().strip('"')
                if k == "q":
                    try:
                        q = float(v)
                    except ValueError:
                        q = 0.0
                else:
                    params[k] = v
        out.append(MediaType(pieces[0].lower(), params, q))
    out.sort(key=lambda m: -m.q)  # stable: equal q keeps the client's order
    return [m for m in out if m.q > 0]


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
            if table and as_ == "Table" and g == "meta.k8s.io" and v in ("v1", "v1beta1"):
                return Output("table", v)
            if pom and as_ in _POM_KINDS and g == "meta.k8s.io" and v in ("v1", "v1beta1"):
                return Output("pom", v, as_kind=as_)
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
