"""The NodePort allocator and its per-request operation (portallocator.go, operation.go)."""

from __future__ import annotations

import random

import pytest

from kube_apiserver.controlplane.portallocator import (
    PortAllocatedError,
    PortAllocationOperation,
    PortAllocator,
    PortNotInRangeError,
    PortRangeFullError,
    calculate_range_offset,
)


def test_range_string_and_messages():
    pa = PortAllocator.from_range(30000, 32767)
    assert str(pa) == "30000-32767" and pa.size == 2768
    with pytest.raises(PortNotInRangeError) as e:
        pa.allocate(80)
    assert str(e.value) == "provided port is not in the valid range. The range of valid ports is 30000-32767"
    pa.allocate(30080)
    with pytest.raises(PortAllocatedError) as e:
        pa.allocate(30080)
    assert str(e.value) == "provided port is already allocated"
    with pytest.raises(PortNotInRangeError):
        pa.allocate(32768)
    pa.allocate(32767)


@pytest.mark.parametrize(("size", "offset"), [(2768, 86), (16, 0), (17, 16), (100, 16), (10000, 128)])
def test_static_band_offset(size, offset):
    # min(max(16, size/32), 128), none for tiny ranges.
    assert calculate_range_offset(size) == offset


def test_dynamic_allocation_prefers_the_upper_band_then_fills_everything():
    pa = PortAllocator.from_range(30000, 30099, random.Random(7))  # 100 ports, 16 kept for static use first
    first = [pa.allocate_next() for _ in range(84)]
    assert all(p >= 30016 for p in first) and len(set(first)) == 84
    rest = [pa.allocate_next() for _ in range(16)]
    assert sorted(rest) == list(range(30000, 30016))
    assert pa.free() == 0
    with pytest.raises(PortRangeFullError) as e:
        pa.allocate_next()
    assert str(e.value) == "range is full"
    pa.release(30050)
    assert pa.allocate_next() == 30050
    pa.release(80)  # out of range: nothing happens
    assert pa.free() == 0


def test_operation_rolls_back_unless_committed_and_defers_releases():
    pa = PortAllocator.from_range(30000, 30010)
    pa.allocate(30001)
    op = PortAllocationOperation(pa)
    op.allocate(30002)
    port = op.allocate_next()
    op.release_deferred_port(30001)
    assert pa.has(30001) and pa.has(30002) and pa.has(port)
    op.finish()  # no commit: allocations undone, deferred release not done
    assert pa.has(30001) and not pa.has(30002) and not pa.has(port)
    op = PortAllocationOperation(pa)
    op.allocate(30002)
    op.release_deferred_port(30001)
    op.commit()
    op.finish()
    assert pa.has(30002) and not pa.has(30001)


def test_dry_run_operation_reserves_nothing():
    pa = PortAllocator.from_range(30000, 30010)
    pa.allocate(30005)
    op = PortAllocationOperation(pa, dry_run=True)
    with pytest.raises(PortAllocatedError):
        op.allocate(30005)
    op.allocate(30006)
    with pytest.raises(PortAllocatedError):
        op.allocate(30006)  # taken earlier in the same operation
    # Upstream makes up ports above the last one it handed out, or from 32769.
    assert op.allocate_next() == 30007
    assert PortAllocationOperation(pa, dry_run=True).allocate_next() == 32769
    op.allocate(80)  # the dry run does not check the range, as upstream's
    op.commit()
    assert pa.used == {30005}
