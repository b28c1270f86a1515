# corpus: CLIP-guided latent diffusion sampling where the guidance loss is computed on images decoded by a VAE whose decode method is wrapped in torch.no_grad(), so the loss has no grad_fn and autograd.grad on the latents fails.
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/huggingface/diffusers/issues/2990
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyVAE(nn.Module):
    def __init__(self, latent_channels=4):
        super().__init__()
        self.post_quant_conv = nn.Conv2d(latent_channels, latent_channels, 1)
        self.decoder = nn.Sequential(nn.ConvTranspose2d(latent_channels, 8, 4, 2, 1), nn.SiLU(),
                                     nn.Conv2d(8, 3, 3, padding=1))

    @torch.no_grad()
    def decode(self, z):
        return self.decoder(self.post_quant_conv(z))


class TinyUNet(nn.Module):
    def __init__(self, channels=4):
        super().__init__()
        self.time_embed = nn.Linear(1, channels)
        self.net = nn.Sequential(nn.Conv2d(channels, 16, 3, padding=1), nn.SiLU(), nn.Conv2d(16, channels, 3, padding=1))

    def forward(self, x, t):
        emb = self.time_embed(t.float().view(1, 1) / 1000.0).view(1, -1, 1, 1)
        return self.net(x + emb)


class TinyCLIP(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.visual = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                    nn.Flatten(), nn.Linear(8, dim))

    def get_image_features(self, pixel_values):
        return self.visual(pixel_values)


def set_requires_grad(model, value):
    for param in model.parameters():
        param.requires_grad = value


def spherical_dist_loss(x, y):
    x = F.normalize(x, dim=-1)
    y = F.normalize(y, dim=-1)
    return (x - y).norm(dim=-1).div(2).arcsin().pow(2).mul(2)


class CLIPGuidedPipeline:
    def __init__(self, vae, unet, clip, num_train_timesteps=1000):
        self.vae, self.unet, self.clip = vae, unet, clip
        set_requires_grad(self.clip, False)
        betas = torch.linspace(1e-4, 0.02, num_train_timesteps)
        self.alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)

    def cond_fn(self, latents, timestep, text_embeddings, clip_guidance_scale):
        latents = latents.detach().requires_grad_()
        noise_pred = self.unet(latents, timestep)
        alpha_prod_t = self.alphas_cumprod[timestep]
        pred_original_sample = (latents - (1 - alpha_prod_t) ** 0.5 * noise_pred) / alpha_prod_t ** 0.5
        image = self.vae.decode(pred_original_sample / 0.18215)
        image = (image / 2 + 0.5).clamp(0, 1)
        image_embeddings_clip = self.clip.get_image_features(image)
        loss = spherical_dist_loss(image_embeddings_clip, text_embeddings).mean() * clip_guidance_scale
        grads = -torch.autograd.grad(loss, latents)[0]  # expect: GG106
        noise_pred = noise_pred.detach() - (1 - alpha_prod_t) ** 0.5 * grads
        return noise_pred

    def __call__(self, text_embeddings, num_inference_steps=4, clip_guidance_scale=100.0):
        latents = torch.randn(1, 4, 8, 8)
        timesteps = torch.linspace(999, 0, num_inference_steps).long()
        for i, t in enumerate(timesteps):
            with torch.no_grad():
                noise_pred = self.unet(latents, t)
            noise_pred = self.cond_fn(latents, t, text_embeddings, clip_guidance_scale)
            alpha_t = self.alphas_cumprod[t]
            alpha_prev = self.alphas_cumprod[timesteps[i + 1]] if i + 1 < len(timesteps) else torch.tensor(1.0)
            x0 = (latents - (1 - alpha_t) ** 0.5 * noise_pred) / alpha_t ** 0.5
            latents = alpha_prev ** 0.5 * x0 + (1 - alpha_prev) ** 0.5 * noise_pred
        return self.vae.decode(latents / 0.18215)


def main():
    torch.manual_seed(0)
    pipe = CLIPGuidedPipeline(TinyVAE(), TinyUNet(), TinyCLIP())
    text_embeddings = torch.randn(1, 16)
    image = pipe(text_embeddings)
    print(image.shape)


if __name__ == "__main__":
    main()
