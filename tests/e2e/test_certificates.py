"""CertificateSigningRequests as kube-apiserver keeps them: the requester recorded from the request,
approval through the approval subresource (kubectl certificate approve/deny), and /status unable to
approve."""

from __future__ import annotations

import base64
import json

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

VERSIONS = ["1.33", "1.27"]


def _csr_manifest(name: str) -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    request = (
        x509.CertificateSigningRequestBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "alice")]))
        .sign(key, hashes.SHA256())
    )
    pem = request.public_bytes(serialization.Encoding.PEM)
    return json.dumps(
        {
            "apiVersion": "certificates.k8s.io/v1",
            "kind": "CertificateSigningRequest",
            "metadata": {"name": name},
            "spec": {
                "request": base64.b64encode(pem).decode(),
                "signerName": "kubernetes.io/kube-apiserver-client",
                "usages": ["client auth"],
                # what a client says of itself is not what is recorded
                "username": "someone-else",
                "groups": ["system:masters"],
            },
        }
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_kubectl_certificate_approve_and_deny(server, version):
    approve, deny = f"csr-approve-{version.replace('.', '')}", f"csr-deny-{version.replace('.', '')}"
    for name in (approve, deny):
        server.kubectl("apply", "-f", "-", input=_csr_manifest(name), version=version)
    csr = json.loads(server.kubectl("get", "csr", approve, "-o", "json").stdout)
    assert csr["spec"]["username"] == "kubernetes-admin"
    assert csr["spec"]["groups"] == ["system:masters", "system:authenticated"]
    assert csr["status"] == {}
    assert "kubernetes-admin" in server.kubectl("get", "csr", approve).stdout  # the REQUESTOR column

    out = server.kubectl("certificate", "approve", approve, version=version).stdout
    assert out.strip() == f"certificatesigningrequest.certificates.k8s.io/{approve} approved"
    server.kubectl("certificate", "deny", deny, version=version)
    table = server.kubectl("get", "csr", approve, deny).stdout
    assert [line.split()[-1] for line in table.splitlines()[1:]] == ["Approved", "Denied"]
    [cond] = json.loads(server.kubectl("get", "csr", approve, "-o", "json").stdout)["status"]["conditions"]
    assert cond["type"] == "Approved" and cond["status"] == "True" and cond["reason"] == "KubectlApprove"
    assert cond["lastUpdateTime"] and cond["lastTransitionTime"]

    # an update of the object or of its status cannot approve
    denied = json.loads(server.kubectl("get", "csr", deny, "-o", "json").stdout)
    denied["status"]["conditions"] = [{"type": "Approved", "status": "True"}]
    path = f"/apis/certificates.k8s.io/v1/certificatesigningrequests/{deny}"
    r = server.request("PUT", path + "/status", json=denied)
    assert r.status_code == 422, r.text
    assert 'status.conditions: Forbidden: updates may not add a condition of type "Approved"' in r.json()["message"]
    r = server.request("PUT", path, json=denied)
    assert r.status_code == 200 and [c["type"] for c in r.json()["status"]["conditions"]] == ["Denied"]
    # a JSON patch through the approval subresource changes the conditions and nothing else
    r = server.request(
        "PATCH",
        path + "/approval",
        json=[
            {"op": "replace", "path": "/status/conditions/0/message", "value": "patched"},
            {"op": "replace", "path": "/spec/usages", "value": ["digital signature"]},
        ],
        headers={"Content-Type": "application/json-patch+json"},
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"]["conditions"][0]["message"] == "patched"
    assert body["spec"]["usages"] == ["client auth"]
    server.kubectl("delete", "csr", approve, deny)


def test_update_with_another_objects_uid_is_a_conflict(core_v1, ns):
    from kubernetes import client
    from kubernetes.client.rest import ApiException

    old = core_v1.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="c")))
    core_v1.delete_namespaced_config_map("c", ns)
    new = core_v1.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="c")))
    # a PUT carrying the deleted predecessor's uid: the body's uid is a precondition
    stale = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="c", uid=old.metadata.uid), data={"a": "1"})
    with pytest.raises(ApiException) as e:
        core_v1.replace_namespaced_config_map("c", ns, stale)
    assert e.value.status == 409
    assert json.loads(e.value.body)["message"] == (
        'Operation cannot be fulfilled on configmaps "c": Precondition failed: UID in precondition: '
        f"{old.metadata.uid}, UID in object meta: {new.metadata.uid}"
    )
    # a patch cannot change it either
    with pytest.raises(ApiException) as e:
        core_v1.patch_namespaced_config_map("c", ns, {"metadata": {"uid": old.metadata.uid}})
    assert e.value.status == 422
    assert "metadata.uid: Invalid value" in json.loads(e.value.body)["message"]
    assert core_v1.read_namespaced_config_map("c", ns).data is None


def _self_signed_pem() -> bytes:
    import datetime

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "alice")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM)


def test_issued_certificate_must_be_pem_certificates(server):
    """validateCertificate on /status: what a signer writes to status.certificate is PEM CERTIFICATE blocks,
    without headers, each a certificate; once issued it stays."""
    server.kubectl("create", "-f", "-", input=_csr_manifest("issued"))
    path = "/apis/certificates.k8s.io/v1/certificatesigningrequests/issued/status"

    def put_certificate(data: bytes):
        csr = server.request("GET", path).json()
        csr["status"]["certificate"] = base64.b64encode(data).decode()
        return server.request("PUT", path, json=csr)

    key_pem = b"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIA==\n-----END EC PRIVATE KEY-----\n"
    for data, message in (
        (b"not pem", "must contain at least one CERTIFICATE PEM block"),
        (key_pem, 'only CERTIFICATE PEM blocks are allowed, found "EC PRIVATE KEY"'),
        (b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "x509: malformed certificate"),
    ):
        r = put_certificate(data)
        assert r.status_code == 422, r.text
        assert r.json()["message"] == (
            'CertificateSigningRequest.certificates.k8s.io "issued" is invalid: status.certificate: '
            f'Invalid value: "<certificate data>": {message}'
        )
    cert = _self_signed_pem()
    r = put_certificate(cert + cert)  # a chain
    assert r.status_code == 200, r.text
    r = put_certificate(_self_signed_pem())
    assert r.status_code == 422 and "updates may not modify existing certificate content" in r.json()["message"]
