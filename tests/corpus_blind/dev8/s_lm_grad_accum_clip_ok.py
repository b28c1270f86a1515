# corpus: GPT2-Chinese-style LM fine-tuning loop with gradient accumulation: loss divided by the accumulation factor, backward and clip every micro-batch, optimizer.step/zero_grad/scheduler.step only every gradient_accumulation steps, running_loss fed loss.item() (correct)
# source: https://github.com/Morizeyao/GPT2-Chinese/pull/101
import argparse
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyLMHeadModel(nn.Module):
    def __init__(self, vocab_size=50, n_embd=32, n_ctx=12):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(n_ctx, n_embd)
        self.block = nn.Sequential(nn.LayerNorm(n_embd), nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, input_ids, labels=None):
        pos = torch.arange(input_ids.shape[1])
        h = self.wte(input_ids) + self.wpe(pos)
        h = h + self.block(h)
        logits = self.lm_head(h)
        outputs = (logits,)
        if labels is not None:
            shift_logits = logits[..., :-1, :].contiguous()
            shift_labels = labels[..., 1:].contiguous()
            loss = F.cross_entropy(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))
            outputs = (loss,) + outputs
        return outputs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--lr", type=float, default=1.5e-4)
    parser.add_argument("--warmup_steps", type=int, default=2)
    parser.add_argument("--log_step", type=int, default=2)
    parser.add_argument("--gradient_accumulation", type=int, default=2)
    parser.add_argument("--max_grad_norm", type=float, default=1.0)
    args = parser.parse_args([])
    random.seed(0)
    torch.manual_seed(0)

    n_ctx, stride = 12, 6
    model = TinyLMHeadModel(n_ctx=n_ctx)
    tokens = [random.randrange(50) for _ in range(160)]
    total_steps = 20
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / args.warmup_steps) * max(0.0, 1 - s / total_steps))
    w0 = model.lm_head.weight.detach().clone()
    overall_step = 0
    running_loss = 0
    for epoch in range(args.epochs):
        start_point = 0
        samples = []
        while start_point < len(tokens) - n_ctx:
            samples.append(tokens[start_point: start_point + n_ctx])
            start_point += stride
        random.shuffle(samples)
        for step in range(len(samples) // args.batch_size):
            batch = samples[step * args.batch_size: (step + 1) * args.batch_size]
            batch_inputs = torch.tensor(batch).long()
            outputs = model.forward(input_ids=batch_inputs, labels=batch_inputs)
            loss, logits = outputs[:2]
            if args.gradient_accumulation > 1:
                loss = loss / args.gradient_accumulation
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            if (step + 1) % args.gradient_accumulation == 0:
                running_loss += loss.item()
                optimizer.step()
                optimizer.zero_grad()
                scheduler.step()
                overall_step += 1
                if (overall_step + 1) % args.log_step == 0:
                    print("step {} of epoch {}, loss {:.4f}".format(step + 1, epoch + 1, running_loss / args.log_step))
                    running_loss = 0
    assert not torch.equal(w0, model.lm_head.weight)


if __name__ == "__main__":
    main()
