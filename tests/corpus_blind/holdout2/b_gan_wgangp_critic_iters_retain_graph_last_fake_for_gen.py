# corpus: WGAN-GP loop runs CRITIC_ITERATIONS critic updates with loss_critic.backward(retain_graph=True) on a non-detached fake, then reuses the last fake for the generator step; the retained generator graph is still valid because the generator has not been stepped and gen.zero_grad() clears the spill-over (correct)
# source: https://github.com/aladdinpersson/Machine-Learning-Collection/issues/42
import torch
import torch.nn as nn
import torch.optim as optim

LEARNING_RATE = 1e-4
BATCH_SIZE = 8
Z_DIM = 6
IMG_DIM = 16
NUM_EPOCHS = 2
CRITIC_ITERATIONS = 3
LAMBDA_GP = 10


class Discriminator(nn.Module):
    def __init__(self, img_dim, features):
        super().__init__()
        self.disc = nn.Sequential(nn.Linear(img_dim, features), nn.LeakyReLU(0.2),
                                  nn.Linear(features, features), nn.LayerNorm(features), nn.LeakyReLU(0.2),
                                  nn.Linear(features, 1))

    def forward(self, x):
        return self.disc(x)


class Generator(nn.Module):
    def __init__(self, z_dim, img_dim, features):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, features), nn.BatchNorm1d(features), nn.ReLU(),
                                 nn.Linear(features, img_dim), nn.Tanh())

    def forward(self, x):
        return self.net(x)


def initialize_weights(model):
    for m in model.modules():
        if isinstance(m, (nn.Linear, nn.BatchNorm1d)):
            nn.init.normal_(m.weight.data, 0.0, 0.02)


def gradient_penalty(critic, real, fake):
    epsilon = torch.rand((real.shape[0], 1)).repeat(1, real.shape[1])
    interpolated_images = real * epsilon + fake * (1 - epsilon)
    mixed_scores = critic(interpolated_images)
    gradient = torch.autograd.grad(inputs=interpolated_images, outputs=mixed_scores,
                                   grad_outputs=torch.ones_like(mixed_scores),
                                   create_graph=True, retain_graph=True)[0]
    gradient = gradient.view(gradient.shape[0], -1)
    return torch.mean((gradient.norm(2, dim=1) - 1) ** 2)


def train(gen, critic, loader):
    opt_gen = optim.Adam(gen.parameters(), lr=LEARNING_RATE, betas=(0.0, 0.9))
    opt_critic = optim.Adam(critic.parameters(), lr=LEARNING_RATE, betas=(0.0, 0.9))
    gen.train()
    critic.train()
    for epoch in range(NUM_EPOCHS):
        for batch_idx, real in enumerate(loader):
            cur_batch_size = real.shape[0]
            for _ in range(CRITIC_ITERATIONS):
                noise = torch.randn(cur_batch_size, Z_DIM)
                fake = gen(noise)
                critic_real = critic(real).reshape(-1)
                critic_fake = critic(fake).reshape(-1)
                gp = gradient_penalty(critic, real, fake)
                loss_critic = -(torch.mean(critic_real) - torch.mean(critic_fake)) + LAMBDA_GP * gp
                critic.zero_grad()
                loss_critic.backward(retain_graph=True)
                opt_critic.step()

            gen_fake = critic(fake).reshape(-1)
            loss_gen = -torch.mean(gen_fake)
            gen.zero_grad()
            loss_gen.backward()
            opt_gen.step()
        print(f"Epoch [{epoch}/{NUM_EPOCHS}] Loss D: {loss_critic.item():.4f}, loss G: {loss_gen.item():.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    gen = Generator(Z_DIM, IMG_DIM, 16)
    critic = Discriminator(IMG_DIM, 16)
    initialize_weights(gen)
    initialize_weights(critic)
    loader = [torch.rand(BATCH_SIZE, IMG_DIM) * 2 - 1 for _ in range(3)]
    train(gen, critic, loader)
