"""The errors of k8s.io/apimachinery/pkg/util/mergepatch and strategicpatch, with the HTTP answer
kube-apiserver gives each (handlers/patch.go interpretStrategicMergePatchError):

- 400 BadRequest, the text as the message: a malformed directive ($deleteFromPrimitiveList,
  $retainKeys, $setElementOrder) or document;
- 422 Invalid with the generic "the server rejected our request due to an error in our request"
  (the text is dropped): lists of lists, content outside the $retainKeys list;
- everything else (a value of the wrong type, an unknown $patch, an item without its merge key, a field the
  kind does not have) is a plain error upstream and reaches the client as a 500 without a reason
  (kubernetes/kubernetes#79210). It is the patch that is wrong, so here it is a 400 BadRequest with
  upstream's text as the message.
"""

from __future__ import annotations

from typing import Any

from kube_apiserver.runtime.strategicpatch.goformat import go_quote, go_s, go_type_name, go_v

BAD_REQUEST = 400
UNPROCESSABLE = 422


class PatchError(Exception):
    """A patch that cannot be applied; code is the HTTP status kube-apiserver answers with."""

    def __init__(self, message: str, code: int = BAD_REQUEST) -> None:
        super().__init__(message)
        self.message = message
        self.code = code

    def __str__(self) -> str:
        return self.message


# mergepatch's sentinel errors
def err_bad_json_doc() -> PatchError:
    return PatchError("invalid JSON document", BAD_REQUEST)


def err_no_list_of_lists() -> PatchError:
    return PatchError("lists of lists are not supported", UNPROCESSABLE)


def err_bad_patch_format_for_primitive_list() -> PatchError:
    return PatchError("invalid patch format of primitive list", BAD_REQUEST)


def err_bad_patch_format_for_retain_keys() -> PatchError:
    return PatchError("invalid patch format of retainKeys", BAD_REQUEST)


def err_bad_patch_format_for_set_element_order_list() -> PatchError:
    return PatchError("invalid patch format of setElementOrder list", BAD_REQUEST)


def err_unsupported_strategic_merge_patch_format() -> PatchError:
    return PatchError("strategic merge patch format is not supported", BAD_REQUEST)


# mergepatch's formatted errors: plain errors upstream (500s there)
def err_no_merge_key(m: dict[str, Any], key: str) -> PatchError:
    return PatchError(f"map: {go_v(m)} does not contain declared merge key: {key}")


def err_bad_arg_type(expected: str, actual: Any) -> PatchError:
    """expected is the Go type name the code asserted ("map[string]interface {}", "[]interface {}")."""
    return PatchError(f"expected a {expected}, but received a {go_type_name(actual)}")


def err_bad_patch_type(directive: Any, m: dict[str, Any]) -> PatchError:
    return PatchError(f"unknown patch type: {go_s(directive)} in map: {go_v(m)}")


# lookups in the schema
def err_field_not_found(struct_name: str, field: str) -> PatchError:
    return PatchError(f"unable to find api field in struct {struct_name} for the json field {go_quote(field)}")


def err_not_struct(kind: str) -> PatchError:
    return PatchError(f"merging an object in json but data type is not struct, instead is: {kind}")


def err_nil_dereference() -> PatchError:
    """What Go's panic on a nil interface reads as (null list elements and the like)."""
    return PatchError("runtime error: invalid memory address or nil pointer dereference")


MAP_TYPE = "map[string]interface {}"
SLICE_TYPE = "[]interface {}"
