"""What every layer records about a call: ``calls`` (one record per call, filled where each fact is
known and read once when it ends) and ``metrics`` (the Prometheus metrics, each defined once). The
layers below the edges note facts here without knowing who reads them; the access log and the
traces that read them are configured by ``lawspeaker.server``. Imports nothing of the service.
"""
