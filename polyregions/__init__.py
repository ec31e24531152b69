"""polyregions: the exact geometry of piecewise-linear neural networks and of hyperplane arrangements."""

from .errors import *  # noqa: F401,F403
from .rational import format_rational, rational, rational_matrix, rational_vector  # noqa: F401

__version__ = "0.1.0"
