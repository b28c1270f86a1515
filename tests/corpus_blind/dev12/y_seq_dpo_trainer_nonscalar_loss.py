# corpus: OpenRLHF-style DPO trainer for a small recurrent LM: DPOLoss.forward returns the per-pair losses vector instead of its mean, and the strategy calls loss.backward() on that non-scalar tensor
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/OpenRLHF/OpenRLHF/pull/145
import copy
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Actor(nn.Module):
    def __init__(self, vocab=20, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, sequences, attention_mask=None):
        h, _ = self.rnn(self.emb(sequences))
        return self.lm_head(h)


class DPOLoss(nn.Module):
    def __init__(self, beta: float, label_smoothing: float = 0.0):
        super().__init__()
        self.beta = beta
        self.label_smoothing = label_smoothing

    def forward(self, policy_chosen_logps, policy_rejected_logps, reference_chosen_logps, reference_rejected_logps):
        pi_logratios = policy_chosen_logps - policy_rejected_logps
        ref_logratios = reference_chosen_logps - reference_rejected_logps
        logits = pi_logratios - ref_logratios
        losses = (-F.logsigmoid(self.beta * logits) * (1 - self.label_smoothing)
                  - F.logsigmoid(-self.beta * logits) * self.label_smoothing)
        chosen_rewards = self.beta * (policy_chosen_logps - reference_chosen_logps).detach()
        rejected_rewards = self.beta * (policy_rejected_logps - reference_rejected_logps).detach()
        return losses, chosen_rewards, rejected_rewards  # also: GG109


class Strategy:
    def backward(self, loss, model, optimizer):
        loss.backward()  # expect: GG109

    def optimizer_step(self, optimizer, model):
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()


class DPOTrainer:
    def __init__(self, model, ref_model, strategy, optim, beta=0.1, max_epochs=1):
        self.model = model
        self.ref_model = ref_model
        self.strategy = strategy
        self.optimizer = optim
        self.loss_fn = DPOLoss(beta)
        self.max_epochs = max_epochs

    def _get_batch_logps(self, logits, labels, loss_mask):
        labels = labels[:, 1:].clone()
        logits = logits[:, :-1, :]
        loss_mask = loss_mask[:, 1:]
        per_token_logps = torch.gather(logits.log_softmax(-1), dim=2, index=labels.unsqueeze(2)).squeeze(2)
        return (per_token_logps * loss_mask).sum(-1)

    def concatenated_forward(self, model, chosen_ids, reject_ids, prompt_len):
        input_ids = torch.cat([chosen_ids, reject_ids], dim=0)
        loss_mask = torch.zeros_like(input_ids, dtype=torch.float)
        loss_mask[:, prompt_len:] = 1.0
        logits = model(input_ids)
        logps = self._get_batch_logps(logits, input_ids, loss_mask)
        n = chosen_ids.shape[0]
        return logps[:n], logps[n:]

    def fit(self, dataloader, prompt_len):
        for epoch in range(self.max_epochs):
            self.model.train()
            for step, (chosen_ids, reject_ids) in enumerate(dataloader):
                chosen_logps, rejected_logps = self.concatenated_forward(self.model, chosen_ids, reject_ids, prompt_len)
                with torch.no_grad():
                    reference_chosen_logps, reference_rejected_logps = self.concatenated_forward(
                        self.ref_model, chosen_ids, reject_ids, prompt_len)
                preference_loss, chosen_reward, reject_reward = self.loss_fn(
                    chosen_logps, rejected_logps, reference_chosen_logps, reference_rejected_logps)
                loss = preference_loss
                self.strategy.backward(loss, self.model, self.optimizer)
                self.strategy.optimizer_step(self.optimizer, self.model)
                acc = (chosen_reward > reject_reward).float().mean().item()
                print(f"epoch {epoch} step {step} acc {acc:.2f}")


def make_preference_data(n_batches=3, bs=4, prompt_len=3, resp_len=4, vocab=20):
    g = torch.Generator().manual_seed(0)
    data = []
    for _ in range(n_batches):
        prompt = torch.randint(0, vocab, (bs, prompt_len), generator=g)
        chosen = torch.cat([prompt, torch.randint(0, vocab // 2, (bs, resp_len), generator=g)], dim=1)
        reject = torch.cat([prompt, torch.randint(vocab // 2, vocab, (bs, resp_len), generator=g)], dim=1)
        data.append((chosen, reject))
    return data


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    model = Actor()
    ref_model = copy.deepcopy(model).eval()
    for p in ref_model.parameters():
        p.requires_grad_(False)
    optim = torch.optim.Adam(model.parameters(), lr=1e-3)
    trainer = DPOTrainer(model, ref_model, Strategy(), optim)
    trainer.fit(make_preference_data(), prompt_len=3)


if __name__ == "__main__":
    main()
