import torch

a = torch.ones(3)
b = torch.ones(3, device="cuda")
print(a + b)
