# corpus: BERT-style masked language model whose builder embeds the constant position range once while constructing the model and adds that stored tensor in every forward, so the second training step backpropagates into the position-embedding graph freed by the first step.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/keras-team/keras-core/pull/858
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    MAX_LEN = 8
    BATCH_SIZE = 4
    LR = 0.001
    VOCAB_SIZE = 40
    EMBED_DIM = 16
    NUM_HEAD = 2
    FF_DIM = 32
    NUM_LAYERS = 1


config = Config()
mask_token_id = config.VOCAB_SIZE - 1


def get_masked_input_and_labels(encoded_texts, rng):
    inp_mask = rng.random(encoded_texts.shape) < 0.15
    inp_mask[encoded_texts <= 2] = False
    labels = -1 * np.ones(encoded_texts.shape, dtype=int)
    labels[inp_mask] = encoded_texts[inp_mask]
    encoded_texts_masked = np.copy(encoded_texts)
    inp_mask_2mask = inp_mask & (rng.random(encoded_texts.shape) < 0.90)
    encoded_texts_masked[inp_mask_2mask] = mask_token_id
    sample_weights = np.ones(labels.shape)
    sample_weights[labels == -1] = 0
    y_labels = np.copy(encoded_texts)
    return encoded_texts_masked, y_labels, sample_weights


class BertModule(nn.Module):
    def __init__(self, i):
        super().__init__()
        self.name = "encoder_{}".format(i)
        self.attention = nn.MultiheadAttention(config.EMBED_DIM, config.NUM_HEAD, batch_first=True)
        self.att_dropout = nn.Dropout(0.1)
        self.att_layernormalization = nn.LayerNorm(config.EMBED_DIM, eps=1e-6)
        self.ffn = nn.Sequential(nn.Linear(config.EMBED_DIM, config.FF_DIM), nn.ReLU(),
                                 nn.Linear(config.FF_DIM, config.EMBED_DIM))
        self.ffn_dropout = nn.Dropout(0.1)
        self.ffn_layernormalization = nn.LayerNorm(config.EMBED_DIM, eps=1e-6)

    def forward(self, query, key, value):
        attention_output, _ = self.attention(query, key, value)
        attention_output = self.att_dropout(attention_output)
        attention_output = self.att_layernormalization(query + attention_output)
        ffn_output = self.ffn_dropout(self.ffn(attention_output))
        return self.ffn_layernormalization(attention_output + ffn_output)


class MaskedLanguageModel(nn.Module):
    def __init__(self, word_embedding, position_embedding, position_embeddings, encoders, mlm_cls):
        super().__init__()
        self.word_embedding = word_embedding
        self.position_embedding = position_embedding
        self.position_embeddings = position_embeddings
        self.encoders = encoders
        self.mlm_cls = mlm_cls

    def forward(self, inputs):
        word_embeddings = self.word_embedding(inputs)
        embeddings = word_embeddings + self.position_embeddings
        encoder_output = embeddings
        for bert_module in self.encoders:
            encoder_output = bert_module(encoder_output, encoder_output, encoder_output)
        return F.log_softmax(self.mlm_cls(encoder_output), dim=-1)

    def compute_loss(self, y, y_pred, sample_weight):
        loss = F.nll_loss(y_pred.reshape(-1, config.VOCAB_SIZE), y.reshape(-1), reduction="none")
        loss = loss * sample_weight.reshape(-1)
        return loss.sum()


def create_masked_language_bert_model():
    word_embedding = nn.Embedding(config.VOCAB_SIZE, config.EMBED_DIM)
    position_embedding = nn.Embedding(config.MAX_LEN, config.EMBED_DIM)
    position_embeddings = position_embedding(torch.arange(start=0, end=config.MAX_LEN, step=1))  # expect: GG103
    encoders = nn.ModuleList([BertModule(i) for i in range(config.NUM_LAYERS)])
    mlm_cls = nn.Linear(config.EMBED_DIM, config.VOCAB_SIZE)
    mlm_model = MaskedLanguageModel(word_embedding, position_embedding, position_embeddings, encoders, mlm_cls)
    optimizer = torch.optim.Adam(mlm_model.parameters(), lr=config.LR)
    return mlm_model, optimizer


def fit(model, optimizer, mlm_ds, epochs):
    history = []
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for x, y, sample_weight in mlm_ds:
            optimizer.zero_grad()
            y_pred = model(x)
            loss = model.compute_loss(y, y_pred, sample_weight)
            loss.backward()  # also: GG103
            optimizer.step()
            total += loss.item()
        history.append(total / len(mlm_ds))
        print("epoch", epoch, "loss", history[-1])
    return history


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x_all_review = rng.integers(3, config.VOCAB_SIZE - 1, size=(12, config.MAX_LEN))
    x_masked_train, y_masked_labels, sample_weights = get_masked_input_and_labels(x_all_review, rng)
    mlm_ds = []
    for i in range(0, len(x_masked_train), config.BATCH_SIZE):
        mlm_ds.append((torch.as_tensor(x_masked_train[i:i + config.BATCH_SIZE]),
                       torch.as_tensor(y_masked_labels[i:i + config.BATCH_SIZE]),
                       torch.as_tensor(sample_weights[i:i + config.BATCH_SIZE], dtype=torch.float32)))
    bert_masked_model, optimizer = create_masked_language_bert_model()
    fit(bert_masked_model, optimizer, mlm_ds, epochs=2)


if __name__ == "__main__":
    main()
