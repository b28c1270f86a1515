# corpus: TimeGAN (GRU embedder/recovery/generator/supervisor/discriminator) joint training: gen_batch() runs the whole forward once, train_generator() backpropagates G_loss (through supervisor(H) and the embedder) and steps, then train_embedder() backpropagates E_loss built on the same H from that forward
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/AlanDongMu/TimeGAN_PytorchRebuild/issues/2
import argparse

import numpy as np
import torch
import torch.nn as nn


def MinMaxScaler(data):
    min_val = np.min(np.min(data, axis=0), axis=0)
    data = data - min_val
    max_val = np.max(np.max(data, axis=0), axis=0)
    norm_data = data / (max_val + 1e-7)
    return norm_data, min_val, max_val


def extract_time(data):
    time = [len(seq) for seq in data]
    return time, max(time)


def batch_generator(data, time, batch_size):
    no = len(data)
    idx = np.random.permutation(no)[:batch_size]
    return [data[i] for i in idx], [time[i] for i in idx]


def random_generator(batch_size, z_dim, max_seq_len, T_mb):
    Z_mb = []
    for i in range(batch_size):
        temp = np.zeros([max_seq_len, z_dim])
        temp[: T_mb[i], :] = np.random.uniform(0.0, 1, [T_mb[i], z_dim])
        Z_mb.append(temp)
    return Z_mb


class RNNBlock(nn.Module):
    def __init__(self, input_dim, hidden_dim, out_dim, num_layer, sigmoid=True):
        super().__init__()
        self.rnn = nn.GRU(input_size=input_dim, hidden_size=hidden_dim, num_layers=num_layer, batch_first=True)
        self.fc = nn.Linear(hidden_dim, out_dim)
        self.sigmoid = nn.Sigmoid() if sigmoid else nn.Identity()

    def forward(self, x):
        outputs, _ = self.rnn(x)
        return self.sigmoid(self.fc(outputs))


class Embedder(RNNBlock):
    def __init__(self, para):
        super().__init__(para["input_dim"], para["hidden_dim"], para["hidden_dim"], para["num_layer"])


class Recovery(RNNBlock):
    def __init__(self, para):
        super().__init__(para["hidden_dim"], para["input_dim"], para["input_dim"], para["num_layer"])


class Generator(RNNBlock):
    def __init__(self, para):
        super().__init__(para["input_dim"], para["hidden_dim"], para["hidden_dim"], para["num_layer"])


class Supervisor(RNNBlock):
    def __init__(self, para):
        super().__init__(para["hidden_dim"], para["hidden_dim"], para["hidden_dim"], para["num_layer"] - 1 or 1)


class Discriminator(RNNBlock):
    def __init__(self, para):
        super().__init__(para["hidden_dim"], para["hidden_dim"], 1, para["num_layer"])


class TimeGAN:
    def __init__(self, opt, ori_data):
        self.opt = opt
        self.ori_data, self.min_val, self.max_val = MinMaxScaler(ori_data)
        self.ori_time, self.max_seq_len = extract_time(self.ori_data)
        self.no, self.seq_len, self.z_dim = np.asarray(ori_data).shape
        self.device = torch.device("cpu")

        self.para = dict(module=opt.module, input_dim=self.z_dim, hidden_dim=opt.hidden_dim, num_layer=opt.num_layer)
        self.embedder = Embedder(self.para).to(self.device)
        self.recovery = Recovery(self.para).to(self.device)
        self.generator = Generator(self.para).to(self.device)
        self.discriminator = Discriminator(self.para).to(self.device)
        self.supervisor = Supervisor(self.para).to(self.device)

        self.optim_embedder = torch.optim.Adam(self.embedder.parameters(), lr=opt.lr)
        self.optim_recovery = torch.optim.Adam(self.recovery.parameters(), lr=opt.lr)
        self.optim_generator = torch.optim.Adam(self.generator.parameters(), lr=opt.lr)
        self.optim_discriminator = torch.optim.Adam(self.discriminator.parameters(), lr=opt.lr)
        self.optim_supervisor = torch.optim.Adam(self.supervisor.parameters(), lr=opt.lr)

        self.MSELoss = torch.nn.MSELoss()
        self.BCELoss = torch.nn.BCELoss()

    def gen_batch(self):
        # Set training batch
        self.X, self.T = batch_generator(self.ori_data, self.ori_time, self.opt.batch_size)
        self.X = torch.tensor(np.array(self.X), dtype=torch.float32).to(self.device)
        # Random vector generation
        self.Z = random_generator(self.opt.batch_size, self.para["input_dim"], self.max_seq_len, self.T)
        self.Z = torch.tensor(np.array(self.Z), dtype=torch.float32).to(self.device)

        # total networks forward
        self.H = self.embedder(self.X)
        self.X_tilde = self.recovery(self.H)
        self.H_hat_supervise = self.supervisor(self.H)

        self.E_hat = self.generator(self.Z)
        self.H_hat = self.supervisor(self.E_hat)
        self.X_hat = self.recovery(self.H_hat)

        self.Y_real = self.discriminator(self.H)
        self.Y_fake = self.discriminator(self.H_hat)
        self.Y_fake_e = self.discriminator(self.E_hat)

    def train_embedder(self, join_train=False):
        self.embedder.train()
        self.recovery.train()
        self.optim_embedder.zero_grad()
        self.optim_recovery.zero_grad()
        self.E_loss_T0 = self.MSELoss(self.X, self.X_tilde)
        self.E_loss0 = 10 * torch.sqrt(self.E_loss_T0)
        if not join_train:
            # E0_solver
            self.E_loss0.backward()
        else:
            # E_solver
            self.G_loss_S = self.MSELoss(self.H[:, 1:, :], self.H_hat_supervise[:, :-1, :])
            self.E_loss = self.E_loss0 + 0.1 * self.G_loss_S
            self.E_loss.backward()  # expect: GG102
        self.optim_embedder.step()
        self.optim_recovery.step()

    def train_supervisor(self):
        # GS_solver
        self.generator.train()
        self.supervisor.train()
        self.optim_generator.zero_grad()
        self.optim_supervisor.zero_grad()
        self.G_loss_S = self.MSELoss(self.H[:, 1:, :], self.H_hat_supervise[:, :-1, :])
        self.G_loss_S.backward()
        self.optim_generator.step()
        self.optim_supervisor.step()

    def train_generator(self):
        # G_solver
        self.optim_generator.zero_grad()
        self.optim_supervisor.zero_grad()
        self.G_loss_U = self.BCELoss(self.Y_fake, torch.ones_like(self.Y_fake))
        self.G_loss_U_e = self.BCELoss(self.Y_fake_e, torch.ones_like(self.Y_fake_e))
        self.G_loss_V1 = torch.mean(torch.abs(torch.sqrt(torch.std(self.X_hat, [0])[1] + 1e-6) - torch.sqrt(
            torch.std(self.X, [0])[1] + 1e-6)))
        self.G_loss_V2 = torch.mean(torch.abs((torch.mean(self.X_hat, [0])) - (torch.mean(self.X, [0]))))
        self.G_loss_V = self.G_loss_V1 + self.G_loss_V2
        self.G_loss_S = self.MSELoss(self.H_hat_supervise[:, :-1, :], self.H[:, 1:, :])
        self.G_loss = self.G_loss_U + \
            self.opt.gamma * self.G_loss_U_e + \
            torch.sqrt(self.G_loss_S) * 100 + \
            self.G_loss_V * 100
        self.G_loss.backward()  # also: GG102
        self.optim_generator.step()
        self.optim_supervisor.step()

    def train_discriminator(self):
        # D_solver
        self.discriminator.train()
        self.optim_discriminator.zero_grad()
        self.D_loss_real = self.BCELoss(self.Y_real, torch.ones_like(self.Y_real))
        self.D_loss_fake = self.BCELoss(self.Y_fake, torch.zeros_like(self.Y_fake))
        self.D_loss_fake_e = self.BCELoss(self.Y_fake_e, torch.zeros_like(self.Y_fake_e))
        self.D_loss = self.D_loss_real + self.D_loss_fake + self.opt.gamma * self.D_loss_fake_e
        # Train discriminator (only when the discriminator does not work well)
        if self.D_loss > 0.15:
            self.D_loss.backward()
            self.optim_discriminator.step()


def train(opt, ori_data):
    model = TimeGAN(opt, ori_data)
    per_print_num = max(1, opt.iterations // opt.print_times)

    # 1. Embedding network training
    print("Start Embedding Network Training")
    for i in range(opt.iterations):
        model.gen_batch()
        model.train_embedder()
        if i % per_print_num == 0:
            print("step: " + str(i) + "/" + str(opt.iterations) +
                  ", e_loss: " + str(np.round(np.sqrt(model.E_loss_T0.item()), 4)))

    # 2. Training only with supervised loss
    print("Start Training with Supervised Loss Only")
    for i in range(opt.iterations):
        model.gen_batch()
        model.train_supervisor()
        if i % per_print_num == 0:
            print("step: " + str(i) + "/" + str(opt.iterations) +
                  ", e_loss: " + str(np.round(np.sqrt(model.G_loss_S.item()), 4)))

    # 3. Joint Training
    print("Start Joint Training")
    for i in range(opt.iterations):
        # Generator training (twice more than discriminator training)
        for kk in range(2):
            model.gen_batch()
            model.train_generator()
            model.train_embedder(join_train=True)
        # Discriminator training
        model.gen_batch()
        model.train_discriminator()
        if i % per_print_num == 0:
            print("step: " + str(i) + "/" + str(opt.iterations) +
                  ", d_loss: " + str(np.round(model.D_loss.item(), 4)) +
                  ", g_loss_u: " + str(np.round(model.G_loss_U.item(), 4)))
    print("Finish Joint Training")


def sine_data_generation(no, seq_len, dim):
    data = []
    for i in range(no):
        temp = []
        for k in range(dim):
            freq = np.random.uniform(0, 0.1)
            phase = np.random.uniform(0, 0.1)
            temp.append([np.sin(freq * j + phase) for j in range(seq_len)])
        temp = np.transpose(np.asarray(temp))
        data.append((temp + 1) * 0.5)
    return data


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--module", choices=["gru", "lstm"], default="gru", type=str)
    parser.add_argument("--hidden_dim", default=12, type=int)
    parser.add_argument("--num_layer", default=2, type=int)
    parser.add_argument("--iterations", default=3, type=int)
    parser.add_argument("--print_times", default=3, type=int)
    parser.add_argument("--batch_size", default=8, type=int)
    parser.add_argument("--gamma", default=1.0, type=float)
    parser.add_argument("--lr", default=1e-3, type=float)
    opt = parser.parse_args()

    np.random.seed(0)
    torch.manual_seed(0)
    ori_data = sine_data_generation(32, 12, 3)
    train(opt, ori_data)


if __name__ == "__main__":
    main()
