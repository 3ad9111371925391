"""Encryption at rest (--encryption-provider-config): secrets unreadable in the SQLite files yet served
through the API; rotation to a new key; values written under an earlier key still read."""

from __future__ import annotations

import base64
import sqlite3
import subprocess
import sys

from e2e_helpers import wait_until

K1 = base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
K2 = base64.b64encode(b"fedcba9876543210fedcba9876543210").decode()
PLAIN = "topsecret-PLAINTEXT-4242"
VISIBLE = "visible-CONFIGMAP-4242"


def _config(path, providers: str):
    path.write_text(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
        f"- resources: [secrets]\n  providers: {providers}\n"
    )
    return str(path)


def _raw_files(data_dir) -> bytes:
    out = b""
    for name in ("state.db", "state.db-wal"):
        p = data_dir / name
        if p.exists():
            out += p.read_bytes()
    return out


def _stored(data_dir, key: str) -> bytes:
    conn = sqlite3.connect(f"file:{data_dir / 'state.db'}?mode=ro", uri=True)
    try:
        (value,) = conn.execute("SELECT value FROM kv WHERE key = ?", (key,)).fetchone()
        return value
    finally:
        conn.close()


def _secret_value(server, name: str) -> str:
    r = server.request("GET", f"/api/v1/namespaces/default/secrets/{name}")
    assert r.status_code == 200, r.text
    return base64.b64decode(r.json()["data"]["token"]).decode()


def test_secrets_encrypted_on_disk_and_rotated(server_factory, tmp_path):
    cfg = tmp_path / "enc.yaml"
    data_dir = tmp_path / "data"
    first = f"[{{aescbc: {{keys: [{{name: key1, secret: {K1}}}]}}}}, {{identity: {{}}}}]"
    srv = server_factory("--encryption-provider-config", _config(cfg, first), data_dir=data_dir)
    out = srv.kubectl("create", "secret", "generic", "s1", f"--from-literal=token={PLAIN}", "-n", "default")
    assert "secret/s1 created" in out.stdout
    srv.kubectl("create", "configmap", "c1", f"--from-literal=v={VISIBLE}", "-n", "default")
    srv.kubectl("patch", "secret", "s1", "-n", "default", "-p", '{"metadata":{"labels":{"rev":"2"}}}')

    raw = _raw_files(data_dir)
    assert VISIBLE.encode() in raw  # configmaps are not in the config: stored as they are
    assert PLAIN.encode() not in raw
    assert base64.b64encode(PLAIN.encode()) not in raw
    assert _stored(data_dir, "/registry/secrets/default/s1").startswith(b"k8s:enc:aescbc:v1:key1:")
    assert _secret_value(srv, "s1") == PLAIN
    srv.stop()

    # rotation: key2 first writes, key1 still reads what it wrote
    second = (
        f"[{{aesgcm: {{keys: [{{name: key2, secret: {K2}}}]}}}}, {{aescbc: {{keys: [{{name: key1, secret: {K1}}}]}}}}]"
    )
    srv = server_factory("--encryption-provider-config", _config(cfg, second), data_dir=data_dir)
    assert _secret_value(srv, "s1") == PLAIN  # read from the watch cache filled from storage at start
    listed = srv.request("GET", "/api/v1/namespaces/default/secrets?resourceVersion=0").json()
    assert [i["metadata"]["name"] for i in listed["items"]] == ["s1"]
    # rewriting every secret moves it to the new key, as `kubectl replace` does in kube's rotation guide
    secret = srv.kubectl("get", "secret", "s1", "-n", "default", "-o", "json").stdout
    srv.kubectl("replace", "-f", "-", input=secret)
    assert _stored(data_dir, "/registry/secrets/default/s1").startswith(b"k8s:enc:aesgcm:v1:key2:")
    srv.stop()

    # key1 dropped: what key2 wrote still reads
    third = f"[{{aesgcm: {{keys: [{{name: key2, secret: {K2}}}]}}}}]"
    srv = server_factory("--encryption-provider-config", _config(cfg, third), data_dir=data_dir)
    assert _secret_value(srv, "s1") == PLAIN
    # an older revision is read from the history table, decrypted the same way
    rv = srv.request("GET", "/api/v1/namespaces/default/secrets/s1").json()["metadata"]["resourceVersion"]
    r = srv.request("GET", f"/api/v1/namespaces/default/secrets?resourceVersion={rv}&resourceVersionMatch=Exact")
    assert r.status_code == 200 and r.json()["items"][0]["data"]["token"] == base64.b64encode(PLAIN.encode()).decode()
    srv.stop()

    # a key the configuration no longer has: the server starts, secrets answer kube's 500, the rest works
    lost = f"[{{aescbc: {{keys: [{{name: key9, secret: {K1}}}]}}}}]"
    srv = server_factory("--encryption-provider-config", _config(cfg, lost), data_dir=data_dir)
    r = srv.request("GET", "/api/v1/namespaces/default/secrets/s1")
    assert r.status_code == 500
    assert r.json()["message"] == (
        'Internal error occurred: unable to transform key "/registry/secrets/default/s1": no matching prefix found'
    )
    assert srv.request("GET", "/api/v1/namespaces/default/configmaps/c1").status_code == 200


def test_bad_config_is_a_one_line_error(tmp_path):
    cfg = _config(tmp_path / "enc.yaml", "[{aescbc: {keys: [{name: k, secret: cGFzc3dvcmQ=}]}}]")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kube_apiserver",
            "--data-dir",
            str(tmp_path / "d"),
            "--secure-port",
            "1",
            "--encryption-provider-config",
            cfg,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        f'Error: error while parsing encryption provider configuration file "{cfg}": error while parsing file: '
        'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the '
        "expected length, got 8, expected one of [16 24 32]"
    )


def test_automatic_reload_switches_the_write_key(server_factory, tmp_path):
    cfg = tmp_path / "enc.yaml"
    data_dir = tmp_path / "data"
    one = f"[{{aescbc: {{keys: [{{name: key1, secret: {K1}}}]}}}}]"
    srv = server_factory(
        "--encryption-provider-config",
        _config(cfg, one),
        "--encryption-provider-config-automatic-reload=true",
        data_dir=data_dir,
    )
    srv.kubectl("create", "secret", "generic", "r1", f"--from-literal=token={PLAIN}", "-n", "default")
    assert _stored(data_dir, "/registry/secrets/default/r1").startswith(b"k8s:enc:aescbc:v1:key1:")
    _config(
        cfg,
        f"[{{secretbox: {{keys: [{{name: key3, secret: {K2}}}]}}}}, {{aescbc: {{keys: [{{name: key1, secret: {K1}}}]}}}}]",
    )

    def rewritten() -> bool:
        srv.kubectl("label", "secret", "r1", "-n", "default", "--overwrite", "touch=yes")
        return _stored(data_dir, "/registry/secrets/default/r1").startswith(b"k8s:enc:secretbox:v1:key3:")

    wait_until(rewritten, timeout=10, interval=0.5, message="writes under the reloaded key")
    assert _secret_value(srv, "r1") == PLAIN
