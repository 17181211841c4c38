"""Train a tiny GPT-2 (transformers, a config built here: no download) for a few steps.

``python gpt2_train.py [--steps 20] [--compile]``: the device is "cuda" when
``torch.cuda.is_available()``, else "cpu" (the lesson's pattern); prints one loss per
step.  Dropout is off so the CPU run and a GPU run draw no random numbers on the device.
"""

import argparse

import torch
from transformers import GPT2Config, GPT2LMHeadModel

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=20)
p.add_argument("--compile", action="store_true")
args = p.parse_args()

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
config = GPT2Config(vocab_size=97, n_positions=32, n_embd=32, n_layer=2, n_head=2,
                    resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
model = GPT2LMHeadModel(config).to(device)
if args.compile:
    model = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = torch.randint(0, 97, (64, 17))  # made on the CPU, as a DataLoader gives them
model.train()
for step in range(args.steps):
    batch = data[(step * 8) % 64:(step * 8) % 64 + 8].to(device)
    out = model(input_ids=batch[:, :-1], labels=batch[:, :-1])
    opt.zero_grad(set_to_none=True)
    out.loss.backward()
    opt.step()
    print(f"step {step} loss {out.loss.item():.6f}")  # noqa: FRY007 (the per-step loss is the output compared across devices)
print("device", next(model.parameters()).device)
