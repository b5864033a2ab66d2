"""The frontend: Python kernel source to `tile`-dialect IR."""
