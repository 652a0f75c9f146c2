"""The kernels' status codes and the layout of their info rows, declared once.

Every integration kernel reports one of these codes; the model layer names them
(:class:`pendulum_explorer.integrators.Status`) and turns a failed one into an exception.  The crossing kernels
(``section.crossings_serial``, ``taylor.crossings_serial_taylor``) fill one info row of ``N_INFO`` int64 per
trajectory; its columns are named here (``I_*``) and read by the integrator classes only.
"""
OK = 0
MAX_STEPS = 1
STEP_TOO_SMALL = 2
NON_FINITE = 3
MAX_TIME = 4
NO_CROSSING = 5
#: a crossing loop stopped after its step allowance for this call, to be continued (never reported to users)
PAUSED = 6

#: info row of the crossing kernels: crossings found, status, then three counters whose meaning depends on
#: the kernel (DOP853: accepted steps, rejected steps, right-hand sides; Taylor: steps, 0, series orders summed)
N_INFO = 6
I_FOUND = 0
I_STATUS = 1
I_COUNT_A = 2
I_COUNT_B = 3
I_COUNT_C = 4
