"""The image reference grammar of github.com/distribution/reference, as far as defaulting needs it:
kube's parsers.ParseImageName gives the tag of an image (the implied "latest" when there is neither a
tag nor a digest), and SetDefaults_Container picks imagePullPolicy from it. A reference that does not
parse has no tag, so it gets IfNotPresent, as upstream (which ignores the parse error there).
"""

from __future__ import annotations

import re

_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[(?:[a-fA-F0-9:]+)\])"
_DOMAIN = rf"{_HOST}(?::[0-9]+)?"
_PATH_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*"
_NAME = rf"(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
_REFERENCE = re.compile(rf"^({_NAME})(?::({_TAG}))?(?:@({_DIGEST}))?$", re.ASCII)
_IDENTIFIER = re.compile(r"^[a-f0-9]{64}$")

NAME_TOTAL_LENGTH_MAX = 255
DEFAULT_DOMAIN = "docker.io"
# Digest algorithms kube links in (crypto/sha256, crypto/sha512) and their hex lengths.
_DIGEST_HEX_LENGTHS = {"sha256": 64, "sha384": 96, "sha512": 128}


class InvalidReference(ValueError):
    pass


def _split_docker_domain(name: str) -> tuple[str, str]:
    i = name.find("/")
    first = name[:i] if i >= 0 else ""
    if i == -1 or (not any(c in first for c in ".:") and first != "localhost" and first.lower() == first):
        domain, remainder = DEFAULT_DOMAIN, name
    else:
        domain, remainder = first, name[i + 1 :]
    if domain == DEFAULT_DOMAIN and "/" not in remainder:
        remainder = "library/" + remainder
    return domain, remainder


def parse_normalized_named(image: str) -> tuple[str, str, str]:
    """(repository, tag, digest) of an image reference, normalized as docker does (docker.io/library/...)."""
    if _IDENTIFIER.match(image):
        raise InvalidReference(f"invalid repository name ({image}), cannot specify 64-byte hexadecimal strings")
    domain, remainder = _split_docker_domain(image)
    remote = remainder.split(":", 1)[0]
    if remote.lower() != remote:
        raise InvalidReference(f"invalid reference format: repository name ({remote}) must be lowercase")
    m = _REFERENCE.match(f"{domain}/{remainder}")
    if m is None:
        raise InvalidReference("invalid reference format")
    name, tag, digest = m.group(1), m.group(2) or "", m.group(3) or ""
    if len(name) > NAME_TOTAL_LENGTH_MAX:
        raise InvalidReference(f"repository name must not be more than {NAME_TOTAL_LENGTH_MAX} characters")
    if digest:
        algorithm, _, hex_part = digest.partition(":")
        if _DIGEST_HEX_LENGTHS.get(algorithm) != len(hex_part):
            raise InvalidReference("invalid digest")
    return name, tag, digest


def parse_image_name(image: str) -> tuple[str, str, str]:
    """pkg/util/parsers.ParseImageName: (repository, tag, digest), the tag "latest" when neither a tag
    nor a digest is given."""
    name, tag, digest = parse_normalized_named(image)
    if not tag and not digest:
        tag = "latest"
    return name, tag, digest


def image_tag(image: object) -> str:
    """The tag defaulting looks at: "" when the image does not parse."""
    if not isinstance(image, str):
        return ""
    try:
        return parse_image_name(image)[1]
    except InvalidReference:
        return ""


def default_pull_policy(image: object) -> str:
    if isinstance(image, str) and _explicit_tag(image) not in ("", "latest"):
        # Tagged otherwise than latest: IfNotPresent whether the rest parses (that tag) or not ("").
        return "IfNotPresent"
    return "Always" if image_tag(image) == "latest" else "IfNotPresent"


def _explicit_tag(image: str) -> str:
    """The text after the ':' of the reference's last path component (before any digest): its tag if
    the reference parses at all."""
    last = image.partition("@")[0].rpartition("/")[2]
    return last.rpartition(":")[2] if ":" in last else ""
