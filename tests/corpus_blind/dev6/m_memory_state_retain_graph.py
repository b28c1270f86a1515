# corpus: MNIST classifier with a recurrent memory state carried from batch to batch (state = next_state, never detached); the "Trying to backward through the graph a second time" error was silenced with loss.backward(retain_graph=True), but the optimizer step in the loop changes the weights the kept graph saved
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/NVlabs/FUNIT/issues/23
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 8
state_size = 32
log_interval = 1


class memory(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3, stride=2, padding=1)
        self.to_state = nn.Linear(8 * 7 * 7, state_size)
        self.recur = nn.Linear(state_size, state_size)
        self.classifier = nn.Linear(state_size, num_classes)

    def zero_state(self, batch_size):
        return torch.zeros(batch_size, state_size)

    def forward(self, x, state):
        feat = torch.flatten(F.relu(self.conv(x)), 1)
        next_state = torch.tanh(self.to_state(feat) + self.recur(state))
        output = self.classifier(next_state)
        return next_state, output


def train(model, device, train_loader, optimizer, epoch):
    global batch_size
    model.train()
    state = model.zero_state(batch_size)
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)

        next_state, output = model(data, state)
        loss = nn.CrossEntropyLoss()(output, target).clone()
        loss.backward(retain_graph=True)  # expect: GG302
        optimizer.step()
        optimizer.zero_grad()
        state = next_state
        if batch_idx % log_interval == 0:
            print("Train Epoch: {} [{}/{}]\tLoss: {:.6f}".format(
                epoch, batch_idx * len(data), len(train_loader) * len(data), loss.item()))


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        state = model.zero_state(batch_size)
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            state, output = model(data, state)
            test_loss += F.cross_entropy(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    print("Test set: Average loss: {:.4f}, Accuracy: {}".format(test_loss / (len(test_loader) * batch_size), correct))


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    model = memory().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    train_loader = [(torch.randn(batch_size, 1, 14, 14), torch.randint(0, 10, (batch_size,))) for _ in range(3)]
    test_loader = [(torch.randn(batch_size, 1, 14, 14), torch.randint(0, 10, (batch_size,)))]
    for epoch in range(1, 3):
        train(model, device, train_loader, optimizer, epoch)
        test(model, device, test_loader)


if __name__ == "__main__":
    main()
