"""The ClusterIP allocator (pkg/registry/core/service/ipallocator: the IPAddress-backed Allocator and
the MetaAllocator over the ServiceCIDRs, GA in 1.33 as MultiCIDRServiceAllocator).

Upstream an IP is allocated by creating the networking.k8s.io/v1 IPAddress named after it, and
"allocated" means "an IPAddress object exists". Here the allocator keeps the owners of the IPs in
memory, so that an allocation is one synchronous step (atomic on the event loop), and the Service
REST writes the IPAddress objects to match (controlplane/service_rest.py). An IPAddress written by
someone else also makes its IP unavailable: is_taken tells the allocator about those.

The range is the --service-cluster-ip-range flag (the `kubernetes` ServiceCIDR). Dynamic allocation
prefers the upper part of the range and leaves the lowest addresses to users who ask for a specific
one (KEP-3070).
"""

from __future__ import annotations

import ipaddress
import random
from collections.abc import Callable

from kube_apiserver.runtime.validation.names import parse_ip_sloppy

IPAddr = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNet = ipaddress.IPv4Network | ipaddress.IPv6Network
Owner = tuple[str, str]  # (namespace, name) of the Service holding the IP

CONTROLLER_NAME = "ipallocator.k8s.io"
LABEL_IP_FAMILY = "ipaddress.kubernetes.io/ip-family"
LABEL_MANAGED_BY = "ipaddress.kubernetes.io/managed-by"


class IPAllocationError(Exception):
    """An allocation failed; str() is upstream's message."""


class IPAllocatedError(IPAllocationError):
    def __init__(self) -> None:
        super().__init__("provided IP is already allocated")


class IPNotInRangeError(IPAllocationError):
    def __init__(self, ip: str, valid_range: str) -> None:
        super().__init__(f"the provided IP ({ip}) is not in the valid range. The range of valid IPs is {valid_range}")


class MismatchedNetworkError(IPAllocationError):
    """No ServiceCIDR contains the IP."""

    def __init__(self) -> None:
        super().__init__("the provided network does not match the current range")


class IPRangeFullError(IPAllocationError):
    def __init__(self) -> None:
        super().__init__("range is full")


def calculate_range_offset(network: IPNet) -> int:
    """min(max(16, size/16), 256), and 0 for a range of 16 addresses or fewer: the static band."""
    size = network.num_addresses
    if size <= 16:
        return 0
    return min(max(16, size // 16), 256)


def family_of_network(network: IPNet) -> str:
    return "IPv6" if network.version == 6 else "IPv4"


def canonical_ip(ip: str) -> str | None:
    """The IP as Go's net.IP.String() writes it (the IPAddress object's name), or None."""
    addr = parse_ip_sloppy(ip)
    if addr is None:
        return None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return str(addr.ipv4_mapped)
    return str(addr)


class IPAllocator:
    """The IPs of one CIDR: the network address and, for IPv4, the broadcast address excluded."""

    def __init__(
        self,
        cidr: str,
        *,
        is_taken: Callable[[str], bool] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.network: IPNet = ipaddress.ip_network(cidr, strict=False)
        self.family = family_of_network(self.network)
        base = int(self.network.network_address)
        self.first = base + 1
        self.last = int(self.network.broadcast_address) - (1 if self.network.version == 4 else 0)
        self.range_offset = calculate_range_offset(self.network)
        self.owners: dict[str, Owner] = {}
        self._is_taken = is_taken or (lambda ip: False)
        self._rand = rng or random.Random()

    @property
    def cidr(self) -> str:
        return str(self.network)

    def size(self) -> int:
        return max(0, self.last - self.first + 1)

    def _addr(self, value: int) -> str:
        return str(ipaddress.IPv4Address(value) if self.network.version == 4 else ipaddress.IPv6Address(value))

    def _check_range(self, ip: str) -> str:
        """The canonical form of an IP of this range; raises as MetaAllocator.AllocateService does."""
        canonical = canonical_ip(ip)
        addr = ipaddress.ip_address(canonical) if canonical else None
        if addr is None or addr.version != self.network.version or addr not in self.network:
            raise MismatchedNetworkError()
        if not self.first <= int(addr) <= self.last:
            raise IPNotInRangeError(canonical or ip, self.cidr)
        return str(addr)

    def is_free(self, ip: str) -> bool:
        return ip not in self.owners and not self._is_taken(ip)

    def allocate(self, ip: str, owner: Owner) -> str:
        """Reserve a requested IP; returns its canonical form (the IPAddress name)."""
        canonical = self._check_range(ip)
        if not self.is_free(canonical):
            raise IPAllocatedError()
        self.owners[canonical] = owner
        return canonical

    def allocate_next(self, owner: Owner) -> str:
        """A random free IP of the upper band, else of the lower band."""
        offset_first = self.first + self.range_offset
        for first, last in ((offset_first, self.last), (self.first, offset_first - 1)):
            count = last - first + 1
            if count <= 0:
                continue
            start = self._rand.randrange(count)
            for i in range(count):
                ip = self._addr(first + (start + i) % count)
                if self.is_free(ip):
                    self.owners[ip] = owner
                    return ip
        raise IPRangeFullError()

    def dry_run_allocate(self, ip: str) -> None:
        """The dry-run allocator only checks the range, not whether the IP is taken (as upstream)."""
        canonical = canonical_ip(ip)
        addr = ipaddress.ip_address(canonical) if canonical else None
        if addr is None or addr.version != self.network.version or not self.first <= int(addr) <= self.last:
            raise IPNotInRangeError(canonical or ip, self.cidr)

    def dry_run_next(self) -> str:
        """Upstream does not look for a free IP on a dry run: it answers the network address."""
        return str(self.network.network_address)

    def release(self, ip: str) -> Owner | None:
        """Free an IP; releasing a free or foreign IP does nothing. Returns the former owner."""
        canonical = canonical_ip(ip)
        return self.owners.pop(canonical, None) if canonical else None

    def set_owner(self, ip: str, owner: Owner) -> None:
        canonical = canonical_ip(ip)
        if canonical is not None and canonical in self.owners:
            self.owners[canonical] = owner

    def has(self, ip: str) -> bool:
        canonical = canonical_ip(ip)
        return canonical is not None and canonical in self.owners

    def contains(self, ip: str) -> bool:
        canonical = canonical_ip(ip)
        if canonical is None:
            return False
        addr = ipaddress.ip_address(canonical)
        return addr.version == self.network.version and self.first <= int(addr) <= self.last

    def used(self) -> int:
        return len(self.owners)

    def free(self) -> int:
        return self.size() - len(self.owners)
