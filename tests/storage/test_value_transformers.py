"""Encryption at rest: the providers' stored layouts, prefixes, key rotation and config validation."""

from __future__ import annotations

import base64

import pytest

from kube_apiserver.storage.value import encryptionconfig
from kube_apiserver.storage.value.aes import AESCBCTransformer, AESGCMTransformer, SecretboxTransformer
from kube_apiserver.storage.value.transformer import IDENTITY, PrefixTransformers, TransformError

KEY = "/registry/secrets/default/s1"
K16 = base64.b64encode(b"0123456789abcdef").decode()
K32 = base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
K32B = base64.b64encode(b"fedcba9876543210fedcba9876543210").decode()
GROUPS = frozenset({"apps", "batch"})


@pytest.mark.parametrize("make", [AESCBCTransformer, AESGCMTransformer, SecretboxTransformer])
def test_round_trip_and_random_nonce(make):
    t = make(b"0123456789abcdef0123456789abcdef")
    data = b'{"kind":"Secret","data":{"a":"c2VjcmV0"}}'
    one, two = t.to_storage(data, KEY), t.to_storage(data, KEY)
    assert one != two and data not in one
    assert t.from_storage(one, KEY) == data


def test_aesgcm_binds_the_storage_key():
    t = AESGCMTransformer(b"0123456789abcdef")
    stored = t.to_storage(b"{}", KEY)
    with pytest.raises(TransformError, match="message authentication failed"):
        t.from_storage(stored, "/registry/secrets/default/other")


def test_layout_sizes():
    data = b"x" * 20
    assert len(AESCBCTransformer(b"0123456789abcdef").to_storage(data, KEY)) == 16 + 32  # IV + 2 padded blocks
    assert len(AESGCMTransformer(b"0123456789abcdef").to_storage(data, KEY)) == 12 + 20 + 16  # nonce + tag
    assert len(SecretboxTransformer(b"k" * 32).to_storage(data, KEY)) == 24 + 16 + 20


def test_prefix_transformers_write_first_read_any():
    old = AESCBCTransformer(b"0123456789abcdef")
    new = AESCBCTransformer(b"fedcba9876543210")
    before = PrefixTransformers([(b"k8s:enc:aescbc:v1:key1:", old), (b"", IDENTITY)])
    after = PrefixTransformers([(b"k8s:enc:aescbc:v1:key2:", new), (b"k8s:enc:aescbc:v1:key1:", old)])
    stored = before.to_storage(b'{"a":1}', KEY)
    assert stored.startswith(b"k8s:enc:aescbc:v1:key1:")
    assert after.from_storage(stored, KEY) == b'{"a":1}'
    assert after.to_storage(b"{}", KEY).startswith(b"k8s:enc:aescbc:v1:key2:")
    assert before.from_storage(b'{"plain":true}', KEY) == b'{"plain":true}'  # identity listed: old plain data
    with pytest.raises(TransformError, match="no matching prefix found"):
        after.from_storage(b'{"plain":true}', KEY)  # identity not listed
    with pytest.raises(TransformError, match="identity transformer tried to read encrypted data"):
        IDENTITY.from_storage(stored, KEY)


def _config(tmp_path, body: str):
    path = tmp_path / "enc.yaml"
    path.write_text(body)
    return encryptionconfig.load(str(path), GROUPS)


def test_resources_resolve_by_key(tmp_path):
    cfg = _config(
        tmp_path,
        f"""
apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets, "*.apps"]
  providers: [{{aesgcm: {{keys: [{{name: k1, secret: {K32}}}]}}}}]
- resources: ["widgets.example.com"]
  providers: [{{secretbox: {{keys: [{{name: k2, secret: {K32B}}}]}}}}]
- resources: ["*.*"]
  providers: [{{identity: {{}}}}]
""",
    )
    assert cfg.for_key("/registry/secrets/ns/a").to_storage(b"{}", "k").startswith(b"k8s:enc:aesgcm:v1:k1:")
    assert cfg.for_key("/registry/apps/deployments/ns/a").to_storage(b"{}", "k").startswith(b"k8s:enc:aesgcm:")
    assert (
        cfg.for_key("/registry/example.com/widgets/ns/a").to_storage(b"{}", "k").startswith(b"k8s:enc:secretbox:v1:k2:")
    )
    assert cfg.for_key("/registry/configmaps/ns/a") is IDENTITY
    assert cfg.for_key("/registry/batch/jobs/ns/a") is IDENTITY


@pytest.mark.parametrize(
    ("providers", "message"),
    [
        (
            "[{aescbc: {keys: [{name: k, secret: cGFzc3dvcmQ=}]}}]",
            'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the '
            "expected length, got 8, expected one of [16 24 32]",
        ),
        (
            f"[{{secretbox: {{keys: [{{name: k, secret: {K16}}}]}}}}]",
            'resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the '
            "expected length, got 16, expected one of [32]",
        ),
        (
            "[{aesgcm: {keys: [{secret: '!!'}]}}]",
            "resources[0].providers[0].aesgcm.keys[0].name: Required value: name is a mandatory field for a key, "
            'resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded',
        ),
        (
            "[{aesgcm: {keys: []}}]",
            "resources[0].providers[0].aesgcm.keys: Required value: at least one keys is required",
        ),
        (
            f"[{{identity: {{}}, aescbc: {{keys: [{{name: k, secret: {K16}}}]}}}}]",
            "more than one provider specified in a single element, should split into different list elements",
        ),
    ],
)
def test_validation_messages(tmp_path, providers, message):
    body = f"apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers: {providers}\n"
    with pytest.raises(encryptionconfig.EncryptionConfigError) as e:
        _config(tmp_path, body)
    assert str(e.value).startswith(f'error while parsing encryption provider configuration file "{tmp_path}/enc.yaml"')
    assert message in str(e.value)


def test_reload_keeps_the_old_config_on_error(tmp_path):
    path = tmp_path / "enc.yaml"
    good = f"apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers: [{{aescbc: {{keys: [{{name: k1, secret: {K16}}}]}}}}]\n"
    path.write_text(good)
    r = encryptionconfig.ReloadingEncryptionConfig(str(path), GROUPS)
    assert not r.reload_if_changed()
    path.write_text(good.replace("k1", "k2"))
    assert r.reload_if_changed()
    assert r.for_key(KEY).to_storage(b"{}", KEY).startswith(b"k8s:enc:aescbc:v1:k2:")
    path.write_text("kind: Nope\n")
    assert not r.reload_if_changed() and "unexpected config type" in r.last_error
    assert r.for_key(KEY).to_storage(b"{}", KEY).startswith(b"k8s:enc:aescbc:v1:k2:")
