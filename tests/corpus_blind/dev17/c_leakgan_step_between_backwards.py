# corpus: LeakGAN trainer backpropagates the manager loss with retain_graph=True and steps the manager optimizer before backpropagating the worker loss through the same graph; the step rewrote manager weights the worker's backward still needs.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/RUCAIBox/TextBox/blob/5d58fa801e7e896b89e2f84cbee4d61dd4c228da/textbox/trainer/trainer.py
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class LeakGANGenerator(nn.Module):
    """Manager proposes a goal from the discriminator feature; worker conditions its token logits on it."""

    def __init__(self, vocab_size=16, embed=8, hidden=12, goal_dim=6, feature_dim=10):
        super().__init__()
        self.word_embedding = nn.Embedding(vocab_size, embed)
        self.manager = nn.LSTMCell(feature_dim, hidden)
        self.manager_out = nn.Linear(hidden, goal_dim)
        self.worker = nn.LSTMCell(embed, hidden)
        self.worker_out = nn.Linear(hidden, vocab_size * goal_dim)
        self.goal_proj = nn.Linear(goal_dim, goal_dim, bias=False)
        self.vocab_size = vocab_size
        self.goal_dim = goal_dim
        self.hidden = hidden

    def forward(self, tokens, features):
        batch, seq_len = tokens.shape
        hm = cm = hw = cw = torch.zeros(batch, self.hidden)
        goals, log_probs = [], []
        for t in range(seq_len - 1):
            hm, cm = self.manager(features[:, t], (hm, cm))
            goal = F.normalize(self.manager_out(hm), dim=-1)
            goals.append(goal)
            hw, cw = self.worker(self.word_embedding(tokens[:, t]), (hw, cw))
            w = self.goal_proj(goal)
            logits = (self.worker_out(hw).view(batch, self.vocab_size, self.goal_dim) * w.unsqueeze(1)).sum(-1)
            log_probs.append(F.log_softmax(logits, dim=-1).gather(1, tokens[:, t + 1:t + 2]).squeeze(1))
        return torch.stack(goals, 1), torch.stack(log_probs, 1)

    def calculate_loss(self, tokens, features, rewards):
        goals, log_probs = self(tokens, features)
        feat_diff = features[:, 1:, :self.goal_dim] - features[:, :-1, :self.goal_dim]
        manager_loss = -(rewards * F.cosine_similarity(feat_diff, goals, dim=-1)).mean()
        worker_loss = -(rewards * log_probs).mean()
        return manager_loss, worker_loss


class LeakGANTrainer:
    def __init__(self, model, learning_rate=1e-3, grad_clip=5.0):
        self.model = model
        self.grad_clip = grad_clip
        manager_params, worker_params = [], []
        for name, p in model.named_parameters():
            (manager_params if name.startswith("manager") else worker_params).append(p)
        self.optimizer = (optim.Adam(manager_params, lr=learning_rate), optim.Adam(worker_params, lr=learning_rate))

    def _optimize_step(self, losses, total_loss, model, opt):
        if isinstance(losses, tuple):
            loss = sum(losses)
            loss_tuple = tuple(per_loss.item() for per_loss in losses)
            total_loss = loss_tuple if total_loss is None else tuple(map(sum, zip(total_loss, loss_tuple)))
        else:
            loss = losses
            total_loss = losses.item() if total_loss is None else total_loss + losses.item()

        if isinstance(losses, tuple):
            for i, (o, loss) in enumerate(zip(opt, losses)):
                o.zero_grad()
                loss.backward(retain_graph=True if i < len(opt) - 1 else False)  # also: GG111
                torch.nn.utils.clip_grad_norm_(model.parameters(), self.grad_clip)
                o.step()  # expect: GG111
        else:
            opt.zero_grad()
            losses.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), self.grad_clip)
            opt.step()
        return total_loss

    def _adversarial_train_epoch(self, batches):
        self.model.train()
        total_loss = None
        for tokens, features, rewards in batches:
            losses = self.model.calculate_loss(tokens, features, rewards)
            total_loss = self._optimize_step(losses, total_loss, self.model, self.optimizer)
        return total_loss


def main():
    torch.manual_seed(0)
    model = LeakGANGenerator()
    trainer = LeakGANTrainer(model)
    batches = []
    for _ in range(2):
        tokens = torch.randint(0, 16, (3, 6))
        features = torch.randn(3, 6, 10)
        rewards = torch.rand(3, 5)
        batches.append((tokens, features, rewards))
    print("epoch loss", trainer._adversarial_train_epoch(batches))


if __name__ == "__main__":
    main()
