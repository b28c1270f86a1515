# corpus: SRGAN train() produces the super-resolved batch under torch.no_grad() and reuses it for the generator loss while D is frozen
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/Lornatang/SRGAN-PyTorch/issues/37
import torch
import torch.nn as nn


def build(upscale=2, dim=6):
    generator = nn.Sequential(nn.Linear(dim, 24), nn.PReLU(), nn.Linear(24, dim * upscale))
    discriminator = nn.Sequential(nn.Linear(dim * upscale, 24), nn.LeakyReLU(0.2), nn.Linear(24, 1))
    feature_extractor = nn.Sequential(nn.Linear(dim * upscale, 8), nn.ReLU())
    for p in feature_extractor.parameters():
        p.requires_grad = False
    return generator, discriminator, feature_extractor


def train(generator, discriminator, feature_extractor, loader, epoch):
    pixel_criterion = nn.MSELoss()
    content_criterion = nn.MSELoss()
    adversarial_criterion = nn.BCEWithLogitsLoss()
    g_optimizer = torch.optim.Adam(generator.parameters(), lr=1e-4)
    d_optimizer = torch.optim.Adam(discriminator.parameters(), lr=1e-4)
    losses = {"d": 0.0, "g": 0.0}
    for index, (lr, hr) in enumerate(loader):
        real_label = torch.ones(lr.size(0), 1)
        fake_label = torch.zeros(lr.size(0), 1)

        with torch.no_grad():  # also: GG106
            sr = generator(lr)  # expect: GG106

        # (1) Update D
        for d_parameters in discriminator.parameters():
            d_parameters.requires_grad = True
        d_optimizer.zero_grad()
        d_loss = adversarial_criterion(discriminator(hr), real_label) + \
            adversarial_criterion(discriminator(sr.detach()), fake_label)
        d_loss.backward()
        d_optimizer.step()

        # (2) Update G
        for d_parameters in discriminator.parameters():
            d_parameters.requires_grad = False
        g_optimizer.zero_grad()
        pixel_loss = pixel_criterion(sr, hr)
        content_loss = content_criterion(feature_extractor(sr), feature_extractor(hr))
        adversarial_loss = adversarial_criterion(discriminator(sr), real_label)
        g_loss = pixel_loss + 0.006 * content_loss + 1e-3 * adversarial_loss
        g_loss.backward()  # also: GG106
        g_optimizer.step()
        losses["d"] += d_loss.item()
        losses["g"] += g_loss.item()
    return losses


def main():
    torch.manual_seed(0)
    generator, discriminator, feature_extractor = build()
    loader = [(torch.randn(4, 6), torch.randn(4, 12)) for _ in range(2)]
    for epoch in range(2):
        print(epoch, train(generator, discriminator, feature_extractor, loader, epoch))


if __name__ == "__main__":
    main()
