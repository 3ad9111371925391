"""The API operations, described once and rendered as OpenAPI v2 and v3 (render.py): the model, kube's
naming of operation ids and tags (GetOperationIDAndTagsFromRoute, ToValidOperationID), and the
discovery operations (/api/, /apis/, /apis/<group>/, /<group-version>/, /version/).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kube_apiserver.endpoints.openapi.params import Param
from kube_apiserver.runtime.schema.definitions import definition_name

MEDIA_TYPES = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")
WATCH_MEDIA_TYPES = (*MEDIA_TYPES, "application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch")
PATCH_TYPES = (
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
)
STATUS = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
WATCH_EVENT = "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"
STRING = ""  # a response whose schema is {"type": "string"}


@dataclass
class Operation:
    method: str  # lower case HTTP method, the key in the OpenAPI path item
    operation_id: str
    description: str
    tag: str
    params: list[Param]  # every parameter, path ones included; the renderers hoist the common ones
    responses: list[tuple[str, str, str | None]]  # (code, description, definition name, STRING or None)
    produces: tuple[str, ...] = MEDIA_TYPES
    consumes: tuple[str, ...] = ("*/*",)
    action: str = ""  # x-kubernetes-action
    gvk: tuple[str, str, str] | None = None  # x-kubernetes-group-version-kind
    # behind authentication (a 401 response, the BearerToken scheme); the issuer discovery endpoints are not
    authenticated: bool = True


@dataclass
class PathItem:
    path: str
    operations: list[Operation] = field(default_factory=list)


def to_operation_id(s: str, capitalize_first: bool) -> str:
    """ToValidOperationID: keep letters, '_' and inner digits; capitalize after a dropped character."""
    out: list[str] = []
    capitalize = capitalize_first
    for i, ch in enumerate(s):
        if ch.isalpha() or ch == "_" or (i != 0 and ch.isdigit()):
            out.append(ch.upper() if capitalize else ch)
            capitalize = False
        else:
            capitalize = True
    return "".join(out)


def group_word(group: str) -> str:
    return (group or "core").removesuffix(".k8s.io")


def tag_for(group: str, version: str = "") -> str:
    tag = to_operation_id(group_word(group), False)
    return f"{tag}_{to_operation_id(version, False)}" if version else tag


def op_id(verb: str, group: str, version: str, rest: str) -> str:
    """kube's operation id: the verb, then group and version, then the installer's name for the route."""
    prefix = verb + to_operation_id(group_word(group), True)
    if version:
        prefix += to_operation_id(version, True)
    return prefix + to_operation_id(rest, True)


def article(noun: str) -> str:
    """GetArticleForNoun with a space as padding: plurals ("Endpoints") take none."""
    if noun.endswith("s") and not noun.endswith("ss"):
        return " "
    return " an " if noun[:1].lower() in "aeiou" else " a "


def gv_root(group: str, version: str) -> str:
    return f"/apis/{group}/{version}" if group else f"/api/{version}"


def ref_for(group: str, version: str, kind: str) -> str:
    return definition_name(group, version, kind) or f"io.k8s.api.{group_word(group)}.{version}.{kind}"


def _discovery(path: str, op_id: str, description: str, tag: str, ref: str, media: tuple[str, ...]) -> PathItem:
    op = Operation("get", op_id, description, tag, [], [("200", "OK", ref)], produces=media, consumes=media)
    return PathItem(path, [op])


_META = "io.k8s.apimachinery.pkg.apis.meta.v1."


def legacy_root() -> PathItem:
    return _discovery(
        "/api/", "getCoreAPIVersions", "get available API versions", "core", _META + "APIVersions", MEDIA_TYPES
    )


def apis_root() -> PathItem:
    return _discovery(
        "/apis/", "getAPIVersions", "get available API versions", "apis", _META + "APIGroupList", MEDIA_TYPES
    )


def group_root(group: str) -> PathItem:
    return _discovery(
        f"/apis/{group}/",
        op_id("get", group, "", "APIGroup"),
        "get information of a group",
        tag_for(group),
        _META + "APIGroup",
        MEDIA_TYPES,
    )


def group_version_root(group: str, version: str) -> PathItem:
    return _discovery(
        f"{gv_root(group, version)}/",
        op_id("get", group, version, "APIResources"),
        "get available resources",
        tag_for(group, version),
        _META + "APIResourceList",
        MEDIA_TYPES,
    )


def issuer_discovery_paths() -> dict[str, PathItem]:
    """The service account issuer discovery endpoints (their v3 documents are named after the paths)."""
    config = _discovery(
        "/.well-known/openid-configuration/",
        "getServiceAccountIssuerOpenIDConfiguration",
        "get service account issuer OpenID configuration, also known as the 'OIDC discovery doc'",
        "WellKnown",
        STRING,
        ("application/json",),
    )
    keys = _discovery(
        "/openid/v1/jwks/",
        "getServiceAccountIssuerOpenIDKeyset",
        "get service account issuer OpenID JSON Web Key Set (contains public token verification keys)",
        "openid",
        STRING,
        ("application/jwk-set+json",),
    )
    for item in (config, keys):
        item.operations[0].authenticated = False
    return {".well-known/openid-configuration": config, "openid/v1/jwks": keys}


def version_path() -> PathItem:
    media = ("application/json",)
    return _discovery(
        "/version/", "getCodeVersion", "get the code version", "version", "io.k8s.apimachinery.pkg.version.Info", media
    )
