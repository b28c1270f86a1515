# corpus: Controlled text generation VAE trainer feeds its decoder the soft word it produced at the previous step; the `'next_word' in locals()` test is still true at the first step of the next batch, so batch 2 starts from batch 1's decoder output and total_vae_loss.backward() walks into batch 1's freed graph.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/issues/8
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

BOS = 1
max_features = 12
maxlen = 6
batch_size = 4
c_dim = 2
epoch = 1


class Encoder(nn.Module):
    def __init__(self, emb_dim=8, hidden=10, z_dim=6):
        super().__init__()
        self.embedding = nn.Embedding(max_features, emb_dim)
        self.lstm = nn.LSTM(emb_dim, hidden, batch_first=True)
        self.mean = nn.Linear(hidden, z_dim)
        self.log_sigma = nn.Linear(hidden, z_dim)
        self.z_dim = z_dim
        self.hidden = hidden

    def init_hidden(self, n):
        return (torch.zeros(1, n, self.hidden), torch.zeros(1, n, self.hidden))

    def forward(self, x, hidden, dont_pass_emb=False):
        emb = x if dont_pass_emb else self.embedding(x)
        _, (h, c) = self.lstm(emb, hidden)
        self.z_mean = self.mean(h[0])
        self.z_sigma = torch.exp(self.log_sigma(h[0]))
        z = self.z_mean + self.z_sigma * torch.randn_like(self.z_mean)
        return (z.unsqueeze(0), c)


class Generator(nn.Module):
    def __init__(self, emb_dim=8, z_dim=6):
        super().__init__()
        self.hidden = z_dim + c_dim
        self.embedding = nn.Linear(max_features, emb_dim, bias=False)
        self.cell = nn.LSTM(emb_dim, self.hidden, batch_first=True)
        self.out = nn.Linear(self.hidden, max_features)

    def init_hidden_c_for_lstm(self, n):
        return torch.zeros(1, n, self.hidden - c_dim)

    def one_hot_to_word_emb(self, one_hot):
        return self.embedding(one_hot)

    def forward(self, word, hidden, low_temp=True, one_hot_input=True):
        emb = self.embedding(word).unsqueeze(1)
        output, hidden = self.cell(emb, hidden)
        pre_soft = self.out(output[:, 0])
        temp = 0.1 if low_temp else 1.0
        return F.softmax(pre_soft / temp, dim=-1), hidden, pre_soft


def latent_loss(z_mean, z_stddev):
    mean_sq = z_mean * z_mean
    stddev_sq = z_stddev * z_stddev
    return 0.5 * torch.mean(mean_sq + stddev_sq - torch.log(stddev_sq) - 1)


def get_batch_label(x, y, index, size):
    return torch.from_numpy(x[index:index + size]), torch.from_numpy(y[index:index + size])


def train_vae_with_attr_loss(encoder, decoder, vae_opt, criterion, x_train, y_train):
    for epoch_index in range(epoch):
        for batch, index in enumerate(range(0, len(x_train) - 1, batch_size)):
            encoder.zero_grad()
            decoder.zero_grad()
            vae_loss = 0
            input_data, output_data = get_batch_label(x_train, y_train, index, batch_size)
            enc_hidden = encoder(input_data, encoder.init_hidden(len(input_data)))
            var_c = torch.from_numpy(np.eye(c_dim)[output_data.numpy()]).float()
            cat_hidden = (torch.cat([enc_hidden[0][0], var_c], dim=1).unsqueeze(0),
                          torch.cat([decoder.init_hidden_c_for_lstm(len(input_data))[0], var_c], dim=1).unsqueeze(0))
            batch_init_word = np.zeros((batch_size, max_features))
            batch_init_word[np.arange(batch_size), BOS] = 1
            batch_init_word = torch.from_numpy(batch_init_word).float()
            input_data = input_data.permute(1, 0)
            for index in range(maxlen - 1):
                if 'next_word' in locals():  # also: GG104
                    word = next_word.squeeze(1)  # expect: GG104
                    output, cat_hidden, pre_soft = decoder(word, cat_hidden, low_temp=True, one_hot_input=True)
                else:
                    word = batch_init_word
                    output, cat_hidden, pre_soft = decoder(word, cat_hidden, low_temp=True, one_hot_input=True)
                next_word = output
                correct_word = input_data[index + 1]
                vae_loss += criterion(pre_soft.view(-1, max_features), correct_word)
                if len(batch_init_word.size()) == 2:
                    batch_init_word = batch_init_word.unsqueeze(1)
                if len(next_word.size()) == 2:
                    next_word = next_word.unsqueeze(1)
                batch_init_word = torch.cat([batch_init_word, next_word], dim=1)
            ll = latent_loss(encoder.z_mean, encoder.z_sigma)
            avg_loss = vae_loss.item() / maxlen
            total_vae_loss = vae_loss + ll
            total_vae_loss.backward()  # also: GG104
            vae_opt.step()
            print("[Attr] Epoch {} batch {}'s average language loss: {:.4f}, latent loss: {:.4f}".format(
                epoch_index, batch, avg_loss, ll.item()))


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    x_train = np.random.randint(2, max_features, size=(12, maxlen)).astype(np.int64)
    x_train[:, 0] = BOS
    y_train = np.random.randint(0, c_dim, size=(12,)).astype(np.int64)
    encoder = Encoder()
    decoder = Generator()
    vae_opt = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    train_vae_with_attr_loss(encoder, decoder, vae_opt, criterion, x_train, y_train)


if __name__ == "__main__":
    main()
