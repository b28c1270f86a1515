# corpus: classifier trained with a torch_ema-style ExponentialMovingAverage: shadow params are detached clones updated in place under torch.no_grad, swapped in for validation and restored; correct
# source: https://github.com/fadel/pytorch_ema/issues/1
import torch
import torch.nn as nn
import torch.nn.functional as F


class ExponentialMovingAverage:
    def __init__(self, parameters, decay, use_num_updates=True):
        if decay < 0.0 or decay > 1.0:
            raise ValueError("Decay must be between 0 and 1")
        self.decay = decay
        self.num_updates = 0 if use_num_updates else None
        self.shadow_params = [p.clone().detach() for p in parameters if p.requires_grad]
        self.collected_params = []

    @torch.no_grad()
    def update(self, parameters):
        decay = self.decay
        if self.num_updates is not None:
            self.num_updates += 1
            decay = min(decay, (1 + self.num_updates) / (10 + self.num_updates))
        one_minus_decay = 1.0 - decay
        parameters = [p for p in parameters if p.requires_grad]
        for s_param, param in zip(self.shadow_params, parameters):
            s_param.sub_(one_minus_decay * (s_param - param))

    @torch.no_grad()
    def copy_to(self, parameters):
        for s_param, param in zip(self.shadow_params, (p for p in parameters if p.requires_grad)):
            param.copy_(s_param)

    @torch.no_grad()
    def store(self, parameters):
        self.collected_params = [param.clone() for param in parameters]

    @torch.no_grad()
    def restore(self, parameters):
        for c_param, param in zip(self.collected_params, parameters):
            param.copy_(c_param)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return acc


def main():
    torch.manual_seed(0)
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    ema = ExponentialMovingAverage(model.parameters(), decay=0.995)
    x_train, y_train = torch.randn(32, 10), torch.randint(0, 3, (32,))
    x_val, y_val = torch.randn(16, 10), torch.randint(0, 3, (16,))
    w_before = model.fc1.weight.detach().clone()
    for epoch in range(3):
        for xb, yb in zip(x_train.split(8), y_train.split(8)):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            ema.update(model.parameters())
        ema.store(model.parameters())
        ema.copy_to(model.parameters())
        ema_acc = evaluate(model, x_val, y_val)
        ema.restore(model.parameters())
        print(f"epoch {epoch}: loss {loss.item():.4f} raw acc {evaluate(model, x_val, y_val):.3f} ema acc {ema_acc:.3f}")
    print("fc1 weight moved:", (model.fc1.weight - w_before).abs().max().item() > 0)
    print("shadow moved:", (ema.shadow_params[0] - w_before).abs().max().item() > 0)


if __name__ == "__main__":
    main()
