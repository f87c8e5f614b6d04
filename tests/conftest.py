"""Suite-wide settings.

Hypothesis' deadline and "too slow" health check measure wall time, which a loaded
two-core CI machine cannot promise; what the property tests check is behaviour.
"""
from hypothesis import HealthCheck, settings

settings.register_profile("mjtable", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("mjtable")
