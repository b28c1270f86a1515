# corpus: controlled text generation (VAE + attribute discriminator): the VAE loss and the extra decoder loss (L_attr_c + L_attr_z) are built on the same decoded sentence and backpropagated one after the other
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/issues/7
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

BOS = 1


class Encoder(nn.Module):
    def __init__(self, n_src_vocab, d_word_vec=16, d_hidden=32, z_dim=8):
        super().__init__()
        self.d_hidden = d_hidden
        self.src_word_emb = nn.Embedding(n_src_vocab, d_word_vec)
        self.lstm = nn.LSTM(d_word_vec, d_hidden, batch_first=True)
        self.mean_layer = nn.Linear(d_hidden, z_dim)
        self.sigma_layer = nn.Linear(d_hidden, z_dim)

    def init_hidden(self, batch_size):
        return (torch.zeros(1, batch_size, self.d_hidden), torch.zeros(1, batch_size, self.d_hidden))

    def forward(self, src_seq, hidden, dont_pass_emb=False):
        emb = src_seq if dont_pass_emb else self.src_word_emb(src_seq)
        _, (h, c) = self.lstm(emb, hidden)
        self.z_mean = self.mean_layer(h[-1])
        self.z_sigma = torch.exp(0.5 * self.sigma_layer(h[-1]))
        z = self.z_mean + self.z_sigma * torch.randn_like(self.z_sigma)
        return z.unsqueeze(0), c


class Generator(nn.Module):
    def __init__(self, n_target_vocab, c_dim, z_dim=8, d_word_vec=16):
        super().__init__()
        self.n_target_vocab = n_target_vocab
        self.hidden_size = z_dim + c_dim
        self.word_emb = nn.Linear(n_target_vocab, d_word_vec, bias=False)
        self.cell = nn.LSTMCell(d_word_vec, self.hidden_size)
        self.out = nn.Linear(self.hidden_size, n_target_vocab)
        self.temperature = 0.5

    def one_hot_to_word_emb(self, one_hot_seq):
        return self.word_emb(one_hot_seq)

    def forward(self, word, hidden, low_temp=True):
        h, c = self.cell(self.word_emb(word), hidden)
        pre_soft = self.out(h)
        temp = self.temperature if low_temp else 1.0
        output = F.softmax(pre_soft / temp, dim=-1)
        return output, (h, c), pre_soft


class Discriminator(nn.Module):
    def __init__(self, n_vocab, c_dim, d_word_vec=16):
        super().__init__()
        self.word_emb = nn.Linear(n_vocab, d_word_vec, bias=False)
        self.conv = nn.Conv1d(d_word_vec, 16, 3, padding=1)
        self.fc = nn.Linear(16, c_dim)

    def forward(self, one_hot_seq, dont_pass_emb=True):
        emb = self.word_emb(one_hot_seq).transpose(1, 2)
        h = F.relu(self.conv(emb)).max(dim=2)[0]
        return self.fc(h)


def latent_loss(z_mean, z_stddev):
    mean_sq = z_mean * z_mean
    stddev_sq = z_stddev * z_stddev
    return 0.5 * torch.mean(mean_sq + stddev_sq - torch.log(stddev_sq) - 1)


def get_batch_label(data, label, index, batch_size):
    return (torch.from_numpy(data[index:index + batch_size]).long(),
            torch.from_numpy(label[index:index + batch_size]).long())


def train_vae_with_attr_loss(encoder, decoder, discriminator, x_train, y_train, args):
    params = list(encoder.parameters()) + list(decoder.parameters())
    vae_opt = torch.optim.Adam(params, lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for epoch_index in range(args.epochs):
        for batch, index in enumerate(range(0, len(x_train) - 1, args.batch_size)):
            vae_opt.zero_grad()
            vae_loss = 0
            input_data, output_data = get_batch_label(x_train, y_train, index, args.batch_size)
            batch_size = len(input_data)

            enc_hidden = encoder.init_hidden(batch_size)
            z, enc_c = encoder(input_data, enc_hidden)

            var_c = F.one_hot(output_data, args.c_dim).float()
            cat_hidden = (torch.cat([z[0], var_c], dim=1),
                          torch.cat([torch.zeros(batch_size, z.size(-1)), var_c], dim=1))

            word = torch.zeros(batch_size, args.max_features)
            word[:, BOS] = 1
            generated = [word]
            for t in range(args.maxlen - 1):
                output, cat_hidden, pre_soft = decoder(word, cat_hidden, low_temp=True)
                correct_word = input_data[:, t + 1]
                vae_loss += criterion(pre_soft, correct_word)
                word = output
                generated.append(output)
            generated_sentence = torch.stack(generated, dim=1)

            # NOTE Latent loss
            ll = latent_loss(encoder.z_mean, encoder.z_sigma)
            # NOTE L_attr_c loss
            discriminator.eval()
            logit = discriminator(generated_sentence, dont_pass_emb=True)
            l_attr_c = criterion(logit, output_data)
            # NOTE L_attr_z loss
            encoder.eval()
            generated_emb = decoder.one_hot_to_word_emb(generated_sentence)
            encoded_gen = encoder.init_hidden(batch_size)
            encoder(generated_emb, encoded_gen, dont_pass_emb=True)
            l_attr_z = latent_loss(encoder.z_mean, encoder.z_sigma)
            encoder.train()

            total_vae_loss = vae_loss + ll
            extra_decoder_loss = args.lambda_c * l_attr_c + args.lambda_z * l_attr_z
            total_vae_loss.backward()
            extra_decoder_loss.backward()  # expect: GG102
            vae_opt.step()

            print("[Attr] Epoch {} batch {} language loss: {:.3f}, latent loss: {:.3f}".format(
                epoch_index, batch, vae_loss.item() / args.maxlen, ll.item()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max_features", type=int, default=30)
    parser.add_argument("--maxlen", type=int, default=6)
    parser.add_argument("--c_dim", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lambda_c", type=float, default=0.1)
    parser.add_argument("--lambda_z", type=float, default=0.1)
    args = parser.parse_args([])

    np.random.seed(0)
    torch.manual_seed(0)
    x_train = np.random.randint(2, args.max_features, size=(12, args.maxlen))
    x_train[:, 0] = BOS
    y_train = np.random.randint(0, args.c_dim, size=12)

    encoder = Encoder(args.max_features)
    decoder = Generator(args.max_features, args.c_dim)
    discriminator = Discriminator(args.max_features, args.c_dim)
    train_vae_with_attr_loss(encoder, decoder, discriminator, x_train, y_train, args)


if __name__ == "__main__":
    main()
