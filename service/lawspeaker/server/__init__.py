"""The running service: ``cli`` (the ``lawspeaker`` command), ``workers`` (``--workers N`` under a
supervisor), ``listen`` (the ports, claimed first), ``tls``, ``logs`` and ``tracing`` (how the call
records of ``lawspeaker.observe`` are written out), and ``devtools`` (generating and checking the
protobuf code and the documents). The top layer: it wires the stores, the API and both transports
together, and nothing in the service imports it.
"""
