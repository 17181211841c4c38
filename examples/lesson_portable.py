import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
print("using:", device)

x = torch.ones(3)             # tensors are born on the CPU
print(x.device)
x = x.to(device)              # .to() COPIES it to the device
print(x.device)

y = torch.ones(3, device=device)   # or create it there directly
z = x + y                     # both operands on one device: allowed
print(z)

back = z.cpu().numpy()        # NumPy only understands CPU memory
print(back)
