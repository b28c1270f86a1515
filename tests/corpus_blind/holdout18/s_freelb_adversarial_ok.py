# corpus: FreeLB adversarial fine-tuning of a small transformer classifier calls backward once per ascent step without retain_graph; this is fine because every step runs a fresh forward and the word embeddings are re-embedded after each step.
# source: https://github.com/ruizheng20/robust_ticket/issues/2
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Embeddings(nn.Module):
    def __init__(self, vocab_size, hidden):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden)
        self.position_embeddings = nn.Embedding(32, hidden)
        self.LayerNorm = nn.LayerNorm(hidden)

    def forward(self, input_ids=None, inputs_embeds=None):
        if inputs_embeds is None:
            inputs_embeds = self.word_embeddings(input_ids)
        positions = torch.arange(inputs_embeds.size(1)).unsqueeze(0)
        return self.LayerNorm(inputs_embeds + self.position_embeddings(positions))


class BertForSequenceClassification(nn.Module):
    def __init__(self, vocab_size=60, hidden=16, num_labels=2):
        super().__init__()
        self.embeddings = Embeddings(vocab_size, hidden)
        self.encoder = nn.TransformerEncoderLayer(hidden, nhead=2, dim_feedforward=32,
                                                  dropout=0.0, batch_first=True)
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, input_ids=None, attention_mask=None, labels=None, inputs_embeds=None):
        h = self.embeddings(input_ids=input_ids, inputs_embeds=inputs_embeds)
        h = self.encoder(h, src_key_padding_mask=(attention_mask == 0))
        logits = self.classifier(h[:, 0])
        loss = F.cross_entropy(logits, labels)
        return loss, logits


def train_freelb(args, model, optimizer, batches):
    model.train()
    for step, batch in enumerate(batches):
        input_ids, attention_mask, labels = batch
        embeds_init = model.embeddings.word_embeddings(input_ids)
        if args.adv_init_mag > 0:
            input_mask = attention_mask.to(embeds_init)
            input_lengths = torch.sum(input_mask, 1)
            delta = torch.zeros_like(embeds_init).uniform_(-1, 1) * input_mask.unsqueeze(2)
            dims = input_lengths * embeds_init.size(-1)
            mag = args.adv_init_mag / torch.sqrt(dims)
            delta = (delta * mag.view(-1, 1, 1)).detach()
        else:
            delta = torch.zeros_like(embeds_init)

        for astep in range(args.adv_steps):
            delta.requires_grad_()
            inputs = {"attention_mask": attention_mask, "labels": labels,
                      "inputs_embeds": delta + embeds_init}
            loss, _ = model(**inputs)
            loss = loss / args.adv_steps
            loss.backward()

            if astep == args.adv_steps - 1:
                break

            delta_grad = delta.grad.clone().detach()
            denorm = torch.norm(delta_grad.view(delta_grad.size(0), -1), dim=1).view(-1, 1, 1)
            denorm = torch.clamp(denorm, min=1e-8)
            delta = (delta + args.adv_lr * delta_grad / denorm).detach()
            if args.adv_max_norm > 0:
                delta_norm = torch.norm(delta.view(delta.size(0), -1), p=2, dim=1).detach()
                exceed_mask = (delta_norm > args.adv_max_norm).to(embeds_init)
                reweights = (args.adv_max_norm / delta_norm * exceed_mask + (1 - exceed_mask)).view(-1, 1, 1)
                delta = (delta * reweights).detach()

            embeds_init = model.embeddings.word_embeddings(input_ids)

        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        model.zero_grad()
        print("step", step, "loss", loss.item() * args.adv_steps)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--adv_steps", type=int, default=3)
    parser.add_argument("--adv_lr", type=float, default=0.03)
    parser.add_argument("--adv_init_mag", type=float, default=0.05)
    parser.add_argument("--adv_max_norm", type=float, default=0.0)
    args = parser.parse_args([])

    torch.manual_seed(0)
    model = BertForSequenceClassification()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    batches = []
    for _ in range(3):
        input_ids = torch.randint(1, 60, (4, 7))
        attention_mask = torch.ones(4, 7, dtype=torch.long)
        attention_mask[:, 5:] = 0
        batches.append((input_ids, attention_mask, torch.randint(0, 2, (4,))))
    train_freelb(args, model, optimizer, batches)


if __name__ == "__main__":
    main()
