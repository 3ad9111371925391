"""The ClusterIP allocator (ipallocator.go, cidrallocator.go): ranges, messages, the static band."""

from __future__ import annotations

import random

import pytest

from kube_apiserver.controlplane.ipallocator import (
    IPAllocatedError,
    IPAllocator,
    IPNotInRangeError,
    IPRangeFullError,
    MismatchedNetworkError,
    calculate_range_offset,
    canonical_ip,
)


def test_requested_ip_messages():
    a = IPAllocator("10.0.0.0/24")
    assert a.allocate("10.0.0.10", ("ns", "a")) == "10.0.0.10"
    with pytest.raises(IPAllocatedError) as e:
        a.allocate("10.0.0.10", ("ns", "b"))
    assert str(e.value) == "provided IP is already allocated"
    with pytest.raises(MismatchedNetworkError) as e:
        a.allocate("192.168.0.1", ("ns", "b"))
    assert str(e.value) == "the provided network does not match the current range"
    # The network and broadcast addresses are in the CIDR but not in the range.
    for ip in ("10.0.0.0", "10.0.0.255"):
        with pytest.raises(IPNotInRangeError) as e:
            a.allocate(ip, ("ns", "b"))
        assert (
            str(e.value) == f"the provided IP ({ip}) is not in the valid range. The range of valid IPs is 10.0.0.0/24"
        )
    with pytest.raises(MismatchedNetworkError):
        a.allocate("fd00::1", ("ns", "b"))
    assert a.owners == {"10.0.0.10": ("ns", "a")}


def test_ips_are_canonical_names():
    assert canonical_ip("10.0.0.010") == "10.0.0.10"
    assert canonical_ip("::ffff:10.0.0.1") == "10.0.0.1"
    assert canonical_ip("FD00::0:1") == "fd00::1"
    assert canonical_ip("nope") is None
    a = IPAllocator("10.0.0.0/24")
    assert a.allocate("10.0.0.020", ("ns", "a")) == "10.0.0.20"
    assert a.has("10.0.0.20") and a.release("10.0.0.020") == ("ns", "a") and not a.has("10.0.0.20")


@pytest.mark.parametrize(
    ("cidr", "offset"), [("10.0.0.0/24", 16), ("10.0.0.0/28", 0), ("10.0.0.0/16", 256), ("fd00::/112", 256)]
)
def test_static_band_offset(cidr, offset):
    import ipaddress

    assert calculate_range_offset(ipaddress.ip_network(cidr)) == offset


def test_dynamic_allocation_uses_the_upper_band_first():
    a = IPAllocator("10.0.0.0/24", rng=random.Random(3))
    assert a.size() == 254
    upper = {a.allocate_next(("ns", f"s{i}")) for i in range(238)}
    assert all(int(ip.rsplit(".", 1)[1]) >= 17 for ip in upper) and len(upper) == 238
    lower = {a.allocate_next(("ns", f"t{i}")) for i in range(16)}
    assert lower == {f"10.0.0.{i}" for i in range(1, 17)}
    with pytest.raises(IPRangeFullError) as e:
        a.allocate_next(("ns", "x"))
    assert str(e.value) == "range is full"


def test_ips_taken_elsewhere_are_skipped():
    taken = {f"10.0.0.{i}" for i in range(2, 14)}  # IPAddress objects someone else wrote
    a = IPAllocator("10.0.0.0/28", is_taken=taken.__contains__)
    got = {a.allocate_next(("ns", "a")), a.allocate_next(("ns", "b"))}
    assert got == {"10.0.0.1", "10.0.0.14"}
    with pytest.raises(IPRangeFullError):
        a.allocate_next(("ns", "c"))
    with pytest.raises(IPAllocatedError):
        a.allocate("10.0.0.5", ("ns", "c"))


def test_ipv6_range_includes_the_last_address():
    a = IPAllocator("fd00::/124")
    assert a.family == "IPv6" and a.size() == 15
    assert a.allocate("fd00::f", ("ns", "a")) == "fd00::f"
    with pytest.raises(IPNotInRangeError):
        a.allocate("fd00::", ("ns", "a"))


def test_dry_run_checks_only_the_range():
    a = IPAllocator("10.0.0.0/24")
    a.allocate("10.0.0.10", ("ns", "a"))
    a.dry_run_allocate("10.0.0.10")  # taken, but a dry run does not look
    with pytest.raises(IPNotInRangeError) as e:
        a.dry_run_allocate("192.168.0.1")
    assert "The range of valid IPs is 10.0.0.0/24" in str(e.value)
    assert a.dry_run_next() == "10.0.0.0"
    assert a.owners == {"10.0.0.10": ("ns", "a")}
