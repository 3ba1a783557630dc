"""``python -m lawspeaker`` runs the command line (same as the ``lawspeaker`` script)."""

from lawspeaker.server.cli import main

raise SystemExit(main())
