"""The conversion webhook's answer checked as kube's webhookConverter checks it, with its messages."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import orjson
import pytest

from kube_apiserver.apiextensions.conversion.client import WebhookCallError
from kube_apiserver.apiextensions.conversion.webhook import (
    ConversionResponseError,
    WebhookConverter,
    check_converted,
    create_conversion_review,
    decode_review,
    get_converted_objects_from_response,
    restore_object_meta,
    review_version_for,
)
from kube_apiserver.runtime import errors

V1 = "stable.example.com/v1"
V2 = "stable.example.com/v2"


def crontab(api_version: str = V1, **meta: Any) -> dict[str, Any]:
    metadata = {
        "name": "daily",
        "namespace": "default",
        "uid": "1f0c",
        "resourceVersion": "42",
        "generation": 3,
        "labels": {"app": "cron"},
        "annotations": {"note": "x"},
        **meta,
    }
    return {"apiVersion": api_version, "kind": "CronTab", "metadata": metadata, "spec": {"cronSpec": "* * * * *"}}


def converted(obj: dict[str, Any], api_version: str = V2) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out["apiVersion"] = api_version
    out["spec"] = {"schedule": out["spec"].pop("cronSpec")}
    return out


def review(uid: str, objects: list[Any] | None, *, version: str = "v1", result: dict | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {"uid": uid, "result": {"status": "Success"} if result is None else result}
    if objects is not None:
        response["convertedObjects"] = objects
    return {"apiVersion": f"apiextensions.k8s.io/{version}", "kind": "ConversionReview", "response": response}


# --- the review -------------------------------------------------------------------------------------------------


def test_review_version_is_the_first_supported_one():
    assert review_version_for(["v1beta1", "v1"]) == "v1beta1"
    assert review_version_for(["v2", "v1"]) == "v1"
    with pytest.raises(ConversionResponseError, match="^no supported conversion review versions$"):
        review_version_for(["v2"])


def test_request_is_shaped_as_kube_sends_it():
    body = create_conversion_review("v1", [crontab()], V2, "u-1")
    assert body == {
        "kind": "ConversionReview",
        "apiVersion": "apiextensions.k8s.io/v1",
        "request": {"uid": "u-1", "desiredAPIVersion": V2, "objects": [crontab()]},
        "response": {"uid": "", "convertedObjects": None, "result": {"metadata": {}}},
    }


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            {"apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "ConversionReview", "response": {}},
            "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, "
            "got apiextensions.k8s.io/v1beta1, Kind=ConversionReview",
        ),
        ({"response": {}}, "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /, Kind="),
        ({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"}, "no response provided"),
        (review("other", []), 'expected response.uid="u-1", got "other"'),
        (review("u-1", [], result={"status": "Failure", "message": "no way"}), "no way"),
        (review("u-1", [], result={"status": "Failure"}), "response.result.status was 'Failure', not 'Success'"),
        (review("u-1", [], result={}), "response.result.status was '', not 'Success'"),
    ],
)
def test_bad_v1_answers(answer, message):
    with pytest.raises(ConversionResponseError) as e:
        get_converted_objects_from_response("u-1", "v1", answer)
    assert str(e.value) == message


def test_v1beta1_answers_are_not_checked_for_kind_or_uid():
    answer = review("whatever", [{"a": 1}], version="v1beta1")
    answer["apiVersion"] = "v1"
    assert get_converted_objects_from_response("u-1", "v1beta1", answer) == [{"a": 1}]
    with pytest.raises(ConversionResponseError, match="^no response provided$"):
        get_converted_objects_from_response("u-1", "v1beta1", {})


def test_answers_that_are_not_json():
    with pytest.raises(ConversionResponseError) as e:
        decode_review(b"<html>")
    assert (
        str(e.value)
        == "couldn't get version/kind; json parse error: invalid character '<' looking for beginning of value"
    )
    with pytest.raises(ConversionResponseError) as e:
        decode_review(b'{"kind":')
    assert str(e.value) == "couldn't get version/kind; json parse error: unexpected end of JSON input"


# --- each converted object ------------------------------------------------------------------------------------


def test_a_good_conversion_keeps_the_original_metadata():
    original = crontab()
    answer = converted(original)
    answer["metadata"]["generation"] = 99  # not the webhook's to change: restored
    answer["metadata"]["resourceVersion"] = "1"
    answer["metadata"]["labels"] = {"app": "cron", "converted": "yes"}  # labels may change
    del answer["metadata"]["annotations"]  # and go
    out = check_converted(original, answer, V2)
    assert out["metadata"] == {
        "name": "daily",
        "namespace": "default",
        "uid": "1f0c",
        "resourceVersion": "42",
        "generation": 3,
        "labels": {"app": "cron", "converted": "yes"},
    }
    assert out["spec"] == {"schedule": "* * * * *"} and out["apiVersion"] == V2


def _message(original: dict[str, Any], item: Any) -> str:
    with pytest.raises(errors.StatusError) as e:
        check_converted(original, item, V2)
    assert e.value.code == 500 and e.value.reason == "" and e.value.status().get("details") is None
    return e.value.message


def test_wrong_group_version_or_kind():
    original = crontab()
    assert _message(original, converted(original, V1)) == (
        f"conversion webhook for {V1}, Kind=CronTab returned invalid object at index 0: invalid groupVersion "
        f"(expected {V2}, received {V1})"
    )
    other = {**converted(original), "kind": "Job"}
    assert _message(original, other) == (
        f"conversion webhook for {V1}, Kind=CronTab returned invalid object at index 0: invalid kind "
        "(expected CronTab, received Job)"
    )
    assert (
        _message(original, {"apiVersion": V2})
        == """Object 'Kind' is missing in '{"apiVersion":"stable.example.com/v2"}'"""
    )


@pytest.mark.parametrize(
    ("field", "value", "what"),
    [
        ("name", "other", "name: daily != other"),
        ("namespace", "ns2", "namespace: default != ns2"),
        ("uid", "9", "UID: 1f0c != 9"),
    ],
)
def test_identity_may_not_change(field, value, what):
    original = crontab()
    answer = converted(original)
    answer["metadata"][field] = value
    assert _message(original, answer) == (
        f"conversion webhook for {V1}, Kind=CronTab returned invalid object: must have the same {what}"
    )


def test_bad_metadata():
    original = crontab()
    answer = converted(original)
    del answer["metadata"]
    # without metadata the identity check fails first (the name reads as "")
    assert _message(original, answer) == (
        f"conversion webhook for {V1}, Kind=CronTab returned invalid object: must have the same name: daily != "
    )
    assert restore_object_meta(original, answer) == "missing metadata in converted object"
    assert restore_object_meta(original, {**answer, "metadata": "x"}) == (
        "invalid metadata of type string in converted object"
    )
    prefix = f"conversion webhook for {V1}, Kind=CronTab returned invalid metadata: "
    answer["metadata"] = {**original["metadata"], "labels": {"a": 1}}
    assert (
        _message(original, answer) == prefix + "metadata.labels[a] must be a string, but is int64 in converted object"
    )
    answer["metadata"] = {**original["metadata"], "labels": ["a"]}
    assert _message(original, answer) == (prefix + "invalid metadata.labels of type []interface {} in converted object")
    answer["metadata"] = {**original["metadata"], "labels": {"bad key!": "v"}}
    assert _message(original, answer) == prefix + (
        "metadata.labels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', "
        "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
        "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
    )


def test_unchanged_invalid_labels_are_not_revalidated():
    original = crontab(labels={"bad key!": "v"})
    out = restore_object_meta(original, converted(original))
    assert out is None


# --- the converter against a fake webhook -----------------------------------------------------------------------


class FakeClient:
    tls_error: str | None = None

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.sent: list[dict[str, Any]] = []

    async def post(self, body: bytes) -> bytes:
        request = orjson.loads(body)
        self.sent.append(request)
        if isinstance(self.answer, Exception):
            raise self.answer
        answer = self.answer(request) if callable(self.answer) else self.answer
        return orjson.dumps(answer)


def webhook(request: dict[str, Any]) -> dict[str, Any]:
    objs = [converted(o, request["request"]["desiredAPIVersion"]) for o in request["request"]["objects"]]
    return review(request["request"]["uid"], objs, version=request["apiVersion"].rpartition("/")[2])


def convert(client: FakeClient, objs: list[dict[str, Any]], versions: list[str] | None = None) -> list[dict[str, Any]]:
    return asyncio.run(WebhookConverter(client, versions or ["v1"]).convert(objs, V2))  # type: ignore[arg-type]


def test_only_objects_in_another_version_are_sent():
    client = FakeClient(webhook)
    already = converted(crontab(name="b"))
    out = convert(client, [crontab(), already, {"apiVersion": V1, "kind": "CronTab"}], ["v1beta1", "v1"])
    assert len(client.sent) == 1
    assert client.sent[0]["apiVersion"] == "apiextensions.k8s.io/v1beta1"
    assert [o["metadata"]["name"] for o in client.sent[0]["request"]["objects"]] == ["daily"]
    assert out[0]["spec"] == {"schedule": "* * * * *"}
    assert out[1] is already
    assert out[2] == {"apiVersion": V2, "kind": "CronTab"}  # the empty object: never sent
    assert convert(client, [already]) == [already] and len(client.sent) == 1


def _convert_error(client: FakeClient, versions: list[str] | None = None) -> errors.StatusError:
    with pytest.raises(errors.StatusError) as e:
        convert(client, [crontab()], versions)
    return e.value


def test_converter_errors():
    failed = f"conversion webhook for {V1}, Kind=CronTab failed: "
    err = _convert_error(FakeClient(WebhookCallError('Post "https://h/c?timeout=30s": EOF')))
    assert (err.code, err.reason, err.message) == (500, "", failed + 'Post "https://h/c?timeout=30s": EOF')
    assert _convert_error(FakeClient(lambda r: review("x", []))).message.startswith(failed + 'expected response.uid="')
    assert _convert_error(FakeClient(lambda r: review(r["request"]["uid"], []))).message == (
        f"conversion webhook for {V1}, Kind=CronTab returned 0 objects, expected 1"
    )
    assert _convert_error(FakeClient(webhook), ["v9"]).message == "no supported conversion review versions"
    broken = FakeClient(webhook)
    broken.tls_error = "unable to load root certificates: unable to parse bytes as PEM block"
    err = _convert_error(broken)
    assert (err.code, err.reason, err.message) == (
        500,
        "InternalError",
        "Internal error occurred: error resolving resource",
    )
    assert broken.sent == []
