"""Train a tiny GPT-2 with Hugging Face's ``Trainer`` and ``torch_compile=True``.

``python trainer_compile.py OUTPUT_DIR [--steps 4] [--no-compile]``: the ``Trainer``
picks the device itself (accelerate: the GPU when ``torch.cuda.is_available()``, else the
CPU), compiles the model (``TrainingArguments(torch_compile=True)``) and trains; prints
one loss per step and the device of the parameters.  A config built here (no download);
dropout off, so the CPU run and a GPU run draw no random numbers on the device.
"""

import argparse

import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback, TrainingArguments

p = argparse.ArgumentParser()
p.add_argument("output_dir")
p.add_argument("--steps", type=int, default=4)
p.add_argument("--no-compile", action="store_true")
args = p.parse_args()


class Data(torch.utils.data.Dataset):
    def __init__(self) -> None:
        self.ids = torch.randint(0, 97, (64, 16), generator=torch.Generator().manual_seed(0))

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i: int) -> dict:
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


class PrintLoss(TrainerCallback):
    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "loss" in logs:
            print(f"step {state.global_step} loss {logs['loss']}", flush=True)


torch.manual_seed(0)
config = GPT2Config(vocab_size=97, n_positions=32, n_embd=32, n_layer=2, n_head=2,
                    resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
model = GPT2LMHeadModel(config)
training = TrainingArguments(
    output_dir=args.output_dir, max_steps=args.steps, per_device_train_batch_size=8,
    learning_rate=1e-3, logging_steps=1, report_to=[], save_strategy="no",
    torch_compile=not args.no_compile, dataloader_num_workers=0, disable_tqdm=True,
)
trainer = Trainer(model=model, args=training, train_dataset=Data(), callbacks=[PrintLoss()])
trainer.train()
print("device", next(trainer.model.parameters()).device, "compiled", training.torch_compile)
