"""Generated from proto/lawspeaker/v1 by `lawspeaker gen-proto`: do not edit."""
