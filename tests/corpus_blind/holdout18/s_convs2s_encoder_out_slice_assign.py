# corpus: Convolutional seq2seq decoder rewrites a column of the encoder attention keys in place between attention layers, but the first attention layer's bmm saved those keys for backward, so the training step fails.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/facebookresearch/fairseq/issues/251
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class FConvEncoder(nn.Module):
    def __init__(self, num_embeddings, embed_dim=16, convolutions=((16, 3),) * 2):
        super().__init__()
        self.embed_tokens = nn.Embedding(num_embeddings, embed_dim)
        self.convolutions = nn.ModuleList()
        for out_channels, kernel_size in convolutions:
            self.convolutions.append(nn.Conv1d(embed_dim, out_channels * 2, kernel_size,
                                               padding=kernel_size // 2))
        self.fc2 = nn.Linear(embed_dim, embed_dim)

    def forward(self, src_tokens):
        x = self.embed_tokens(src_tokens)
        input_embedding = x
        x = x.transpose(1, 2)
        for conv in self.convolutions:
            residual = x
            x = F.glu(conv(x), dim=1)
            x = (x + residual) * math.sqrt(0.5)
        x = self.fc2(x.transpose(1, 2))
        y = (x + input_embedding) * math.sqrt(0.5)
        return {'encoder_out': (x, y)}


class AttentionLayer(nn.Module):
    def __init__(self, conv_channels, embed_dim):
        super().__init__()
        self.in_projection = nn.Linear(conv_channels, embed_dim)
        self.out_projection = nn.Linear(embed_dim, conv_channels)

    def forward(self, x, target_embedding, encoder_out):
        residual = x
        x = (self.in_projection(x) + target_embedding) * math.sqrt(0.5)
        x = torch.bmm(x, encoder_out[0])
        sz = x.size()
        x = F.softmax(x.view(sz[0] * sz[1], sz[2]), dim=1).view(sz)
        attn_scores = x
        x = torch.bmm(x, encoder_out[1])
        x = x * (encoder_out[1].size(1) * math.sqrt(1.0 / encoder_out[1].size(1)))
        x = (self.out_projection(x) + residual) * math.sqrt(0.5)
        return x, attn_scores


class FConvDecoder(nn.Module):
    def __init__(self, num_embeddings, embed_dim=16, num_layers=2, kernel_size=3):
        super().__init__()
        self.embed_tokens = nn.Embedding(num_embeddings, embed_dim)
        self.convolutions = nn.ModuleList(
            [nn.Conv1d(embed_dim, embed_dim * 2, kernel_size, padding=kernel_size - 1) for _ in range(num_layers)])
        self.attention = nn.ModuleList([AttentionLayer(embed_dim, embed_dim) for _ in range(num_layers)])
        self.fc3 = nn.Linear(embed_dim, num_embeddings)

    def _split_encoder_out(self, encoder_out):
        encoder_a, encoder_b = encoder_out
        encoder_a = encoder_a.transpose(1, 2).contiguous()
        return encoder_a, encoder_b

    def key_decay(self, column):
        return torch.tanh(column) * 0.5

    def forward(self, prev_output_tokens, encoder_out_dict):
        encoder_a, encoder_b = self._split_encoder_out(encoder_out_dict['encoder_out'])
        x = self.embed_tokens(prev_output_tokens)
        target_embedding = x
        avg_attn_scores = None
        for conv, attention in zip(self.convolutions, self.attention):
            residual = x
            x = conv(x.transpose(1, 2))[:, :, :prev_output_tokens.size(1)]
            x = F.glu(x, dim=1).transpose(1, 2)
            x, attn_scores = attention(x, target_embedding, (encoder_a, encoder_b))
            avg_attn_scores = attn_scores if avg_attn_scores is None else avg_attn_scores + attn_scores
            j = int(attn_scores.mean(dim=1).argmax(dim=-1)[0])
            encoder_a[:, :, j] = self.key_decay(encoder_a[:, :, j])  # expect: GG107
            x = (x + residual) * math.sqrt(0.5)
        return self.fc3(x), avg_attn_scores


class FConvModel(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, src_tokens, prev_output_tokens):
        encoder_out = self.encoder(src_tokens)
        return self.decoder(prev_output_tokens, encoder_out)


def train_step(model, optimizer, sample):
    model.train()
    optimizer.zero_grad()
    net_output, _ = model(sample['net_input']['src_tokens'], sample['net_input']['prev_output_tokens'])
    lprobs = F.log_softmax(net_output, dim=-1)
    loss = F.nll_loss(lprobs.view(-1, lprobs.size(-1)), sample['target'].view(-1), reduction='sum')
    loss.backward()  # also: GG107
    optimizer.step()
    return {'loss': loss.item(), 'ntokens': sample['target'].numel()}


def main():
    torch.manual_seed(0)
    vocab = 30
    model = FConvModel(FConvEncoder(vocab), FConvDecoder(vocab))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(2):
        target = torch.randint(4, vocab, (3, 5))
        sample = {'net_input': {'src_tokens': torch.randint(4, vocab, (3, 6)),
                                'prev_output_tokens': torch.cat([torch.full((3, 1), 2), target[:, :-1]], 1)},
                  'target': target}
        log = train_step(model, optimizer, sample)
        print(step, log)


if __name__ == '__main__':
    main()
