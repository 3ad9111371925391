"""Validation of networking.k8s.io/v1 (pkg/apis/networking/validation): ingress.py (Ingress,
IngressClass), networkpolicy.py, ipaddress.py (IPAddress, ServiceCIDR)."""
