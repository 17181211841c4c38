"""Torch-free pieces shared by every layer of torchferry: nothing here imports torch or patches anything."""
