"""Generated from proto/lawspeaker/v1 by clients/python/gen_proto.py: do not edit."""
