from torch.nn import L1Loss

from .losses import PatchAdversarialLoss, PerceptualLoss

l1_loss = L1Loss()
adv_loss = PatchAdversarialLoss(criterion="least_squares")
perceptual_loss = PerceptualLoss()
adv_weight = 0.01
perceptual_weight = 0.001


def train_epoch(model, discriminator, optimizer_g, optimizer_d, train_loader):
    model.train()
    discriminator.train()
    epoch_loss = gen_epoch_loss = disc_epoch_loss = 0.0
    for step, batch in enumerate(train_loader):
        images = batch["image"]
        optimizer_g.zero_grad(set_to_none=True)

        # Generator part
        reconstruction, quantization_loss = model(images=images)
        logits_fake = discriminator(reconstruction.contiguous().float())[-1]

        recons_loss = l1_loss(reconstruction.float(), images.float())
        p_loss = perceptual_loss(reconstruction.float(), images.float())
        generator_loss = adv_loss(logits_fake, target_is_real=True, for_discriminator=False)
        loss_g = recons_loss + quantization_loss + perceptual_weight * p_loss + adv_weight * generator_loss

        loss_g.backward()
        optimizer_g.step()

        # Discriminator part
        logits_fake = discriminator(reconstruction.contiguous().detach())[-1]
        loss_d_fake = adv_loss(logits_fake, target_is_real=False, for_discriminator=True)
        logits_real = discriminator(images.contiguous().detach())[-1]
        loss_d_real = adv_loss(logits_real, target_is_real=True, for_discriminator=True)
        discriminator_loss = (loss_d_fake + loss_d_real) * 0.5

        loss_d = adv_weight * discriminator_loss

        loss_d.backward()  # expect: GG201
        optimizer_d.step()  # also: GG201

        epoch_loss += recons_loss.item()
        gen_epoch_loss += generator_loss.item()
        disc_epoch_loss += discriminator_loss.item()
    n = step + 1
    return epoch_loss / n, gen_epoch_loss / n, disc_epoch_loss / n
