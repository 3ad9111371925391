"""gorepr.approx: a %#v-like rendering of big structs in validation messages."""

from __future__ import annotations

from kube_apiserver.apis.validation_util import gorepr


def test_map_fields_keep_their_keys_and_struct_fields_are_capitalized():
    template = {
        "metadata": {"labels": {"job-name": "j1", "batch.kubernetes.io/job-name": "j1"}},
        "spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "1"}}}]},
    }
    assert str(gorepr.approx("core.PodTemplateSpec", template)) == (
        'core.PodTemplateSpec{ObjectMeta:{Labels:map[string]string{"batch.kubernetes.io/job-name":"j1", '
        '"job-name":"j1"}}, Spec:{Containers:{{Name:"c", Resources:{Limits:core.ResourceList{"cpu":"1"}}}}}}'
    )
