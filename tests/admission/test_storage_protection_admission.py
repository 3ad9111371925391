"""StorageObjectInUseProtection admission: new claims and volumes get their protection finalizer, appended
after the client's own and never twice; updates are left alone."""

from __future__ import annotations

from kube_apiserver.admission.plugins import RUN
from kube_apiserver.admission.plugins.storage_object_in_use_protection import (
    PV_PROTECTION_FINALIZER,
    PVC_PROTECTION_FINALIZER,
    admit_claim,
    admit_volume,
)
from kube_apiserver.cmd.options_admission import REGISTERED_PLUGINS, AdmissionOptions


def test_create_adds_the_finalizer():
    pvc = {"metadata": {"name": "c"}}
    admit_claim(pvc, None)
    assert pvc["metadata"]["finalizers"] == [PVC_PROTECTION_FINALIZER]
    pv = {"metadata": {"name": "v", "finalizers": ["example.com/keep"]}}
    admit_volume(pv, None)
    assert pv["metadata"]["finalizers"] == ["example.com/keep", PV_PROTECTION_FINALIZER]


def test_present_finalizer_is_not_added_twice():
    pvc = {"metadata": {"finalizers": [PVC_PROTECTION_FINALIZER, "example.com/keep"]}}
    admit_claim(pvc, None)
    assert pvc["metadata"]["finalizers"] == [PVC_PROTECTION_FINALIZER, "example.com/keep"]


def test_update_is_left_alone():
    pvc = {"metadata": {"name": "c"}}
    admit_claim(pvc, {"metadata": {"name": "c"}})
    assert "finalizers" not in pvc["metadata"]
    pv = {"metadata": {"name": "v"}}
    admit_volume(pv, {"metadata": {"name": "v"}})
    assert "finalizers" not in pv["metadata"]


def test_malformed_objects_are_left_to_validation():
    for obj in ({}, {"metadata": None}, {"metadata": {"finalizers": "x"}}):
        before = repr(obj)
        admit_claim(obj, None)
        assert repr(obj) == before


def test_on_by_default_and_can_be_disabled():
    assert "StorageObjectInUseProtection" in RUN and "StorageObjectInUseProtection" in REGISTERED_PLUGINS
    assert "StorageObjectInUseProtection" in AdmissionOptions([], []).run()
    assert "StorageObjectInUseProtection" not in AdmissionOptions([], ["StorageObjectInUseProtection"]).run()
