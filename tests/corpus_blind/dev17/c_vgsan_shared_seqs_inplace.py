# corpus: VGSAN sequential recommender feeds the same item-sequence embedding to two self-attention encoders (mu and logvar); each encoder starts with an in-place `seqs *= ~timeline_mask`, so the second call overwrites the tensor the first encoder's LayerNorm/attention saved and backward fails.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/orion-orion/FedDCSR/issues/3
import math
import types

import torch
import torch.nn as nn
import torch.nn.functional as F


class config:
    hidden_size = 16
    num_blocks = 1
    num_heads = 2
    dropout_rate = 0.0
    hidden_act = "gelu"


def gelu(x):
    return x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))


ACT2FN = {"gelu": gelu, "relu": F.relu}


class GCNLayer(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.weight = nn.Linear(config.hidden_size, config.hidden_size, bias=False)

    def forward(self, fea, adj):
        return torch.tanh(adj @ self.weight(fea))


class PointWiseFeedForward(nn.Module):
    def __init__(self, hidden_units, dropout_rate):
        super().__init__()
        self.conv1 = nn.Conv1d(hidden_units, hidden_units, kernel_size=1)
        self.dropout1 = nn.Dropout(p=dropout_rate)
        self.feedforward_act_fn = ACT2FN[config.hidden_act]
        self.conv2 = nn.Conv1d(hidden_units, hidden_units, kernel_size=1)
        self.dropout2 = nn.Dropout(p=dropout_rate)

    def forward(self, inputs):
        outputs = self.feedforward_act_fn(self.dropout1(self.conv1(inputs.transpose(-1, -2))))
        outputs = self.dropout2(self.conv2(outputs))
        outputs = outputs.transpose(-1, -2)
        outputs += inputs
        return outputs


class SelfAttention(nn.Module):
    def __init__(self, num_items, args):
        super().__init__()
        self.num_items = num_items
        self.device = "cpu"
        self.attention_layernorms = nn.ModuleList()
        self.attention_layers = nn.ModuleList()
        self.forward_layernorms = nn.ModuleList()
        self.forward_layers = nn.ModuleList()
        self.last_layernorm = nn.LayerNorm(config.hidden_size, eps=1e-8)
        for _ in range(config.num_blocks):
            self.attention_layernorms.append(nn.LayerNorm(config.hidden_size, eps=1e-8))
            self.attention_layers.append(
                nn.MultiheadAttention(config.hidden_size, config.num_heads, config.dropout_rate))
            self.forward_layernorms.append(nn.LayerNorm(config.hidden_size, eps=1e-8))
            self.forward_layers.append(PointWiseFeedForward(config.hidden_size, config.dropout_rate))

    def forward(self, seqs, seqs_data):
        timeline_mask = (seqs_data == self.num_items).to(self.device)
        seqs *= ~timeline_mask.unsqueeze(-1)  # expect: GG107
        tl = seqs.shape[1]
        attention_mask = ~torch.tril(torch.ones((tl, tl), dtype=torch.bool))
        for i in range(len(self.attention_layers)):
            seqs = torch.transpose(seqs, 0, 1)
            Q = self.attention_layernorms[i](seqs)
            mha_outputs, _ = self.attention_layers[i](Q, seqs, seqs, attn_mask=attention_mask)
            seqs = Q + mha_outputs
            seqs = torch.transpose(seqs, 0, 1)
            seqs = self.forward_layernorms[i](seqs)
            seqs = self.forward_layers[i](seqs)
            seqs *= ~timeline_mask.unsqueeze(-1)
        return self.last_layernorm(seqs)


class Encoder(nn.Module):
    def __init__(self, num_items, args):
        super().__init__()
        self.encoder_mu = SelfAttention(num_items, args)
        self.encoder_logvar = SelfAttention(num_items, args)

    def forward(self, seqs, seqs_data):
        mu = self.encoder_mu(seqs, seqs_data)
        logvar = self.encoder_logvar(seqs, seqs_data)
        return mu, logvar


class VGSAN(nn.Module):
    def __init__(self, num_items, args):
        super().__init__()
        self.item_emb = nn.Embedding(num_items + 1, config.hidden_size, padding_idx=num_items)
        self.pos_emb = nn.Embedding(args.max_seq_len, config.hidden_size)
        self.GNN_encoder = GCNLayer(args)
        self.encoder = Encoder(num_items, args)
        self.linear = nn.Linear(config.hidden_size, num_items)
        self.linear_pad = nn.Linear(config.hidden_size, 1)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=1e-12)
        self.dropout = nn.Dropout(0.3)

    def graph_convolution(self, adj):
        self.item_index = torch.arange(0, self.item_emb.num_embeddings, 1)
        fea = self.item_emb(self.item_index)
        self.item_graph_embs = self.GNN_encoder(fea, adj)

    def add_position_embedding(self, seqs, seq_embeddings):
        position_ids = torch.arange(seqs.size(1), dtype=torch.long).unsqueeze(0).expand_as(seqs)
        seq_embeddings += self.pos_emb(position_ids)
        seq_embeddings = self.LayerNorm(seq_embeddings)
        return self.dropout(seq_embeddings)

    def forward(self, seqs):
        seqs_emb = self.item_graph_embs[seqs] + self.item_emb(seqs)
        seqs_emb *= self.item_emb.embedding_dim ** 0.5
        seqs_emb = self.add_position_embedding(seqs, seqs_emb)
        mu, logvar = self.encoder(seqs_emb, seqs)
        z = mu + torch.exp(0.5 * logvar) * torch.randn_like(mu)
        return torch.cat((self.linear(z), self.linear_pad(z)), dim=-1), mu, logvar


class ClientTrainer:
    def __init__(self, num_items, args):
        self.model = VGSAN(num_items, args)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.num_items = num_items

    def train_batch(self, seqs, ground, adj):
        self.model.train()
        self.optimizer.zero_grad()
        self.model.graph_convolution(adj)
        result, mu, logvar = self.model(seqs)
        recons_loss = F.cross_entropy(result.reshape(-1, self.num_items + 1), ground.reshape(-1))
        kld_loss = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
        loss = recons_loss + 0.1 * kld_loss
        loss.backward()  # also: GG107
        self.optimizer.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    num_items, seq_len, batch = 10, 5, 3
    args = types.SimpleNamespace(max_seq_len=seq_len, gpu=0, cuda=False)
    trainer = ClientTrainer(num_items, args)
    adj = torch.softmax(torch.randn(num_items + 1, num_items + 1), dim=-1)
    seqs = torch.randint(0, num_items, (batch, seq_len))
    seqs[0, :2] = num_items
    ground = torch.randint(0, num_items + 1, (batch, seq_len))
    for epoch in range(2):
        print("epoch", epoch, "loss", trainer.train_batch(seqs, ground, adj))


if __name__ == "__main__":
    main()
