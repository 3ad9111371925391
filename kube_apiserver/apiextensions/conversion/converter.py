"""The CR converter (apiextensions-apiserver/pkg/apiserver/conversion/converter.go, nop_converter.go).

A converter turns custom resources of one version of a CRD into another. Its errors reach the client
as kube-apiserver reports an error that is not an API status (ErrorToAPIStatus): code 500, no reason,
the converter's text as the message ("conversion webhook for stable.example.com/v1, Kind=CronTab
failed: ..."), the same for reads, writes and watches.
"""

from __future__ import annotations

from typing import Any, Protocol

from kube_apiserver.runtime import errors


def conversion_error(message: str) -> errors.StatusError:
    """What a client sees for a failed conversion: a plain error turned into a Status (code 500, no reason)."""
    return errors.StatusError(500, "", message, details=False)


def split_gv(api_version: Any) -> tuple[str, str]:
    """schema.ParseGroupVersion, leniently: "group/version" or a bare version of the core group."""
    text = api_version if isinstance(api_version, str) else ""
    group, _, version = text.rpartition("/")
    return group, version


def gv_string(group: str, version: str) -> str:
    """GroupVersion.String(): the version alone for the core group."""
    return f"{group}/{version}" if group else version


def gvk_string(obj: Any) -> str:
    """GroupVersionKind.String() of an object: "stable.example.com/v1, Kind=CronTab"."""
    group, version = split_gv(obj.get("apiVersion") if isinstance(obj, dict) else "")
    kind = obj.get("kind") if isinstance(obj, dict) else ""
    return f"{group}/{version}, Kind={kind if isinstance(kind, str) else ''}"


def go_type_name(value: Any) -> str:
    """Go's %T of a value decoded from JSON into interface{} (the types unstructured objects hold)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "[]interface {}"
    return "map[string]interface {}"


class CRConverter(Protocol):
    """crConverterInterface: objects (any versions of the CRD) → the same objects in api_version.

    The result is aligned with the input; objects already in api_version come back unchanged (the
    same dict). Raises errors.StatusError (conversion_error) when the conversion fails."""

    async def convert(self, objs: list[dict[str, Any]], api_version: str) -> list[dict[str, Any]]: ...


class NopConverter:
    """The None strategy (nopConverter): only apiVersion changes."""

    async def convert(self, objs: list[dict[str, Any]], api_version: str) -> list[dict[str, Any]]:
        return [self.convert_one(o, api_version) for o in objs]

    @staticmethod
    def convert_one(obj: dict[str, Any], api_version: str) -> dict[str, Any]:
        if obj.get("apiVersion") == api_version:
            return obj
        out = dict(obj)
        out["apiVersion"] = api_version
        return out


def check_versions(valid: set[str], objs: list[dict[str, Any]], api_version: str) -> None:
    """crConverter.ConvertToVersion's checks: both versions must be versions of the CRD (an object
    stored in a version since removed from spec.versions cannot be read any more)."""
    if api_version not in valid:
        raise conversion_error(f"request to convert CR to an invalid group/version: {api_version}")
    for obj in objs:
        group, version = split_gv(obj.get("apiVersion"))
        if gv_string(group, version) not in valid:
            raise conversion_error(f"request to convert CR from an invalid group/version: {gv_string(group, version)}")


def valid_versions(crd: dict[str, Any]) -> set[str]:
    """The group/versions the CRD declares (served or not): every one may be converted from and to."""
    spec = crd.get("spec") if isinstance(crd.get("spec"), dict) else {}
    group = spec.get("group", "")
    return {
        f"{group}/{v.get('name')}"
        for v in spec.get("versions") or []
        if isinstance(v, dict) and isinstance(v.get("name"), str)
    }


def conversion_strategy(crd: dict[str, Any]) -> str:
    spec = crd.get("spec") if isinstance(crd.get("spec"), dict) else {}
    conversion = spec.get("conversion") if isinstance(spec.get("conversion"), dict) else {}
    strategy = conversion.get("strategy")
    return strategy if isinstance(strategy, str) and strategy else "None"
