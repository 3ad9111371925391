"""Server-side apply: PATCH with Content-Type application/apply-patch+yaml (handlers/patch.go's
applyPatcher), and the fieldManager option every write handler shares.

The applied configuration is YAML (or JSON) of a partial object. It is merged into the live object
by the field manager inside the Store's guaranteed update (so against the current state, again on
every conflict), or into the kind's empty object when nothing exists yet: then the result is
created (201). What the merge produces goes through typed decoding, defaulting, the strategy and
validation like any write.
"""

from __future__ import annotations

from typing import Any

import orjson
import yaml

from kube_apiserver.endpoints.handlers.fieldvalidation import IGNORE, STRICT, field_validation, typed_decode
from kube_apiserver.endpoints.handlers.scope import RequestScope, write_object
from kube_apiserver.registry import fieldmanager
from kube_apiserver.runtime import errors
from kube_apiserver.runtime import meta as metautil
from kube_apiserver.runtime.serializer import (
    YAMLToJSONError,
    json_nesting_exceeds,
    load_yaml,
    max_depth_message,
    yaml_duplicate_lines,
)

APPLY_PATCH = "application/apply-patch+yaml"
_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")

try:  # the C loader is ~10x faster
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]


class _ApplyLoader(_Loader):  # type: ignore[misc,valid-type]
    pass


# Timestamps stay strings, as sigs.k8s.io/yaml converts YAML to JSON first.
_ApplyLoader.yaml_implicit_resolvers = {
    k: [(tag, regexp) for tag, regexp in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in _Loader.yaml_implicit_resolvers.items()
}


def fresh_copy(patch: dict[str, Any]) -> dict[str, Any]:
    """A copy of the configuration for one attempt (the merge shares its values with the result)."""
    return orjson.loads(orjson.dumps(patch))  # decoded YAML holds JSON's values only


def is_apply(scope: RequestScope) -> bool:
    content_type = scope.req.header("content-type")
    return content_type.split(";")[0].strip().lower() == APPLY_PATCH


def _options_error(kind: str, causes: list[errors.StatusCause]) -> errors.StatusError:
    return errors.new_invalid("meta.k8s.io", kind, "", causes)


def field_manager_name(scope: RequestScope, options_kind: str) -> str:
    """The manager of a create/update/patch: the fieldManager parameter (checked as
    ValidateFieldManager does), else the user agent's program."""
    value = scope.req.param("fieldManager")
    causes = fieldmanager.validate_field_manager(value)
    if options_kind == "PatchOptions" and scope.req.params("force"):
        causes.insert(0, errors.field_forbidden("force", "may not be specified for non-apply patch"))
    if causes:
        raise _options_error(options_kind, causes)
    return fieldmanager.manager_or_user_agent(value, scope.req.header("user-agent"))


def _force(scope: RequestScope) -> bool:
    value = scope.req.param("force")
    if value in _TRUE:
        return True
    if value in _FALSE or value == "":
        return False
    raise errors.new_bad_request(f'strconv.ParseBool: parsing "{value}": invalid syntax')


def _yaml_error_text(e: yaml.YAMLError) -> str:
    """sigs.k8s.io/yaml's wording around the parser's complaint: "yaml: line N: <problem>"."""
    mark = getattr(e, "problem_mark", None)
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    where = f"line {mark.line + 1}: " if mark is not None else ""
    return f"error converting YAML to JSON: yaml: {where}{problem}"


def _decode_apply_body(body: bytes) -> dict[str, Any]:
    patch: Any = None
    if body.lstrip()[:1] == b"{":  # JSON, as kubectl and client libraries send it: the fast path
        try:
            patch = orjson.loads(body)
        except orjson.JSONDecodeError:
            patch = None
        if json_nesting_exceeds(patch, body):
            raise errors.new_bad_request(
                f"error decoding YAML: error converting YAML to JSON: yaml: {max_depth_message()}"
            )
    if patch is None:
        try:
            patch = load_yaml(body, _ApplyLoader)
        except yaml.YAMLError as e:
            raise errors.new_bad_request(f"error decoding YAML: {_yaml_error_text(e)}") from None
        except YAMLToJSONError as e:
            raise errors.new_bad_request(f"error decoding YAML: error converting YAML to JSON: {e}") from None
    if not isinstance(patch, dict):
        raise errors.new_bad_request("error decoding YAML: the applied configuration must be an object")
    return patch


def _strict_yaml(body: bytes, directive: str) -> list[str]:
    """yaml.UnmarshalStrict's complaints about repeated keys, for fieldValidation Strict/Warn."""
    if directive == IGNORE:
        return []
    return yaml_duplicate_lines(body)


async def apply_options(scope: RequestScope) -> tuple[str, bool, dict[str, Any]]:
    """ValidatePatchOptions for apply, then the body: (field manager, force, applied configuration)."""
    manager = scope.req.param("fieldManager")
    causes = []
    if not manager:
        # kubectl defaults it to "kubectl"; controllers have to say who they are.
        causes.append(errors.field_required("fieldManager", "is required for apply patch"))
    causes += fieldmanager.validate_field_manager(manager)
    if causes:
        raise _options_error("PatchOptions", causes)
    force = _force(scope)
    return manager, force, _decode_apply_body(await scope.req.body())


async def apply_patch_resource(scope: RequestScope, subresource: str = "") -> None:
    req, spec = scope.req, scope.spec
    manager, force, patch = await apply_options(scope)
    dry_run = scope.dry_run
    directive = field_validation(req)
    strict_problems = _strict_yaml(await req.body(), directive)
    fm = fieldmanager.field_manager_of(scope.store, spec, subresource)

    def apply(live: dict[str, Any] | None) -> dict[str, Any]:
        obj = fm.apply(live, fresh_copy(patch), manager, force)
        if strict_problems and directive == STRICT:
            text = "error converting YAML to JSON: yaml: unmarshal errors:\n  " + "\n  ".join(strict_problems)
            raise errors.new_bad_request(f"error strict decoding YAML: {text}")
        typed_decode(req, obj, spec.group, spec.version, spec.kind, b"", "application/json", IGNORE)
        return obj

    hook = fieldmanager.hook_for(scope.store, spec, subresource, manager, apply=True)
    with fieldmanager.managing(hook):
        try:
            stored = await scope.store.patch(
                scope.namespace, scope.info.name, apply, dry_run=dry_run, subresource=subresource
            )
            status = 200
        except errors.StatusError as e:
            if e.code != 404 or e.reason != "NotFound" or subresource:
                raise
            obj = apply(None)
            metautil.check_name(obj, scope.info.name, scope.namespace)
            # an apply creates through the update path, whose storage clears a resourceVersion the
            # configuration carries rather than refusing it as a create does
            if isinstance(obj.get("metadata"), dict):
                obj["metadata"].pop("resourceVersion", None)
            stored = await scope.store.create(scope.namespace, obj, dry_run=dry_run)
            status = 201
    for problem in strict_problems:  # one warning per line of the YAML error, as upstream splits it
        req.add_warning(problem)
    await write_object(scope, status, stored.obj, stored.raw)
