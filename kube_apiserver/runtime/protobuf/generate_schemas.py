"""Regenerates the field tables in schemas/ from a kubectl binary (developer tool, never imported by the server).

    python -m kube_apiserver.runtime.protobuf.generate_schemas /usr/bin/kubectl

A Go kubectl (linux/amd64, non-PIE, Go 1.21..1.23 type layout) carries two facts per API type:
the gogo-protobuf FileDescriptorProto of every k8s.io generated.proto (gzipped, registered with
proto.RegisterFile), which gives field numbers, proto types and gogo options; and the Go type
metadata used by reflection, which gives each struct field's `json:"..."` tag (JSON name,
omitempty, inline) and whether it is a pointer. The two are joined on the protobuf field number
from the struct tag. PATCHES below adds what changed upstream after the kubectl release used.
"""

from __future__ import annotations

import re
import struct
import sys
import zlib
from pathlib import Path
from typing import Any

OUT = Path(__file__).parent / "schemas"

# (output module, proto file) for the API versions the server serves.
FILES = [
    ("core_v1", "k8s.io/api/core/v1/generated.proto"),
    ("apps_v1", "k8s.io/api/apps/v1/generated.proto"),
    ("batch_v1", "k8s.io/api/batch/v1/generated.proto"),
    ("autoscaling_v1", "k8s.io/api/autoscaling/v1/generated.proto"),
    ("autoscaling_v2", "k8s.io/api/autoscaling/v2/generated.proto"),
    ("policy_v1", "k8s.io/api/policy/v1/generated.proto"),
    ("rbac_v1", "k8s.io/api/rbac/v1/generated.proto"),
    ("networking_v1", "k8s.io/api/networking/v1/generated.proto"),
    ("storage_v1", "k8s.io/api/storage/v1/generated.proto"),
    ("coordination_v1", "k8s.io/api/coordination/v1/generated.proto"),
    ("discovery_v1", "k8s.io/api/discovery/v1/generated.proto"),
    ("events_v1", "k8s.io/api/events/v1/generated.proto"),
    ("scheduling_v1", "k8s.io/api/scheduling/v1/generated.proto"),
    ("node_v1", "k8s.io/api/node/v1/generated.proto"),
    ("certificates_v1", "k8s.io/api/certificates/v1/generated.proto"),
    ("admissionregistration_v1", "k8s.io/api/admissionregistration/v1/generated.proto"),
    ("flowcontrol_v1", "k8s.io/api/flowcontrol/v1/generated.proto"),
    ("authentication_v1", "k8s.io/api/authentication/v1/generated.proto"),
    ("authorization_v1", "k8s.io/api/authorization/v1/generated.proto"),
    ("meta_v1", "k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto"),
    ("runtime", "k8s.io/apimachinery/pkg/runtime/generated.proto"),
    ("runtime_schema", "k8s.io/apimachinery/pkg/runtime/schema/generated.proto"),
]
# intstr.IntOrString, resource.Quantity, meta Time/MicroTime/Duration/FieldsV1 and runtime.RawExtension have
# their own JSON forms and are decoded by hand (SPECIAL below), so they need no tables.

# Messages copied from another package (promoted to GA after the kubectl release): target package,
# message names, source package.
COPIES = [
    (
        "k8s.io.api.networking.v1",
        [
            "IPAddress",
            "IPAddressList",
            "IPAddressSpec",
            "ParentReference",
            "ServiceCIDR",
            "ServiceCIDRList",
            "ServiceCIDRSpec",
            "ServiceCIDRStatus",
        ],
        "k8s.io.api.networking.v1beta1",
    ),
]

REP, PTR, OMIT, INLINE, MAP = 1, 2, 4, 8, 16  # flag bits, as in schema.py

# Fields added in 1.33 (numbers from upstream's generated.proto / types.go): package, message,
# (number, json name, type, flags, insert after json name).
PATCHES = [
    ("k8s.io.api.core.v1", "Lifecycle", (3, "stopSignal", "s", PTR | OMIT, "preStop")),
    ("k8s.io.api.apps.v1", "DeploymentStatus", (9, "terminatingReplicas", "i32", PTR | OMIT, "availableReplicas")),
    ("k8s.io.api.apps.v1", "ReplicaSetStatus", (7, "terminatingReplicas", "i32", PTR | OMIT, "availableReplicas")),
    (
        "k8s.io.api.autoscaling.v2",
        "HPAScalingRules",
        (4, "tolerance", "k8s.io.apimachinery.pkg.api.resource.Quantity", PTR | OMIT, "policies"),
    ),
    ("k8s.io.api.discovery.v1", "EndpointHints", (2, "forNodes", "ForNode", REP | OMIT, "forZones")),
]
NEW_MESSAGES = [
    ("k8s.io.api.discovery.v1", "ForNode", [(1, "name", "s", 0)]),
]

SCALARS = {
    9: "s",
    12: "b",
    5: "i32",
    3: "i64",
    13: "u32",
    4: "u64",
    8: "bool",
    1: "f64",
    2: "f32",
    17: "si32",
    18: "si64",
    7: "fx32",
    6: "fx64",
    15: "sfx32",
    16: "sfx64",
}


# --- protobuf wire (just enough for descriptor.proto) ---


def _varint(b: bytes, i: int) -> tuple[int, int]:
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        if c < 0x80:
            return r, i
        s += 7


def _fields(b: bytes):
    i = 0
    while i < len(b):
        t, i = _varint(b, i)
        num, wt = t >> 3, t & 7
        if wt == 0:
            v, i = _varint(b, i)
        elif wt == 2:
            n, i = _varint(b, i)
            v, i = b[i : i + n], i + n
        elif wt == 1:
            v, i = b[i : i + 8], i + 8
        elif wt == 5:
            v, i = b[i : i + 4], i + 4
        else:
            raise ValueError(f"wire type {wt}")
        yield num, v


def _field(v: bytes) -> dict[str, Any]:
    f: dict[str, Any] = {"label": 1}
    for n, x in _fields(v):
        key = {1: "name", 3: "number", 4: "label", 5: "type", 6: "type_name"}.get(n)
        if key:
            f[key] = x.decode() if isinstance(x, bytes) else x
    return f


def _message(v: bytes, prefix: str, out: dict[str, Any]) -> None:
    m: dict[str, Any] = {"fields": [], "map_entry": False}
    nested = []
    for n, x in _fields(v):
        if n == 1:
            m["name"] = x.decode()
        elif n == 2:
            m["fields"].append(_field(x))
        elif n == 3:
            nested.append(x)
        elif n == 7:
            m["map_entry"] = any(n2 == 7 and x2 for n2, x2 in _fields(x))
    full = prefix + "." + m["name"]
    out[full] = m
    for x in nested:
        _message(x, full, out)


def _file(d: bytes) -> dict[str, Any]:
    f: dict[str, Any] = {"msgs": {}}
    for n, x in _fields(d):
        if n == 1:
            f["name"] = x.decode()
        elif n == 2:
            f["package"] = x.decode()
        elif n == 8:
            for n2, x2 in _fields(x):
                if n2 == 11:
                    f["go_package"] = x2.decode().split(";")[0]
    for n, x in _fields(d):
        if n == 4:
            _message(x, "." + f["package"], f["msgs"])
    return f


def descriptors(binary: bytes) -> dict[str, dict[str, Any]]:
    files = {}
    for m in re.finditer(rb"\x1f\x8b\x08\x00\x00\x00\x00\x00", binary):
        try:
            out = zlib.decompressobj(31).decompress(binary[m.start() : m.start() + 4_000_000])
        except zlib.error:
            continue
        if out[:1] == b"\n" and out[2 : 2 + out[1]].endswith(b"generated.proto"):
            f = _file(out)
            files[f["name"]] = f
    return files


# --- Go runtime type metadata (abi.Type, Go 1.21..1.23, 64-bit) ---

_KINDS = {
    1: "bool",
    2: "int",
    5: "int32",
    6: "int64",
    8: "uint8",
    10: "uint32",
    11: "uint64",
    13: "float32",
    14: "float64",
    17: "array",
    21: "map",
    22: "ptr",
    23: "slice",
    24: "string",
    25: "struct",
}


class GoTypes:
    def __init__(self, path: str) -> None:
        self.data = Path(path).read_bytes()
        d = self.data
        phoff, shoff = struct.unpack_from("<QQ", d, 0x20)
        phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from("<HHHHH", d, 0x36)
        self.segs = []
        for k in range(phnum):
            p_type, _, p_off, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", d, phoff + k * phentsize)
            if p_type == 1:
                self.segs.append((p_vaddr, p_off, p_filesz))
        secs = [struct.unpack_from("<IIQQQQ", d, shoff + k * shentsize) for k in range(shnum)]
        strtab = secs[shstrndx][4]
        self.sections = {}
        for name_off, _, _, addr, off, size in secs:
            name = d[strtab + name_off : d.index(b"\0", strtab + name_off)].decode()
            self.sections[name] = (addr, off, size)
        self.types_base = self.sections[".rodata"][0]
        self.cache: dict[int, dict[str, Any]] = {}

    def off(self, a: int) -> int:
        for va, fo, sz in self.segs:
            if va <= a < va + sz:
                return a - va + fo
        raise ValueError(hex(a))

    def name(self, a: int) -> tuple[str, str, int]:
        d, o = self.data, self.off(a)
        flags = d[o]
        n, p = _varint(d, o + 1)
        nm = d[p : p + n].decode()
        tag = ""
        if flags & 2:
            tn, p2 = _varint(d, p + n)
            tag = d[p2 : p2 + tn].decode()
        return nm, tag, flags

    def type(self, a: int) -> dict[str, Any]:
        if a in self.cache:
            return self.cache[a]
        d, o = self.data, self.off(a)
        tflag, kind = d[o + 20], d[o + 23] & 0x1F
        s = self.name(self.types_base + struct.unpack_from("<i", d, o + 40)[0])[0]
        t: dict[str, Any] = {"kind": _KINDS.get(kind, str(kind)), "str": s[1:] if tflag & 2 else s, "pkg": ""}
        self.cache[a] = t
        q = lambda k: struct.unpack_from("<Q", d, o + k)[0]  # noqa: E731
        if t["kind"] in ("ptr", "slice", "array"):
            t["elem"] = q(48)
        elif t["kind"] == "map":
            t["key"], t["elem"] = q(48), q(56)
        elif t["kind"] == "struct":
            t["fields"] = []
            for k in range(q(64)):
                fa = self.off(q(56) + 24 * k)
                nm, tag, flags = self.name(struct.unpack_from("<Q", d, fa)[0])
                t["fields"].append((nm, tag, bool(flags & 8), struct.unpack_from("<Q", d, fa + 8)[0]))
        uncommon = {"struct": 80, "ptr": 56, "slice": 56, "map": 88, "array": 72}.get(t["kind"], 48)
        if tflag & 1:
            t["pkg"] = self.name(self.types_base + struct.unpack_from("<i", d, o + uncommon)[0])[0]
        return t

    def named(self) -> dict[tuple[str, str], dict[str, Any]]:
        addr, off, size = self.sections[".typelink"]
        stack = [self.types_base + x for x in struct.unpack_from(f"<{size // 4}i", self.data, off)]
        seen: set[int] = set()
        out: dict[tuple[str, str], dict[str, Any]] = {}
        while stack:
            a = stack.pop()
            if a in seen or not a:
                continue
            seen.add(a)
            try:
                t = self.type(a)
            except (ValueError, IndexError, UnicodeDecodeError, struct.error):
                continue
            if t["pkg"] and "." in t["str"] and t["kind"] in ("struct", "slice"):
                out.setdefault((t["pkg"], t["str"].split(".", 1)[1]), t)
            stack += [t[k] for k in ("elem", "key") if k in t]
            stack += [f[3] for f in t.get("fields", ())]
        return out


# --- joining ---

_TAG = re.compile(r'protobuf:"(\w+),(\d+)[,"]')
_JSON = re.compile(r'json:"([^"]*)"')
SPECIAL = {"Time", "MicroTime", "Duration", "Quantity", "IntOrString", "RawExtension", "FieldsV1", "QuantityValue"}


def build(binary_path: str) -> dict[str, dict[str, Any]]:
    go = GoTypes(binary_path)
    files = descriptors(go.data)
    gotypes = go.named()
    allmsg = {k: m for f in files.values() for k, m in f["msgs"].items()}
    result: dict[str, dict[str, Any]] = {}

    def typeref(f: dict[str, Any], pkg: str) -> tuple[Any, bool]:
        if f["type"] != 11:
            return SCALARS[f["type"]], False
        tn = f["type_name"]
        m = allmsg[tn]
        if m["map_entry"]:
            k = next(x for x in m["fields"] if x["number"] == 1)
            v = next(x for x in m["fields"] if x["number"] == 2)
            return (typeref(k, pkg)[0], typeref(v, pkg)[0]), True
        rel = tn[len(pkg) + 2 :]
        if tn.startswith("." + pkg + ".") and "." not in rel:
            return rel, False
        return tn[1:], False

    for module, fname in FILES + [(None, _pkg_file(src)) for _, _, src in COPIES]:
        f = files[fname]
        pkg = f["package"]
        msgs: dict[str, Any] = {}
        kinds = []
        for full, m in f["msgs"].items():
            rel = full[len(pkg) + 2 :]
            if m["map_entry"] or rel in SPECIAL:
                continue
            gt = gotypes.get((f["go_package"], rel))
            if gt is None:
                raise SystemExit(f"no Go type for {full}")
            byno = {x["number"]: x for x in m["fields"]}
            if gt["kind"] == "slice":  # a named slice (ExtraValue, Verbs): JSON is the list itself
                msgs[rel] = ("list", typeref(byno[1], pkg)[0])
                continue
            out = []
            for gname, tag, embedded, ft in gt["fields"]:
                ftype = go.type(ft)
                tm, jm = _TAG.search(tag), _JSON.search(tag)
                if not tm:
                    if embedded and ftype["str"].endswith("TypeMeta"):
                        kinds.append(rel)
                    continue
                pf = byno[int(tm.group(2))]
                parts = (jm.group(1) if jm else gname).split(",")
                flags = OMIT if "omitempty" in parts[1:] else 0
                jname = parts[0] or gname
                if "inline" in parts[1:]:
                    flags |= INLINE
                    jname = pf["name"]
                tr, is_map = typeref(pf, pkg)
                flags |= MAP if is_map else (REP if pf["label"] == 3 else 0)
                if ftype["kind"] == "ptr":
                    flags |= PTR
                if pf["type"] == 12 and not (ftype["kind"] == "slice" and go.type(ftype["elem"])["kind"] == "uint8"):
                    raise SystemExit(f"{full}.{gname}: proto bytes is not []byte")
                out.append((pf["number"], jname, tr, flags))
            msgs[rel] = out
        result[pkg] = {"msgs": msgs, "kinds": kinds, "module": module}
    for target, names, source in COPIES:
        for n in names:
            result[target]["msgs"][n] = result[source]["msgs"][n]
            if n in result[source]["kinds"]:
                result[target]["kinds"].append(n)
    for pkg, name, fields in NEW_MESSAGES:
        result[pkg]["msgs"][name] = fields
    for pkg, name, (num, jname, tr, flags, after) in PATCHES:
        fl = result[pkg]["msgs"][name]
        if any(x[0] == num for x in fl):
            continue
        idx = next(k for k, x in enumerate(fl) if x[1] == after) + 1
        fl.insert(idx, (num, jname, tr, flags))
    return result


def render(module: str, pkg: str, data: dict[str, Any]) -> str:
    lines = [
        f'"""Protobuf field tables for {pkg} (generated by generate_schemas.py; do not edit)."""',
        "",
        "# ruff: noqa: E501",
        f'PACKAGE = "{pkg}"',
        "",
        "# Top-level kinds (Go types that embed TypeMeta).",
    ]
    kinds = sorted(set(data["kinds"]))
    if kinds:
        lines += ["KINDS = frozenset({"] + [f'    "{k}",' for k in kinds] + ["})"]
    else:
        lines.append("KINDS: frozenset[str] = frozenset()")
    lines += [
        "",
        '# message: ((number, JSON name, type, flags), ...) in Go struct order, or ("list", item type).',
        "MESSAGES = {",
    ]
    for name in sorted(data["msgs"]):
        fields = data["msgs"][name]
        if isinstance(fields, tuple):
            lines.append(f'    "{name}": ("list", {fields[1]!r}),'.replace("'", '"'))
            continue
        lines.append(f'    "{name}": (')
        for num, jname, tr, flags in fields:
            lines.append(f"        ({num}, {jname!r}, {tr!r}, {flags}),".replace("'", '"'))
        lines.append("    ),")
    lines += ["}", ""]
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    binary = str(Path(argv[1] if len(argv) > 1 else "/usr/bin/kubectl").resolve())
    result = build(binary)
    OUT.mkdir(exist_ok=True)
    for pkg, data in result.items():
        if data["module"]:
            (OUT / f"{data['module']}.py").write_text(render(data["module"], pkg, data))
    print(f"wrote {sum(1 for d in result.values() if d['module'])} modules to {OUT}")


def _pkg_file(pkg: str) -> str:
    if pkg.startswith("k8s.io.api."):
        return "k8s.io/api/" + pkg[len("k8s.io.api.") :].replace(".", "/") + "/generated.proto"
    return "k8s.io/apimachinery/" + pkg[len("k8s.io.apimachinery.") :].replace(".", "/") + "/generated.proto"


if __name__ == "__main__":
    main(sys.argv)
