"""Torch-free pieces shared by the rest of torchferry (standard library only)."""
