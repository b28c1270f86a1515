# corpus: null-text inversion: the conditional noise prediction is computed once per timestep, with grad and from non-detached text embeddings, before the inner loop that optimizes the null embedding; every inner step backpropagates through it again
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/tejank10/null-text-inversion/issues/1
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import Adam

NUM_DDIM_STEPS = 4
GUIDANCE_SCALE = 7.5


class TinyTextEncoder(nn.Module):
    def __init__(self, vocab=20, dim=8):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, ids):
        return self.proj(torch.tanh(self.tok(ids)))


class TinyUNet(nn.Module):
    def __init__(self, latent_dim=6, ctx_dim=8):
        super().__init__()
        self.inp = nn.Linear(latent_dim, 16)
        self.ctx = nn.Linear(ctx_dim, 16)
        self.out = nn.Linear(16, latent_dim)

    def forward(self, latents, t, context):
        h = self.inp(latents) + self.ctx(context.mean(dim=1)) + t.float() / 1000.0
        return self.out(F.silu(h))


class NullInversion:
    def __init__(self, unet, text_encoder):
        self.unet, self.text_encoder = unet, text_encoder
        betas = torch.linspace(1e-4, 0.02, 1000)
        self.alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.timesteps = torch.arange(999, 0, -1000 // NUM_DDIM_STEPS)[:NUM_DDIM_STEPS]
        self.context = None

    def init_prompt(self, prompt_ids):
        uncond_embeddings = self.text_encoder(torch.zeros_like(prompt_ids))
        text_embeddings = self.text_encoder(prompt_ids)
        self.context = torch.cat([uncond_embeddings, text_embeddings])

    def get_noise_pred_single(self, latents, t, context):
        return self.unet(latents, t, context)

    def prev_step(self, model_output, timestep, sample):
        prev_timestep = timestep - 1000 // NUM_DDIM_STEPS
        alpha_t = self.alphas_cumprod[timestep]
        alpha_prev = self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else torch.tensor(1.0)
        pred_x0 = (sample - (1 - alpha_t) ** 0.5 * model_output) / alpha_t ** 0.5
        return alpha_prev ** 0.5 * pred_x0 + (1 - alpha_prev) ** 0.5 * model_output

    @torch.no_grad()
    def ddim_loop(self, latent):
        _, cond_embeddings = self.context.chunk(2)
        all_latent = [latent]
        for t in reversed(self.timesteps):
            latent = latent + 0.1 * self.get_noise_pred_single(latent, t, cond_embeddings)
            all_latent.append(latent)
        return all_latent

    def null_optimization(self, latents, num_inner_steps=5, epsilon=1e-5):
        uncond_embeddings, cond_embeddings = self.context.chunk(2)
        uncond_embeddings_list = []
        latent_cur = latents[-1]
        for i in range(NUM_DDIM_STEPS):
            uncond_embeddings = uncond_embeddings.clone().detach()
            uncond_embeddings.requires_grad = True
            optimizer = Adam([uncond_embeddings], lr=1e-2 * (1.0 - i / 100.0))
            latent_prev = latents[len(latents) - i - 2]
            t = self.timesteps[i]
            noise_pred_cond = self.get_noise_pred_single(latent_cur, t, cond_embeddings)  # expect: GG103
            for j in range(num_inner_steps):
                noise_pred_uncond = self.get_noise_pred_single(latent_cur, t, uncond_embeddings)
                noise_pred = noise_pred_uncond + GUIDANCE_SCALE * (noise_pred_cond - noise_pred_uncond)
                latents_prev_rec = self.prev_step(noise_pred, t, latent_cur)
                loss = F.mse_loss(latents_prev_rec, latent_prev)
                optimizer.zero_grad()
                loss.backward()  # also: GG103
                optimizer.step()
                if loss.item() < epsilon + i * 2e-5:
                    break
            uncond_embeddings_list.append(uncond_embeddings[:1].detach())
            with torch.no_grad():
                noise_pred = self.get_noise_pred_single(latent_cur, t, uncond_embeddings)
                latent_cur = self.prev_step(noise_pred, t, latent_cur)
        return uncond_embeddings_list

    def invert(self, x0, prompt_ids):
        self.init_prompt(prompt_ids)
        ddim_latents = self.ddim_loop(x0)
        return self.null_optimization(ddim_latents)


if __name__ == "__main__":
    torch.manual_seed(0)
    inverter = NullInversion(TinyUNet(), TinyTextEncoder())
    null_embeds = inverter.invert(torch.randn(1, 6), torch.randint(1, 20, (1, 5)))
    print(len(null_embeds), null_embeds[0].shape)
