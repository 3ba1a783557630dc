"""A typed Python client for Lawspeaker over gRPC or REST.

    from lawspeaker_client import Client

    client = Client.grpc("localhost:50051")  # or Client.rest("http://localhost:8080")
    state = client.new_game("valhalla", players=2, seed=42).state

The generated messages and gRPC stubs of the contract are in :mod:`lawspeaker_client.v1`.
"""

from .client import Client, Sessions
from .errors import FieldViolation, LawspeakerClientError

__all__ = ["Client", "FieldViolation", "LawspeakerClientError", "Sessions"]
