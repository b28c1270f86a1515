# corpus: HF-style Trainer fine-tuning a Transformer-XL-like LM head; the model returns per-token `losses` of shape (bsz, tgt_len - 1) as its first output, Trainer.compute_loss takes outputs[0], and training_step calls loss.backward() on that non-scalar tensor, which raises
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/huggingface/transformers/issues/9448
import random
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


class ModelOutput(OrderedDict):
    def __getitem__(self, k):
        if isinstance(k, str):
            return dict(self.items())[k]
        return tuple(v for v in self.values() if v is not None)[k]


class TransfoXLLMHeadModelOutput(ModelOutput):
    pass


@dataclass
class TrainingArguments:
    learning_rate: float = 5e-4
    num_train_epochs: int = 1
    past_index: int = -1
    logging_steps: int = 1


class ProjectedAdaptiveLogSoftmax(nn.Module):
    def __init__(self, n_token, d_embed):
        super().__init__()
        self.out_layer = nn.Linear(d_embed, n_token)

    def forward(self, hidden, labels=None):
        logits = self.out_layer(hidden)
        if labels is None:
            return F.log_softmax(logits, dim=-1)
        return -F.log_softmax(logits, dim=-1).gather(1, labels.unsqueeze(1)).squeeze(1)


class TransfoXLLMHeadModel(nn.Module):
    def __init__(self, n_token=32, d_model=16, n_layer=1):
        super().__init__()
        self.word_emb = nn.Embedding(n_token, d_model)
        layer = nn.TransformerEncoderLayer(d_model, 2, 32, dropout=0.0, batch_first=True)
        self.layers = nn.TransformerEncoder(layer, n_layer)
        self.crit = ProjectedAdaptiveLogSoftmax(n_token, d_model)

    def forward(self, input_ids=None, labels=None, mems=None, return_dict=True):
        bsz, tgt_len = input_ids.shape
        mask = nn.Transformer.generate_square_subsequent_mask(tgt_len)
        last_hidden = self.layers(self.word_emb(input_ids), mask=mask, is_causal=True)
        pred_hid = last_hidden[:, -tgt_len:]
        if labels is not None:
            labels = labels[..., 1:].contiguous()
            pred_hid = pred_hid[:, :-1].contiguous()
        softmax_output = self.crit(pred_hid.reshape(-1, pred_hid.size(-1)), None if labels is None else labels.view(-1))
        prediction_scores = softmax_output.view(bsz, tgt_len, -1) if labels is None else None
        loss = softmax_output.view(bsz, tgt_len - 1) if labels is not None else None
        return TransfoXLLMHeadModelOutput(losses=loss, prediction_scores=prediction_scores, mems=None)


class Trainer:
    def __init__(self, model, args: TrainingArguments, train_dataset):
        self.model, self.args, self.train_dataset = model, args, train_dataset
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
        self._past = None

    def compute_loss(self, model, inputs):
        outputs = model(**inputs)
        if self.args.past_index >= 0:
            self._past = outputs[self.args.past_index]
        # We don't use .loss here since the model may return tuples instead of ModelOutput.
        return outputs[0]

    def training_step(self, model, inputs):
        model.train()
        loss = self.compute_loss(model, inputs)
        loss.backward()  # expect: GG109
        return loss.detach()

    def train(self):
        tr_loss = 0.0
        for epoch in range(self.args.num_train_epochs):
            for step, inputs in enumerate(self.train_dataset):
                tr_loss += self.training_step(self.model, inputs)
                self.optimizer.step()
                self.model.zero_grad()
        return tr_loss


class ExampleDataset(torch.utils.data.Dataset):
    def __init__(self, n=4, seq_len=10, vocab=32):
        self.encodings = [torch.randint(0, vocab, (seq_len,)) for _ in range(n)]

    def __len__(self):
        return len(self.encodings)

    def __getitem__(self, index):
        sample = self.encodings[index]
        return {"input_ids": sample, "labels": sample.clone()}


def main():
    dataset = ExampleDataset()
    loader = list(torch.utils.data.DataLoader(dataset, batch_size=2))
    trainer = Trainer(TransfoXLLMHeadModel(), TrainingArguments(), loader)
    print(trainer.train())


if __name__ == "__main__":
    main()
