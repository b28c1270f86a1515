# corpus: BERT span-pointer NER fine-tuning (DeepNER-style SpanModel + train loop); the criterion is built with reduction='none' so the per-token start/end loss returned by the model is backpropagated without reduction
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/z814081807/DeepNER/issues/19
import argparse

import torch
import torch.nn as nn


class TinyBert(nn.Module):
    """Stand-in for BertModel: embeddings + one transformer layer, returns (sequence_output, pooled)."""

    def __init__(self, vocab_size, hidden_size, heads):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size)
        self.position_embeddings = nn.Embedding(64, hidden_size)
        self.token_type_embeddings = nn.Embedding(2, hidden_size)
        self.LayerNorm = nn.LayerNorm(hidden_size)
        layer = nn.TransformerEncoderLayer(hidden_size, heads, dim_feedforward=2 * hidden_size, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)

    def forward(self, input_ids, attention_mask, token_type_ids):
        pos = torch.arange(input_ids.size(1)).unsqueeze(0)
        emb = self.word_embeddings(input_ids) + self.position_embeddings(pos) + self.token_type_embeddings(token_type_ids)
        seq = self.encoder(self.LayerNorm(emb), src_key_padding_mask=attention_mask.eq(0))
        return seq, seq[:, 0]


class BaseModel(nn.Module):
    def __init__(self, vocab_size, hidden_size, dropout_prob=0.1):
        super().__init__()
        self.bert_module = TinyBert(vocab_size, hidden_size, heads=2)
        self.hidden_size = hidden_size

    @staticmethod
    def _init_weights(blocks, initializer_range=0.02):
        for block in blocks:
            for module in block.modules():
                if isinstance(module, nn.Linear):
                    if module.bias is not None:
                        nn.init.zeros_(module.bias)
                elif isinstance(module, nn.LayerNorm):
                    nn.init.ones_(module.weight)
                    nn.init.zeros_(module.bias)


class SpanModel(BaseModel):
    def __init__(self, vocab_size, hidden_size, num_tags, dropout_prob=0.1, loss_type="ce", **kwargs):
        super().__init__(vocab_size, hidden_size, dropout_prob=dropout_prob)
        mid_linear_dims = kwargs.pop("mid_linear_dims", 32)
        self.num_tags = num_tags
        self.mid_linear = nn.Sequential(nn.Linear(hidden_size, mid_linear_dims), nn.ReLU(), nn.Dropout(dropout_prob))
        self.start_fc = nn.Linear(mid_linear_dims, num_tags)
        self.end_fc = nn.Linear(mid_linear_dims, num_tags)
        reduction = "none"
        if loss_type == "ce":
            self.criterion = nn.CrossEntropyLoss(reduction=reduction)
        else:
            raise ValueError(loss_type)
        self._init_weights([self.mid_linear, self.start_fc, self.end_fc])

    def forward(self, token_ids, attention_masks, token_type_ids, start_ids=None, end_ids=None):
        seq_out, _ = self.bert_module(token_ids, attention_masks, token_type_ids)
        seq_out = self.mid_linear(seq_out)
        start_logits = self.start_fc(seq_out)
        end_logits = self.end_fc(seq_out)
        out = (start_logits, end_logits)
        if start_ids is not None and end_ids is not None and self.training:
            start_logits = start_logits.view(-1, self.num_tags)
            end_logits = end_logits.view(-1, self.num_tags)
            active_loss = attention_masks.view(-1) == 1
            active_start_logits = start_logits[active_loss]
            active_end_logits = end_logits[active_loss]
            active_start_labels = start_ids.view(-1)[active_loss]
            active_end_labels = end_ids.view(-1)[active_loss]
            start_loss = self.criterion(active_start_logits, active_start_labels)
            end_loss = self.criterion(active_end_logits, active_end_labels)
            loss = start_loss + end_loss
            out = (loss,) + out
        return out


def build_optimizer_and_scheduler(opt, model, t_total):
    no_decay = ["bias", "LayerNorm.weight"]
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": opt.weight_decay},
        {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=opt.lr, eps=opt.adam_epsilon)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: max(0.0, 1.0 - step / max(t_total, 1)))
    return optimizer, scheduler


def train(opt, model, train_loader):
    t_total = len(train_loader) * opt.train_epochs
    optimizer, scheduler = build_optimizer_and_scheduler(opt, model, t_total)
    global_step = 0
    model.zero_grad()
    for epoch in range(opt.train_epochs):
        for step, batch_data in enumerate(train_loader):
            model.train()
            loss = model(**batch_data)[0]
            if opt.n_gpu > 1:
                loss = loss.mean()
            loss.backward()  # expect: GG109
            torch.nn.utils.clip_grad_norm_(model.parameters(), opt.max_grad_norm)
            optimizer.step()
            scheduler.step()
            model.zero_grad()
            global_step += 1
            print("epoch %d step %d" % (epoch, global_step))


def make_batches(n, vocab, num_tags, bs=2, seq_len=10):
    batches = []
    for _ in range(n):
        token_ids = torch.randint(1, vocab, (bs, seq_len))
        attention_masks = torch.ones(bs, seq_len, dtype=torch.long)
        attention_masks[:, -3:] = 0
        batches.append({
            "token_ids": token_ids,
            "attention_masks": attention_masks,
            "token_type_ids": torch.zeros(bs, seq_len, dtype=torch.long),
            "start_ids": torch.randint(0, num_tags, (bs, seq_len)),
            "end_ids": torch.randint(0, num_tags, (bs, seq_len)),
        })
    return batches


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=2e-5)
    parser.add_argument("--weight_decay", type=float, default=0.01)
    parser.add_argument("--adam_epsilon", type=float, default=1e-8)
    parser.add_argument("--max_grad_norm", type=float, default=1.0)
    parser.add_argument("--train_epochs", type=int, default=1)
    parser.add_argument("--n_gpu", type=int, default=0)
    opt = parser.parse_args([])
    torch.manual_seed(0)
    model = SpanModel(vocab_size=40, hidden_size=16, num_tags=5)
    train(opt, model, make_batches(2, 40, 5))


if __name__ == "__main__":
    main()
