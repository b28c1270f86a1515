# corpus: causal-LM fine-tuning loop (finetune_hf_llm.py style) keeps a running loss_sum += loss with the graph-bearing loss tensor for logging, so every step's graph stays alive until the epoch ends
# source: https://github.com/ray-project/ray/pull/40940
import argparse
import math
import time
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class CausalLMOutput:
    loss: Optional[torch.Tensor]
    logits: torch.Tensor


class TinyCausalLM(nn.Module):
    def __init__(self, vocab_size, d_model=32, n_heads=2, n_layers=2, max_len=32):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, d_model)
        self.embed_positions = nn.Embedding(max_len, d_model)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, 4 * d_model, dropout=0.0, batch_first=True)
        self.layers = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, input_ids, attention_mask=None, labels=None):
        seq_len = input_ids.size(1)
        pos = torch.arange(seq_len, device=input_ids.device)
        h = self.embed_tokens(input_ids) + self.embed_positions(pos)[None]
        causal = torch.triu(torch.ones(seq_len, seq_len, dtype=torch.bool, device=input_ids.device), diagonal=1)
        pad_mask = None if attention_mask is None else attention_mask == 0
        h = self.layers(h, mask=causal, src_key_padding_mask=pad_mask, is_causal=True)
        logits = self.lm_head(self.norm(h))
        loss = None
        if labels is not None:
            shift_logits = logits[:, :-1].contiguous()
            shift_labels = labels[:, 1:].contiguous()
            loss = F.cross_entropy(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1),
                                   ignore_index=-100)
        return CausalLMOutput(loss=loss, logits=logits)


def make_dataset(n, seq_len, vocab_size, seed):
    g = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(0, vocab_size, (n, seq_len), generator=g)
    return [{"input_ids": input_ids[i], "attention_mask": torch.ones(seq_len, dtype=torch.long),
             "labels": input_ids[i].clone()} for i in range(n)]


def collate_fn(batch):
    return {k: torch.stack([ex[k] for ex in batch]) for k in batch[0]}


def iter_batches(ds, batch_size):
    for i in range(0, len(ds), batch_size):
        yield collate_fn(ds[i: i + batch_size])


def evaluate(*, model, eval_ds, bsize, ds_kwargs):
    model.eval()
    losses = []
    with torch.no_grad():
        for step, batch in enumerate(iter_batches(eval_ds, bsize)):
            outputs = model(**batch)
            losses.append(outputs.loss)
    eval_loss = torch.stack(losses).mean()
    try:
        perplexity = math.exp(eval_loss)
    except OverflowError:
        perplexity = float("inf")
    return perplexity, eval_loss.item()


def training_function(kwargs: dict):
    config = kwargs["config"]
    args = argparse.Namespace(**kwargs["args"])
    torch.manual_seed(args.seed)

    vocab_size = 64
    model = TinyCausalLM(vocab_size, max_len=args.seq_len)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config["lr"], weight_decay=0.0)
    num_steps_per_epoch = math.ceil(args.num_train / config["batch_size"])
    total_training_steps = num_steps_per_epoch * config["num_epochs"]
    lr_scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / max(1, args.warmup_steps)))

    train_ds = make_dataset(args.num_train, args.seq_len, vocab_size, seed=1)
    valid_ds = make_dataset(8, args.seq_len, vocab_size, seed=2)

    for epoch in range(config["num_epochs"]):
        fwd_time_sum, bwd_time_sum, optim_step_time_sum = 0, 0, 0
        s_epoch = time.time()
        model.train()
        loss_sum = torch.tensor(0.0)
        for step, batch in enumerate(iter_batches(train_ds, config["batch_size"])):
            s_fwd = time.time()
            outputs = model(**batch)
            loss = outputs.loss
            loss_sum += loss  # expect: GG301
            e_fwd = time.time()
            fwd_time_sum += e_fwd - s_fwd

            s_bwd = time.time()
            loss.backward()
            e_bwd = time.time()
            bwd_time_sum += e_bwd - s_bwd

            s_opt_step = time.time()
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
            optim_step_time_sum += time.time() - s_opt_step

            print(f"[epoch {epoch} step {step}] loss: {loss.item():.4f} "
                  f"step-time: {e_bwd - s_fwd:.3f}s")

        e_epoch = time.time()
        perplex, eloss = evaluate(model=model, eval_ds=valid_ds, bsize=config["eval_batch_size"], ds_kwargs={})
        metrics = {
            "epoch": epoch,
            "iteration": step,
            "train_loss_avg": loss_sum.item() / (step + 1),
            "eval_loss": eloss,
            "perplexity": perplex,
            "num_iterations": step + 1,
            "train_time_per_epoch": e_epoch - s_epoch,
            "avg_fwd_time_per_epoch": fwd_time_sum / (step + 1),
            "avg_bwd_time_per_epoch": bwd_time_sum / (step + 1),
            "learning_rate": lr_scheduler.get_last_lr()[0],
            "total_training_steps": total_training_steps,
        }
        print(metrics)


def parse_args():
    parser = argparse.ArgumentParser(description="Simple example of training script.")
    parser.add_argument("--seq_len", type=int, default=16)
    parser.add_argument("--num_train", type=int, default=24)
    parser.add_argument("--batch_size_per_device", "--bs", type=int, default=4)
    parser.add_argument("--eval_batch_size_per_device", type=int, default=4)
    parser.add_argument("--num_epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--warmup_steps", type=int, default=2)
    parser.add_argument("--seed", type=int, default=42)
    return parser.parse_args()


def main():
    args = parse_args()
    config = {
        "lr": args.lr,
        "num_epochs": args.num_epochs,
        "batch_size": args.batch_size_per_device,
        "eval_batch_size": args.eval_batch_size_per_device,
    }
    training_function({"config": config, "args": vars(args)})


if __name__ == "__main__":
    main()
