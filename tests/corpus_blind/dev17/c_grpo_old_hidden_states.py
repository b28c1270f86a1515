# corpus: GRPO trainer for a LoRA-adapted causal LM computes the "old policy" hidden states once per generation batch with autograd recording and reuses them in every optimisation iteration over that batch, so the second iteration's backward runs into the first iteration's freed graph.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/unslothai/unsloth/issues/3476
import torch
import torch.nn as nn
import torch.nn.functional as F


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r: int = 4, alpha: float = 8.0):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        self.base.bias.requires_grad_(False)
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        nn.init.normal_(self.lora_B.weight, std=0.02)
        self.scaling = alpha / r
        self.disabled = False

    def forward(self, x):
        out = self.base(x)
        if not self.disabled:
            out = out + self.lora_B(self.lora_A(x)) * self.scaling
        return out


class TinyCausalLM(nn.Module):
    def __init__(self, vocab=20, dim=16, n_layers=2):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList([LoRALinear(nn.Linear(dim, dim)) for _ in range(n_layers)])
        self.norm = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        for p in [self.embed_tokens.weight, self.lm_head.weight, *self.norm.parameters()]:
            p.requires_grad_(False)

    def set_adapters(self, enabled: bool):
        for layer in self.layers:
            layer.disabled = not enabled

    def hidden_states(self, input_ids):
        h = self.embed_tokens(input_ids)
        for layer in self.layers:
            h = h + torch.tanh(layer(h))
        return self.norm(h)


def selective_log_softmax(hidden, lm_head, ids):
    logits = lm_head(hidden[:, :-1])
    return torch.gather(F.log_softmax(logits, dim=-1), 2, ids[:, 1:, None]).squeeze(-1)


class GRPOTrainer:
    def __init__(self, model, num_generations=4, num_iterations=2, beta=0.04, epsilon=0.2):
        self.model = model
        self.num_generations = num_generations
        self.num_iterations = num_iterations
        self.beta = beta
        self.epsilon = epsilon
        params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(params, lr=1e-3)

    def reward_fn(self, completions):
        return (completions == 3).float().mean(dim=1)

    def _generate_and_score(self, prompt_ids):
        prompts = prompt_ids.repeat_interleave(self.num_generations, dim=0)
        completions = torch.randint(0, 20, (prompts.shape[0], 6))
        input_ids = torch.cat([prompts, completions], dim=1)
        rewards = self.reward_fn(completions).view(-1, self.num_generations)
        adv = (rewards - rewards.mean(1, keepdim=True)) / (rewards.std(1, keepdim=True) + 1e-4)
        return input_ids, adv.view(-1)

    def compute_loss(self, input_ids, advantages, old_hidden_states, ref_hidden_states):
        new_hidden = self.model.hidden_states(input_ids)
        logps = selective_log_softmax(new_hidden, self.model.lm_head, input_ids)
        old_logps = selective_log_softmax(old_hidden_states, self.model.lm_head, input_ids)  # also: GG103
        ref_logps = selective_log_softmax(ref_hidden_states, self.model.lm_head, input_ids)
        ratio = torch.exp(logps - old_logps)
        clipped = torch.clamp(ratio, 1 - self.epsilon, 1 + self.epsilon)
        pg = -torch.min(ratio * advantages[:, None], clipped * advantages[:, None])
        kl = torch.exp(ref_logps - logps) - (ref_logps - logps) - 1
        return (pg + self.beta * kl).mean()

    def train_step(self, prompt_ids):
        input_ids, advantages = self._generate_and_score(prompt_ids)
        old_hidden_states = self.model.hidden_states(input_ids)  # expect: GG103
        with torch.no_grad():
            self.model.set_adapters(False)
            ref_hidden_states = self.model.hidden_states(input_ids)
            self.model.set_adapters(True)
        losses = []
        for it in range(self.num_iterations):
            loss = self.compute_loss(input_ids, advantages, old_hidden_states, ref_hidden_states)
            self.optimizer.zero_grad()
            loss.backward()  # also: GG103
            self.optimizer.step()
            losses.append(loss.item())
        return losses


def main():
    torch.manual_seed(0)
    model = TinyCausalLM()
    trainer = GRPOTrainer(model)
    prompts = torch.randint(0, 20, (2, 5))
    for step in range(2):
        print("step", step, trainer.train_step(prompts))


if __name__ == "__main__":
    main()
