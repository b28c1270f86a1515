# corpus: Fine-tuning a tiny GPT double-heads model (LM loss + multiple-choice loss, as in run_openai_gpt.py) where the training loop never clears gradients, so every optimizer step applies the sum of all gradients so far.
# source: https://github.com/huggingface/transformers/issues/340
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class TinyGPT(nn.Module):
    def __init__(self, vocab=40, n_embd=24, n_head=4, n_layer=2, n_ctx=16):
        super().__init__()
        self.tokens_embed = nn.Embedding(vocab, n_embd)
        self.positions_embed = nn.Embedding(n_ctx, n_embd)
        layer = nn.TransformerEncoderLayer(n_embd, n_head, 4 * n_embd, dropout=0.0, batch_first=True)
        self.h = nn.TransformerEncoder(layer, n_layer)
        self.register_buffer("causal", torch.triu(torch.full((n_ctx, n_ctx), float("-inf")), diagonal=1))

    def forward(self, input_ids):
        t = input_ids.size(-1)
        pos = torch.arange(t)
        x = self.tokens_embed(input_ids) + self.positions_embed(pos)
        return self.h(x, mask=self.causal[:t, :t])


class GPTDoubleHeadsModel(nn.Module):
    def __init__(self, vocab=40, n_embd=24):
        super().__init__()
        self.transformer = TinyGPT(vocab, n_embd)
        self.lm_head = nn.Linear(n_embd, vocab, bias=False)
        self.multiple_choice_head = nn.Linear(n_embd, 1)

    def forward(self, input_ids, mc_token_ids, lm_labels, mc_labels):
        b, n_choices, t = input_ids.shape
        hidden = self.transformer(input_ids.view(-1, t)).view(b, n_choices, t, -1)
        lm_logits = self.lm_head(hidden)
        idx = mc_token_ids[..., None, None].expand(-1, -1, 1, hidden.size(-1))
        mc_logits = self.multiple_choice_head(hidden.gather(2, idx).squeeze(2)).squeeze(-1)
        lm_loss = F.cross_entropy(
            lm_logits[..., :-1, :].reshape(-1, lm_logits.size(-1)), lm_labels[..., 1:].reshape(-1), ignore_index=-1
        )
        mc_loss = F.cross_entropy(mc_logits, mc_labels)
        return lm_loss, mc_loss


def pre_process_datasets(n=16, n_choices=2, t=12, vocab=40):
    input_ids = torch.randint(0, vocab, (n, n_choices, t))
    mc_token_ids = torch.full((n, n_choices), t - 1, dtype=torch.long)
    lm_labels = input_ids.clone()
    mc_labels = torch.randint(0, n_choices, (n,))
    return TensorDataset(input_ids, mc_token_ids, lm_labels, mc_labels)


def train(model, train_dataloader, num_train_epochs=2, lm_coef=0.9):
    optimizer = torch.optim.AdamW(model.parameters(), lr=6.25e-5, weight_decay=0.01)
    nb_tr_steps, tr_loss = 0, 0.0
    exp_average_loss = None
    model.train()
    for _ in range(num_train_epochs):
        for step, batch in enumerate(train_dataloader):
            input_ids, mc_token_ids, lm_labels, mc_labels = batch
            losses = model(input_ids, mc_token_ids, lm_labels, mc_labels)
            loss = lm_coef * losses[0] + losses[1]
            loss.backward()  # expect: GG201
            optimizer.step()  # also: GG201
            tr_loss += loss.item()
            exp_average_loss = loss.item() if exp_average_loss is None else 0.7 * exp_average_loss + 0.3 * loss.item()
            nb_tr_steps += 1
        print(f"Training loss: {exp_average_loss:.2e} lr: {optimizer.param_groups[0]['lr']:.2e}")
    return tr_loss / nb_tr_steps


def main():
    torch.manual_seed(42)
    model = GPTDoubleHeadsModel()
    train_dataloader = DataLoader(pre_process_datasets(), batch_size=4, shuffle=True)
    train(model, train_dataloader)


if __name__ == "__main__":
    main()
