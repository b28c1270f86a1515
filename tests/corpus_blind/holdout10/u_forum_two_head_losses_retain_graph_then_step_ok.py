# corpus: correct look-alike - net1 feeds a frozen pretrained net2; loss1.backward(retain_graph=True) then loss2.backward() on the shared graph, with both backwards done before the single optimizer.step()
# source: https://discuss.pytorch.org/t/what-does-the-backward-function-do/9944
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

logs = {"loss1": [], "loss2": []}


class Net1(nn.Module):
    def __init__(self):
        super(Net1, self).__init__()
        self.fc1 = nn.Linear(10, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class Net2(nn.Module):
    """Pretrained classifier on top of net1's output; its weights stay fixed."""

    def __init__(self):
        super(Net2, self).__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, z):
        return self.fc(z)


def train(net1, net2, loader, epochs=2):
    optimizer1 = torch.optim.SGD(net1.parameters(), lr=0.05)
    for p in net2.parameters():
        p.requires_grad = False
    for epoch in range(epochs):
        for x, y_feat, y_cls in loader:
            optimizer1.zero_grad()
            z = net1(x)
            loss1 = F.mse_loss(z, y_feat)
            loss2 = F.cross_entropy(net2(z), y_cls)
            loss1.backward(retain_graph=True)
            loss2.backward()
            optimizer1.step()
            logs["loss1"].append(loss1.item())
            logs["loss2"].append(loss2.item())
        print("epoch", epoch, logs["loss1"][-1], logs["loss2"][-1])


def main():
    x = torch.randn(32, 10)
    y_feat = torch.randn(32, 4)
    y_cls = torch.randint(0, 3, (32,))
    loader = [(x[i:i + 8], y_feat[i:i + 8], y_cls[i:i + 8]) for i in range(0, 32, 8)]
    net1, net2 = Net1(), Net2()
    train(net1, net2, loader)


if __name__ == "__main__":
    main()
