# corpus: image classifier trained with cross-entropy plus a penalty on the norm of the end-to-end input Jacobian; the Jacobian comes from torch.autograd.grad without create_graph=True, so the penalty is a constant and never regularises the weights
# source: https://discuss.pytorch.org/t/how-to-penalize-norm-of-end-to-end-jacobian/62771
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 7 * 7, num_classes)

    def forward(self, x):
        x = F.max_pool2d(torch.tanh(self.conv1(x)), 2)
        x = F.max_pool2d(torch.tanh(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def end_to_end_jacobian_loss(model_output, model_input):
    jacobian, = torch.autograd.grad(model_output, model_input,  # expect: GG202
                                    grad_outputs=torch.ones_like(model_output),
                                    retain_graph=True)
    jacobian_norm = jacobian.norm(2)
    return jacobian_norm


def loss_fn(model_output, model_input, model, target, jacobian_coeff=0.1):
    classification_loss = nn.CrossEntropyLoss()(model_output, target)
    jacobian_norm = end_to_end_jacobian_loss(model_output, model_input)
    return classification_loss + jacobian_coeff * jacobian_norm


def train_model(model, train_dataloader, optimizer, loss_fn, device=None):
    if device is None:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model.train()
    train_loss = 0
    correct = 0
    for batch_idx, (batch_input, batch_target) in enumerate(train_dataloader):
        batch_input, batch_target = batch_input.to(device), batch_target.to(device)
        batch_input.requires_grad_(True)
        optimizer.zero_grad()
        model_batch_output = model(batch_input)
        loss = loss_fn(model_output=model_batch_output, model_input=batch_input, model=model, target=batch_target)
        train_loss += loss.item()  # sum up batch loss
        loss.backward()
        optimizer.step()
        pred = model_batch_output.argmax(dim=1, keepdim=True)
        correct += pred.eq(batch_target.view_as(pred)).sum().item()
    return train_loss / len(train_dataloader), correct


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args([])

    torch.manual_seed(0)
    device = torch.device("cpu")
    model = ConvNet().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    train_dataloader = [(torch.randn(8, 1, 28, 28), torch.randint(0, 10, (8,))) for _ in range(3)]
    for epoch in range(args.epochs):
        avg_loss, correct = train_model(model, train_dataloader, optimizer, loss_fn, device)
        print(f"epoch {epoch} loss {avg_loss:.4f} correct {correct}")


if __name__ == "__main__":
    main()
