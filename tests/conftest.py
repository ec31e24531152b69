import os
import signal

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# A suite started with Ctrl-C ignored (a background job, nohup, some runners) would pass that on to every process
# it starts, and the tests that interrupt one would wait for it in vain: its processes take the usual Ctrl-C.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
