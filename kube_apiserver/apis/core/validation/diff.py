"""The diff kube appends to "may not change" errors (cmp.Diff of the internal Go structs).

go-cmp's output cannot be reproduced byte for byte (it prints Go field names and values and even
randomizes its whitespace so that nobody parses it), so this renders the same shape: the struct
name, one "-"/"+" pair per changed top-level field with Go's field name, the rest elided.
"""

from __future__ import annotations

from typing import Any

import orjson

from kube_apiserver.apis.core.validation.common import normalize

# JSON names whose Go field name is not just the first letter upper-cased.
_GO_NAMES = {
    "uid": "UID",
    "hostIPC": "HostIPC",
    "hostPID": "HostPID",
    "dnsPolicy": "DNSPolicy",
    "dnsConfig": "DNSConfig",
    "os": "OS",
    "fc": "FC",
    "iscsi": "ISCSI",
    "nfs": "NFS",
    "rbd": "RBD",
    "csi": "CSI",
    "cephfs": "CephFS",
    "scaleIO": "ScaleIO",
    "storageos": "StorageOS",
    "awsElasticBlockStore": "AWSElasticBlockStore",
    "gcePersistentDisk": "GCEPersistentDisk",
}


def go_field_name(json_name: str) -> str:
    return _GO_NAMES.get(json_name, json_name[:1].upper() + json_name[1:])


def _show(value: Any) -> str:
    if value is None:
        return "nil"
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=str).decode()


def cmp_diff(type_name: str, old: Any, new: Any) -> str:
    old_n, new_n = normalize(old) or {}, normalize(new) or {}
    if not isinstance(old_n, dict) or not isinstance(new_n, dict):
        return f"  {type_name}(\n- \t{_show(old_n)},\n+ \t{_show(new_n)},\n  )\n"
    keys = list(dict.fromkeys(list(old_n) + list(new_n)))
    lines = [f"  {type_name}{{"]
    same = 0
    for key in keys:
        if old_n.get(key) == new_n.get(key):
            same += 1
            continue
        if same:
            lines.append(f"  \t... // {same} identical field{'s' if same > 1 else ''}")
            same = 0
        name = go_field_name(key)
        lines.append(f"- \t{name}: {_show(old_n.get(key))},")
        lines.append(f"+ \t{name}: {_show(new_n.get(key))},")
    if same:
        lines.append(f"  \t... // {same} identical field{'s' if same > 1 else ''}")
    lines.append("  }")
    return "\n".join(lines) + "\n"
