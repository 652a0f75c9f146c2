"""Layer 1: numba kernels.  Arrays and floats in, arrays out; no validation, no classes, no plotting."""
