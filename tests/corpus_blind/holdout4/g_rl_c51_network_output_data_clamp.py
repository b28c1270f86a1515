# corpus: categorical (C51) DQN update; the network's softmax output is clamped through .data before the cross-entropy, softmax's backward then reads the clamped values it saved and the policy gets silently wrong gradients
# source: https://github.com/floringogianu/categorical-dqn/issues/3
import torch
import torch.nn as nn
import torch.nn.functional as F


class CategoricalNet(nn.Module):
    def __init__(self, state_dim, action_no, support_no):
        super().__init__()
        self.action_no = action_no
        self.support_no = support_no
        self.body = nn.Sequential(nn.Linear(state_dim, 32), nn.ReLU())
        self.head = nn.Linear(32, action_no * support_no)

    def forward(self, x):
        logits = self.head(self.body(x)).view(-1, self.action_no, self.support_no)
        return F.softmax(logits, dim=2)


class CategoricalPolicyImprovement:
    def __init__(self, policy, target_policy, v_min=-10.0, v_max=10.0, support_no=51, gamma=0.99, lr=1e-3):
        self.policy = policy
        self.target_policy = target_policy
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
        self.v_min, self.v_max = v_min, v_max
        self.support_no = support_no
        self.support = torch.linspace(v_min, v_max, support_no)
        self.delta_z = (v_max - v_min) / (support_no - 1)
        self.gamma = gamma

    def _get_categorical(self, next_states, rewards, mask):
        batch_size = next_states.size(0)
        with torch.no_grad():
            probs = self.target_policy(next_states)
            qs = (probs * self.support).sum(2)
            argmax_a = qs.argmax(1)
            qa_probs = probs[torch.arange(batch_size), argmax_a]
        tz = rewards.unsqueeze(1) + self.gamma * mask.unsqueeze(1) * self.support.unsqueeze(0)
        tz = tz.clamp(self.v_min, self.v_max)
        b = (tz - self.v_min) / self.delta_z
        l, u = b.floor().long(), b.ceil().long()
        l[(u > 0) & (l == u)] -= 1
        u[(l < (self.support_no - 1)) & (l == u)] += 1
        m = torch.zeros(batch_size, self.support_no)
        offset = (torch.arange(batch_size) * self.support_no).unsqueeze(1)
        m.view(-1).index_add_(0, (l + offset).view(-1), (qa_probs * (u.float() - b)).view(-1))
        m.view(-1).index_add_(0, (u + offset).view(-1), (qa_probs * (b - l.float())).view(-1))
        return m

    def accumulate_gradient(self, batch):
        states, actions, rewards, next_states, mask = batch
        batch_size = states.size(0)

        # Compute probabilities of Q(s, a*)
        q_probs = self.policy(states)
        q_probs.data.clamp_(0.01, 0.99)  # expect: GG203
        action_mask = actions.view(batch_size, 1, 1).expand(batch_size, 1, self.support_no)
        qa_probs = q_probs.gather(1, action_mask).squeeze(1)

        # Compute distribution of Q(s_, a)
        target_qa_probs = self._get_categorical(next_states, rewards, mask)

        # Compute the cross-entropy of phi(TZ(x_, a)) || Z(x, a)
        loss = -torch.sum(target_qa_probs * torch.log(qa_probs)) / batch_size
        self.optimizer.zero_grad()
        loss.backward()  # also: GG203
        return loss.item()

    def update_model(self):
        self.optimizer.step()


def main():
    torch.manual_seed(0)
    state_dim, action_no, support_no = 6, 3, 51
    policy = CategoricalNet(state_dim, action_no, support_no)
    target = CategoricalNet(state_dim, action_no, support_no)
    target.load_state_dict(policy.state_dict())
    agent = CategoricalPolicyImprovement(policy, target, support_no=support_no)
    for step in range(3):
        batch = (torch.randn(8, state_dim), torch.randint(0, action_no, (8,)), torch.randn(8),
                 torch.randn(8, state_dim), torch.ones(8))
        loss = agent.accumulate_gradient(batch)
        agent.update_model()
        print(f"step {step}: loss {loss:.4f}")


if __name__ == "__main__":
    main()
