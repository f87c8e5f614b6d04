"""The service tests' harnesses are in service_harness.py (in process) and process_harness.py
(real processes); their fixtures, `service` and `service_factory`, are suite-wide (tests/conftest.py)."""
