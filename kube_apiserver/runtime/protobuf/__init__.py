"""The Kubernetes protobuf wire format (application/vnd.kubernetes.protobuf) for request bodies."""

from kube_apiserver.runtime.protobuf.decode import (
    MAGIC,
    MEDIA_TYPE,
    ProtobufDecodeError,
    decode_message,
    decode_protobuf,
    peek_type_meta,
)

__all__ = ["MAGIC", "MEDIA_TYPE", "ProtobufDecodeError", "decode_message", "decode_protobuf", "peek_type_meta"]
