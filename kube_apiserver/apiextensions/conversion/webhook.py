"""The Webhook conversion strategy (apiextensions-apiserver/pkg/apiserver/conversion/webhook_converter.go).

The objects that are not already in the desired version go to the CRD's webhook in one
ConversionReview (apiextensions.k8s.io/v1, or v1beta1 when it comes first of the two in
conversionReviewVersions), and the answer is checked as kube checks it: the review's kind and uid
(v1 only), result.status Success (else result.message is the error), as many converted objects as
were sent, each in the desired group/version, of the same kind, name, namespace and uid; of its
metadata only labels and annotations may change (validated as label/annotation maps), the rest is
restored from the original. Any failure fails the whole conversion; nothing is half converted.
"""

from __future__ import annotations

import copy
import uuid
from typing import Any

import orjson

from kube_apiserver.apiextensions.conversion.client import WebhookCallError, WebhookClient, go_json_error
from kube_apiserver.apiextensions.conversion.converter import (
    conversion_error,
    go_type_name,
    gv_string,
    gvk_string,
    split_gv,
)
from kube_apiserver.runtime import errors
from kube_apiserver.runtime.errors import StatusCause
from kube_apiserver.runtime.strategicpatch.gojson import json_kind
from kube_apiserver.runtime.validation.metav1 import validate_annotations, validate_labels

REVIEW_GROUP = "apiextensions.k8s.io"
# The ConversionReview versions this server speaks, as kube-apiserver 1.33 does.
SUPPORTED_REVIEW_VERSIONS = ("v1", "v1beta1")


class ConversionResponseError(Exception):
    """A webhook answer that cannot be used; str(e) is kube's text for it."""


def review_version_for(conversion_review_versions: list[str]) -> str:
    """createConversionReviewObjects: the first of the CRD's listed versions this server supports."""
    for version in conversion_review_versions:
        if version in SUPPORTED_REVIEW_VERSIONS:
            return version
    raise ConversionResponseError("no supported conversion review versions")


def create_conversion_review(
    review_version: str, objects: list[dict[str, Any]], api_version: str, uid: str
) -> dict[str, Any]:
    """The ConversionReview kube sends: the request, and an empty response as the Go struct serializes."""
    return {
        "kind": "ConversionReview",
        "apiVersion": f"{REVIEW_GROUP}/{review_version}",
        "request": {"uid": uid, "desiredAPIVersion": api_version, "objects": objects},
        "response": {"uid": "", "convertedObjects": None, "result": {"metadata": {}}},
    }


def decode_review(body: bytes) -> dict[str, Any]:
    """The webhook's answer decoded as the REST client does (Into): raises ConversionResponseError."""
    try:
        review = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise ConversionResponseError(f"couldn't get version/kind; json parse error: {go_json_error(body)}") from None
    if not isinstance(review, dict):
        raise ConversionResponseError(
            "couldn't get version/kind; json parse error: json: cannot unmarshal "
            f"{json_kind(review)} into Go value of type struct {{ APIVersion string "
            '"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
        )
    return review


def get_converted_objects_from_response(expected_uid: str, review_version: str, review: dict[str, Any]) -> list[Any]:
    """getConvertedObjectsFromResponse: the converted objects of a well-formed, successful answer."""
    if review_version == "v1":
        group, version = split_gv(review.get("apiVersion"))
        kind = review.get("kind") if isinstance(review.get("kind"), str) else ""
        if (group, version, kind) != (REVIEW_GROUP, "v1", "ConversionReview"):
            raise ConversionResponseError(
                f"expected webhook response of {REVIEW_GROUP}/v1, Kind=ConversionReview, "
                f"got {group}/{version}, Kind={kind}"
            )
    response = review.get("response")
    if not isinstance(response, dict):
        raise ConversionResponseError("no response provided")
    if review_version == "v1":
        uid = response.get("uid") if isinstance(response.get("uid"), str) else ""
        if uid != expected_uid:
            raise ConversionResponseError(f'expected response.uid="{expected_uid}", got "{uid}"')
    result = response.get("result") if isinstance(response.get("result"), dict) else {}
    status = result.get("status") if isinstance(result.get("status"), str) else ""
    if status != "Success":
        message = result.get("message")
        if isinstance(message, str) and message:
            raise ConversionResponseError(message)
        raise ConversionResponseError(f"response.result.status was '{status}', not 'Success'")
    converted = response.get("convertedObjects")
    return converted if isinstance(converted, list) else []


def validate_converted_object(original: dict[str, Any], converted: dict[str, Any]) -> str | None:
    """validateConvertedObject: the identity of the object may not change."""
    checks = (
        ("kind", original.get("kind"), converted.get("kind")),
        ("name", _meta(original).get("name"), _meta(converted).get("name")),
        ("namespace", _meta(original).get("namespace"), _meta(converted).get("namespace")),
        ("UID", _meta(original).get("uid"), _meta(converted).get("uid")),
    )
    for what, want, got in checks:
        want_s, got_s = _str(want), _str(got)
        if want_s != got_s:
            return f"must have the same {what}: {want_s} != {got_s}"
    return None


def restore_object_meta(original: dict[str, Any], converted: dict[str, Any]) -> str | None:
    """restoreObjectMeta: the original metadata, with the webhook's labels and annotations (validated
    when they changed). Modifies converted in place; returns the error text, if any."""
    if "metadata" not in converted:
        return "missing metadata in converted object"
    response_meta = converted["metadata"]
    if not isinstance(response_meta, dict):
        return f"invalid metadata of type {go_type_name(response_meta)} in converted object"
    restored = copy.deepcopy(original.get("metadata")) if "metadata" in original else {}
    if not isinstance(restored, dict):
        return f"invalid metadata of type {go_type_name(restored)} in input object"
    converted["metadata"] = restored
    for fld in ("labels", "annotations"):
        value = response_meta.get(fld)
        if value is None:
            restored.pop(fld, None)
            continue
        if not isinstance(value, dict):
            return f"invalid metadata.{fld} of type {go_type_name(value)} in converted object"
        before = restored.get(fld)
        if before is not None and not isinstance(before, dict):
            return f"invalid metadata.{fld} of type {go_type_name(before)} in original object"
        before = before or {}
        changed = len(before) != len(value)
        for k, v in value.items():
            if not isinstance(v, str):
                return f"metadata.{fld}[{k}] must be a string, but is {go_type_name(v)} in converted object"
            if before.get(k) != v:
                changed = True
        if changed:
            causes = (
                validate_labels(value, "metadata.labels")
                if fld == "labels"
                else validate_annotations(value, "metadata.annotation")  # kube's path, singular
            )
            if causes:
                return _aggregate(causes)
        restored[fld] = value
    return None


def _aggregate(causes: list[StatusCause]) -> str:
    """ErrorList.ToAggregate().Error(): one message alone, several in brackets, duplicates once."""
    texts = list(dict.fromkeys(f"{c.field}: {c.message}" if c.field else c.message for c in causes))
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def is_empty_object(obj: dict[str, Any]) -> bool:
    """isEmptyUnstructuredObject: only apiVersion and kind (never sent to the webhook)."""
    return len(obj) == 2 and "apiVersion" in obj and "kind" in obj


class WebhookConverter:
    """webhookConverter: one per CRD configuration, calling its webhook through client."""

    def __init__(self, client: WebhookClient, conversion_review_versions: list[str]) -> None:
        self.client = client
        self.review_versions = [v for v in conversion_review_versions if isinstance(v, str)]

    async def convert(self, objs: list[dict[str, Any]], api_version: str) -> list[dict[str, Any]]:
        todo = [i for i, o in enumerate(objs) if o.get("apiVersion") != api_version and not is_empty_object(o)]
        out = list(objs)
        for i, o in enumerate(objs):
            if i not in todo and o.get("apiVersion") != api_version:
                out[i] = {**o, "apiVersion": api_version}  # the empty object: as the nop converter
        if not todo:
            return out
        if self.client.tls_error is not None:
            # kube cannot build this CRD's webhook client, hence its storage: every request to its
            # resources fails so (crdHandler's "error resolving resource").
            raise errors.new_internal_error("error resolving resource")
        sent = [objs[i] for i in todo]
        source = gvk_string(sent[0])
        try:
            review_version = review_version_for(self.review_versions)
        except ConversionResponseError as e:
            raise conversion_error(str(e)) from None
        uid = str(uuid.uuid4())
        body = orjson.dumps(create_conversion_review(review_version, sent, api_version, uid))
        try:
            answer = await self.client.post(body)
            converted = get_converted_objects_from_response(uid, review_version, decode_review(answer))
        except (WebhookCallError, ConversionResponseError) as e:
            raise conversion_error(f"conversion webhook for {source} failed: {e}") from None
        if len(converted) != len(sent):
            raise conversion_error(
                f"conversion webhook for {source} returned {len(converted)} objects, expected {len(sent)}"
            )
        for i, original, item in zip(todo, sent, converted, strict=True):
            out[i] = check_converted(original, item, api_version)
        return out


def check_converted(original: dict[str, Any], item: Any, api_version: str) -> dict[str, Any]:
    """One converted object checked as kube checks a single object's conversion (each object is
    decoded, and so converted, on its own in kube's watch caches: the messages are the single ones)."""
    source = gvk_string(original)
    if not isinstance(item, dict):
        raise conversion_error(f"Object 'Kind' is missing in '{orjson.dumps(item).decode()}'")
    kind = item.get("kind")
    if not isinstance(kind, str) or not kind:
        raise conversion_error(f"Object 'Kind' is missing in '{orjson.dumps(item).decode()}'")
    group, version = split_gv(item.get("apiVersion"))
    want_group, want_version = split_gv(api_version)
    if (group, version) != (want_group, want_version):
        raise conversion_error(
            f"conversion webhook for {source} returned invalid object at index 0: invalid groupVersion "
            f"(expected {gv_string(want_group, want_version)}, received {gv_string(group, version)})"
        )
    if kind != original.get("kind"):
        raise conversion_error(
            f"conversion webhook for {source} returned invalid object at index 0: invalid kind "
            f"(expected {_str(original.get('kind'))}, received {kind})"
        )
    problem = validate_converted_object(original, item)
    if problem is not None:
        raise conversion_error(f"conversion webhook for {source} returned invalid object: {problem}")
    problem = restore_object_meta(original, item)
    if problem is not None:
        raise conversion_error(f"conversion webhook for {source} returned invalid metadata: {problem}")
    return item
