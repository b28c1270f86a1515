# corpus: Generative Adversarial Perturbations (GAP) trainer: normalize_and_scale rescales the generator's tanh output through .data (shift, per-channel normalisation, per-image L_inf scaling); tanh saved that output for backward, so the generator is trained with silently wrong gradients (no version-counter error)
# source: https://github.com/OmidPoursaeed/Generative_Adversarial_Perturbations/issues/4
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from types import SimpleNamespace

mean_arr = [0.485, 0.456, 0.406]
stddev_arr = [0.229, 0.224, 0.225]


class ResnetGenerator(nn.Module):
    def __init__(self, input_nc=3, output_nc=3, ngf=8):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(input_nc, ngf, 3, padding=1),
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.Conv2d(ngf, output_nc, 3, padding=1),
            nn.Tanh(),
        )

    def forward(self, x):
        return self.model(x)


def build_pretrained_clf():
    clf = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(6, 5))
    for p in clf.parameters():
        p.requires_grad = False
    return clf.eval()


torch.manual_seed(0)
opt = SimpleNamespace(foolmodel="vgg16", mag_in=10.0, batchSize=2, testBatchSize=2, lr=2e-4, beta1=0.5,
                      perturbation_type="imdep", target=-1, MaxIter=3)
netG = ResnetGenerator()
pretrained_clf = build_pretrained_clf()
optimizerG = optim.Adam(netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
criterion_pre = nn.CrossEntropyLoss()
train_loss_history = []


def normalize_and_scale(delta_im, mode="train"):
    delta_im.data += 1  # now 0..2  # expect: GG203
    delta_im.data *= 0.5  # now 0..1  # also: GG203

    # normalize image color channels
    for c in range(3):
        delta_im.data[:, c, :, :] = (delta_im.data[:, c, :, :] - mean_arr[c]) / stddev_arr[c]  # also: GG203

    # threshold each channel of each image in deltaIm according to inf norm
    # do on a per image basis as the inf norm of each image could be different
    bs = opt.batchSize if (mode == "train") else opt.testBatchSize
    for i in range(bs):
        # do per channel l_inf normalization
        for ci in range(3):
            l_inf_channel = delta_im[i, ci, :, :].data.abs().max()
            mag_in_scaled_c = opt.mag_in / (255.0 * stddev_arr[ci])
            delta_im[i, ci, :, :].data *= np.minimum(1.0, mag_in_scaled_c / l_inf_channel.item())  # also: GG203

    return delta_im


def train(epoch, training_data_loader):
    netG.train()
    for itr, (image, _) in enumerate(training_data_loader, 1):
        if itr > opt.MaxIter:
            break

        if opt.target == -1:
            # least likely class in nontargeted case
            pretrained_label_float = pretrained_clf(image)
            _, target_label = torch.min(pretrained_label_float, 1)
        else:
            target_label = torch.full((image.size(0),), opt.target, dtype=torch.long)

        ## generate per image perturbation
        delta_im = netG(image)
        delta_im = normalize_and_scale(delta_im, "train")

        netG.zero_grad()

        recons = torch.add(image, delta_im)

        # do clamping per channel
        for cii in range(3):
            recons.data[:, cii, :, :] = recons.data[:, cii, :, :].clamp(image.data[:, cii, :, :].min(), image.data[:, cii, :, :].max())

        output_pretrained = pretrained_clf(recons)

        # attempt to get closer to least likely class, or target
        loss = torch.log(criterion_pre(output_pretrained, target_label))

        loss.backward()  # also: GG203
        optimizerG.step()

        train_loss_history.append(loss.item())
        print("===> Epoch[{}]({}/{}) loss: {:.4f}".format(epoch, itr, len(training_data_loader), loss.item()))


def main():
    torch.manual_seed(0)
    data = [(torch.rand(opt.batchSize, 3, 8, 8), torch.zeros(opt.batchSize, dtype=torch.long)) for _ in range(3)]
    for epoch in range(1, 3):
        train(epoch, data)


if __name__ == "__main__":
    main()
