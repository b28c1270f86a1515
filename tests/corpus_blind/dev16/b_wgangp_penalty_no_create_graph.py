# corpus: WGAN-GP training where gradient_penalty() calls autograd.grad with retain_graph=True instead of create_graph=True, so the penalty is a constant and LAMBDA_GP * gp never shapes the critic.
# source: https://github.com/0nEwEi/Test/blob/8a79b0d6ac0396716109c0c59ccfaed1cf2ad41a/WGANGP/utils.py
import torch
import torch.nn as nn
import torch.optim as optim

# Hyperparameters etc.
device = torch.device("cpu")
LEARNING_RATE = 1e-4
BATCH_SIZE = 8
IMAGE_SIZE = 8
IMG_CHANNELS = 1
Z_DIM = 4
NUM_EPOCHS = 2
FEATURES_D = 4
FEATURES_G = 4
CRITIC_ITERATIONS = 2
LAMBDA_GP = 10


class Discriminator(nn.Module):
    def __init__(self, channels_img, features_d):
        super(Discriminator, self).__init__()
        self.disc = nn.Sequential(
            nn.Conv2d(channels_img, features_d, 4, 2, 1), nn.LeakyReLU(0.2),
            nn.Conv2d(features_d, features_d * 2, 4, 2, 1), nn.InstanceNorm2d(features_d * 2, affine=True),
            nn.LeakyReLU(0.2),
            nn.Conv2d(features_d * 2, 1, 2, 1, 0))

    def forward(self, x):
        return self.disc(x)


class Generator(nn.Module):
    def __init__(self, z_dim, channels_img, features_g):
        super(Generator, self).__init__()
        self.net = nn.Sequential(
            nn.ConvTranspose2d(z_dim, features_g * 2, 4, 1, 0), nn.BatchNorm2d(features_g * 2), nn.ReLU(),
            nn.ConvTranspose2d(features_g * 2, channels_img, 4, 2, 1), nn.Tanh())

    def forward(self, x):
        return self.net(x)


def weights_init(model):
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d, nn.BatchNorm2d)):
            nn.init.normal_(m.weight.data, 0.0, 0.02)


def gradient_penalty(critic, real, fake, device="cpu"):
    BATCH_SIZE, C, H, W = real.shape
    epsilon = torch.rand((BATCH_SIZE, 1, 1, 1)).repeat(1, C, H, W).to(device)
    interpolated_images = real * epsilon + fake * (1 - epsilon)
    interpolated_images.requires_grad_(True)

    # calculate critic scores
    mixed_scores = critic(interpolated_images)

    gradient = torch.autograd.grad(  # expect: GG202
        inputs=interpolated_images,
        outputs=mixed_scores,
        grad_outputs=torch.ones_like(mixed_scores),
        retain_graph=True,
    )[0]

    gradient = gradient.view(gradient.shape[0], -1)
    gradient_norm = gradient.norm(2, dim=1)
    gradient_penalty = torch.mean((gradient_norm - 1) ** 2)
    return gradient_penalty


def make_dataloader():
    torch.manual_seed(1)
    return [(torch.rand(BATCH_SIZE, IMG_CHANNELS, IMAGE_SIZE, IMAGE_SIZE) * 2 - 1, None) for _ in range(2)]


def train(gen, critic, opt_gen, opt_critic, dataloader):
    gen.train()
    critic.train()
    for epoch in range(NUM_EPOCHS):
        for batch_idx, (real, _) in enumerate(dataloader):
            real = real.to(device)

            # Train Discriminator
            for _ in range(CRITIC_ITERATIONS):
                noise = torch.randn((BATCH_SIZE, Z_DIM, 1, 1)).to(device)
                fake = gen(noise).detach()  # fake here doesn't need gradient

                critic_real = critic(real).reshape(-1)
                critic_fake = critic(fake).reshape(-1)

                gp = gradient_penalty(critic, real, fake, device=device)
                loss_critic = (-(torch.mean(critic_real) - torch.mean(critic_fake)) + LAMBDA_GP * gp)

                critic.zero_grad()
                loss_critic.backward()
                opt_critic.step()

            # Train Generator--min -E[critic(gen(z))]
            noise = torch.randn((BATCH_SIZE, Z_DIM, 1, 1)).to(device)
            fake = gen(noise)
            output = critic(fake).reshape(-1)
            loss_gen = -torch.mean(output)

            gen.zero_grad()
            loss_gen.backward()
            opt_gen.step()

        print(f"Epoch [{epoch}/{NUM_EPOCHS}] Loss D: {loss_critic:.4f}, loss G: {loss_gen:.4f}")


def main():
    torch.manual_seed(0)
    gen = Generator(Z_DIM, IMG_CHANNELS, FEATURES_G).to(device)
    critic = Discriminator(IMG_CHANNELS, FEATURES_D).to(device)
    weights_init(gen)
    weights_init(critic)
    opt_gen = optim.Adam(gen.parameters(), lr=LEARNING_RATE, betas=(0.0, 0.9))
    opt_critic = optim.Adam(critic.parameters(), lr=LEARNING_RATE, betas=(0.0, 0.9))
    train(gen, critic, opt_gen, opt_critic, make_dataloader())


if __name__ == "__main__":
    main()
